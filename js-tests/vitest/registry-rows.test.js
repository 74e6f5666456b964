// PostgresStore and IndexedDbStore keep an entity registry's claims
// and conflicts (its names and `same_entity` questions) as rows or
// records by position (`registryRows`), so a new name commits what
// changed, not every open question. Checked on PGlite and fake-indexeddb
// (OkfStore no longer has registries, issue #44): the stored slot holds no
// claims, a fresh store object loads the registry exactly as the writer holds
// it, a second writer reads the first one's questions as changes, a registry
// moves between the whole document and rows both ways, and rows an earlier
// registry of the same key left behind are not taken for its own.
import { describe, expect, it } from 'vitest';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { IndexedDbStore, Memory, PostgresStore } from 'credence';
import { delegating } from 'credence/conformance';
import { tempRootAndPglite } from '../lib/temp-stores.mjs';

const { db } = tempRootAndPglite('credence-registry-rows-');
const idb = new IDBFactory();
const REGISTRY = { key: '\u001fentities\u001forg', subject: '\u001fentities', predicate: 'org' };
const WORDS = ['Alpha', 'Bravo', 'Charlie', 'Delta', 'Echo', 'Foxtrot'];
let n = 0;

/** Names sharing words, so most open `same_entity` questions. */
const names = () => WORDS.flatMap((a, i) => WORDS.slice(i + 1).map((b) => `${a} ${b}`));

/** One raw IndexedDB transaction on database `name`. */
function idbTx(name, stores, mode, body) {
  return new Promise((resolve, reject) => {
    const req = idb.open(name);
    req.onerror = () => reject(req.error);
    req.onsuccess = () => {
      const conn = req.result;
      const tx = conn.transaction(stores, mode);
      let out;
      tx.oncomplete = () => (conn.close(), resolve(out));
      tx.onerror = () => (conn.close(), reject(tx.error));
      body(tx, (v) => (out = v));
    };
  });
}

// Each: a store on a fresh tenant (`again` another object on it), the registry's stored
// document, whether it keeps the items as rows (`rows(doc)`), and `dropRegistry` (its slot
// record and log gone, its rows left behind).
const kinds = {
  'PostgresStore (PGlite)': () => {
    const scope = `rows${++n}`;
    return {
      again: () => new PostgresStore(db, { scope }),
      doc: async () => (await db.query(`SELECT slot FROM memory_slots WHERE scope = $1 AND key = $2`, [scope, REGISTRY.key])).rows[0].slot,
      rows: (doc) => !Array.isArray(doc.claims),
      dropRegistry: async () => {
        for (const [table, column] of [['memory_slots', 'key'], ['memory_claim_log', 'slot_key']]) {
          await db.query(`DELETE FROM ${table} WHERE scope = $1 AND ${column} = $2`, [scope, REGISTRY.key]);
        }
      },
    };
  },
  'IndexedDbStore (fake-indexeddb)': () => {
    const name = `rows${++n}`;
    const key = ['default', REGISTRY.key];
    return {
      again: () => new IndexedDbStore(name, { indexedDB: idb, IDBKeyRange }),
      doc: () => idbTx(name, ['slots'], 'readonly', (tx, done) => {
        const get = tx.objectStore('slots').get(key);
        get.onsuccess = () => done(get.result.slot);
      }),
      rows: (doc) => !Array.isArray(doc.claims),
      dropRegistry: () => idbTx(name, ['slots', 'log'], 'readwrite', (tx) => {
        tx.objectStore('slots').delete(key);
        const keys = tx.objectStore('log').index('bySlot').getAllKeys(key);
        keys.onsuccess = () => keys.result.forEach((k) => tx.objectStore('log').delete(k));
      }),
    };
  },
};

const open = (memory) => memory.conflicts({ status: 'open' }).then((list) => list.map((c) => c.id).sort());

for (const [kind, tenant] of Object.entries(kinds)) describe(`registry rows — ${kind}`, () => {
  /** The registry as a brand-new store object loads it, and its document as stored. */
  const freshOf = (t) => async () => ({ slot: await t.again().loadSlot(REGISTRY), doc: await t.doc() });

  it('keeps names and questions as rows: the slot row holds none, and a fresh store loads them in order', async () => {
    const t = tenant();
    const fresh = freshOf(t);
    const store = t.again();
    expect(store.registryRows).toBe(true);
    const memory = new Memory({ store });
    let asked = 0;
    for (const [i, name] of names().entries()) asked += (await memory.remember({ subject: `p${i}`, predicate: 'works_at', object: name })).conflicts.length;
    expect(asked).toBeGreaterThan(20);
    const { slot, doc } = await fresh();
    expect(t.rows(doc)).toBe(true);
    expect(doc.claims ?? []).toEqual([]);
    expect(doc.conflicts ?? []).toEqual([]);
    expect(slot.conflicts.length).toBe(asked);
    expect(slot.conflicts.map((c) => c.id).sort()).toEqual(await open(memory));
    // Every question is noted on both its name claims, as loaded.
    const byId = new Map(slot.claims.map((c) => [c.id, c]));
    for (const c of slot.conflicts) {
      expect(byId.get(c.earlierId)?.conflictIds).toContain(c.id);
      expect(byId.get(c.newerId)?.conflictIds).toContain(c.id);
    }
    // A reader in another process sees the same questions and can settle one.
    const reader = new Memory({ store: t.again() });
    expect(await open(reader)).toEqual(await open(memory));
    const [first] = await open(reader);
    await reader.settle(first, 'different');
    expect(await open(memory)).not.toContain(first);
    expect((await fresh()).slot.conflicts.find((c) => c.id === first).status).toBe('settled');
  });

  it('refuses a registry commit whose claims or conflicts are not positioned items with counts, writing nothing', async () => {
    const t = tenant();
    const store = t.again();
    const slot = { version: 1, claims: [], conflicts: [], writes: [], reviewed: 0 };
    const base = { ref: REGISTRY, expectedVersion: 0, slot, changedClaims: [], changedConflicts: [], log: [], entities: [], entityCount: 0 };
    for (const bad of [
      { claims: [], conflicts: [] },
      { claims: [{ at: 0, item: { id: 'cl_1' } }], claimCount: 0, conflicts: [], conflictCount: 0 },
      { claims: [{ at: -1, item: { id: 'cl_1' } }], claimCount: 1, conflicts: [], conflictCount: 0 },
      { claims: [{ at: 0 }], claimCount: 1, conflicts: [], conflictCount: 0 },
    ]) {
      await expect(store.commitRegistry({ ...base, ...bad })).rejects.toMatchObject({ code: 'INVALID_INPUT', field: 'commit.claims' });
    }
    expect(await store.loadSlot(REGISTRY)).toBeNull();
  });

  it('lets two writers alternate new names, each reading the other\'s questions as changes', async () => {
    const t = tenant();
    const fresh = freshOf(t);
    const [a, b] = [t.again(), t.again()];
    const loads = { a: 0 };
    const counted = delegating(a, { loadSlot: (r) => (r.subject === REGISTRY.subject && loads.a++, a.loadSlot(r)) });
    const [ma, mb] = [new Memory({ store: counted }), new Memory({ store: b })];
    const list = names();
    await ma.remember({ subject: 'p0', predicate: 'works_at', object: list[0] });
    loads.a = 0;
    for (let i = 1; i < list.length; i++) {
      await (i % 2 ? mb : ma).remember({ subject: `p${i}`, predicate: 'works_at', object: list[i] });
      expect(await open(ma)).toEqual(await open(mb));
    }
    // Writer a never read the registry whole again: b's names and questions came as changes.
    expect(loads.a).toBe(0);
    const { slot } = await fresh();
    expect(slot.conflicts.map((c) => c.id).sort()).toEqual(await open(ma));
    // A merge settled by one writer is seen by the other.
    const [q] = await open(mb);
    await mb.settle(q, 'same');
    expect(await open(ma)).not.toContain(q);
    expect((await ma.conflicts({ status: 'settled' })).map((c) => c.id)).toContain(q);
  });

  it('moves a registry written whole over to rows, and back, losing nothing', async () => {
    const t = tenant();
    const fresh = freshOf(t);
    const store = t.again();
    // A store object that does not say registryRows: the engine commits the registry's claims in its document.
    const whole = delegating(store, {}, { without: ['registryRows'] });
    const list = names();
    const writers = [new Memory({ store: whole }), new Memory({ store })];
    const modes = [];
    for (let i = 0; i < list.length; i++) {
      const which = Math.floor(i / 4) % 2;
      await writers[which].remember({ subject: `p${i}`, predicate: 'works_at', object: list[i] });
      const { slot, doc } = await fresh();
      modes.push(t.rows(doc) ? 'rows' : 'whole');
      expect(modes.at(-1)).toBe(which ? 'rows' : 'whole');
      expect(slot.conflicts.map((c) => c.id).sort()).toEqual(await open(writers[0]));
      expect(await open(writers[1])).toEqual(await open(writers[0]));
      expect(slot.entities.length).toBeGreaterThan(0);
    }
    expect(new Set(modes)).toEqual(new Set(['whole', 'rows']));
  });

  it('does not take rows of an earlier registry of the same key for its own', async () => {
    const t = tenant();
    const fresh = freshOf(t);
    const memory = new Memory({ store: t.again() });
    for (const [i, name] of names().slice(0, 6).entries()) await memory.remember({ subject: `p${i}`, predicate: 'works_at', object: name });
    const before = (await fresh()).slot;
    expect(before.conflicts.length).toBeGreaterThan(0);
    // The registry's slot record and log are deleted; its claim and conflict rows stay behind.
    await t.dropRegistry();
    const again = new Memory({ store: t.again() });
    await again.remember({ subject: 'q0', predicate: 'works_at', object: 'Zulu Yankee' });
    await again.remember({ subject: 'q1', predicate: 'works_at', object: 'Zulu Xray' });
    const { slot } = await fresh();
    expect(slot.claims.every((c) => !before.claims.some((b) => b.id === c.id))).toBe(true);
    expect(slot.conflicts.length).toBe(1);
    expect(slot.conflicts[0].status).toBe('open');
  });
});
