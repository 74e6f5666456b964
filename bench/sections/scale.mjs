// Section 9: scale. Each operation's cost at growing store sizes, per store
// (a child process per store), as a growth ratio: largest size / smallest.
// SPEC §8: every operation's cost depends on the slot or the answer, not on
// the size of the store.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fmtInt, fmtNs, fmtX, lastJson, row, run } from '../lib.mjs';

const ROOT = path.resolve(import.meta.dirname, '../..');
const OPS = [
  ['rememberNewSlot', 'remember, new slot'],
  ['rememberHotSlot', 'remember, hot slot (confirm)'],
  ['rememberEntityTyped', 'remember, entity-typed (works_at)'],
  ['recall', 'recall(subject)'],
  ['why', 'why(claimId)'],
  ['conflicts', 'conflicts({ status: open })'],
  ['reviewNothingNew', 'review, nothing new'],
];
const GOAL = 1.3;
const WORKER = path.join(ROOT, 'bench', 'workers', 'scale.mjs');
const ENTITIES_WORKER = path.join(ROOT, 'bench', 'workers', 'registry.mjs'); // named for the per-type registry it measured before issue #44
const QUESTIONS_WORKER = path.join(ROOT, 'bench', 'workers', 'registry-questions.mjs');
const ENTITY_OPS = [
  ['newEntity', 'an entity-typed write naming a new org'],
  ['knownEntity', 'an entity-typed write naming a known org'],
  ['newEntityAfterOther', 'a new org from a second store object, after the first wrote one'],
];

/** A worker for one store; PostgreSQL on DATABASE_URL or inside a throwaway server (as section 5). */
function measure(store, sizes, reps, tmp, worker = WORKER) {
  const started = Date.now();
  try {
    return measureOnce(store, sizes, reps, tmp, worker);
  } finally {
    // Which worker took the section's minutes (the section is most of a --quick run).
    process.stderr.write(` [${path.basename(worker, '.mjs')} ${store} ${((Date.now() - started) / 1000).toFixed(0)} s]`);
  }
}

function measureOnce(store, sizes, reps, tmp, worker) {
  const args = worker === WORKER ? [store, sizes.join(','), String(reps), tmp] : [sizes.join(','), String(reps), store, tmp];
  if (store !== 'postgres' || process.env.DATABASE_URL) return lastJson(run(process.execPath, [worker, ...args], { cwd: ROOT }).stdout);
  const script = 'source scripts/lib/pg-server.sh && { pg_server_start -c synchronous_commit=off >&2 || exit 97; } && node "$@"';
  const r = spawnSync('bash', ['-c', script, 'bash', worker, ...args], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.status === 97) return null;
  if (r.status !== 0) throw new Error(`scale worker (postgres) exited ${r.status}\n${(r.stderr || '').slice(-4000)}`);
  return lastJson(r.stdout);
}

export async function scale({ quick, tmp }) {
  const plans = quick
    ? [['memory', [1_000, 10_000]], ['okf', [1_000, 3_000]], ['indexeddb', [1_000, 3_000]], ['postgres', [1_000, 3_000]]]
    // PostgreSQL stops at 100k: filling 1M through commitSlot takes longer than the rest of the bench.
    : [['memory', [1_000, 10_000, 100_000, 1_000_000]], ['okf', [1_000, 10_000, 100_000]], ['indexeddb', [1_000, 10_000, 100_000]], ['postgres', [1_000, 10_000, 100_000]]];
  const reps = quick ? 15 : 31;
  const rows = [];
  const data = {};
  for (const [store, sizes] of plans) {
    const result = measure(store, sizes, reps, tmp);
    if (!result) {
      rows.push(row(`9${store[0]}`, `${store}: skipped`, '', '', '', '', undefined, 'no PostgreSQL server could be started (set DATABASE_URL)'));
      continue;
    }
    data[store] = result;
    const small = result.sizes[sizes[0]];
    const large = result.sizes[sizes[sizes.length - 1]];
    for (const [i, [op, label]] of OPS.entries()) {
      const ratio = large.ops[op] / small.ops[op];
      const steps = sizes.map((s) => `${fmtInt(result.sizes[s].claims)}: ${fmtNs(result.sizes[s].ops[op])}`).join(', ');
      // Ids 9m1, 9o1, …: store initial and operation (the table keeps this order).
      rows.push(row(`9${store[0]}${i + 1}`, `${store}: ${label}, ${fmtInt(large.claims)} vs ${fmtInt(small.claims)} claims`,
        fmtNs(large.ops[op]), fmtNs(small.ops[op]), fmtX(ratio), `≤ ${GOAL}×`, ratio <= GOAL, steps));
    }
  }
  // Entities: each a slot of its own, a name found by its keys (findEntities),
  // so an entity-typed write depends on the entities of its type only through
  // that look-up. Its own sizes (orgs of one type), on every store.
  // --quick (CI): the stores that write each org to disk go to 1,500 orgs (filling 3,000 on
  // PostgreSQL took 159 of the section's 289 s); full runs measure 1,000 against 10,000.
  const entityPlans = quick
    ? [['memory', [1_000, 10_000]], ['okf', [500, 1_500]], ['indexeddb', [500, 1_500]], ['postgres', [500, 1_500]]]
    : [['memory', [1_000, 10_000, 50_000]], ['okf', [1_000, 10_000]], ['indexeddb', [1_000, 10_000]], ['postgres', [1_000, 10_000]]];
  data.entities = {};
  for (const [store, entitySizes] of entityPlans) {
    const result = measure(store, entitySizes, reps, tmp, ENTITIES_WORKER);
    if (!result) continue;
    data.entities[store] = result;
    const [small, large] = [result.sizes[entitySizes[0]], result.sizes[entitySizes[entitySizes.length - 1]]];
    for (const [i, [op, label]] of ENTITY_OPS.entries()) {
      if (large.ops[op] === undefined) continue; // one store object only (the in-memory store)
      const ratio = large.ops[op] / small.ops[op];
      const steps = entitySizes.map((s) => `${fmtInt(s)}: ${fmtNs(result.sizes[s].ops[op])}`).join(', ');
      // Ids 9r1, 9r2 (memory), 9ro1, … (store initial), as the table keeps them.
      rows.push(row(`9r${store === 'memory' ? '' : store[0]}${i + 1}`, `${store}: ${label}, ${fmtInt(large.entities)} vs ${fmtInt(small.entities)} orgs`,
        fmtNs(large.ops[op]), fmtNs(small.ops[op]), fmtX(ratio), `≤ ${GOAL}×`, ratio <= GOAL, steps));
    }
  }
  // Orgs with open same_entity questions (names that share words; each
  // question kept in the slot of the entity whose arrival opened it): the
  // first block of new orgs against the last. The JS stores are measured in
  // full runs only, where their minutes fit.
  const questionPlans = quick ? [['memory', 1_000, 250]] : [['memory', 3_000, 500], ['okf', 1_000, 250], ['indexeddb', 1_000, 250], ['postgres', 1_000, 250]];
  data.questions = {};
  for (const [store, orgs, block] of questionPlans) {
    const result = measure(store, [orgs], block, tmp, QUESTIONS_WORKER);
    if (!result) continue;
    data.questions[store] = result;
    const [first, last] = [result.rows[0], result.rows[result.rows.length - 1]];
    const ratio = last.msPerWrite / first.msPerWrite;
    const steps = result.rows.map((r) => `${fmtInt(r.orgs)} (${fmtInt(r.openQuestions)} open): ${fmtNs(r.msPerWrite * 1e6)}`).join(', ');
    rows.push(row(`9q${store === 'memory' ? '' : store[0]}`, `${store}: a new org among open same_entity questions, ${fmtInt(last.orgs)} vs ${fmtInt(first.orgs)} orgs`,
      fmtNs(last.msPerWrite * 1e6), fmtNs(first.msPerWrite * 1e6), fmtX(ratio), `≤ ${GOAL}×`, ratio <= GOAL, steps));
  }
  return { rows, data };
}
