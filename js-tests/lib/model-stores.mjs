// The model-based random test on one persistent store, a test file each
// (model-random-*.test.js): Vitest runs files side by side, one per worker,
// and the stores take minutes each, so one file holding them all was the
// longest pole of every run. ≥ 2,000 random operations per store per run,
// invariants checked after every step (every 4th on PostgreSQL, and at the
// end of each trace). The seed is printed; replay with CREDENCE_MODEL_SEED=<n>;
// CREDENCE_MODEL_OPS=<n> sets operations per store; CREDENCE_MODEL_ASOF=0
// leaves out the as-of check (model-driver.mjs).
import { describe, expect, it } from 'vitest';
import { Memory } from 'credence';
import { joiningMerge, modelSeed, runModel, useMemory } from './model-driver.mjs';

useMemory(Memory);

export const modelOps = Number(process.env.CREDENCE_MODEL_OPS) || 2000;
export const modelAsOf = process.env.CREDENCE_MODEL_ASOF !== '0';

/**
 * The random test on the store `open(traceIndex, seed)` opens (a fresh one per
 * trace); `checkEvery`: steps between invariant checks.
 */
export function storeModelTest(name, open, { checkEvery } = {}) {
  const seed = modelSeed();
  console.log(`model seed for ${name}: ${seed} (replay: CREDENCE_MODEL_SEED=${seed}), ${modelOps} operations`);
  describe('model-based random interleavings keep the invariants', () => {
    it(`${name}: ${modelOps} random operations, 0 violations`, async () => {
      const result = await runModel({ openStore: (i) => open(i, seed), seed, ops: modelOps, merge: joiningMerge, checkEvery, asOf: modelAsOf });
      console.log(`model ${name}: ${result.ops} operations in ${result.traces} traces, 0 violations`);
      expect(result.ops).toBe(modelOps);
    }, 600000);
  });
}
