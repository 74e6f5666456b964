// Section 3, in its own process (run with --expose-gc): per-write cost on an
// empty in-memory store vs on one already holding `target` claims, and the
// memory each stored claim takes. Prints one JSON line.
//
//   node --expose-gc bench/workers/growth.mjs <targetClaims> <templateWrites> <probeWrites> <reps>
//
// Filling a store with a million claims write by write takes minutes, so the
// engine writes a template store (`templateWrites` candidates of the shared
// workload) and its slots — claims, conflicts, idempotency records and log,
// exactly as the engine made them — are copied under fresh subjects and claim
// ids through MemoryStore.commitSlot until the store holds `target` claims.
// The slots memory keeps for itself (one per org entity, found by its keys
// when a works_at write names it, and the calibration record) are the
// template's, copied once: they grow with distinct org names, not with copies.
import { Memory, MemoryStore } from 'credence';
import { ENTITY, gc, isReservedText, median, nsSince, now } from '../lib.mjs';
import { workload } from '../workload.mjs';

const [target, templateWrites, writes, reps] = process.argv.slice(2).map(Number);
const ENTITY_TYPED = new Set(['works_at']); // objects resolved to org entities by key

/** Writes `candidates` one at a time; ns per write overall and split by entity-typed predicates. */
async function timed(memory, candidates) {
  let all = 0;
  let typed = 0;
  let typedN = 0;
  for (const c of candidates) {
    const t0 = now();
    await memory.remember(c);
    const ns = nsSince(t0);
    all += ns;
    if (ENTITY_TYPED.has(c.predicate)) {
      typed += ns;
      typedN++;
    }
  }
  return { all: all / candidates.length, typed: typed / typedN, plain: (all - typed) / (candidates.length - typedN) };
}

// The same candidates each time, under a fresh subject prefix so every rep
// writes into empty slots: only the store around them differs.
const probe = (tag) => workload(writes, { seed: 7, prefix: `${tag}_` });
const summarize = (runs) => Object.fromEntries(['all', 'typed', 'plain'].map((k) => [k, median(runs.map((r) => r[k]))]));

await timed(new Memory(), probe('w')); // warm-up (V8 tiers hot wasm functions up meanwhile)

// The template, written by the engine.
const template = new MemoryStore();
const writer = new Memory({ store: template });
const candidates = workload(templateWrites, { seed: 1000, prefix: 't_' });
let t0 = now();
for (let i = 0; i < candidates.length; i += 1000) await writer.rememberMany(candidates.slice(i, i + 1000));
const templateNsPerWrite = nsSince(t0) / candidates.length;
await writer.idle(); // a background calibration, if one became due, before the slots are read
const slots = [];
for (const ref of await template.listSlots({})) {
  slots.push(JSON.stringify({ ref, slot: await template.loadSlot(ref), log: await template.readLog(ref) }));
}

gc();
const before = process.memoryUsage();
const store = new MemoryStore();
let copies = 0;
t0 = now();
// The in-memory store files an entity slot's key rows from the slot itself.
for (const text of slots.filter(isReservedText)) {
  const { ref, slot, log } = JSON.parse(text);
  await store.commitSlot({ ref, expectedVersion: 0, slot, changedClaims: [], changedConflicts: [], log });
}
while (store.claimCount < target) {
  const k = copies++;
  for (const text of slots) {
    if (isReservedText(text)) continue;
    // Fresh subjects and ids: "t_12" → "c3_12", "cl_9f…" → "cl_3x9f…".
    const copy = JSON.parse(text.replaceAll('"t_', `"c${k}_`).replaceAll('"cl_', `"cl_${k}x`).replaceAll('"cf_', `"cf_${k}x`));
    const { ref, slot, log } = copy;
    await store.commitSlot({
      ref, expectedVersion: 0, slot, log,
      changedClaims: slot.claims.map((c) => c.id),
      changedConflicts: slot.conflicts.map((c) => c.id),
    });
    if (store.claimCount >= target) break;
  }
}
const fillNs = nsSince(t0);
const claims = store.claimCount;
gc();
const after = process.memoryUsage();

// Empty and full runs interleaved, after a warm-up of each, so that tier-up
// and the machine's load affect both alike.
const memory = new Memory({ store });
await timed(new Memory(), probe('we'));
await timed(memory, probe('wf'));
const emptyRuns = [];
const fullRuns = [];
for (let i = 0; i < reps; i++) {
  emptyRuns.push(await timed(new Memory(), probe(`e${i}`)));
  fullRuns.push(await timed(memory, probe(`f${i}`)));
}

const orgEntities = (await store.listSlots({ subject: ENTITY })).filter((r) => r.predicate.startsWith('org:')).length;
console.log(JSON.stringify({
  claims,
  copies,
  templateClaims: template.claimCount,
  templateNsPerWrite,
  fillSeconds: fillNs / 1e9,
  empty: summarize(emptyRuns),
  full: summarize(fullRuns),
  rssPerClaim: (after.rss - before.rss) / claims,
  heapPerClaim: (after.heapUsed + after.external + after.arrayBuffers - before.heapUsed - before.external - before.arrayBuffers) / claims,
  rssMB: after.rss / 1048576,
  orgEntities,
}));
