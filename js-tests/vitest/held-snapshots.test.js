// ClaimStore.loadSlotToWrite (optional), on PostgresStore and IndexedDbStore:
// a write loads its slot from the version the store last loaded or committed,
// so it costs one round trip or transaction (its commit). Two store objects
// on one scope stand for two processes (or tabs): a snapshot the other one
// made stale is refused by the commit and reloaded, and data wiped and
// refilled to the same version is not mistaken for it.
import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { IndexedDbStore, Memory, POSTGRES_SCHEMA, PostgresStore } from 'credence';
import { tempRootAndPglite } from '../lib/temp-stores.mjs';

const { db } = tempRootAndPglite('credence-held-');
const url = process.env.DATABASE_URL;
const run = `${process.pid}-${Date.now()}`;
let n = 0;

/** A store class that counts the slot loads that reach its backend (loadSlotToWrite calls loadSlot when it holds nothing). */
function counted(Store) {
  return class extends Store {
    loads = 0;
    loadSlot(ref) {
      if (ref.subject === 'ann') this.loads++;
      return super.loadSlot(ref);
    }
  };
}

const postgres = (connect) => async () => {
  const q = await connect();
  const scope = `held-${run}-${++n}`;
  const Store = counted(PostgresStore);
  return {
    open: () => new Store(q, { scope }),
    wipe: async () => {
      for (const table of ['memory_slots', 'memory_claims', 'memory_conflicts', 'memory_claim_log']) await q.query(`DELETE FROM ${table} WHERE scope = $1`, [scope]);
    },
  };
};
const backends = { 'PostgresStore on PGlite': postgres(() => db) };
if (url) {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  backends['PostgresStore on a PostgreSQL server'] = postgres(async () => {
    await pool.query(POSTGRES_SCHEMA);
    return pool;
  });
}
const idb = new IDBFactory();
backends['IndexedDbStore (fake-indexeddb)'] = async () => {
  const name = `held-${++n}`;
  const Store = counted(IndexedDbStore);
  const opened = [];
  return {
    open: () => {
      const store = new Store(name, { indexedDB: idb, IDBKeyRange });
      opened.push(store);
      return store;
    },
    wipe: async () => {
      for (const store of opened) store.close();
      await new Promise((resolve, reject) => {
        const req = idb.deleteDatabase(name);
        req.onsuccess = resolve;
        req.onerror = () => reject(req.error);
      });
    },
  };
};

const lives = (city, year) => ({ subject: 'ann', predicate: 'located_in', object: city, validFrom: year });
const current = async (memory) => (await memory.recall('ann', { predicate: 'located_in' })).map((c) => c.object);

for (const [name, backend] of Object.entries(backends)) {
  describe(`held snapshots — ${name}`, () => {
    it('a write after the first loads nothing: one round trip, its commit', async () => {
      const store = (await backend()).open();
      const memory = new Memory({ store });
      await memory.remember(lives('Paris', '2020'));
      const before = store.loads;
      for (const [i, city] of ['Rome', 'Oslo', 'Lima', 'Kyiv'].entries()) await memory.remember(lives(city, `${2021 + i}`));
      expect(store.loads).toBe(before);
      expect(await current(memory)).toEqual(['Kyiv']);
    });

    it('a snapshot another writer made stale is reloaded, and costs no retry', async () => {
      const { open } = await backend();
      const a = new Memory({ store: open(), retries: 0 });
      const b = new Memory({ store: open(), retries: 0 });
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

    it('a replayed candidate id shows its claim as the slot holds it now', async () => {
      const { open } = await backend();
      const a = new Memory({ store: open() });
      const b = new Memory({ store: open() });
      const first = await a.remember({ ...lives('Paris', '2020'), id: 'w1' });
      await b.remember(lives('London', '2024'));
      const again = await a.remember({ ...lives('Paris', '2020'), id: 'w1' });
      expect([again.replayed, again.claim.id, again.claim.status]).toEqual([true, first.claim.id, 'superseded']);
    });

    it('data wiped and refilled to the same version is not taken for the snapshot', async () => {
      const { open, wipe } = await backend();
      const a = new Memory({ store: open() });
      await a.remember(lives('Paris', '2020'));
      await a.remember(lives('Rome', '2021'));
      await wipe();
      // Another process refills the slot to the version a's snapshot has, with other values.
      const b = new Memory({ store: open() });
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
