// Sections 1, 2 and 4 on the default in-memory store: the packed package vs
// the Rust core natively, vs a plain JS Map, and rememberMany vs one at a time;
// each also against the last release before the speed work (bench/baseline.mjs).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Memory } from 'credence';
import { fmtNs, fmtX, lastJson, median, nsSince, now, repeat, row, run } from '../lib.mjs';
import { bySlot, histogram, workload } from '../workload.mjs';
import { baseline } from '../baseline.mjs';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BATCH = 100;

/** The native bench (benches/native.rs) of the tree at `cwd` over the same candidates. */
function native(file, reps, cwd = ROOT) {
  const env = { ...process.env, CREDENCE_BENCH_WORKLOAD: file, CREDENCE_BENCH_REPS: String(reps), CREDENCE_BENCH_BATCH: String(BATCH) };
  const r = run('cargo', ['bench', '--quiet', '--bench', 'native'], { cwd, env });
  return lastJson(r.stdout);
}

/** Native reps before and after the wasm ones: a change in the machine's load hits both sides. */
function joined(before, after) {
  return {
    ...before,
    single: median([...before.nsPerWrite, ...after.nsPerWrite]),
    batch: median([...before.nsPerWriteBatched, ...after.nsPerWriteBatched]),
  };
}

async function oneAtATime(candidates, keep, Mem = Memory) {
  const memory = new Mem();
  const outcomes = [];
  const t0 = now();
  for (const c of candidates) {
    const o = await memory.remember(c);
    if (keep) outcomes.push(o);
  }
  return { ns: nsSince(t0) / candidates.length, outcomes };
}

async function batched(candidates, Mem = Memory) {
  const memory = new Mem();
  const t0 = now();
  for (let i = 0; i < candidates.length; i += BATCH) await memory.rememberMany(candidates.slice(i, i + BATCH));
  return nsSince(t0) / candidates.length;
}

/** One rememberMany per slot: a batch that holds each slot's writes together. */
async function perSlot(groups, total, Mem = Memory) {
  const memory = new Mem();
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
  const base = await baseline();
  const natReps = Math.ceil(reps / 2);

  const natBefore = native(file, natReps);
  const baseNatBefore = base && native(file, natReps, base.srcDir);
  // Warm-ups (the first also keeps its outcomes), then every way interleaved rep by rep.
  const first = await oneAtATime(candidates, true);
  const baseFirst = base && (await oneAtATime(candidates, true, base.Memory));
  const groups = bySlot(candidates);
  await batched(candidates);
  await perSlot(groups, candidates.length);
  if (base) await batched(candidates, base.Memory);
  const runs = await repeat(reps, async () => ({
    single: (await oneAtATime(candidates, false)).ns,
    batch: await batched(candidates),
    slot: await perSlot(groups, candidates.length),
    baseSingle: base ? (await oneAtATime(candidates, false, base.Memory)).ns : NaN,
    baseBatch: base ? await batched(candidates, base.Memory) : NaN,
  }), 0);
  const med = (key) => median(runs.map((r) => r[key]));
  const [wasm, wasmBatch, wasmPerSlot, baseWasm, baseWasmBatch] = ['single', 'batch', 'slot', 'baseSingle', 'baseBatch'].map(med);
  const nat = joined(natBefore, native(file, natReps));
  const baseNat = base && joined(baseNatBefore, native(file, natReps, base.srcDir));
  const floor = mapFloor(candidates, quick ? 20 : 50);
  const crossing = crossingJs(candidates, first.outcomes);

  const same = JSON.stringify(histogram(first.outcomes)) === JSON.stringify(nat.histogram);
  const sameAsBase = !base || (JSON.stringify(histogram(baseFirst.outcomes)) === JSON.stringify(nat.histogram) && JSON.stringify(baseNat.histogram) === JSON.stringify(nat.histogram));
  const mix = Object.entries(nat.histogram).map(([a, n]) => `${a} ${n}`).join(', ');
  const ratioNative = wasm / nat.single;
  const ratioFloor = wasm / floor.ns;
  const ratioBatch = wasm / wasmBatch;
  const rows = [
    row('1', `reconcile write, wasm (Node) vs native Rust (${writes.toLocaleString('en-US')} writes)`, fmtNs(wasm), fmtNs(nat.single), fmtX(ratioNative), '≤ 2×', ratioNative <= 2,
      `same workload both sides (${same ? 'identical' : 'DIFFERENT'} outcomes: ${mix}); ` +
      `batched ${BATCH}/call: wasm ${fmtNs(wasmBatch)} vs native ${fmtNs(nat.batch)} (${fmtX(wasmBatch / nat.batch)}). ` +
      `Binding overhead per write ${fmtNs(wasm - nat.single)}, of which the JS half of the crossing ` +
      `(candidate → JSON text, ${Math.round(crossing.bytes)}-byte outcome ← JSON.parse) is ${fmtNs(crossing.ns)}.`),
  ];
  if (base) {
    const speedup = baseWasm / wasm;
    const natSpeedup = baseNat.single / nat.single;
    rows.push(
      row('1a', `write through the package vs the package of ${base.commit} (before #20)`, fmtNs(wasm), fmtNs(baseWasm), `${fmtX(speedup)} faster`, '≥ 3× faster', speedup >= 3,
        `both installed side by side, reps interleaved; outcomes ${sameAsBase ? 'identical' : 'DIFFERENT'} to the baseline's (package and native). ` +
        `Batched ${BATCH}/call: ${fmtNs(wasmBatch)} vs ${fmtNs(baseWasmBatch)} (${fmtX(baseWasmBatch / wasmBatch)} faster); ` +
        `the baseline's wasm was ${fmtX(baseWasm / baseNat.single)} its native core.`),
      row('1b', `native core write vs the native core of ${base.commit}`, fmtNs(nat.single), fmtNs(baseNat.single), `${fmtX(natSpeedup)} faster`, '≥ 2× faster', natSpeedup >= 2,
        `benches/native.rs of each tree, reps before and after the wasm ones; batched ${BATCH}/call: ${fmtNs(nat.batch)} vs ${fmtNs(baseNat.batch)} (${fmtX(baseNat.batch / nat.batch)} faster).`),
    );
  }
  rows.push(
    row('2', 'reconcile write vs plain JS Map.set (last write wins)', fmtNs(wasm), fmtNs(floor.ns), fmtX(ratioFloor), '≤ 10×', ratioFloor <= 10,
      `the Map does no reading, no reconciling, no log and no crossing; the native core alone is ${fmtX(nat.single / floor.ns)} the Map, ` +
      `the crossing's JS half alone ${fmtX(crossing.ns / floor.ns)}.`),
    row('4', `rememberMany (${BATCH}/call) vs remember, per write`, fmtNs(wasmBatch), fmtNs(wasm), `${fmtX(ratioBatch)} faster`, '≥ 2× faster', ratioBatch >= 2,
      `candidates in arrival order (slots mixed); one call per slot holding its 1–20 writes: ${fmtNs(wasmPerSlot)} (${fmtX(wasm / wasmPerSlot)}). ` +
      `A batch saves the per-call crossing and promise, and one load + commit per slot; the reconcile work per write (native ${fmtNs(nat.batch)} batched) stays.` +
      (base ? ` The baseline: ${fmtX(baseWasm / baseWasmBatch)}.` : '')),
  );
  return {
    rows,
    data: { writes, reps, wasm, wasmBatch, wasmPerSlot, natSingle: nat.single, natBatch: nat.batch, floor: floor.ns, crossing, histogram: nat.histogram, same, sameAsBase,
      baseline: base && { commit: base.commit, wasm: baseWasm, wasmBatch: baseWasmBatch, natSingle: baseNat.single, natBatch: baseNat.batch } },
  };
}
