// Section 9 (scale), the entity registry: an entity-typed write's cost as the
// number of entities of its type grows, on one store, printed as one JSON line. Each size gets a fresh memory whose registry is filled by
// the engine itself (rememberMany, one new org per write, names that share no
// word), then two probes are timed, medians of `reps`:
//   a write naming a new org (resolved against every name: near matches),
//   a write naming a known org (the common case),
//   and (stores other processes share) a new org written by a second store
//   object on the same data after the first wrote one: it reloads the registry.
//
//   node bench/workers/registry.mjs <sizes, e.g. 1000,10000> <reps> [memory|okf|indexeddb|postgres] [tmpdir]
//   (postgres: on DATABASE_URL, one fresh scope per size)
import { Memory } from 'credence';
import { median, medianOf, now, nsSince } from '../lib.mjs';
import { closeStores, openStore as openKindOf } from './stores.mjs';

const [sizesArg, repsArg, kind = 'memory', tmp] = process.argv.slice(2);
const sizes = sizesArg.split(',').map(Number);
const reps = Number(repsArg);
const openStore = (size) => openKindOf(kind, `registry-${size}`, tmp);

/** A distinct, pronounceable-enough word per (i, salt): org names that share no word. */
function word(i, salt) {
  let x = (Math.imul(i + 1, 2654435761) ^ Math.imul(salt + 7, 40503)) >>> 0;
  let s = '';
  for (let k = 0; k < 9; k++) {
    s += String.fromCharCode(97 + (x % 26));
    x = (Math.imul(x ^ (x >>> 13), 1103515245) + 12345 + k) >>> 0;
  }
  return s;
}
const org = (i) => `${word(i, 1)} ${word(i, 2)}`;

const timeOf = (fn) => medianOf(reps, fn);

const out = { store: kind, reps, sizes: {} };
// A first, unrecorded size warms the JIT.
for (const size of [Math.min(300, sizes[0]), ...sizes]) {
  const warmUp = out.warm === undefined;
  const memory = new Memory({ store: await openStore(size) });
  for (let i = 0; i < size; i += 500) {
    await memory.rememberMany(Array.from({ length: Math.min(500, size - i) }, (_, k) => ({ subject: `p${i + k}`, predicate: 'works_at', object: org(i + k) })));
  }
  const entities = size;
  const ops = {
    newEntity: await timeOf((i) => memory.remember({ subject: `probe_new_${i}`, predicate: 'works_at', object: org(10_000_000 + i + 2) })),
    knownEntity: await timeOf((i) => memory.remember({ subject: `probe_known_${i}`, predicate: 'works_at', object: org((i + 2) * 7919 % size) })),
  };
  if (kind !== 'memory') {
    const other = new Memory({ store: await openKindOf(kind, `registry-${size}`, tmp, true) });
    const runs = [];
    for (let i = -1; i < reps; i++) {
      await memory.remember({ subject: `probe_a_${i}`, predicate: 'works_at', object: org(20_000_000 + i * 2) });
      const t0 = now();
      await other.remember({ subject: `probe_b_${i}`, predicate: 'works_at', object: org(20_000_001 + i * 2) });
      if (i >= 0) runs.push(nsSince(t0));
    }
    ops.newEntityAfterOther = median(runs);
  }
  if (warmUp) out.warm = { entities };
  else out.sizes[size] = { entities, ops };
}
console.log(JSON.stringify(out));
await closeStores();
