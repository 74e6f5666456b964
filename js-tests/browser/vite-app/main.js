// A page bundled by Vite, importing the package by name like any app would.
import { Memory, IndexedDbStore, CredenceError } from 'credence';

const out = document.getElementById('result');
try {
  const store = new IndexedDbStore('credence-vite-app');
  const memory = new Memory({ store });
  await memory.remember({ predicate: 'born_on', object: '1990-01-01', provenance: { sourceId: 'passport' } });
  const second = await memory.remember({ predicate: 'born_on', object: '1991-02-02', provenance: { sourceId: 'chat' } });
  const conflicts = await memory.conflicts({ status: 'open' });
  const bad = await memory.remember({ predicate: '', object: 'x' }).catch((e) => e);
  const result = {
    action: second.action,
    conflicts: conflicts.map((c) => [c.kind, c.earlier.object, c.newer.object]),
    errorIsCredenceError: bad instanceof CredenceError,
  };
  out.textContent = JSON.stringify(result);
  document.body.dataset.result = 'ok';
} catch (err) {
  out.textContent = `${err?.name}: ${err?.message}`;
  document.body.dataset.result = 'error';
}
