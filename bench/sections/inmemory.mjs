// Sections 1, 2 and 4 on the default in-memory store: the packed package vs
// the Rust core natively, vs a plain JS Map, and rememberMany vs one at a time.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Memory } from 'credence';
import { fmtNs, fmtX, lastJson, median, nsSince, now, repeat, row, run } from '../lib.mjs';
import { bySlot, histogram, workload } from '../workload.mjs';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BATCH = 100;

/** The native bench (benches/native.rs) over the same candidates. */
function native(file, reps) {
  const env = { ...process.env, CREDENCE_BENCH_WORKLOAD: file, CREDENCE_BENCH_REPS: String(reps), CREDENCE_BENCH_BATCH: String(BATCH) };
  const r = run('cargo', ['bench', '--quiet', '--bench', 'native'], { cwd: ROOT, env });
  return lastJson(r.stdout);
}

async function oneAtATime(candidates, keep) {
  const memory = new Memory();
  const outcomes = [];
  const t0 = now();
  for (const c of candidates) {
    const o = await memory.remember(c);
    if (keep) outcomes.push(o);
  }
  return { ns: nsSince(t0) / candidates.length, outcomes };
}

async function batched(candidates) {
  const memory = new Memory();
  const t0 = now();
  for (let i = 0; i < candidates.length; i += BATCH) await memory.rememberMany(candidates.slice(i, i + BATCH));
  return nsSince(t0) / candidates.length;
}

/** One rememberMany per slot: a batch that holds each slot's writes together. */
async function perSlot(groups, total) {
  const memory = new Memory();
  const t0 = now();
  for (const g of groups) await memory.rememberMany(g);
  return nsSince(t0) / total;
}

/** Last-write-wins into a Map: the floor any write-side layer is measured against. */
function mapFloor(candidates, rounds) {
  let sink = 0;
  const samples = [];
  for (let r = 0; r < rounds; r++) {
    const map = new Map();
    const t0 = now();
    for (const c of candidates) map.set(`${c.subject}\u001f${c.predicate}`, c);
    samples.push(nsSince(t0) / candidates.length);
    sink += map.size;
  }
  return { ns: median(samples.slice(1)), sink };
}

/** What crossing the boundary costs in JS alone: the candidate to JSON text, the outcome back from it. */
function crossingJs(candidates, outcomes) {
  const texts = outcomes.map((o) => JSON.stringify(o));
  const t0 = now();
  let n = 0;
  for (let i = 0; i < candidates.length; i++) {
    n += JSON.stringify(candidates[i]).length;
    n += JSON.parse(texts[i]).slotVersion;
  }
  return { ns: nsSince(t0) / candidates.length, bytes: texts.reduce((s, t) => s + t.length, 0) / texts.length, n };
}

export async function inMemory({ quick, tmp }) {
  const writes = quick ? 3000 : 20000;
  const reps = quick ? 3 : 7;
  const candidates = workload(writes, { seed: 42, prefix: 'u' });
  const file = path.join(tmp, 'workload.json');
  writeFileSync(file, JSON.stringify(candidates));

  // Native reps before and after the wasm ones, so a change in the machine's load hits both sides.
  const natBefore = native(file, Math.ceil(reps / 2));
  // Warm-ups (the first also keeps its outcomes), then the three ways interleaved rep by rep.
  const first = await oneAtATime(candidates, true);
  const groups = bySlot(candidates);
  await batched(candidates);
  await perSlot(groups, candidates.length);
  const runs = await repeat(reps, async () => ({
    single: (await oneAtATime(candidates, false)).ns,
    batch: await batched(candidates),
    slot: await perSlot(groups, candidates.length),
  }), 0);
  const wasm = median(runs.map((r) => r.single));
  const wasmBatch = median(runs.map((r) => r.batch));
  const wasmPerSlot = median(runs.map((r) => r.slot));
  const natAfter = native(file, Math.ceil(reps / 2));
  const nat = { ...natBefore, nsPerWrite: [...natBefore.nsPerWrite, ...natAfter.nsPerWrite], nsPerWriteBatched: [...natBefore.nsPerWriteBatched, ...natAfter.nsPerWriteBatched] };
  const natSingle = median(nat.nsPerWrite);
  const natBatch = median(nat.nsPerWriteBatched);
  const floor = mapFloor(candidates, quick ? 20 : 50);
  const crossing = crossingJs(candidates, first.outcomes);

  const same = JSON.stringify(histogram(first.outcomes)) === JSON.stringify(nat.histogram);
  const mix = Object.entries(nat.histogram).map(([a, n]) => `${a} ${n}`).join(', ');
  const ratioNative = wasm / natSingle;
  const ratioFloor = wasm / floor.ns;
  const ratioBatch = wasm / wasmBatch;
  return {
    rows: [
      row('1', `reconcile write, wasm (Node) vs native Rust (${writes.toLocaleString('en-US')} writes)`, fmtNs(wasm), fmtNs(natSingle), fmtX(ratioNative), '≤ 2×', ratioNative <= 2,
        `same workload both sides (${same ? 'identical' : 'DIFFERENT'} outcomes: ${mix}); ` +
        `batched ${BATCH}/call: wasm ${fmtNs(wasmBatch)} vs native ${fmtNs(natBatch)} (${fmtX(wasmBatch / natBatch)}). ` +
        `Binding overhead per write ${fmtNs(wasm - natSingle)}, of which the JS half of the crossing ` +
        `(candidate → JSON text, ${Math.round(crossing.bytes)}-byte outcome ← JSON.parse) is ${fmtNs(crossing.ns)}.`),
      row('2', 'reconcile write vs plain JS Map.set (last write wins)', fmtNs(wasm), fmtNs(floor.ns), fmtX(ratioFloor), '≤ 10×', ratioFloor <= 10,
        `the Map does no reading, no reconciling, no log and no crossing; the native core alone is ${fmtX(natSingle / floor.ns)} the Map, ` +
        `the crossing's JS half alone ${fmtX(crossing.ns / floor.ns)}.`),
      row('4', `rememberMany (${BATCH}/call) vs remember, per write`, fmtNs(wasmBatch), fmtNs(wasm), fmtX(ratioBatch), '≥ 3× faster', ratioBatch >= 3,
        `candidates in arrival order (slots mixed); one call per slot holding its 1–20 writes: ${fmtNs(wasmPerSlot)} (${fmtX(wasm / wasmPerSlot)}). ` +
        `A batch saves the per-call crossing and promise, and one load + commit per slot; the reconcile work per write (native ${fmtNs(natBatch)} batched) stays.`),
    ],
    data: { writes, reps, wasm, wasmBatch, wasmPerSlot, natSingle, natBatch, floor: floor.ns, crossing, histogram: nat.histogram, same },
  };
}
