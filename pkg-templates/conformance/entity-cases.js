// Entity key rows (ClaimStore.findEntities): each commit of an entity slot
// (subject "\u001fentity", predicate = the entity id) carries
// `index.entity = { type, id, keys: [{ key, name }] }`, and the store
// replaces every key row of that entity in the same atomic step — a refused
// commit changes no row. findEntities answers the rows of one type whose key
// is asked, from any store object over the same data, per scope.
// Part of the conformance suite (store-cases.js).
import { AWKWARD, claim, commit, normalize, ref } from './fixtures.js';

const entityRef = (id) => ref('\u001fentity', id);

/** An entity slot at `version` holding entity `id`, its commit carrying `keys` ([key, name] pairs) as index.entity. */
function entityCommit(id, expected, keys, { type = id.split(':')[0], claims = [], writes } = {}) {
  const version = expected + 1;
  const entity = { id, type, name: keys[0]?.[1] ?? id, aliases: [...new Set(keys.map(([, name]) => name))] };
  const slot = { version, claims, conflicts: [], writes: [], reviewed: claims.length, entities: [entity] };
  const index = { conflicts: [], unreviewed: false, entity: { type, id, keys: keys.map(([key, name]) => ({ key, name })) } };
  if (writes) index.writes = writes;
  return { ...commit(entityRef(id), expected, slot), index };
}

/** Rows as sorted [key, entity, name] triples, duplicates dropped (the contract tolerates them). */
const rowsOf = (rows) => sorted(rows.map((r) => [r.key, r.entity, r.name]));
const sorted = (triples) => [...new Set(triples.map((t) => JSON.stringify(t)))].sort().map((t) => JSON.parse(t));

/** The entity cases, defined with the suite's test functions `t`. */
export function entityCases(fresh, { describe, it, expect }) {
  describe('entity key rows (findEntities)', () => {
    it('finds the rows of one type by key, from any store object, whatever the keys', async () => {
      const { store, reopen } = await fresh();
      if (typeof store.findEntities !== 'function') return;
      const odd = AWKWARD.map((a) => a.slice(0, 1000)).filter((a) => a.trim() !== '');
      expect(await store.commitSlot(entityCommit('org:acme', 0, [['acme', 'Acme Corp'], ['acme corp', 'Acme Corp'], ...odd.map((k) => [k, 'Acme Corp'])]))).toBe(true);
      expect(await store.commitSlot(entityCommit('org:acme-labs', 0, [['acme', 'Acme Labs'], ['acme labs', 'Acme Labs']]))).toBe(true);
      expect(await store.commitSlot(entityCommit('person:acme', 0, [['acme', 'Acme'], ['smith', 'Acme Smith']]))).toBe(true);
      for (const s of [store, reopen()]) {
        expect(rowsOf(await s.findEntities({ type: 'org', keys: ['acme', 'nobody'] }))).toEqual(sorted([['acme', 'org:acme', 'Acme Corp'], ['acme', 'org:acme-labs', 'Acme Labs']]));
        expect(rowsOf(await s.findEntities({ type: 'person', keys: ['acme', 'acme corp'] }))).toEqual([['acme', 'person:acme', 'Acme']]);
        expect(rowsOf(await s.findEntities({ type: 'org', keys: odd }))).toEqual(rowsOf(odd.map((key) => ({ key, entity: 'org:acme', name: 'Acme Corp' }))));
        expect(await s.findEntities({ type: 'org', keys: [] })).toEqual([]);
        expect(await s.findEntities({ type: 'place', keys: ['acme'] })).toEqual([]);
      }
      // The slot itself is an ordinary slot.
      expect(normalize((await store.loadSlot(entityRef('org:acme'))).entities.map((e) => e.id))).toEqual(['org:acme']);
    });

    it('answers hundreds of keys at once', async () => {
      const { store } = await fresh();
      if (typeof store.findEntities !== 'function') return;
      const keys = Array.from({ length: 300 }, (_, i) => [`token ${i}`, `Name ${i % 7}`]);
      expect(await store.commitSlot(entityCommit('org:big', 0, keys))).toBe(true);
      const asked = [...keys.map(([k]) => k), ...Array.from({ length: 100 }, (_, i) => `missing ${i}`)];
      expect(rowsOf(await store.findEntities({ type: 'org', keys: asked }))).toEqual(rowsOf(keys.map(([key, name]) => ({ key, entity: 'org:big', name }))));
    });

    it('replaces every row of the entity on its next commit, and no other entity\'s', async () => {
      const { store, reopen } = await fresh();
      if (typeof store.findEntities !== 'function') return;
      expect(await store.commitSlot(entityCommit('org:acme', 0, [['acme', 'Acme Corp'], ['acme corp', 'Acme Corp']]))).toBe(true);
      expect(await store.commitSlot(entityCommit('org:globex', 0, [['globex', 'Globex'], ['acme', 'Globex (formerly Acme)']]))).toBe(true);
      expect(await reopen().commitSlot(entityCommit('org:acme', 1, [['acme inc', 'ACME, Inc.'], ['acme corp', 'Acme Corporation']]))).toBe(true);
      for (const s of [store, reopen()]) {
        expect(rowsOf(await s.findEntities({ type: 'org', keys: ['acme', 'acme corp', 'acme inc', 'globex'] }))).toEqual(sorted([
          ['acme', 'org:globex', 'Globex (formerly Acme)'], ['acme corp', 'org:acme', 'Acme Corporation'], ['acme inc', 'org:acme', 'ACME, Inc.'], ['globex', 'org:globex', 'Globex'],
        ]));
      }
    });

    it('changes no row on a refused commit: a stale version, or a candidate id another slot holds', async () => {
      const { store, reopen } = await fresh();
      if (typeof store.findEntities !== 'function') return;
      const before = [['acme', 'org:acme', 'Acme Corp']];
      expect(await store.commitSlot(entityCommit('org:acme', 0, [['acme', 'Acme Corp']]))).toBe(true);
      expect(await reopen().commitSlot(entityCommit('org:acme', 0, [['stale', 'Stale']]))).toBe(false);
      expect(await store.commitSlot(entityCommit('org:acme', 3, [['ahead', 'Ahead']]))).toBe(false);
      expect(rowsOf(await store.findEntities({ type: 'org', keys: ['acme', 'stale', 'ahead'] }))).toEqual(before);
      if (typeof store.findWrite !== 'function') return;
      const other = ref('user', 'works_at');
      const held = { ...commit(other, 0, { version: 1, claims: [claim('cl_w', 'Acme', { predicate: 'works_at' })], conflicts: [], writes: [{ id: 'w-1', claimId: 'cl_w', action: 'added' }], reviewed: 0 }), index: { conflicts: [], unreviewed: true, writes: ['w-1'] } };
      expect(await store.commitSlot(held)).toBe(true);
      expect(await store.commitSlot(entityCommit('org:acme', 1, [['taken', 'Taken']], { writes: ['w-1'] }))).toBe(false);
      expect(rowsOf(await store.findEntities({ type: 'org', keys: ['acme', 'taken'] }))).toEqual(before);
      expect((await store.loadSlot(entityRef('org:acme'))).version).toBe(1);
    });

    it('replaces the rows on eraseSlot too', async () => {
      const { store, reopen } = await fresh();
      if (typeof store.findEntities !== 'function' || typeof store.eraseSlot !== 'function') return;
      expect(await store.commitSlot(entityCommit('person:ann', 0, [['ann', 'Ann Secret'], ['secret', 'Ann Secret']]))).toBe(true);
      const scrubbed = entityCommit('person:ann', 1, [['ann', 'Ann']]);
      expect(await store.eraseSlot(scrubbed, (await store.readLog(entityRef('person:ann'))).map((e) => ({ ...e, note: '[erased]' })))).toBe(true);
      for (const s of [store, reopen()]) {
        expect(rowsOf(await s.findEntities({ type: 'person', keys: ['ann', 'secret'] }))).toEqual([['ann', 'person:ann', 'Ann']]);
      }
    });

    it('keeps scopes apart', async () => {
      const { store } = await fresh();
      if (typeof store.findEntities !== 'function') return;
      const { store: other } = await fresh();
      expect(await store.commitSlot(entityCommit('org:acme', 0, [['acme', 'Acme Corp']]))).toBe(true);
      expect(await other.findEntities({ type: 'org', keys: ['acme'] })).toEqual([]);
    });
  });
}
