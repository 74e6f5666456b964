// slotTag (ClaimStore, optional): a tag of a slot's current content. With it
// the engine keeps entity registries between writes and reloads one only when
// its tag moved. Checked on PostgresStore (PGlite) and IndexedDbStore
// (fake-indexeddb; OkfStore no longer has slotTag, issue #44): tags move with
// every commit and never come back for other content (a wiped store reuses
// versions), and a registry read from the cache is never stale.
import { describe, expect, it } from 'vitest';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { IndexedDbStore, Memory, PostgresStore } from 'credence';
import { claim, commit, delegating, ref, slot } from 'credence/conformance';
import { tempRootAndPglite } from '../lib/temp-stores.mjs';

const { db } = tempRootAndPglite('credence-tags-');

let n = 0;
const idb = new IDBFactory();
// Each: a store, `wipe` (everything it holds gone) and `reopen` (another store object on the same data).
const stores = {
  'PostgresStore (PGlite)': () => {
    const scope = `s${++n}`;
    const store = new PostgresStore(db, { scope });
    return {
      store,
      wipe: async () => {
        for (const table of ['memory_slots', 'memory_claims', 'memory_conflicts', 'memory_claim_log']) await db.query(`DELETE FROM ${table} WHERE scope = $1`, [scope]);
      },
      reopen: () => store,
    };
  },
  'IndexedDbStore (fake-indexeddb)': () => {
    const name = `db${++n}`;
    const open = () => new IndexedDbStore(name, { indexedDB: idb, IDBKeyRange });
    const store = open();
    const others = [];
    return {
      store,
      wipe: async () => {
        for (const s of [store, ...others]) s.close();
        await new Promise((resolve, reject) => {
          const req = idb.deleteDatabase(name);
          req.onsuccess = resolve;
          req.onerror = () => reject(req.error);
        });
      },
      reopen: () => {
        const s = open();
        others.push(s);
        return s;
      },
    };
  },
};

const REGISTRY = '\u001fentities';
const isRegistry = (r) => r.subject === REGISTRY;

/** A store behind a JS object that counts registry loads. */
function counting(store, { tags = true, byChanges = true } = {}) {
  const counts = { registryLoads: 0 };
  const wrapped = delegating(store, {
    loadSlot: (r) => {
      if (isRegistry(r)) counts.registryLoads++;
      return store.loadSlot(r);
    },
  }, { without: [...(tags ? [] : ['slotTag']), ...(byChanges ? [] : ['commitRegistry'])] });
  return { wrapped, counts };
}

for (const [name, open] of Object.entries(stores)) {
  describe(`slotTag — ${name}`, () => {
    it('is null for an empty slot, moves with every commit, and stays put in between', async () => {
      const { store } = open();
      const r = ref('user', 'likes');
      expect(await store.slotTag(r)).toBeNull();
      expect(await store.commitSlot(commit(r, 0, slot(1, [claim('cl_1', 'tea')])))).toBe(true);
      const first = await store.slotTag(r);
      expect(typeof first).toBe('string');
      expect(await store.slotTag(r)).toBe(first);
      expect(await store.commitSlot(commit(r, 1, slot(2, [claim('cl_1', 'tea'), claim('cl_2', 'cake')])))).toBe(true);
      const second = await store.slotTag(r);
      expect(second).not.toBe(first);
      // A lost race changes nothing, the tag included.
      expect(await store.commitSlot(commit(r, 1, slot(2, [claim('cl_3', 'pie')])))).toBe(false);
      expect(await store.slotTag(r)).toBe(second);
    });

    it('never comes back for other content after the store is wiped', async () => {
      const { store, wipe, reopen } = open();
      const r = ref('user', 'likes');
      await store.commitSlot(commit(r, 0, slot(1, [claim('cl_1', 'tea')])));
      const before = await store.slotTag(r);
      await wipe();
      const again = reopen();
      expect(await again.slotTag(r)).toBeNull();
      await again.commitSlot(commit(r, 0, slot(1, [claim('cl_9', 'coffee')])));
      expect(await again.slotTag(r)).not.toBe(before);
    });

    it('loads the registry once for a write that adds a name to it (none when the store commits it by its changes)', async () => {
      for (const byChanges of [false, true]) {
        const { store } = open();
        const { wrapped, counts } = counting(store, { byChanges });
        const memory = new Memory({ store: wrapped });
        await memory.remember({ subject: 'p0', predicate: 'works_at', object: 'Acme' });
        for (const [i, org] of ['Globex', 'Initech', 'Umbrella'].entries()) {
          counts.registryLoads = 0;
          const o = await memory.remember({ subject: `p${i + 1}`, predicate: 'works_at', object: org });
          expect(o.resolutions[0].rule).toBe('new');
          // commitRegistry answers the new tag: the registry committed is the snapshot at it.
          expect(counts.registryLoads).toBe(byChanges ? 0 : 1);
        }
        expect((await new Memory({ store }).entity('Umbrella', { type: 'org' }))?.entity.aliases).toEqual(['Umbrella']);
      }
    });

    it('commits a registry by its changes: a new name sends one entity, whatever the number of entities', async () => {
      const { store, reopen } = open();
      const sent = [];
      const wrapped = delegating(store, {
        commitRegistry: (c) => {
          sent.push({ entities: c.entities.length, inline: c.slot.entities?.length ?? 0, bytes: JSON.stringify(c).length });
          return store.commitRegistry(c);
        },
      });
      const memory = new Memory({ store: wrapped });
      // Names far apart (no near-match questions, which the registry's slot keeps).
      const word = (i) => {
        let [text, x] = ['', (i * 2654435761) >>> 0];
        for (let k = 0; k < 9; k++) [text, x] = [text + String.fromCharCode(97 + (x % 26)), Math.floor(x / 26) + k * 7919 + i];
        return text;
      };
      const orgs = Array.from({ length: 60 }, (_, i) => `${word(i)} ${word(i + 97)}`);
      for (const [i, org] of orgs.entries()) await memory.remember({ subject: `p${i}`, predicate: 'works_at', object: org });
      expect(sent).toHaveLength(60);
      expect(sent.every((c) => c.entities === 1 && c.inline === 0)).toBe(true);
      expect(sent[59].bytes).toBeLessThan(sent[0].bytes * 1.5);
      // Every one of them is there for a reader that loads the registry afresh.
      const fresh = new Memory({ store: reopen() });
      for (const org of [orgs[0], orgs[30], orgs[59]]) expect((await fresh.entity(org, { type: 'org' }))?.entity.name).toBe(org);
    });

    it('reads a registry another store object moved as its changes, not whole', async () => {
      const { store, reopen } = open();
      const writer = new Memory({ store });
      const other = reopen();
      const { wrapped, counts } = counting(other);
      let changes = 0;
      const reader = new Memory({ store: { ...wrapped, loadRegistryChanges: (...args) => (changes++, other.loadRegistryChanges(...args)) } });
      await writer.remember({ subject: 'p0', predicate: 'works_at', object: 'Acme' });
      await reader.remember({ subject: 'q0', predicate: 'works_at', object: 'Acme' });
      counts.registryLoads = 0;
      for (const [i, org] of ['Globex', 'Initech', 'Umbrella'].entries()) {
        await writer.remember({ subject: `p${i + 1}`, predicate: 'works_at', object: org });
        // The reader names it: it must see the writer's entity, reading only what changed.
        const seen = await reader.remember({ subject: `q${i + 1}`, predicate: 'works_at', object: org });
        expect(seen.resolutions[0].rule).not.toBe('new');
      }
      expect(counts.registryLoads).toBe(0);
      expect(changes).toBe(3);
      expect((await reader.entity('Umbrella', { type: 'org' }))?.entity.id).toBe((await writer.entity('Umbrella', { type: 'org' }))?.entity.id);
    });

    it('lets the engine keep a registry between writes, and never serve a stale one', async () => {
      const { store, wipe, reopen } = open();
      const { wrapped, counts } = counting(store);
      const memory = new Memory({ store: wrapped });
      const orgs = ['Acme', 'Globex', 'Initech', 'Umbrella', 'Hooli'];
      for (const [i, org] of orgs.entries()) await memory.remember({ subject: `p${i}`, predicate: 'works_at', object: org });
      counts.registryLoads = 0;
      for (let i = 0; i < 20; i++) await memory.remember({ subject: `q${i}`, predicate: 'works_at', object: orgs[i % orgs.length] });
      // None: the registry each new name committed is kept at the tag its commit answered.
      expect(counts.registryLoads).toBe(0);
      counts.registryLoads = 0;
      // Without slotTag, every one of those writes loads the registry.
      const plain = counting(store, { tags: false });
      const untagged = new Memory({ store: plain.wrapped });
      for (let i = 0; i < 5; i++) await untagged.remember({ subject: `r${i}`, predicate: 'works_at', object: orgs[i] });
      expect(plain.counts.registryLoads).toBeGreaterThanOrEqual(5);
      // Another writer's new name is seen at once: the tag moved.
      const other = new Memory({ store: reopen() });
      const stark = await other.remember({ subject: 'x', predicate: 'works_at', object: 'Stark Industries' });
      const seen = await memory.remember({ subject: 'y', predicate: 'works_at', object: 'Stark Industries' });
      expect(seen.claim.objectEntity).toBe(stark.claim.objectEntity);
      // ... read as its changes (loadRegistryChanges), not loaded whole.
      expect(counts.registryLoads).toBe(0);
      // Wiped and refilled (registry versions start again): the old registry is not served.
      await wipe();
      const refill = new Memory({ store: reopen() });
      for (const org of ['Tyrell', 'Wayne', 'Cyberdyne', 'Soylent', 'Massive']) await refill.remember({ subject: 'z', predicate: 'works_at', object: org });
      expect(await memory.entity('Acme', { type: 'org' })).toBeFalsy();
      expect((await memory.entity('Tyrell', { type: 'org' }))?.entity.name).toBe('Tyrell');
    });
  });
}
