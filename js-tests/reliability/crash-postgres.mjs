// Crash safety of PostgresStore on a real server: the server is restarted with
// `pg_ctl restart -m immediate` (a crash: no checkpoint, every connection cut)
// while writer processes run, and one writer per run is killed with SIGKILL.
// Usage (DATABASE_URL and PG_RESTART_COMMAND from scripts/lib/pg-server.sh):
//   node crash-postgres.mjs [runs=4] [seed]
//
// Each run: 3 chaos writers (js-tests/reliability/ops.js) on a fresh scope,
// each writing `COUNT` operations through a pg.Pool; store failures are retried
// with the same idempotency ids, so the pool reconnects and the writer goes on.
// The server restarts `RESTARTS` times at random moments; one writer is killed
// at a random moment (moments picked by progress, so each run has them all). Afterwards a fresh process reads the scope and the
// history is checked (history.js): every acknowledged write exactly once, the
// log gapless, no duplicate conflict, every acknowledged settlement visible —
// and the normalized claim rows agree with the slot snapshots.
// The server must run with synchronous_commit=on: with it off, PostgreSQL
// itself acknowledges commits it loses in a crash.
import { exec } from 'node:child_process';
import { promisify } from 'node:util';
import pg from 'pg';
import { PostgresStore } from 'credence';
import { checkHistory } from './history.js';
import { hash, mulberry32 } from './ops.js';
import { dumpInFreshProcess, startChaosWriter } from './processes.js';

const url = process.env.DATABASE_URL;
const restartCommand = process.env.PG_RESTART_COMMAND;
if (!url || !restartCommand) {
  console.error('crash-postgres: needs DATABASE_URL and PG_RESTART_COMMAND (run it from scripts/test-extra-reliability-processes.sh)');
  process.exit(2);
}
const RUNS = Number(process.argv[2] ?? 4);
const SEED = Number(process.argv[3] ?? Date.now() % 2 ** 31);
const COUNT = 120;
const RESTARTS = 2;
const rand = mulberry32(SEED);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const tables = { slots: 'rel_slots', claims: 'rel_claims', conflicts: 'rel_conflicts', log: 'rel_claim_log', entities: 'rel_entities' };
const started = Date.now();
const totals = { runs: 0, restarts: 0, kills: 0, acked: 0, settles: 0, attempted: 0, storeFailuresRetried: 0, losses: 0, violations: 0, restartMs: 0 };
let failed = false;

async function withClient(work) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

await withClient((c) => new PostgresStore(c, { scope: 'setup', tables }).ensureSchema());
const { synchronous_commit: sync } = (await withClient((c) => c.query('SHOW synchronous_commit'))).rows[0];
if (sync !== 'on') console.warn(`crash-postgres: synchronous_commit=${sync}: the server itself may drop acknowledged commits in a crash`);

for (let run = 0; run < RUNS && !failed; run++) {
  const scope = `crash-${SEED}-${run}`;
  const writers = [0, 1, 2].map((k) => {
    const worker = `r${run}w${k}`;
    return startChaosWriter({ kind: 'pg', url, scope, tables, worker, seed: hash(`${SEED}:${worker}`), count: COUNT, subjects: 3, inflight: 2, transient: true });
  });
  await Promise.all(writers.map((w) => w.ready));
  // Moments chosen by progress, so every run gets its kill and its restarts:
  // the victim dies after a random number of its own acknowledgements, the
  // server restarts when all writers together reach random totals.
  const acked = (w) => w.events.filter((e) => e.kind === 'ack').length;
  const running = () => writers.some((w) => w.child.exitCode === null && w.child.signalCode === null);
  const victim = writers[Math.floor(rand() * writers.length)];
  const killAt = 10 + Math.floor(rand() * COUNT * 0.6);
  const restartAt = Array.from({ length: RESTARTS }, (_, i) => Math.floor(((i + 0.2 + rand() * 0.6) / RESTARTS) * COUNT * 2)).sort((a, b) => a - b);
  const chaos = (async () => {
    let nextRestart = 0;
    let killed = false;
    while (running()) {
      if (!killed && victim.child.exitCode === null && acked(victim) >= killAt && victim.child.kill('SIGKILL')) {
        killed = true;
        totals.kills++;
      }
      const total = writers.reduce((n, w) => n + acked(w), 0);
      if (nextRestart < restartAt.length && total >= restartAt[nextRestart]) {
        const t = Date.now();
        await promisify(exec)(restartCommand);
        totals.restartMs += Date.now() - t;
        totals.restarts++;
        nextRestart++;
      }
      await sleep(10);
    }
  })();
  const exits = await Promise.all(writers.map((w) => w.exited));
  await chaos;
  for (const [k, e] of exits.entries()) {
    if (e.signal === 'SIGKILL') continue;
    if (e.code !== 0 || !e.done) {
      console.error(`run ${run} writer ${k} failed (code ${e.code}):\n${e.stderr.slice(-3000)}`);
      failed = true;
    } else totals.storeFailuresRetried += e.done.transients;
  }
  const events = writers.flatMap((w) => w.events);
  const dump = await dumpInFreshProcess({ kind: 'pg', url, scope, tables });
  const { violations, counts } = checkHistory(dump, events);
  // The claim rows agree with the snapshots: one row per claim, none extra.
  const rows = await withClient((c) => c.query(`SELECT id, slot_key FROM ${tables.claims} WHERE scope = $1`, [scope]));
  const inSlots = new Map(Object.entries(dump.slots).flatMap(([key, s]) => s.claims.map((cl) => [cl.id, key])));
  if (rows.rows.length !== inSlots.size) violations.push(`${rows.rows.length} claim rows for ${inSlots.size} claims in the slots`);
  for (const r of rows.rows) if (inSlots.get(r.id) !== r.slot_key) violations.push(`claim row ${r.id} (${r.slot_key}) not in that slot`);
  totals.runs++;
  totals.acked += counts.acked;
  totals.settles += counts.settles;
  totals.attempted += counts.attempted;
  if (violations.length) {
    totals.violations += violations.length;
    totals.losses += violations.filter((v) => v.startsWith('ack ') || v.startsWith('settle ')).length;
    console.error(`run ${run} (seed ${SEED}, scope ${scope}): ${violations.length} violations\n  ${violations.join('\n  ')}`);
    failed = true;
  }
}

const summary = { seed: SEED, ...totals, seconds: Math.round((Date.now() - started) / 100) / 10 };
console.log(`crash-postgres: ${JSON.stringify(summary)}`);
if (failed) {
  console.error(`FAILED — replay with: node js-tests/reliability/crash-postgres.mjs ${RUNS} ${SEED}`);
  process.exit(1);
}
