// Store interface v2 (SPEC §8): the index answers every store gives —
// conflicts by status (oldest first, paged) and slots with unreviewed entries
// (by key, paged) — kept in step with each commit, per scope, from a fresh
// reader, and (when the store has derived index files) after deleting them.
// Part of the conformance suite (store-cases.js).
import { Memory } from 'credence';
import { claim, commit, conflict, ref, slot } from './fixtures.js';

const T1 = '2026-06-02T10:00:00.000Z';
const T2 = '2026-06-03T10:00:00.000Z';

const ids = (rows) => rows.map((r) => r.id);
const keys = (refs) => refs.map((r) => r.subject + '/' + r.predicate);

/** Slot A: two open conflicts opened at T1 (ids out of order) and a settled one; slot B: one open at T2. */
async function seed(store, expect) {
  const a = ref('user', 'likes');
  const b = ref('user', 'works_at');
  const claimsA = ['x', 'y', 'z', 'w'].map((o, i) => claim(`cl_a${i}`, o));
  const conflictsA = [
    conflict('cf_b', 'cl_a0', 'cl_a1', { openedAt: T1 }),
    conflict('cf_a', 'cl_a1', 'cl_a2', { openedAt: T1 }),
    conflict('cf_c', 'cl_a2', 'cl_a3', { status: 'settled', settlement: 'keep_both', settledAt: T2, settledBy: 'ana' }),
  ];
  const slotA = slot(1, claimsA, { conflicts: conflictsA, reviewed: 4 });
  expect(await store.commitSlot(commit(a, 0, slotA))).toBe(true);
  const claimsB = ['Acme', 'Initech'].map((o, i) => claim(`cl_b${i}`, o, { predicate: 'works_at' }));
  const slotB = slot(1, claimsB, { conflicts: [conflict('cf_d', 'cl_b0', 'cl_b1', { openedAt: T2 })] });
  expect(await store.commitSlot(commit(b, 0, slotB))).toBe(true);
  return { a, b, slotA };
}

/** The index cases, defined with the suite's test functions `t`. */
export function indexCases(fresh, { describe, it, expect }) {
  describe('indexes (store interface v2)', () => {
    it('lists conflicts by status, oldest first, then by id, with the slot holding each', async () => {
      const { store, reopen } = await fresh();
      const { a, b } = await seed(store, expect);
      for (const s of [store, reopen()]) {
        const open = await s.listConflicts({ status: 'open', limit: 10 });
        expect(ids(open)).toEqual(['cf_a', 'cf_b', 'cf_d']);
        expect(open.map((r) => r.ref)).toEqual([a, a, b]);
        expect(open[0]).toMatchObject({ status: 'open', openedAt: T1 });
        expect(ids(await s.listConflicts({ status: 'settled', limit: 10 }))).toEqual(['cf_c']);
        expect(await s.listConflicts({ status: 'moot', limit: 10 })).toEqual([]);
      }
    });

    it('pages conflicts: at most limit, strictly after the cursor', async () => {
      const { store } = await fresh();
      await seed(store, expect);
      const first = await store.listConflicts({ status: 'open', limit: 2 });
      expect(ids(first)).toEqual(['cf_a', 'cf_b']);
      const rest = await store.listConflicts({ status: 'open', after: { openedAt: first[1].openedAt, id: first[1].id }, limit: 2 });
      expect(ids(rest)).toEqual(['cf_d']);
    });

    it('moves a conflict to its new status in the same commit', async () => {
      const { store, reopen } = await fresh();
      const { a, slotA } = await seed(store, expect);
      const next = structuredClone(slotA);
      next.version = 2;
      next.conflicts[1] = { ...next.conflicts[1], status: 'settled', settlement: 'keep_both', settledAt: T2, settledBy: 'ana' };
      expect(await store.commitSlot(commit(a, 1, next, { changedClaims: [], changedConflicts: ['cf_a'] }))).toBe(true);
      for (const s of [store, reopen()]) {
        expect(ids(await s.listConflicts({ status: 'open', limit: 10 }))).toEqual(['cf_b', 'cf_d']);
        expect(ids(await s.listConflicts({ status: 'settled', limit: 10 }))).toEqual(['cf_c', 'cf_a']);
      }
    });

    it('lists the slots with unreviewed entries by key, paged, and drops a slot once reviewed', async () => {
      const { store, reopen } = await fresh();
      const { a, b } = await seed(store, expect);
      const c = ref('user', 'zodiac');
      expect(await store.commitSlot(commit(c, 0, slot(1, [claim('cl_c0', 'leo', { predicate: 'zodiac' })])))).toBe(true);
      for (const s of [store, reopen()]) {
        expect(keys(await s.dirtySlots({ limit: 10 }))).toEqual(['user/works_at', 'user/zodiac']);
        expect(await s.dirtySlots({ after: b.key, limit: 10 })).toEqual([c]);
        expect(await s.dirtySlots({ limit: 1 })).toEqual([b]);
      }
      const reviewed = slot(2, (await store.loadSlot(b)).claims, { conflicts: (await store.loadSlot(b)).conflicts, reviewed: 2 });
      expect(await store.commitSlot(commit(b, 1, reviewed, { changedClaims: [], changedConflicts: [] }))).toBe(true);
      expect(await reopen().dirtySlots({ limit: 10 })).toEqual([c]);
      expect(keys(await store.dirtySlots({ limit: 10 }))).not.toContain(keys([a])[0]);
    });

    it('keeps each scope to itself', async () => {
      const { store } = await fresh();
      await seed(store, expect);
      const { store: other } = await fresh();
      expect(await other.listConflicts({ status: 'open', limit: 10 })).toEqual([]);
      expect(await other.dirtySlots({ limit: 10 })).toEqual([]);
    });

    it('answers conflicts() and review() through the indexes', async () => {
      const { store, reopen } = await fresh();
      const memory = new Memory({ store });
      await memory.remember({ predicate: 'preferences.theme', object: 'dark' });
      const asked = await memory.remember({ predicate: 'preferences.theme', object: 'light' }, { strategy: 'ask_user' });
      const listed = await new Memory({ store: reopen() }).conflicts({ status: 'open' });
      expect(listed.map((c) => c.id)).toEqual([asked.conflicts[0].id]);
      const judge = { findPairs: () => [], confirmPair: () => ({ sameThing: false, newerInvalidatesEarlier: false, reason: '' }) };
      await memory.review({ judge });
      expect(await store.dirtySlots({ limit: 10 })).toEqual([]);
      const again = await memory.review({ judge });
      expect(again.calls).toBe(0);
    });

    it('rebuilds derived index files from the slots when they are deleted (when the store has them)', async () => {
      const handle = await fresh();
      if (!handle.dropIndexes) return;
      const { store, reopen } = handle;
      await seed(store, expect);
      const before = [await store.listConflicts({ status: 'open', limit: 10 }), await store.dirtySlots({ limit: 10 })];
      await handle.dropIndexes();
      const fresher = reopen();
      expect([await fresher.listConflicts({ status: 'open', limit: 10 }), await fresher.dirtySlots({ limit: 10 })]).toEqual(before);
      expect(await store.listConflicts({ status: 'settled', limit: 10 })).toHaveLength(1);
    });
  });
}
