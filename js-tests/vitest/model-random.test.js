// The model-based random test (js-tests/lib/model-driver.mjs) through the
// packed package: the in-memory store (and PostgreSQL on a server, when
// scripts/test-extra-stores.sh provides one), seeds and traces that once
// failed, and the wide generator. Each persistent store has a file of its own
// (model-random-*.test.js, js-tests/lib/model-stores.mjs), so Vitest runs
// them side by side. The seed is printed; replay with CREDENCE_MODEL_SEED=<n>;
// CREDENCE_MODEL_OPS=<n> sets operations per store; CREDENCE_MODEL_ASOF=0
// leaves out the as-of check (model-driver.mjs).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { MemoryStore, POSTGRES_SCHEMA, PostgresStore } from 'credence';
import { joiningMerge, modelSeed, runModel } from '../lib/model-driver.mjs';
import { modelAsOf as asOf, modelOps as ops, storeModelTest } from '../lib/model-stores.mjs';

const seed = modelSeed();
console.log(`model seed (wide generator): ${seed} (replay: CREDENCE_MODEL_SEED=${seed}), ${ops} operations`);

storeModelTest('MemoryStore', () => new MemoryStore());

// The real server, when scripts/test-extra-stores.sh provides one.
const url = process.env.DATABASE_URL;
const server = url ? new pg.Pool({ connectionString: url, max: 4 }) : null;
if (server) {
  beforeAll(() => server.query(POSTGRES_SCHEMA), 60000);
  afterAll(() => server.end());
  storeModelTest('PostgresStore (server)', (i, seed) => new PostgresStore(server, { scope: `model-${seed}-${i}` }), { checkEvery: 4 });
}

// Seeds that once found a violation, replayed on every run (the MemoryStore is enough: the engine decided).
const FOUND = [
  // A refinement carried the general claim's observations into the period a
  // retracted claim of the refined value covered: two claims of one value (duplicate_value).
  { seed: 554078383, ops: 300 },
];

// Shrunk traces of the wide generator that once found a violation, replayed as
// they are (scripts/shrink-model.mjs <seed> shrinks a failing seed's trace).
const FOUND_TRACES = [
  {
    why: 'a value replaced with no period of its own (recorded after its successor began) came to hold again when the successor was split around an earlier report, overlapping that report (plain seed 730691)',
    trace: [
      { op: 'write', w: { s: 0, p: 0, o: 3, src: 2, valid: null, strat: 2, key: 123, entity: false } },
      { op: 'write', w: { s: 0, p: 0, o: 2, src: 0, valid: { year: 2023 }, strat: 8, key: null, entity: false } },
      { op: 'write', w: { s: 0, p: 0, o: 0, src: 2, valid: { days: 22 }, strat: 1, key: 76, entity: false } },
      { op: 'write', w: { s: 0, p: 0, o: 3, src: 1, valid: { year: 2025 }, strat: 1, key: 66, entity: false } },
    ],
  },
  {
    why: 'a report of a value held by an active claim, judged against a more specific form of it that started later, was stored as history over the claim it repeats (plain seed 720231)',
    trace: [
      { op: 'write', w: { s: 1, p: 3, o: 4, src: 1, valid: { days: -27 }, strat: 0, key: 189, entity: false } },
      { op: 'write', w: { s: 1, p: 3, o: 2, src: 3, valid: { days: 11 }, strat: 7, key: 109, entity: false } },
      { op: 'write', w: { s: 1, p: 3, o: 1, src: 3, valid: { days: -297 }, strat: 5, key: 47, entity: false } },
      { op: 'write', w: { s: 1, p: 3, o: 0, src: 2, valid: { year: 2025 }, strat: 5, key: null, entity: false } },
    ],
  },
  {
    why: 'a write refined in its slot, then merged again after an undone merge: re-sent, it replayed the retired copy the undone merge had carried its record to (plain seed 250183)',
    trace: [
      { op: 'batch', ws: [{ s: 0, p: 4, o: 1, src: 3, valid: null, strat: 1, key: null, entity: false }, { s: 0, p: 2, o: 5, src: 0, valid: { days: 16 }, strat: 9, key: 124, entity: true }, { s: 0, p: 2, o: 3, src: 0, valid: { year: 2025 }, strat: 7, key: null, entity: false }, { s: 1, p: 4, o: 3, src: 1, valid: { year: 2024 }, strat: 1, key: 20, entity: false }] },
      { op: 'write', w: { s: 1, p: 1, o: 0, src: 0, valid: { days: 17 }, strat: 7, key: 42, entity: true } },
      { op: 'merge', a: 0, b: 1 },
      { op: 'undoMerge', n: 3 },
      { op: 'write', w: { s: 1, p: 1, o: 2, src: 3, valid: { year: 2026 }, strat: 1, key: null, entity: true } },
      { op: 'merge', a: 0, b: 1 },
      { op: 'write', w: { s: 1, p: 2, o: 5, src: 0, valid: { days: -105 }, strat: 1, key: 42, entity: false } },
    ],
  },
  {
    why: 'a question asked after an entity merge against the copy that outweighed a value did not survive the merge\'s undo (two_current_values, plain seed 92020)',
    trace: [
      { op: 'write', w: { s: 1, p: 4, o: 4, src: 0, valid: null, strat: 10, key: 0, entity: true } },
      { op: 'write', w: { s: 0, p: 4, o: 1, src: 3, valid: null, strat: 2, key: null, entity: true } },
      { op: 'write', w: { s: 1, p: 4, o: 2, src: 2, valid: null, strat: 5, key: null, entity: true } },
      { op: 'merge', a: 0, b: 1 },
      { op: 'write', w: { s: 0, p: 4, o: 5, src: 2, valid: { year: 2024 }, strat: 5, key: null, entity: true } },
      { op: 'undoMerge', n: 0 },
    ],
  },
  {
    why: 'a merged entry with a stated start (carrying an observation from before it) was split around a newer value, its history copy over the value it merged (duplicate_value)',
    trace: [
      { op: 'race', ws: [{ s: 1, p: 4, o: 4, src: 0, valid: { days: 41 }, strat: 8, key: null, entity: false, obsDaysBack: 3 }, { s: 1, p: 4, o: 1, src: 0, valid: null, strat: 2, key: null, entity: true }] },
      { op: 'wait', days: 169 },
      { op: 'race', ws: [{ s: 0, p: 1, o: 4, src: 3, valid: { days: -285 }, strat: 11, key: 102, entity: true }, { s: 1, p: 5, o: 0, src: 3, valid: { year: 2024 }, strat: 1, key: null, entity: true }] },
      { op: 'merge', a: 1, b: 0 },
      { op: 'write', w: { s: 1, p: 4, o: 3, src: 3, valid: { days: -195 }, strat: 9, key: 103, entity: true } },
      { op: 'write', w: { s: 0, p: 4, o: 1, src: 1, valid: { days: -129 }, strat: 4, key: 48, entity: true } },
    ],
  },
  {
    why: 'a first report of a general value (no current claim) was added beside history of its more specific form it should have confirmed, and a refinement then overlapped that history (duplicate_value)',
    trace: [
      { op: 'write', w: { s: 1, p: 4, o: 2, src: 0, valid: { days: -15 }, strat: 5, key: null, entity: false } },
      { op: 'retract', n: 13 },
      { op: 'write', w: { s: 0, p: 2, o: 3, src: 0, valid: { year: 2024 }, strat: 8, key: null, entity: true } },
      { op: 'write', w: { s: 0, p: 0, o: 5, src: 2, valid: null, strat: 5, key: null, entity: false } },
      { op: 'write', w: { s: 1, p: 1, o: 1, src: 3, valid: null, strat: 11, key: 186, entity: false } },
      { op: 'write', w: { s: 0, p: 0, o: 2, src: 3, valid: { year: 2023 }, strat: 3, key: 7, entity: false } },
      { op: 'write', w: { s: 1, p: 4, o: 0, src: 2, valid: null, strat: 11, key: null, entity: false } },
      { op: 'write', w: { s: 1, p: 4, o: 5, src: 0, valid: { year: 2026 }, strat: 6, key: null, entity: false } },
      { op: 'write', w: { s: 1, p: 4, o: 4, src: 0, valid: { days: 2 }, strat: 6, key: null, entity: false } },
      { op: 'retract', n: 10 },
      { op: 'batch', ws: [{ s: 0, p: 0, o: 1, src: 0, valid: { year: 2024 }, strat: 1, key: null, entity: false }, { s: 0, p: 0, o: 2, src: 1, valid: null, strat: 1, key: null, entity: false }, { s: 1, p: 2, o: 0, src: 1, valid: { days: -75 }, strat: 1, key: null, entity: false }] },
    ],
  },
  {
    why: 'an undone entity merge left the ask_user question of a claim its copy had refined naming the retired copy: the claim stood current beside its rival unasked (two_current_values)',
    trace: [
      { op: 'write', w: { s: 0, p: 3, o: 3, src: 3, valid: { year: 2024 }, strat: 5, key: null, entity: true } },
      { op: 'write', w: { s: 0, p: 3, o: 0, src: 1, valid: { year: 2025 }, strat: 5, key: null, entity: true } },
      { op: 'write', w: { s: 1, p: 3, o: 2, src: 0, valid: { days: -111 }, strat: 3, key: 108, entity: true } },
      { op: 'merge', a: 0, b: 1 },
      { op: 'undoMerge', n: 2 },
    ],
  },
  {
    why: 'a back-dated report of a scheduled value became a refinement of a value stated between, beside the scheduled claim (duplicate_value)',
    trace: [
      { op: 'write', w: { s: 0, p: 0, o: 2, src: 0, valid: { days: 56 }, strat: 3, key: null, entity: false } },
      { op: 'write', w: { s: 0, p: 0, o: 0, src: 1, valid: { days: -29 }, strat: 5, key: null, entity: false } },
      { op: 'batch', ws: [{ s: 1, p: 2, o: 1, src: 3, valid: null, strat: 11, key: null, entity: false }, { s: 0, p: 0, o: 2, src: 2, valid: { year: 2024 }, strat: 9, key: null, entity: false }, { s: 1, p: 2, o: 2, src: 2, valid: null, strat: 9, key: null, entity: false }, { s: 1, p: 3, o: 1, src: 0, valid: null, strat: 10, key: 172, entity: false }] },
    ],
  },
  {
    why: 'a merged entry (its start only its first observation) was split around a newer value, its history copy over the value it merged (duplicate_value)',
    trace: [
      { op: 'write', w: { s: 1, p: 4, o: 0, src: 3, valid: { year: 2025 }, strat: 11, key: null, entity: false, obsDaysBack: 1 } },
      { op: 'wait', days: 152 },
      { op: 'write', w: { s: 1, p: 4, o: 1, src: 1, valid: null, strat: 9, key: null, entity: false } },
      { op: 'write', w: { s: 1, p: 4, o: 4, src: 0, valid: null, strat: 1, key: null, entity: false, obsDaysBack: 3 } },
    ],
  },
  {
    why: 'a back-dated report of a less specific value moved a claim of the value back over a retracted claim of it (duplicate_value)',
    trace: [
      { op: 'write', w: { s: 1, p: 0, o: 2, src: 2, valid: { days: -184 }, strat: 11, key: null, entity: false } },
      { op: 'retract', n: 4 },
      { op: 'write', w: { s: 1, p: 0, o: 2, src: 2, valid: { days: -185 }, strat: 1, key: null, entity: false } },
      { op: 'write', w: { s: 1, p: 0, o: 0, src: 1, valid: { year: 2023 }, strat: 3, key: 42, entity: false } },
    ],
  },
  {
    why: 'a back-dated report of a value moved a claim of it back over a value stated for the same start (duplicate_value)',
    trace: [
      { op: 'write', w: { s: 0, p: 0, o: 4, src: 3, valid: { year: 2025 }, strat: 11, key: 74, entity: false } },
      { op: 'write', w: { s: 0, p: 0, o: 0, src: 3, valid: { days: -202 }, strat: 2, key: null, entity: false } },
      { op: 'write', w: { s: 0, p: 0, o: 4, src: 0, valid: { days: 42 }, strat: 8, key: 47, entity: false } },
      { op: 'wait', days: 73 },
      { op: 'retract', n: 2 },
      { op: 'write', w: { s: 0, p: 0, o: 1, src: 0, valid: { year: 2025 }, strat: 11, key: null, entity: false } },
    ],
  },
  {
    why: 'two values recorded at one instant before a scheduled change both showed in as-of reads (as-of check)',
    trace: [
      { op: 'write', w: { s: 0, p: 4, o: 1, src: 0, valid: { days: 44 }, strat: 6, key: null, entity: false, obsDaysBack: 4 } },
      { op: 'race', ws: [{ s: 0, p: 4, o: 4, src: 2, valid: null, strat: 11, key: null, entity: false }, { s: 0, p: 4, o: 2, src: 1, valid: null, strat: 8, key: null, entity: false }] },
    ],
  },
  {
    why: "history with a stated validTo past the next claim's start overlapped a later claim of its value (duplicate_value)",
    trace: [
      { op: 'batch', ws: [{ s: 0, p: 4, o: 0, src: 0, valid: null, strat: 3, key: null, entity: false, obsDaysBack: 8, validToDays: 47 }, { s: 1, p: 4, o: 1, src: 3, valid: null, strat: 1, key: null, entity: false }, { s: 1, p: 4, o: 3, src: 1, valid: null, strat: 7, key: null, entity: false }] },
      { op: 'expect', w: { s: 1, p: 4, o: 1, src: 2, valid: { days: -355 }, strat: 6, key: 165, entity: false, validToDays: 39 }, stale: false },
      { op: 'write', w: { s: 1, p: 4, o: 0, src: 0, valid: { year: 2024 }, strat: 0, key: 168, entity: false } },
    ],
  },
  {
    why: 'claims a merge replaced (no validTo of their own) came back in as-of reads once the merge was retracted (as-of check)',
    trace: [
      { op: 'write', w: { s: 0, p: 0, o: 1, src: 2, valid: { year: 2023 }, strat: 3, key: null, entity: false, obsDaysBack: 4 } },
      { op: 'write', w: { s: 0, p: 3, o: 0, src: 0, valid: { year: 2024 }, strat: 7, key: 175, entity: false, obsDaysBack: 4 } },
      { op: 'batch', ws: [{ s: 0, p: 4, o: 5, src: 0, valid: { year: 2026 }, strat: 1, key: null, entity: false, obsDaysBack: 3 }, { s: 1, p: 0, o: 3, src: 0, valid: null, strat: 8, key: null, entity: false }, { s: 0, p: 5, o: 4, src: 2, valid: { days: 26 }, strat: 3, key: null, entity: false, obsDaysBack: 2 }] },
      { op: 'write', w: { s: 1, p: 4, o: 3, src: 3, valid: null, strat: 11, key: 96, entity: true } },
      { op: 'race', ws: [{ s: 1, p: 4, o: 1, src: 0, valid: { year: 2023 }, strat: 9, key: null, entity: false }, { s: 1, p: 4, o: 5, src: 0, valid: { year: 2023 }, strat: 5, key: null, entity: false }] },
      { op: 'write', w: { s: 0, p: 4, o: 5, src: 1, valid: { days: 18 }, strat: 1, key: null, entity: false } },
      { op: 'write', w: { s: 1, p: 4, o: 1, src: 1, valid: { year: 2023 }, strat: 9, key: null, entity: false, obsDaysBack: 5 } },
      { op: 'retract', n: 9 },
    ],
  },
  {
    why: 'a value lifted past an appended entry stayed current beside a rival of the same start (two_current_values)',
    trace: [
      { op: 'write', w: { s: 0, p: 0, o: 2, src: 1, valid: { year: 2026 }, strat: 0, key: null, entity: false, obsDaysBack: 3 } },
      { op: 'write', w: { s: 0, p: 0, o: 4, src: 0, valid: { year: 2026 }, strat: 1, key: null, entity: false, obsDaysBack: 8 } },
      { op: 'write', w: { s: 0, p: 0, o: 2, src: 0, valid: { days: -308 }, strat: 10, key: null, entity: false, obsDaysBack: 7 } },
      { op: 'write', w: { s: 0, p: 0, o: 2, src: 1, valid: { year: 2023 }, strat: 3, key: null, entity: false, validToDays: 63 } },
    ],
  },
  {
    why: 'a newer value stretched a claim whose stated validTo had ended it over an earlier claim of its value (duplicate_value)',
    trace: [
      { op: 'race', ws: [{ s: 0, p: 5, o: 4, src: 3, valid: null, strat: 2, key: 48, entity: false }, { s: 1, p: 3, o: 2, src: 2, valid: { year: 2024 }, strat: 8, key: null, entity: true, obsDaysBack: 3 }] },
      { op: 'batch', ws: [{ s: 0, p: 1, o: 3, src: 0, valid: null, strat: 7, key: 95, entity: false, obsDaysBack: 2 }, { s: 0, p: 4, o: 3, src: 2, valid: null, strat: 9, key: 187, entity: false, obsDaysBack: 2 }, { s: 0, p: 5, o: 1, src: 1, valid: null, strat: 3, key: 190, entity: false }, { s: 0, p: 5, o: 3, src: 2, valid: { year: 2024 }, strat: 5, key: 2, entity: false }] },
      { op: 'write', w: { s: 0, p: 5, o: 4, src: 0, valid: { days: -304 }, strat: 5, key: 153, entity: false, validToDays: -7 } },
      { op: 'expect', w: { s: 0, p: 5, o: 0, src: 0, valid: null, strat: 5, key: 32, entity: false }, stale: false },
    ],
  },
  {
    why: 'an expired claim left current beside a newer value met a refinement stated for its time (two_current_values)',
    trace: [
      { op: 'wait', days: 195 },
      { op: 'write', w: { s: 1, p: 0, o: 5, src: 3, valid: { year: 2026 }, strat: 5, key: null, entity: false, obsDaysBack: 4, validToDays: -3 } },
      { op: 'write', w: { s: 1, p: 0, o: 1, src: 1, valid: null, strat: 0, key: null, entity: false } },
      { op: 'race', ws: [{ s: 1, p: 0, o: 2, src: 1, valid: { year: 2025 }, strat: 4, key: null, entity: false, obsDaysBack: 3 }, { s: 1, p: 5, o: 4, src: 2, valid: { days: 58 }, strat: 7, key: 45, entity: false, obsDaysBack: 3 }] },
    ],
  },
  {
    why: 'a back-dated confirmation stretched a claim over the history of its own value (duplicate_value)',
    trace: [
      { op: 'write', w: { s: 1, p: 5, o: 5, src: 3, valid: { days: -147 }, strat: 5, key: null, entity: false, obsDaysBack: 3 } },
      { op: 'race', ws: [{ s: 1, p: 5, o: 1, src: 0, valid: null, strat: 3, key: null, entity: false }, { s: 0, p: 1, o: 1, src: 0, valid: null, strat: 7, key: null, entity: false }] },
      { op: 'write', w: { s: 1, p: 5, o: 5, src: 1, valid: null, strat: 5, key: null, entity: false } },
      { op: 'write', w: { s: 1, p: 5, o: 5, src: 3, valid: { days: 23 }, strat: 2, key: 151, entity: false, obsDaysBack: 8 } },
    ],
  },
  {
    why: 'a general value asked about (ask_user) beside history of its specific form was stored as a new value; refined, it carried its start over that history (duplicate_value, wide seed 1648511668)',
    trace: [
      { op: 'batch', ws: [{ s: 1, p: 5, o: 2, src: 3, valid: { year: 2023 }, strat: 5, key: 181, entity: false, obsDaysBack: 0 }, { s: 1, p: 5, o: 2, src: 3, valid: null, strat: 7, key: 74, entity: false, validToDays: 24 }] },
      { op: 'race', ws: [{ s: 0, p: 2, o: 5, src: 3, valid: { days: -256 }, strat: 5, key: null, entity: false, obsDaysBack: 3 }, { s: 1, p: 5, o: 4, src: 3, valid: { days: 35 }, strat: 8, key: 47, entity: false, obsDaysBack: 1 }] },
      { op: 'write', w: { s: 1, p: 5, o: 0, src: 2, valid: { days: -228 }, strat: 5, key: null, entity: false } },
      { op: 'wait', days: 84 },
      { op: 'write', w: { s: 1, p: 5, o: 2, src: 2, valid: null, strat: 2, key: null, entity: false, obsDaysBack: 3 } },
    ],
  },
  {
    why: 'a back-dated value with a stated validTo, written between two reports of the current value, was split in until the value was reported again, its stated end dropped, and overlapped a retraction of its own value (wide seed 960000027)',
    trace: [
      { op: 'write', w: { s: 1, p: 0, o: 1, src: 3, valid: { days: 60 }, strat: 4, key: 85, entity: false, validToDays: -6 } },
      { op: 'write', w: { s: 0, p: 4, o: 2, src: 3, valid: null, strat: 11, key: 195, entity: false, obsDaysBack: 3 } },
      { op: 'write', w: { s: 1, p: 3, o: 4, src: 0, valid: null, strat: 11, key: 13, entity: false, obsDaysBack: 1 } },
      { op: 'write', w: { s: 1, p: 2, o: 0, src: 0, valid: { year: 2026 }, strat: 6, key: 162, entity: false, obsDaysBack: 3 } },
      { op: 'retract', n: 6 },
      { op: 'retract', n: 0 },
      { op: 'settle', pick: 1, how: 2 },
      { op: 'race', ws: [{ s: 0, p: 3, o: 1, src: 1, valid: { days: 23 }, strat: 4, key: null, entity: false, obsDaysBack: 6, validToDays: -29 }, { s: 1, p: 4, o: 0, src: 3, valid: { year: 2024 }, strat: 9, key: null, entity: false }] },
      { op: 'race', ws: [{ s: 1, p: 5, o: 2, src: 0, valid: { year: 2026 }, strat: 2, key: null, entity: true }, { s: 1, p: 2, o: 4, src: 1, valid: { year: 2024 }, strat: 9, key: 92, entity: false }] },
      { op: 'retract', n: 12 },
      { op: 'undoRetract', n: 1 },
      { op: 'write', w: { s: 0, p: 0, o: 1, src: 3, valid: null, strat: 2, key: null, entity: false, obsDaysBack: 2 } },
      { op: 'write', w: { s: 1, p: 1, o: 1, src: 3, valid: { days: -194 }, strat: 0, key: null, entity: false } },
      { op: 'retract', n: 13, daysBack: 8 },
      { op: 'settle', pick: 1, how: 0 },
      { op: 'batch', ws: [{ s: 1, p: 3, o: 0, src: 1, valid: null, strat: 4, key: null, entity: false, obsDaysBack: 4 }] },
      { op: 'write', w: { s: 1, p: 3, o: 3, src: 2, valid: { year: 2023 }, strat: 9, key: null, entity: false, obsDaysBack: 1 } },
      { op: 'race', ws: [{ s: 1, p: 3, o: 4, src: 1, valid: { days: -29 }, strat: 11, key: null, entity: false, validToDays: -26 }, { s: 0, p: 1, o: 2, src: 0, valid: null, strat: 2, key: null, entity: false }] },
    ],
  },
];

describe('model-based random interleavings: seeds that once failed', () => {
  for (const { seed: found, ops: n } of FOUND) {
    it(`seed ${found}, ${n} operations, 0 violations`, async () => {
      const result = await runModel({ openStore: () => new MemoryStore(), seed: found, ops: n, merge: joiningMerge });
      expect(result.ops).toBe(n);
    }, 120000);
  }
});

// The wide generator (back-dated observations, stated validTo, a dependent
// predicate, past retractions, erase, calibrate) on the in-memory store: the
// engine decides, so the store does not matter, and its seeds are their own family.
describe('model-based random interleavings, wide generator', () => {
  it(`MemoryStore: ${ops} random operations, 0 violations`, async () => {
    const result = await runModel({ openStore: () => new MemoryStore(), seed, ops, merge: joiningMerge, wide: true, asOf });
    expect(result.ops).toBe(ops);
  }, 600000);
  for (const { trace, why } of FOUND_TRACES) {
    it(`a trace that once failed: ${why}`, async () => {
      const result = await runModel({ openStore: () => new MemoryStore(), seed: 1, merge: joiningMerge, replay: trace, asOf });
      expect(result.ops).toBe(trace.length);
    });
  }
});
