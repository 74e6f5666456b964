// PostgresStore on a real PostgreSQL server. Runs when DATABASE_URL is set —
// scripts/test-extra-stores.sh starts a throwaway cluster and sets it.
// Tables carry a test prefix (the `tables` option), so a developer's own
// database is left alone apart from those.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { Memory, PostgresStore } from 'credence';
import { runStoreConformance } from 'credence/conformance';
import { expectAcknowledged, startWriter } from '../conformance/processes.js';

// Vitest's test functions, for the suite (this repo's Vitest runs without globals).
const test = { describe, it, expect, afterEach };

const url = process.env.DATABASE_URL;
const tables = {
  slots: 'credence_test_slots',
  claims: 'credence_test_claims',
  conflicts: 'credence_test_conflicts',
  log: 'credence_test_claim_log',
  entities: 'credence_test_entities',
  writes: 'credence_test_writes',
  entityKeys: 'credence_test_entity_keys',
};

describe.skipIf(!url)('PostgreSQL server', () => {
  let pools = [];
  let clients = [];
  beforeAll(async () => {
    pools = [new pg.Pool({ connectionString: url, max: 6 }), new pg.Pool({ connectionString: url, max: 6 })];
    clients = [new pg.Client({ connectionString: url }), new pg.Client({ connectionString: url })];
    await Promise.all(clients.map((c) => c.connect()));
    // Several stores creating the schema at once must all succeed (idempotent DDL).
    await Promise.all([...pools, ...clients].map((q) => new PostgresStore(q, { scope: 'setup', tables }).ensureSchema()));
  });
  afterAll(async () => {
    await Promise.all([...pools.map((p) => p.end()), ...clients.map((c) => c.end())]);
  });

  /** Every row of every table for one scope, as the server returns it (text). */
  async function tableBytes(scope) {
    const out = [];
    for (const table of Object.values(tables)) {
      const { rows } = await pools[0].query(`SELECT t::text AS row FROM ${table} t WHERE scope = $1`, [scope]);
      out.push(...rows.map((r) => r.row));
    }
    return out.join('\n');
  }

  runStoreConformance('PostgresStore on pg.Pool', async ({ scope }) => ({
    store: new PostgresStore(pools[0], { scope, tables }),
    reopen: () => new PostgresStore(pools[1], { scope, tables }),
    raw: () => tableBytes(scope),
  }), { writers: 6, writes: 36, test });

  runStoreConformance('PostgresStore on pg.Client', async ({ scope }) => ({
    store: new PostgresStore(clients[0], { scope, tables }),
    reopen: () => new PostgresStore(clients[1], { scope, tables }),
    raw: () => tableBytes(scope),
  }), { writers: 4, writes: 24, test });

  // `prepared: true`: the same contract with named statements, across two pools and a client.
  runStoreConformance('PostgresStore on pg.Pool, prepared statements', async ({ scope }) => ({
    store: new PostgresStore(pools[0], { scope, tables, prepared: true }),
    reopen: () => new PostgresStore(clients[1], { scope, tables, prepared: true }),
    raw: () => tableBytes(scope),
  }), { writers: 6, writes: 36, test });

  it('prepared: true names every statement but the DDL, one name per text; refused on a queryable that is not node-postgres', async () => {
    const named = [];
    const spy = new Proxy(pools[0], {
      get(pool, key) {
        if (key !== 'query') return Reflect.get(pool, key);
        return (config, values) => {
          named.push(typeof config === 'object' ? config : null);
          return pool.query(config, values);
        };
      },
    });
    const store = new PostgresStore(spy, { scope: `named-${Date.now()}`, tables, prepared: true });
    await store.ensureSchema();
    expect(named.every((c) => c === null)).toBe(true);
    named.length = 0;
    const memory = new Memory({ store });
    await memory.remember({ predicate: 'likes', object: 'tea' });
    await memory.remember({ predicate: 'likes', object: 'cake' });
    expect((await memory.recall('user')).map((c) => c.object).sort()).toEqual(['cake', 'tea']);
    expect(named.length).toBeGreaterThan(3);
    const names = new Map();
    for (const c of named) {
      expect(c?.name).toMatch(/^credence_[0-9a-f]+$/);
      expect(names.get(c.name) ?? c.text).toBe(c.text);
      names.set(c.name, c.text);
    }
    expect(() => new PostgresStore({ query: async () => ({ rows: [] }) }, { scope: 'x', prepared: true })).toThrow(expect.objectContaining({ code: 'INVALID_INPUT', field: 'prepared' }));
    expect(() => new PostgresStore(pools[0], { scope: 'x', prepared: 'yes' })).toThrow(expect.objectContaining({ field: 'prepared' }));
  });

  it('commits in one statement on the pool, checking out no client', async () => {
    const pool = pools[0];
    let checkedOut = 0;
    const statements = [];
    const spy = {
      query: (text, values) => {
        statements.push(text.trim().split(/\s+/).slice(0, 3).join(' '));
        return pool.query(text, values);
      },
      async connect() {
        checkedOut++;
        return pool.connect();
      },
    };
    const memory = new Memory({ store: new PostgresStore(spy, { scope: `spy-${Date.now()}`, tables }) });
    await memory.remember({ predicate: 'likes', object: 'tea' });
    await memory.remember({ predicate: 'likes', object: 'cake' });
    await memory.recall('user');
    expect(checkedOut).toBe(0);
    // Per write: one load, one commit (no BEGIN/COMMIT round trips).
    expect(statements.filter((s) => s.startsWith('WITH won AS'))).toHaveLength(2);
    expect(statements.filter((s) => /^(BEGIN|COMMIT|ROLLBACK)/.test(s))).toHaveLength(0);
  });

  // Regression (found by js-tests/reliability/crash-postgres.mjs): a connection
  // cut while a commit held it emitted 'error' on the pg client, which nobody
  // heard, and the whole process crashed. The commit waits on a row lock held
  // elsewhere while its backend is terminated.
  it('survives its connection being cut mid-commit: the write fails, the retry lands once', async () => {
    const scope = `cut-${Date.now()}`;
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    pool.on('error', () => {});
    const locker = await pools[1].connect();
    try {
      const memory = new Memory({ store: new PostgresStore(pool, { scope, tables }) });
      await memory.remember({ id: 'w-0', predicate: 'likes', object: 'tea' });
      await locker.query('BEGIN');
      await locker.query(`SELECT 1 FROM ${tables.slots} WHERE scope = $1 FOR UPDATE`, [scope]);
      const candidate = { id: 'w-1', predicate: 'likes', object: 'cake' };
      const write = memory.remember(candidate);
      write.catch(() => {});
      let pid;
      for (let i = 0; i < 250 && pid === undefined; i++) {
        const { rows } = await pools[1].query(
          "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'WITH won AS%'",
        );
        pid = rows[0]?.pid;
        if (pid === undefined) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(pid).toBeDefined();
      await pools[1].query('SELECT pg_terminate_backend($1)', [pid]);
      await expect(write).rejects.toMatchObject({ code: 'STORE_FAILED' });
      await locker.query('ROLLBACK');
      const again = await memory.remember(candidate);
      expect([again.action, again.replayed ?? false]).toEqual(['added', false]);
      expect((await memory.recall('user')).map((c) => c.object).sort()).toEqual(['cake', 'tea']);
    } finally {
      locker.release();
      await pool.end();
    }
  });

  it('stress: 4 processes × 150 writes to the same 3 slots — every acknowledged write exactly once, nothing else', async () => {
    const scope = `stress-${Date.now()}`;
    const count = 150;
    const subjects = 3;
    const started = Date.now();
    const writers = [0, 1, 2, 3].map((worker) => startWriter({ kind: 'pg', url, scope, tables, worker, count, subjects, inflight: 3 }));
    const results = await Promise.all(writers.map((w) => w.exited));
    for (const r of results) expect(r, r.stderr).toMatchObject({ code: 0, done: true });
    const acks = writers.flatMap((w) => w.acks);
    expect(acks).toHaveLength(4 * count);
    const store = new PostgresStore(pools[0], { scope, tables });
    expect(await expectAcknowledged(store, acks, { subjects })).toBe(4 * count);
    // The normalized rows agree with the snapshots, and the log has every version.
    const { rows } = await pools[0].query(`SELECT count(*)::int AS n, count(DISTINCT id)::int AS d FROM ${tables.claims} WHERE scope = $1`, [scope]);
    expect(rows[0]).toEqual({ n: 4 * count, d: 4 * count });
    for (const r of await store.listSlots({})) {
      const slot = await store.loadSlot(r);
      const log = await store.readLog(r);
      expect(log.map((e) => e.version)).toEqual(Array.from({ length: slot.version }, (_, i) => i + 1));
    }
    // The writers really raced: some commits lost and were retried.
    const attempts = acks.reduce((n, a) => n + a.attempts, 0);
    expect(attempts).toBeGreaterThan(acks.length);
    console.log(`stress: ${acks.length} writes by 4 processes in ${Date.now() - started} ms, ${attempts} commit attempts`);
  }, 240000);
});
