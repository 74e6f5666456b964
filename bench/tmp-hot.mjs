import { Memory, MemoryStore } from 'credence';
const N = +process.argv[2] || 4000;
const withIds = process.argv[3] === 'ids';
const store = new MemoryStore();
const m = new Memory({ store });
const t = [];
for (let i = 0; i < N; i++) {
  const t0 = performance.now();
  const o = await m.remember({ subject: 'u', predicate: 'located_in', object: 'Paris', provenance: { sourceId: 'src' + (i % 7) }, ...(withIds ? { id: 'w' + i } : {}) });
  t.push(performance.now() - t0);
  if (i === N - 1) console.log('action', o.action, 'prov', o.claim.provenance.length, 'outcome bytes', JSON.stringify(o).length);
}
const avg = (a) => (a.reduce((s, x) => s + x, 0) / a.length).toFixed(3);
console.log('first 100', avg(t.slice(0, 100)), 'ms; last 100', avg(t.slice(-100)), 'ms');
const ref = (await store.listSlots({ subject: 'u' }))[0];
const slot = await store.loadSlot(ref);
console.log('slot JSON bytes', JSON.stringify(slot).length, 'writes', slot.writes.length);
