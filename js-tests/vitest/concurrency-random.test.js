// Random concurrent use by several agents (js-tests/lib/concurrency-driver.mjs)
// through the packed package on every store: each agent its own store object
// on the same data, store calls yielding at random, invariants and
// acknowledged writes checked after every round. The seed is printed; replay
// with CREDENCE_MODEL_SEED=<n>; CREDENCE_CONCURRENCY_RUNS=<n> sets runs per store.
import { afterAll, beforeAll, describe, it } from 'vitest';
import path from 'node:path';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import pg from 'pg';
import { IndexedDbStore, Memory, MemoryStore, OkfStore, POSTGRES_SCHEMA, PostgresStore } from 'credence';
import { runConcurrent } from '../lib/concurrency-driver.mjs';
import { modelSeed } from '../lib/model-driver.mjs';
import { tempRootAndPglite } from '../lib/temp-stores.mjs';

const seed = modelSeed();
const runs = Number(process.env.CREDENCE_CONCURRENCY_RUNS) || 6;
const ROUNDS = 30;
console.log(`concurrency seed: ${seed} (replay: CREDENCE_MODEL_SEED=${seed}), ${runs} runs of ${ROUNDS} rounds per store`);

const { root, db } = tempRootAndPglite('credence-concurrency-');
const idb = new IDBFactory();

// Each: a function of the run's seed that gives `openStore(tenant)` (a new store object on that run's data of
// tenant 0 or 1 per call; tenants are scopes of one bundle, database or table set). The in-memory store is
// shared by the agents (one object, as in one process); it is fast, so it runs 5× as many.
const stores = {
  MemoryStore: () => {
    const shared = [new MemoryStore(), new MemoryStore()];
    return (tenant) => shared[tenant];
  },
  OkfStore: (s) => (tenant) => new OkfStore(path.join(root, `okf-${s}`), { scope: `t${tenant}` }),
  'PostgresStore (PGlite)': (s) => (tenant) => new PostgresStore(db, { scope: `concurrency-${s}-${tenant}` }),
  'IndexedDbStore (fake-indexeddb)': (s) => (tenant) => new IndexedDbStore(`credence-concurrency-${s}`, { scope: `t${tenant}`, indexedDB: idb, IDBKeyRange }),
};

// The real server, when scripts/test-extra-stores.sh provides one.
const url = process.env.DATABASE_URL;
const server = url ? new pg.Pool({ connectionString: url, max: 8 }) : null;
if (server) {
  beforeAll(() => server.query(POSTGRES_SCHEMA), 60000);
  afterAll(() => server.end());
  stores['PostgresStore (server)'] = (s) => (tenant) => new PostgresStore(server, { scope: `concurrency-${s}-${tenant}` });
}

// Seeds that once failed, replayed on MemoryStore (the interleaving is the seed's).
describe('concurrent agents — seeds that once failed', () => {
  // An undo judged the slot by its log read before another agent's ask_user write committed, and
  // restored a value beside the new question's claim unasked (two_current_values).
  it('seed 500576: undo of a settlement racing an ask_user write', async () => {
    await runConcurrent({ Memory, openStore: stores.MemoryStore(), seed: 500576, rounds: 30 });
  }, 120_000);
  // A retraction undone after an entity merge moved a copy of the claim's value into its slot (the
  // copy keeps the original's recording time, so it did not count as written since): duplicate_value.
  it('seed 780142611: undoing a retraction beside a copy an entity merge moved in', async () => {
    await runConcurrent({ Memory, openStore: stores.MemoryStore(), seed: 780142611, rounds: 30 });
  }, 120_000);
  // A general form replaced by a more specific one was revived by evidence over a later report of
  // its value kept as history of its own period (duplicate_value).
  it('seed 691788968: a revived general form over a later report of its value', async () => {
    await runConcurrent({ Memory, openStore: stores.MemoryStore(), seed: 691788968, rounds: 30 });
  }, 120_000);
});

for (const [name, opener] of Object.entries(stores)) {
  describe(`concurrent agents — ${name}`, () => {
    const count = name === 'MemoryStore' ? runs * 5 : runs;
    it(`${count} random runs of ${ROUNDS} rounds keep every invariant and every acknowledged write`, async () => {
      for (let i = 0; i < count; i++) {
        const s = seed + i;
        await runConcurrent({ Memory, openStore: opener(s), seed: s, rounds: ROUNDS });
      }
    }, 600_000);
  });
}
