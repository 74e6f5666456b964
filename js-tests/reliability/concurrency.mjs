// Randomized multi-writer runs on every store, checking that slot histories
// are linearizable (js-tests/reliability/history.js). Usage:
//   node concurrency.mjs [rounds=3] [seed]
//
//   MemoryStore           several Memory instances sharing one store, in process
//                         (two of them through a wrapper that yields, so they race)
//   OkfStore              several Memory instances (each its own OkfStore object)
//                         in process, and several writer processes on one bundle
//   IndexedDbStore        several Memory instances, each its own store on one
//                         fake-indexeddb database (as browser tabs would), in process
//   PostgresStore/PGlite  several Memory instances on one PGlite, in process
//   PostgresStore/server  several writer processes on a real server (when
//                         DATABASE_URL is set), and several Memory instances on
//                         one pg.Pool in process
// Writers run ops.js: unique adds, disputes, ask_user writes, settlements and undos on
// shared slots. After each acknowledged settlement, a different Memory reads the
// conflict back and must see it settled as acknowledged (in-process runs).
// Exits 1 on any violation; prints `concurrency: {json}`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { IndexedDbStore, Memory, MemoryStore, OkfStore, PostgresStore } from 'credence';
import { checkHistory, dumpStore } from './history.js';
import { hash, runWriter } from './ops.js';
import { dumpInFreshProcess, startChaosWriter } from './processes.js';

/**
 * The same store, each call delayed by a random few event-loop turns: a Memory
 * on MemoryStore itself never yields between load and commit, so writers on it
 * would never race. Through this wrapper (a JS ClaimStore) they do.
 */
function jittered(store) {
  const turn = () => new Promise((resolve) => (Math.random() < 0.5 ? setImmediate(resolve) : queueMicrotask(resolve)));
  const wrapped = {};
  for (const method of ['loadSlot', 'loadSlotToWrite', 'commitSlot', 'findClaim', 'findConflict', 'listSlots', 'readLog', 'listConflicts', 'dirtySlots', 'findEntities']) {
    if (typeof store[method] !== 'function') continue;
    wrapped[method] = async (...args) => {
      await turn();
      const result = await store[method](...args);
      await turn();
      return result;
    };
  }
  return wrapped;
}

const ROUNDS = Number(process.argv[2] ?? 3);
const SEED = Number(process.argv[3] ?? Date.now() % 2 ** 31);
const url = process.env.DATABASE_URL;
const root = mkdtempSync(path.join(tmpdir(), 'credence-concurrency-'));
const tables = { slots: 'conc_slots', claims: 'conc_claims', conflicts: 'conc_conflicts', log: 'conc_claim_log', entities: 'conc_entities' };
const results = {};
let failed = false;

function record(name, { violations, counts }, extra) {
  const r = (results[name] ??= { runs: 0, writers: 0, acked: 0, settles: 0, undos: 0, crossReads: 0, conflicts: 0, versions: 0, lostRaces: 0, retries: 0, violations: 0, ms: 0 });
  r.runs++;
  r.acked += counts.acked;
  r.settles += counts.settles;
  r.undos += counts.undos;
  r.conflicts += counts.conflicts;
  r.versions += counts.versions;
  r.lostRaces += counts.lostRaces;
  r.violations += violations.length;
  for (const [k, v] of Object.entries(extra)) r[k] += v;
  if (violations.length) {
    failed = true;
    console.error(`${name} (seed ${SEED}): ${violations.length} violations\n  ${violations.join('\n  ')}`);
  }
}

/** Several Memory instances in this process, one writer each, all at once. */
async function inProcess(name, stores, { round, count = 50, subjects = 2, inflight = 2 }) {
  const started = Date.now();
  const memories = stores.map((store) => new Memory({ store, retries: 10 }));
  const events = [];
  let crossReads = 0;
  let crossFailures = 0;
  const stats = await Promise.all(memories.map((memory, k) => {
    const worker = `${name.replace(/\W+/g, '')}-${round}-w${k}`;
    const reader = memories[(k + 1) % memories.length];
    return runWriter(memory, {
      worker, seed: hash(`${SEED}:${worker}`), count, subjects, inflight,
      report: (kind, data) => events.push({ kind, worker, ...data }),
      // Settle from one writer, read from another: settled as acknowledged —
      // or, if a third writer undid it since, the reader's log says so.
      onAck: async (ack) => {
        if (ack.op !== 'settle') return;
        crossReads++;
        const seen = (await reader.conflicts({ status: 'settled' })).find((c) => c.id === ack.conflictId);
        if (seen?.settlement === ack.settlement && seen?.settledBy === ack.by) return;
        const store = stores[(k + 1) % stores.length];
        const log = await store.readLog(await store.findConflict(ack.conflictId));
        const decisions = log.filter((e) => e.conflictId === ack.conflictId && ['settle', 'undo'].includes(e.cause?.op));
        const at = decisions.findIndex((e) => e.cause.op === 'settle' && e.cause.by === ack.by);
        if (at >= 0 && decisions.slice(at + 1).some((e) => e.cause.op === 'undo')) return;
        crossFailures++;
        console.error(`${name}: settle ${ack.id} of ${ack.conflictId} not visible to another writer: ${JSON.stringify(seen)}`);
      },
    });
  }));
  const checked = checkHistory(await dumpStore(stores[0]), events);
  if (crossFailures) checked.violations.push(`${crossFailures} settlements not visible to another writer`);
  record(name, checked, { writers: stores.length, crossReads, retries: stats.reduce((n, s) => n + s.retries, 0), ms: Date.now() - started });
}

/** Several writer processes; a fresh process reads the result. */
async function multiProcess(name, config, { round, writers = 3, count = 60, subjects = 2, inflight = 2 }) {
  const started = Date.now();
  const procs = Array.from({ length: writers }, (_, k) => {
    const worker = `${name.replace(/\W+/g, '')}-${round}-w${k}`;
    return startChaosWriter({ ...config, worker, seed: hash(`${SEED}:${worker}`), count, subjects, inflight });
  });
  const exits = await Promise.all(procs.map((p) => p.exited));
  let retries = 0;
  for (const e of exits) {
    if (e.code !== 0 || !e.done) {
      failed = true;
      console.error(`${name}: a writer failed (code ${e.code}, signal ${e.signal}):\n${e.stderr.slice(-3000)}`);
    } else retries += e.done.retries;
  }
  const events = procs.flatMap((p) => p.events);
  const checked = checkHistory(await dumpInFreshProcess(config), events);
  record(name, checked, { writers, retries, ms: Date.now() - started });
}

const started = Date.now();
for (let round = 0; round < ROUNDS; round++) {
  const shared = new MemoryStore();
  await inProcess('MemoryStore (in process)', [shared, shared, jittered(shared), jittered(shared)], { round });

  const dir = path.join(root, `okf-${round}`);
  await inProcess('OkfStore (in process)', [0, 1, 2].map(() => new OkfStore(dir)), { round, count: 40 });
  await multiProcess('OkfStore (processes)', { kind: 'okf', dir: path.join(root, `okf-proc-${round}`) }, { round });
}

// IndexedDB as several tabs of one origin would use it: one database, a store object each.
{
  const { IDBFactory, IDBKeyRange } = await import('fake-indexeddb');
  for (let round = 0; round < ROUNDS; round++) {
    const indexedDB = new IDBFactory();
    await inProcess('IndexedDbStore on fake-indexeddb (in process)', [0, 1, 2].map(() => new IndexedDbStore('credence-concurrency', { scope: 'tabs', indexedDB, IDBKeyRange })), { round, count: 40 });
  }
}

// One PGlite for every round (2–3 s and ~700 MB to start); a fresh scope per round.
{
  const { PGlite } = await import('@electric-sql/pglite');
  const db = new PGlite();
  await new PostgresStore(db, { scope: 'setup', tables }).ensureSchema();
  for (let round = 0; round < ROUNDS; round++) {
    const scope = `pglite-${SEED}-${round}`;
    await inProcess('PostgresStore on PGlite (in process)', [0, 1, 2, 3].map(() => new PostgresStore(db, { scope, tables })), { round, count: 40 });
  }
  await db.close();
}

if (url) {
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ connectionString: url, max: 8 });
  await new PostgresStore(pool, { scope: 'setup', tables }).ensureSchema();
  for (let round = 0; round < ROUNDS; round++) {
    const scope = `server-${SEED}-${round}`;
    await inProcess('PostgresStore on a server (pg.Pool, in process)', [0, 1, 2, 3].map(() => new PostgresStore(pool, { scope, tables })), { round });
    await multiProcess('PostgresStore on a server (processes)', { kind: 'pg', url, scope: `${scope}-p`, tables }, { round, writers: 4 });
  }
  await pool.end();
} else {
  console.warn('concurrency: DATABASE_URL not set — the PostgreSQL server runs are skipped');
}

console.log(`concurrency: ${JSON.stringify({ seed: SEED, rounds: ROUNDS, seconds: Math.round((Date.now() - started) / 100) / 10, stores: results })}`);
if (failed) {
  console.error(`FAILED — replay with: node js-tests/reliability/concurrency.mjs ${ROUNDS} ${SEED} (bundles kept in ${root})`);
  process.exit(1);
}
rmSync(root, { recursive: true, force: true });
