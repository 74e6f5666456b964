// Section 11 worker (issue #43): one slot written many times, by shape. Prints
// one JSON line: per shape, the mean ms per write of the first and the last
// `window` writes, their ratio, and the hot slot document's size at the end.
// `node bench/workers/slot-shapes.mjs <writes> <window> [shape,...]`
// CREDENCE_BENCH_WARMUP=N first writes N of the shape into a throw-away
// Memory, so the first window measures a warmed-up JIT, not its warm-up.
// Shapes: replace (working memory), append (maxEntries 0: every entry stays
// active), appendCapped (maxEntries 50), merge_on_read, timeVarying (a
// located_in that changes every day), multi (a multi-valued slot of distinct values).
import { Memory, MemoryStore } from 'credence';

const [writes = 10_000, window = 1_000] = process.argv.slice(2, 4).map(Number);
const only = process.argv[4] ? new Set(process.argv[4].split(',')) : null;
const DAY = 86_400_000;
const SHAPES = {
  replace: (i) => [{ subject: 'agent', predicate: 'context.current.task', object: `task ${i}` }, { strategy: 'replace' }],
  append: (i) => [{ subject: 'agent', predicate: 'experience.log', object: `turn ${i}` }, { strategy: 'append' }],
  appendCapped: (i) => [{ subject: 'agent', predicate: 'experience.turns', object: `turn ${i}` }, { strategy: 'append' }],
  merge_on_read: (i) => [{ subject: 'agent', predicate: 'notes.turns', object: `note ${i}` }, { strategy: 'merge_on_read' }],
  timeVarying: (i, t) => [{ subject: 'ana', predicate: 'located_in', object: `city ${i % 50} ${Math.floor(i / 50)}`, provenance: { sourceId: 'gps', observedAt: new Date(t).toISOString() } }, undefined],
  multi: (i) => [{ subject: 'ana', predicate: 'likes', object: `thing ${i}` }, undefined],
};

const out = {};
for (const [name, make] of Object.entries(SHAPES)) {
  if (only && !only.has(name)) continue;
  const warm = Number(process.env.CREDENCE_BENCH_WARMUP ?? 0);
  if (warm > 0) {
    let w = Date.UTC(2025, 0, 1);
    const scratch = new Memory({ store: new MemoryStore(), now: () => new Date(w).toISOString(), maxEntries: name === 'append' ? 0 : 50 });
    for (let i = 0; i < warm; i++) {
      w += name === 'timeVarying' ? DAY : 1000;
      await scratch.remember(...make(i, w));
    }
  }
  let t = Date.UTC(2026, 0, 1);
  const store = new MemoryStore();
  // maxEntries 0: append slots keep every entry active, the growth a long log meets.
  const memory = new Memory({ store, now: () => new Date(t).toISOString(), maxEntries: name === 'append' ? 0 : 50 });
  const times = [];
  for (let i = 0; i < writes; i++) {
    t += name === 'timeVarying' ? DAY : 1000;
    const [c, o] = make(i, t);
    const t0 = process.hrtime.bigint();
    await memory.remember(c, o);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const first = mean(times.slice(0, window));
  const last = mean(times.slice(-window));
  const [c] = make(0, t);
  const slot = await store.loadSlot({ key: `${c.subject}\u001f${c.predicate}`, subject: c.subject, predicate: c.predicate });
  const bytes = Buffer.byteLength(JSON.stringify(slot));
  // The full history comes back from the archive (SPEC §8), timed once.
  const h0 = process.hrtime.bigint();
  const history = await memory.recall(c.subject, { predicate: c.predicate, includeHistory: true });
  const historyMs = Number(process.hrtime.bigint() - h0) / 1e6;
  out[name] = { writes, window, firstMs: first, lastMs: last, ratio: last / first, slotBytes: bytes, claims: slot.claims?.length ?? null,
    archivedClaims: slot.archivedClaims ?? 0, history: history.length, historyMs };
  process.stderr.write(` ${name}:${(last / first).toFixed(2)}x`);
}
console.log(JSON.stringify(out));
