// PostgresStore.loadSlotToWrite (ClaimStore, optional): a write loads its slot
// from the version the store last loaded or committed, so it costs one round
// trip (its commit). Two store objects on one scope stand for two processes:
// a snapshot the other one made stale is refused by the commit and reloaded,
// and a table wiped and refilled to the same version is not mistaken for it.
import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { Memory, POSTGRES_SCHEMA, PostgresStore } from 'credence';
import { tempRootAndPglite } from '../lib/temp-stores.mjs';

const { db } = tempRootAndPglite('credence-held-');
const url = process.env.DATABASE_URL;
const servers = { PGlite: () => db };
if (url) {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  servers['a PostgreSQL server'] = async () => {
    await pool.query(POSTGRES_SCHEMA);
    return pool;
  };
}

/** A queryable that counts the slot loads it passes on. */
function counting(q) {
  const counts = { loads: 0 };
  return {
    counts,
    query: (text, values) => {
      if (/^SELECT slot, xmin/.test(text)) counts.loads++;
      return q.query(text, values);
    },
  };
}

const lives = (city, year) => ({ subject: 'ann', predicate: 'located_in', object: city, validFrom: year });
const current = async (memory) => (await memory.recall('ann', { predicate: 'located_in' })).map((c) => c.object);

let n = 0;
const run = `${process.pid}-${Date.now()}`;
for (const [name, connect] of Object.entries(servers)) {
  describe(`held snapshots — PostgresStore on ${name}`, () => {
    it('a write after the first loads nothing: one round trip, its commit', async () => {
      const q = counting(await connect());
      const memory = new Memory({ store: new PostgresStore(q, { scope: `held-${run}-${++n}` }) });
      await memory.remember(lives('Paris', '2020'));
      const before = q.counts.loads;
      for (const [i, city] of ['Rome', 'Oslo', 'Lima', 'Kyiv'].entries()) await memory.remember(lives(city, `${2021 + i}`));
      expect(q.counts.loads).toBe(before);
      expect(await current(memory)).toEqual(['Kyiv']);
    });

    it('a snapshot another writer made stale is reloaded, and costs no retry', async () => {
      const scope = `held-${run}-${++n}`;
      const q = await connect();
      const a = new Memory({ store: new PostgresStore(q, { scope }), retries: 0 });
      const b = new Memory({ store: new PostgresStore(q, { scope }), retries: 0 });
      await a.remember(lives('Paris', '2020'));
      await b.remember(lives('London', '2024'));
      // Against a's snapshot (Paris only) London is new; it is a confirmation.
      const o = await a.remember(lives('London', '2024'));
      expect([o.action, o.attempts]).toEqual(['confirmed', 1]);
      // `reject` refuses a value against a's stale snapshot without a commit; the slot as it is holds it.
      await b.remember(lives('Rome', '2025'));
      const r = await a.remember(lives('Rome', '2025'), { strategy: 'reject' });
      expect(r.action).toBe('confirmed');
      // expectedVersion is compared with the slot as it is.
      const v = (await b.remember(lives('Oslo', '2026'))).slotVersion;
      expect((await a.remember(lives('Lima', '2026-06'), { expectedVersion: v })).action).toBe('superseded');
      expect(await current(a)).toEqual(['Lima']);
      expect(await a.checkInvariants()).toEqual([]);
    });

    it('a table wiped and refilled to the same version is not taken for the snapshot', async () => {
      const scope = `held-${run}-${++n}`;
      const q = await connect();
      const a = new Memory({ store: new PostgresStore(q, { scope }) });
      await a.remember(lives('Paris', '2020'));
      await a.remember(lives('Rome', '2021'));
      for (const table of ['memory_slots', 'memory_claims', 'memory_conflicts', 'memory_claim_log']) await q.query(`DELETE FROM ${table} WHERE scope = $1`, [scope]);
      // Another process refills the slot to the version a's snapshot has, with other values.
      const b = new Memory({ store: new PostgresStore(q, { scope }) });
      await b.remember(lives('Oslo', '2022'));
      await b.remember(lives('Lima', '2023'));
      const o = await a.remember(lives('Kyiv', '2024'));
      expect(o.action).toBe('superseded');
      const all = (await a.recall('ann', { predicate: 'located_in', includeHistory: true })).map((c) => c.object).sort();
      expect(all).toEqual(['Kyiv', 'Lima', 'Oslo']);
      expect(await a.checkInvariants()).toEqual([]);
    });
  });
}
