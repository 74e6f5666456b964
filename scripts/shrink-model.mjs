// Shrinks a trace the wide model generator (js-tests/lib/model-driver.mjs)
// failed on to the fewest operations that still fail the same way, for a
// FOUND_TRACES entry in js-tests/vitest/model-random.test.js.
// Usage (after the package is built and installed): node scripts/shrink-model.mjs <seed> [--plain]
// (--plain: a seed of the plain generator, as model-random-*.test.js print them).
import { Memory, MemoryStore } from 'credence';
import { joiningMerge, runModel, useMemory } from '../js-tests/lib/model-driver.mjs';

useMemory(Memory);
const seed = Number(process.argv[2]);
const wide = !process.argv.includes('--plain');
if (!Number.isInteger(seed) || seed <= 0) throw new Error('usage: node scripts/shrink-model.mjs <seed> [--plain]');

/** The failure message of a run (the seed's generator, or `replay`), or null. */
async function failure(replay) {
  try {
    await runModel({ openStore: () => new MemoryStore(), seed: replay ? 1 : seed, ops: 2000, merge: joiningMerge, wide, asOf: true, replay });
    return null;
  } catch (e) {
    if (e.seed === undefined) throw e;
    return e.message;
  }
}

const first = await failure(null);
if (!first) {
  console.log(`seed ${seed}: no failure in 2000 operations`);
  process.exit(0);
}
console.log(first.split('\n')[0]);
// The same failure: the same invariant rule, else the same first words of the message.
const what = first.split('\n')[0].replace(/^.*?step \d+: /, '');
const kind = what.match(/^violation \[\w+\]/)?.[0] ?? what.split(' ').slice(0, 2).join(' ');
const same = async (trace) => (await failure(trace))?.includes(kind) ?? false;

let trace = JSON.parse(first.split('\ntrace: ')[1]);
for (let changed = true; changed; ) {
  changed = false;
  for (let i = trace.length - 1; i >= 0; i--) {
    const fewer = trace.filter((_, j) => j !== i);
    if (await same(fewer)) [trace, changed] = [fewer, true];
  }
  // Fewer writes inside batches and races (a race needs its two).
  for (const [i, op] of trace.entries()) {
    if (op.op !== 'batch') continue;
    for (let k = op.ws.length - 1; k >= 0 && trace[i].ws.length > 1; k--) {
      const fewer = structuredClone(trace);
      fewer[i].ws.splice(k, 1);
      if (await same(fewer)) [trace, changed] = [fewer, true];
    }
  }
}
console.log((await failure(trace)).split('\n')[0]);
console.log(JSON.stringify(trace));
