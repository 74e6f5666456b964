// Section 5, in its own process: credence writes through PostgresStore with 8
// concurrent writers vs the raw floor (the same rows as plain parameterized
// INSERTs, same writers, same pg.Pool), then a check that every acknowledged
// write is in the database. Prints one JSON line.
//
//   DATABASE_URL=postgres://… node bench/workers/postgres.mjs <writes> <rounds>
import pg from 'pg';
import { Memory, PostgresStore } from 'credence';
import { median, nsSince, now } from '../lib.mjs';
import { workload } from '../workload.mjs';

const [writes, rounds] = process.argv.slice(2).map(Number);
const WRITERS = 8;
const BATCH = 25;
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: WRITERS + 2 });
const run = `${process.pid}_${Date.now()}`;

const FLOOR_TABLE = `CREATE TABLE IF NOT EXISTS bench_floor (
  scope text NOT NULL, id text NOT NULL, subject text NOT NULL, predicate text NOT NULL, object text NOT NULL,
  valid_from text, source_id text, source_trust double precision, confidence double precision,
  PRIMARY KEY (scope, id))`;
const FLOOR_INSERT = `INSERT INTO bench_floor (scope, id, subject, predicate, object, valid_from, source_id, source_trust, confidence)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`;

/** Writer k takes every 8th candidate, in order: neighbours often hit one slot at once. */
async function writers(candidates, write) {
  const t0 = now();
  await Promise.all(Array.from({ length: WRITERS }, async (_, k) => {
    for (let i = k; i < candidates.length; i += WRITERS) await write(candidates[i], k);
  }));
  return nsSince(t0);
}

async function floor(candidates, scope) {
  return writers(candidates, (c) => pool.query(FLOOR_INSERT, [
    scope, c.id, c.subject, c.predicate, c.object, c.validFrom ?? null, c.provenance.sourceId, c.provenance.sourceTrust, c.confidence ?? null,
  ]));
}

/** One Memory per writer (like 8 agents) over one PostgresStore; a write that gives up on a busy slot is re-issued with its id. */
async function credence(candidates, scope, acks, counters, prepared = false) {
  const store = new PostgresStore(pool, { scope, prepared });
  const memories = Array.from({ length: WRITERS }, () => new Memory({ store, retries: 10 }));
  return writers(candidates, async (c, k) => {
    for (;;) {
      try {
        const o = await memories[k].remember(c);
        acks.push({ id: c.id, claim: o.claim.id, key: `${o.claim.subject}\u001f${o.claim.predicate}` });
        counters.attempts += o.attempts;
        return;
      } catch (err) {
        if (err?.code !== 'CONCURRENCY') throw err;
        counters.reissued++;
      }
    }
  });
}

async function batched(candidates, scope) {
  const store = new PostgresStore(pool, { scope });
  const memories = Array.from({ length: WRITERS }, () => new Memory({ store, retries: 10 }));
  const chunks = [];
  for (let i = 0; i < candidates.length; i += BATCH) chunks.push(candidates.slice(i, i + BATCH));
  return writers(chunks, async (chunk, k) => {
    for (;;) {
      try {
        return await memories[k].rememberMany(chunk);
      } catch (err) {
        if (err?.code !== 'CONCURRENCY') throw err;
      }
    }
  });
}

/** Every acknowledged write: its idempotency record in its slot, its claim in memory_claims. */
async function verify(scope, acks) {
  const slots = await pool.query('SELECT key, slot FROM memory_slots WHERE scope = $1', [scope]);
  const recorded = new Map(slots.rows.map((r) => [r.key, new Set(r.slot.writes.map((w) => w.id))]));
  const claims = new Set((await pool.query('SELECT id FROM memory_claims WHERE scope = $1', [scope])).rows.map((r) => r.id));
  let lost = 0;
  for (const a of acks) if (!recorded.get(a.key)?.has(a.id) || !claims.has(a.claim)) lost++;
  return { lost, claims: claims.size };
}

await pool.query(FLOOR_TABLE);
await new PostgresStore(pool, { scope: 'x' }).ensureSchema();
const candidates = workload(writes, { seed: 11, prefix: 'pg' }).map((c, i) => ({ ...c, id: `w${i}` }));

// Warm-up: open the pool's connections, JIT both paths.
const warm = candidates.slice(0, 200);
await floor(warm, `warm_${run}`);
await credence(warm, `warm_${run}`, [], { attempts: 0, reissued: 0 });

const floorNs = [];
const credenceNs = [];
const batchNs = [];
const preparedNs = [];
let lost = 0;
let acked = 0;
let claims = 0;
const counters = { attempts: 0, reissued: 0 };
const cpuShare = [];
for (let r = 0; r < rounds; r++) {
  floorNs.push(await floor(candidates, `f${r}_${run}`));
  const acks = [];
  const cpu0 = process.cpuUsage();
  credenceNs.push(await credence(candidates, `c${r}_${run}`, acks, counters));
  const cpu = process.cpuUsage(cpu0);
  cpuShare.push((cpu.user + cpu.system) * 1000 / credenceNs[credenceNs.length - 1]);
  const v = await verify(`c${r}_${run}`, acks);
  lost += v.lost;
  acked += acks.length;
  claims = v.claims;
  batchNs.push(await batched(candidates, `b${r}_${run}`));
  // The same writes with named prepared statements (`prepared: true`), acknowledged writes checked too.
  const preparedAcks = [];
  preparedNs.push(await credence(candidates, `p${r}_${run}`, preparedAcks, { attempts: 0, reissued: 0 }, true));
  const pv = await verify(`p${r}_${run}`, preparedAcks);
  lost += pv.lost;
  acked += preparedAcks.length;
}
await pool.end();

console.log(JSON.stringify({
  writes,
  rounds,
  writers: WRITERS,
  batch: BATCH,
  floorPerSec: writes / (median(floorNs) / 1e9),
  credencePerSec: writes / (median(credenceNs) / 1e9),
  batchPerSec: writes / (median(batchNs) / 1e9),
  preparedPerSec: writes / (median(preparedNs) / 1e9),
  acked,
  expected: writes * rounds * 2,
  lost,
  claims,
  attemptsPerWrite: counters.attempts / acked,
  reissued: counters.reissued,
  nodeCpuShare: median(cpuShare),
}));
