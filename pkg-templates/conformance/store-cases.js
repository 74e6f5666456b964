// The conformance suite every ClaimStore runs (SPEC §8): the shipped stores
// in this repository's tests, and a store of your own through
// `credence/conformance` (README, "Stores"). It defines its cases with the
// test functions it is given — Vitest's, Jest's, or the globals of whichever
// runs it — and uses only matchers both share.
//
//   runStoreConformance('OkfStore', async ({ scope }) => ({ store, teardown, reopen }))
//
// `setup` is called once per test with a fresh scope name. Stores created for
// different scopes by one setup must share their backing (same database, same
// parent directory) so isolation is really tested. `reopen()` (optional)
// returns another store object over the same data — what a second process
// would construct; without it the same object is shared.
import { ConcurrencyError, Memory } from 'credence';
import {
  AWKWARD, claim, commit, conflict, entry, none, normalize, objectCounts, ref, rememberSurely, slot, verifying, versionOf,
} from './fixtures.js';
import { entityCases } from './entity-cases.js';
import { indexCases } from './index-cases.js';

/**
 * The test functions the suite defines its cases with: `options.test`'s, else
 * the globals a runner provides (Jest's, Vitest's with `globals: true`). Each
 * case gets `timeout` ms (Vitest and Jest both take it as `it`'s third argument).
 */
function testFunctions(given = {}, timeout) {
  const pick = (name) => {
    const fn = given[name] ?? globalThis[name];
    if (typeof fn !== 'function') {
      throw new TypeError(`runStoreConformance: no \`${name}\` — pass { test: { describe, it, expect, afterEach } } (from 'vitest', say) or run it under a runner with globals (Jest)`);
    }
    return fn;
  };
  const it = pick('it');
  return { describe: pick('describe'), it: (name, fn) => it(name, fn, timeout), expect: pick('expect'), afterEach: pick('afterEach') };
}

export function runStoreConformance(name, setup, { writers = 4, writes = 24, timeout = 30_000, test } = {}) {
  const t = testFunctions(test, timeout);
  const { describe, it, expect, afterEach } = t;
  describe(`${name} — ClaimStore conformance`, () => {
    let counter = 0;
    const opened = [];
    const tag = Math.random().toString(36).slice(2, 8);
    async function fresh(scope = `conf-${tag}-${++counter}`) {
      const handle = await setup({ scope });
      opened.push(handle);
      return { ...handle, reopen: handle.reopen ?? (() => handle.store) };
    }
    afterEach(async () => {
      while (opened.length) await opened.pop().teardown?.();
    });

    describe('slots', () => {
      it('starts empty', async () => {
        const { store } = await fresh();
        expect(versionOf(await store.loadSlot(ref('user', 'likes')))).toBe(0);
        expect(await store.listSlots({})).toEqual([]);
        expect(none(await store.findClaim('cl_missing'))).toBe(true);
        expect(none(await store.findConflict('cf_missing'))).toBe(true);
        expect((await store.readLog(ref('user', 'likes'))) ?? []).toEqual([]);
      });

      it('commits a first version and reads back exactly what was committed', async () => {
        const { store, reopen } = await fresh();
        const r = ref('user', 'likes');
        const claims = AWKWARD.map((object, i) => claim(`cl_${i}`, object, i === 1 ? { validFrom: '2024-01-01T00:00:00.000Z', conflictIds: ['cf_1'] } : {}));
        claims[2].conflictIds = ['cf_1'];
        const next = slot(1, claims, {
          conflicts: [conflict('cf_1', 'cl_1', 'cl_2')],
          writes: [{ id: 'w-1', claimId: 'cl_0', action: 'added' }],
          reviewed: 3,
        });
        const log = [entry(1, 'add', ['cl_0'], AWKWARD[1]), entry(1, 'dispute_opened', ['cl_1', 'cl_2'], 'noted', { conflictId: 'cf_1', confidenceBefore: 0.5, confidenceAfter: 0.45 })];
        expect(await store.commitSlot(commit(r, 0, next, { log }))).toBe(true);
        for (const s of [store, reopen()]) {
          expect(normalize(await s.loadSlot(r))).toEqual(normalize(next));
          expect(normalize(await s.readLog(r))).toEqual(normalize(log));
          expect(await s.listSlots({})).toEqual([r]);
          expect(await s.findClaim('cl_3')).toEqual(r);
          expect(await s.findConflict('cf_1')).toEqual(r);
        }
      });

      it('refuses a stale commit and changes nothing', async () => {
        const { store, reopen } = await fresh();
        const r = ref('user', 'timezone');
        const first = slot(1, [claim('cl_a', 'CET', { predicate: 'timezone' })]);
        expect(await store.commitSlot(commit(r, 0, first))).toBe(true);
        const log = await store.readLog(r);
        const again = slot(1, [claim('cl_b', 'PST', { predicate: 'timezone' })]);
        expect(await store.commitSlot(commit(r, 0, again))).toBe(false);
        const ahead = slot(3, [...first.claims, claim('cl_c', 'JST', { predicate: 'timezone' })]);
        expect(await store.commitSlot(commit(r, 2, ahead))).toBe(false);
        for (const s of [store, reopen()]) {
          expect(normalize(await s.loadSlot(r))).toEqual(normalize(first));
          expect(normalize(await s.readLog(r))).toEqual(normalize(log));
          expect(none(await s.findClaim('cl_b'))).toBe(true);
          expect(none(await s.findClaim('cl_c'))).toBe(true);
        }
      });

      it('keeps every version and the log in order', async () => {
        const { store, reopen } = await fresh();
        const r = ref('user', 'likes');
        const claims = [];
        const expectedLog = [];
        for (let v = 1; v <= 6; v++) {
          claims.forEach((c) => (c.confidence = 0.5 + v / 100));
          claims.push(claim(`cl_${v}`, `item ${v}`));
          const c = commit(r, v - 1, slot(v, structuredClone(claims)), { changedClaims: claims.map((x) => x.id) });
          expectedLog.push(...c.log);
          expect(await store.commitSlot(c)).toBe(true);
        }
        const loaded = await reopen().loadSlot(r);
        expect(loaded.version).toBe(6);
        expect(loaded.claims.map((c) => [c.object, c.confidence])).toEqual(claims.map((c) => [c.object, c.confidence]));
        expect(normalize(await reopen().readLog(r))).toEqual(normalize(expectedLog));
      });

      it('lists slots in key order, filtered by subject, whatever the names', async () => {
        const { store, reopen } = await fresh();
        const names = [
          ['alice', 'likes'], ['Alice', 'likes'], ['alice', 'preferences.coding.style'], ['bob', 'located_in'],
          ['a/b\\c', 'x~y%z'], ['.hidden', '^caret'], ['Zoë 日本', 'живёт'], ['', 'empty subject'], ['alice', 'a'.repeat(300)],
        ];
        for (const [subject, predicate] of names) {
          const r = ref(subject, predicate);
          expect(await store.commitSlot(commit(r, 0, slot(1, [claim(`cl_${subject}_${predicate}`, 'v', { subject, predicate })])))).toBe(true);
        }
        const all = names.map(([s, p]) => ref(s, p)).sort((a, b) => (Buffer.compare(Buffer.from(a.key), Buffer.from(b.key))));
        for (const s of [store, reopen()]) {
          expect(await s.listSlots({})).toEqual(all);
          expect(await s.listSlots({ subject: 'alice' })).toEqual(all.filter((r) => r.subject === 'alice'));
          expect(await s.listSlots({ subject: 'nobody' })).toEqual([]);
          for (const r of all) expect((await s.loadSlot(r)).claims[0].predicate).toBe(r.predicate);
        }
      });

      it('lets exactly one of many racing commits win', async () => {
        const { store, reopen } = await fresh();
        const r = ref('user', 'located_in');
        const handles = [store, ...Array.from({ length: 5 }, () => reopen())];
        const attempts = handles.map((s, i) => s.commitSlot(commit(r, 0, slot(1, [claim(`cl_${i}`, `city ${i}`, { predicate: 'located_in' })]))));
        const results = await Promise.all(attempts);
        expect(results.filter(Boolean)).toHaveLength(1);
        const winner = results.indexOf(true);
        expect((await store.loadSlot(r)).claims.map((c) => c.id)).toEqual([`cl_${winner}`]);
        expect(await store.readLog(r)).toHaveLength(1);
      });
    });

    it('loadSlotToWrite (when the store has it): a version the slot had, and a stale one never commits', async () => {
      const { store, reopen } = await fresh();
      if (typeof store.loadSlotToWrite !== 'function') return;
      const r = ref('user', 'located_in');
      const empty = await store.loadSlotToWrite(r);
      expect(typeof empty.held).toBe('boolean');
      expect(empty.slot ?? null).toBeNull();
      const first = slot(1, [claim('cl_1', 'Paris', { predicate: 'located_in' })]);
      expect(await store.commitSlot(commit(r, 0, first))).toBe(true);
      const seen = await store.loadSlotToWrite(r);
      expect(normalize(seen.slot)).toEqual(normalize(first));
      // Another store object (another process) moves the slot on; this one may still hold version 1.
      const other = reopen();
      const second = slot(2, [claim('cl_2', 'Rome', { predicate: 'located_in' })]);
      expect(await other.commitSlot(commit(r, 1, second))).toBe(true);
      const held = await store.loadSlotToWrite(r);
      expect([1, 2]).toContain(held.slot.version);
      if (held.slot.version === 1) {
        expect(held.held).toBe(true);
        expect(await store.commitSlot(commit(r, 1, slot(2, [claim('cl_3', 'Oslo', { predicate: 'located_in' })])))).toBe(false);
      }
      expect(normalize(await store.loadSlot(r))).toEqual(normalize(second));
      expect(normalize((await store.loadSlotToWrite(r)).slot)).toEqual(normalize(second));
    });

    indexCases(fresh, t);
    entityCases(fresh, t);

    describe('engine on this store', () => {
      it(`loses nothing with ${writers} Memory instances writing one slot at once`, async () => {
        const { store, reopen } = await fresh();
        const memories = Array.from({ length: writers }, (_, i) => new Memory({ store: i ? reopen() : store, retries: 2 }));
        const items = Array.from({ length: writes }, (_, i) => ({ id: `w-${i}`, predicate: 'likes', object: `item ${i}` }));
        const settled = await Promise.allSettled(items.map((c, i) => memories[i % writers].remember(c)));
        for (const s of settled) if (s.status === 'rejected') expect(s.reason).toBeInstanceOf(ConcurrencyError);
        const acked = items.filter((_, i) => settled[i].status === 'fulfilled');
        let counts = objectCounts(await reopen().loadSlot(ref('user', 'likes')));
        for (const c of acked) expect(counts.get(c.object)).toBe(1);
        expect([...counts.values()].reduce((a, b) => a + b, 0)).toBe(acked.length);
        // Re-issuing the failed ones with their ids until they land; then replaying everything.
        await Promise.all(items.map((c, i) => rememberSurely(memories[i % writers], c)));
        const replays = await Promise.all(items.map((c, i) => memories[(i + 1) % writers].remember(c)));
        expect(replays.every((o) => o.replayed)).toBe(true);
        const final = await store.loadSlot(ref('user', 'likes'));
        counts = objectCounts(final);
        expect(items.every((c) => counts.get(c.object) === 1)).toBe(true);
        expect(final.claims).toHaveLength(writes);
        expect(final.writes.map((w) => w.id).sort()).toEqual(items.map((c) => c.id).sort());
      });

      it('keeps a hot slot bounded: old observations move to the archive, why() and erase() reach them', async () => {
        const { store, reopen } = await fresh();
        const memory = new Memory({ store });
        const writes = 300;
        let last;
        for (let i = 0; i < writes; i++) {
          const day = String(1 + (i % 28)).padStart(2, '0');
          last = await memory.remember({
            predicate: 'located_in', object: 'Hot Street 7',
            provenance: { sourceId: `src-${i % 3}`, extractorConf: 0.6 + (i % 4) / 10, observedAt: `2025-${String(1 + (i % 12)).padStart(2, '0')}-${day}` },
          });
        }
        expect(last.action).toBe('confirmed');
        expect(last.claim.provenance.length).toBeLessThanOrEqual(128);
        expect(last.claim.provenance.length + last.claim.archivedObservations).toBe(writes);
        const other = new Memory({ store: reopen() });
        const held = await reopen().loadSlot(ref('user', 'located_in'));
        expect(held.archive.length).toBeGreaterThan(0);
        expect(JSON.stringify(held).length).toBeLessThan(64 * 1024);
        const why = await other.why(last.claim.id);
        expect(why.claim.provenance).toHaveLength(writes);
        expect(why.claim.archivedObservations ?? 0).toBe(0);
        const times = why.claim.provenance.map((p) => p.observedAt);
        expect([...times].sort()).toEqual(times);
        expect(await other.checkInvariants()).toEqual([]);
        await other.erase({ subject: 'user' }, { reason: 'asked to forget', by: 'dpo' });
        const s = reopen();
        for (const r of await s.listSlots({})) {
          const text = JSON.stringify(await s.loadSlot(r));
          expect(text).not.toContain('Hot Street 7');
          expect(text).not.toContain('src-1');
        }
        expect(await other.checkInvariants()).toEqual([]);
      });

      it('replays a candidate id instead of writing twice', async () => {
        const { store, reopen } = await fresh();
        const one = new Memory({ store });
        const two = new Memory({ store: reopen() });
        const a = await one.remember({ id: 'msg-1', predicate: 'located_in', object: 'Paris' });
        const b = await two.remember({ id: 'msg-1', predicate: 'located_in', object: 'Paris' });
        const c = await one.remember({ id: 'msg-1', predicate: 'located_in', object: 'Rome' });
        expect(b.replayed).toBe(true);
        expect(c.replayed).toBe(true);
        expect([b.claim.id, c.claim.id]).toEqual([a.claim.id, a.claim.id]);
        expect(c.slotVersion).toBe(a.slotVersion);
        expect((await two.recall('user', { includeHistory: true })).map((x) => x.object)).toEqual(['Paris']);
      });

      it('replays a candidate id sent again to another slot, and lands an id raced into two slots once', async () => {
        const { store, reopen } = await fresh();
        const one = new Memory({ store });
        const two = new Memory({ store: reopen() });
        const a = await one.remember({ id: 'msg-x', predicate: 'located_in', object: 'Paris' });
        const b = await two.remember({ id: 'msg-x', predicate: 'likes', object: 'tea' });
        const c = await two.remember({ id: 'msg-x', subject: 'bob', predicate: 'located_in', object: 'Rome' }, { expectedVersion: 0 });
        expect([b.replayed, c.replayed, b.claim.id, c.claim.id]).toEqual([true, true, a.claim.id, a.claim.id]);
        expect(await two.recall('user', { predicate: 'likes', includeHistory: true })).toEqual([]);
        expect(await two.recall('bob', { includeHistory: true })).toEqual([]);
        expect(await reopen().findWrite('msg-x')).toEqual(ref('user', 'located_in'));
        expect(none(await reopen().findWrite('msg-never'))).toBe(true);
        // Two instances race each id into two slots at once: one write per id lands, the other replays it.
        const ids = Array.from({ length: 8 }, (_, i) => `race-${i}`);
        const outcomes = await Promise.all(ids.flatMap((id) => [
          rememberSurely(one, { id, predicate: 'mood', object: `calm ${id}` }),
          rememberSurely(two, { id, predicate: 'diet', object: `vegan ${id}` }),
        ]));
        const held = [...(await two.recall('user', { predicate: 'mood', includeHistory: true })), ...(await two.recall('user', { predicate: 'diet', includeHistory: true }))];
        expect(held.map((x) => x.object.split(' ')[1]).sort()).toEqual(ids);
        for (let i = 0; i < ids.length; i++) {
          const [x, y] = [outcomes[2 * i], outcomes[2 * i + 1]];
          expect([x.claim.id === y.claim.id, !!x.replayed !== !!y.replayed]).toEqual([true, true]);
        }
        expect(await two.checkInvariants()).toEqual([]);
      });

      it('keeps a stated end cut short by a schedule, and gives it back on withdrawal from another instance', async () => {
        const { store, reopen } = await fresh();
        const one = new Memory({ store });
        const until = new Date(Date.now() + 300 * 86_400_000).toISOString();
        const starts = new Date(Date.now() + 100 * 86_400_000).toISOString();
        const oslo = (await one.remember({ predicate: 'located_in', object: 'Oslo', validTo: until })).claim;
        const rome = (await one.remember({ predicate: 'located_in', object: 'Rome', validFrom: starts })).claim;
        const two = new Memory({ store: reopen() });
        const cut = (await two.why(oslo.id)).claim;
        expect([cut.validTo, cut.statedValidTo]).toEqual([starts, until]);
        await two.retract(rome.id);
        const held = (await new Memory({ store: reopen() }).why(oslo.id)).claim;
        expect([held.status, held.validTo, held.statedValidTo]).toEqual(['active', until, undefined]);
        expect(await two.checkInvariants()).toEqual([]);
      });

      it('supersedes, explains and finds claims across instances', async () => {
        const { store, reopen } = await fresh();
        const checked = verifying(store);
        const one = new Memory({ store: checked });
        const two = new Memory({ store: reopen() });
        await one.remember({ predicate: 'located_in', object: 'NYC', validFrom: '2024-01-01' });
        const moved = await one.remember({ predicate: 'located_in', object: 'San Francisco', validFrom: '2025-06-01' });
        expect(moved.action).toBe('superseded');
        expect((await two.recall('user')).map((c) => c.object)).toEqual(['San Francisco']);
        const history = await two.recall('user', { includeHistory: true });
        expect(history.find((c) => c.object === 'NYC')).toMatchObject({ status: 'superseded', validTo: '2025-06-01T00:00:00.000Z' });
        const why = await two.why(moved.claim.id);
        expect(why.claim.id).toBe(moved.claim.id);
        expect(why.lineage.map((c) => c.object)).toEqual(['NYC', 'San Francisco']);
        expect(why.log.map((l) => l.rule)).toEqual(['add', 'supersede']);
        expect(checked.problems).toEqual([]);
      });

      it('shares a dispute with a second Memory, which settles it; undo restores it', async () => {
        const { store, reopen } = await fresh();
        const checked = verifying(store);
        const one = new Memory({ store: checked });
        const two = new Memory({ store: reopen() });
        await one.remember({ predicate: 'born_on', object: '1990-01-01', provenance: { sourceId: 'a' } });
        const disputed = await one.remember({ predicate: 'born_on', object: '1991-02-02', provenance: { sourceId: 'b' } });
        expect(disputed.action).toBe('disputed');
        const [open] = await two.conflicts({ status: 'open' });
        expect(open).toMatchObject({ id: disputed.conflicts[0].id, kind: 'dispute', status: 'open' });
        expect([open.earlier.object, open.newer.object]).toEqual(['1990-01-01', '1991-02-02']);
        await two.settle(open.id, 'keep_newer', { by: 'tester' });
        const statuses = async (m) => (await m.recall('user', { includeHistory: true })).map((c) => [c.object, c.status]);
        expect(await statuses(one)).toEqual([['1990-01-01', 'retired'], ['1991-02-02', 'active']]);
        expect(await one.conflicts({ status: 'settled' })).toMatchObject([{ id: open.id, settledBy: 'tester', settlement: 'keep_newer' }]);
        await one.undo(open.id);
        expect(await statuses(two)).toEqual([['1990-01-01', 'disputed'], ['1991-02-02', 'disputed']]);
        expect((await two.conflicts({ status: 'open' })).map((c) => c.id)).toEqual([open.id]);
        await one.settle(open.id, 'keep_earlier');
        expect(await statuses(two)).toEqual([['1990-01-01', 'active'], ['1991-02-02', 'retired']]);
        expect((await store.findConflict(open.id))?.predicate).toBe('born_on');
        expect(checked.problems).toEqual([]);
      });

      it('keeps a retraction: a second Memory sees it, undoes it, and a stale undo writes nothing', async () => {
        const { store, reopen } = await fresh();
        const checked = verifying(store);
        const one = new Memory({ store: checked });
        const two = new Memory({ store: reopen() });
        const job = await one.remember({ predicate: 'works_at', object: 'Acme' });
        const r = await one.retract(job.claim.id, { reason: 'left, no new job', by: 'ana' });
        expect(r).toMatchObject({ id: expect.stringMatching(/^rt:/), by: 'ana', reason: 'left, no new job', undone: false });
        expect(r.claim).toMatchObject({ status: 'retracted', validTo: r.at });
        expect(await two.recall('user', { predicate: 'works_at' })).toEqual([]);
        expect((await two.why(job.claim.id)).log.map((l) => l.rule)).toEqual(['add', 'retract']);
        const back = await two.undo(r.id);
        expect(back).toMatchObject({ id: r.id, undone: true, claim: { status: 'active' } });
        expect(back.claim.validTo).toBeUndefined();
        expect((await one.recall('user', { predicate: 'works_at' })).map((c) => c.object)).toEqual(['Acme']);
        const again = await two.retract(job.claim.id);
        await one.remember({ predicate: 'works_at', object: 'Globex' });
        const shape = async () => (await two.recall('user', { predicate: 'works_at', includeHistory: true })).map((c) => [c.id, c.object, c.status, c.validTo]);
        const before = await shape();
        await expect(one.undo(again.id)).rejects.toMatchObject({ code: 'UNDO_STALE' });
        expect(await shape()).toEqual(before);
        expect(before.map((c) => c[2])).toEqual(['retracted', 'active']);
        expect(checked.problems).toEqual([]);
      });

      it('flags a dependent fact when the employer changes; a second Memory settles it keep_newer and undoes it', async () => {
        const { store, reopen } = await fresh();
        const checked = verifying(store);
        const one = new Memory({ store: checked });
        const two = new Memory({ store: reopen() });
        await one.remember({ predicate: 'works_at', object: 'Acme' });
        const office = await one.remember({ predicate: 'work_location', object: 'Acme HQ, Boston' });
        await new Promise((r) => setTimeout(r, 5));
        const moved = await one.remember({ predicate: 'works_at', object: 'Globex' });
        expect(moved.conflicts).toHaveLength(1);
        const [flag] = await two.conflicts({ status: 'open' });
        expect(flag).toMatchObject({ id: moved.conflicts[0].id, kind: 'dependent', predicate: 'work_location', earlier: { id: office.claim.id }, newer: { predicate: 'works_at', object: 'Globex' } });
        const settled = await two.settle(flag.id, 'keep_newer', { by: 'ana' });
        expect(settled.earlier.status).toBe('retracted');
        expect(await one.recall('user', { predicate: 'work_location' })).toEqual([]);
        const reopened = await one.undo(flag.id);
        expect(reopened).toMatchObject({ status: 'open', earlier: { status: 'active' } });
        expect(reopened.earlier.validTo).toBeUndefined();
        expect((await store.findConflict(flag.id))?.predicate).toBe('work_location');
        expect(checked.problems).toEqual([]);
      });

      it('erases a subject\'s text from everything the store keeps; tombstones remain and writes go on', async () => {
        const { store, reopen, raw } = await fresh();
        const SECRET = '12 Quiet Lane';
        const predicates = [{ name: 'home_phone', cardinality: 'single', timeVarying: true, dependsOn: ['home_address'] }];
        const one = new Memory({ store, predicates });
        const first = await one.remember({ predicate: 'home_address', object: SECRET, provenance: { sourceId: 'crm-export-7' } });
        await one.remember({ predicate: 'home_phone', object: '555-0100' });
        await new Promise((r) => setTimeout(r, 5));
        const moved = await one.remember({ predicate: 'home_address', object: '7 Loud Street' });
        expect(moved.conflicts[0].reason).toContain(SECRET);
        await one.remember({ predicate: 'likes', object: 'green tea' });
        const gone = [SECRET, '7 Loud Street', 'crm-export-7'];
        const everything = async (s) => {
          const parts = [];
          for (const r of await s.listSlots({})) parts.push(JSON.stringify(await s.loadSlot(r)), JSON.stringify(await s.readLog(r)));
          return parts.join('\n');
        };
        expect(await everything(store)).toContain(SECRET);
        if (raw) expect(await raw()).toContain(SECRET);

        const done = await one.erase({ subject: 'user', predicate: 'home_address' }, { reason: 'asked to be forgotten', by: 'dpo' });
        expect(done.tombstones.map((t) => t.claimId)).toEqual([first.claim.id, moved.claim.id]);
        for (const s of [store, reopen()]) {
          const text = await everything(s);
          for (const g of gone) expect(text.includes(g) ? `${g} is still there` : null).toBeNull();
          expect(text).toContain('green tea');
          expect(text).toContain('555-0100');
        }
        if (raw) {
          const bytes = await raw();
          for (const g of gone) expect(bytes.includes(g) ? `${g} in the store's raw bytes` : null).toBeNull();
          expect(bytes).toContain('green tea');
        }
        const two = new Memory({ store: reopen(), predicates });
        const why = await two.why(first.claim.id);
        expect(why.tombstone).toMatchObject({ claimId: first.claim.id, by: 'dpo', reason: 'asked to be forgotten', predicate: 'home_address' });
        expect(why.claim.object).toBe('');
        expect(await two.recall('user', { predicate: 'home_address', includeHistory: true })).toEqual([]);
        const [flag] = await two.conflicts({ status: 'open' });
        expect(flag.reason).toContain('[erased]');
        const again = await two.remember({ predicate: 'home_address', object: '3 New Road' });
        expect(again.action).toBe('added');
        expect((await one.erase({ subject: 'user', predicate: 'home_address', claimId: first.claim.id }, { reason: 'again', by: 'dpo' })).tombstones).toEqual([]);
      });

      it('keeps entities across a reopen: names still resolve to the same slot', async () => {
        const { store, reopen } = await fresh();
        const one = new Memory({ store });
        await one.remember({ subject: 'Acme', subjectType: 'org', predicate: 'located_in', object: 'Boston' });
        await one.remember({ subject: 'ACME, Inc.', subjectType: 'org', predicate: 'located_in', object: 'Austin' });
        const two = new Memory({ store: reopen() });
        const view = await two.entity('Acme Corp', { type: 'org' });
        expect(view.entity).toMatchObject({ id: 'org:acme', aliases: ['Acme', 'ACME, Inc.'] });
        const o = await two.remember({ subject: 'acme corporation', subjectType: 'org', predicate: 'located_in', object: 'austin', provenance: { sourceId: 'b' } });
        expect([o.action, o.claim.subject]).toEqual(['confirmed', 'org:acme']);
        expect(await two.subjects()).toEqual(['org:acme']);
      });

      it('never lets a fact about a near-named entity change another entity: Iceland asks, Ireland keeps Dublin', async () => {
        const { store, reopen } = await fresh();
        const checked = verifying(store);
        const one = new Memory({ store: checked });
        const two = new Memory({ store: reopen() });
        await one.remember({ subject: 'Ireland', subjectType: 'country', predicate: 'capital', object: 'Dublin' });
        const iceland = await two.remember({ subject: 'Iceland', subjectType: 'country', predicate: 'capital', object: 'Reykjavik' });
        expect([iceland.action, iceland.claim.subject, iceland.resolutions[0].rule]).toEqual(['added', 'country:iceland', 'near']);
        const capitals = async (m, name) => (await m.recall(name, { subjectType: 'country', includeHistory: true })).map((c) => [c.object, c.status]);
        expect(await capitals(one, 'Ireland')).toEqual([['Dublin', 'active']]);
        expect(await capitals(one, 'Iceland')).toEqual([['Reykjavik', 'active']]);
        const [open] = await one.conflicts({ status: 'open' });
        expect(open).toMatchObject({ id: iceland.conflicts[0].id, kind: 'same_entity', subject: 'country:iceland' });
        expect([open.earlier.object, open.newer.object]).toEqual(['Ireland', 'Iceland']);
        await two.settle(open.id, 'different', { by: 'tester' });
        await one.remember({ subject: 'ICELAND', subjectType: 'country', predicate: 'capital', object: 'reykjavik', provenance: { sourceId: 'atlas' } });
        expect(await one.conflicts({ status: 'open' })).toEqual([]);
        expect(await capitals(two, 'Ireland')).toEqual([['Dublin', 'active']]);
        expect(checked.problems).toEqual([]);
      });

      it('settles a same_entity conflict "same" (one entity) and undoes it exactly, across instances', async () => {
        const { store, reopen } = await fresh();
        const one = new Memory({ store });
        const two = new Memory({ store: reopen() });
        await one.remember({ subject: 'Jonathan Smith', subjectType: 'person', predicate: 'born_on', object: '1980-02-02', provenance: { sourceId: 'a' } });
        const typo = await one.remember({ subject: 'Jonathon Smith', subjectType: 'person', predicate: 'born_on', object: '1980-02-02', provenance: { sourceId: 'b' } });
        const id = typo.conflicts[0].id;
        expect(await two.settle(id, 'same', { by: 'tester' })).toMatchObject({ status: 'settled', settlement: 'same', settledBy: 'tester' });
        const born = await one.recall('Jonathon Smith', { subjectType: 'person' });
        expect(born.map((c) => [c.subject, c.object, c.provenance.length])).toEqual([['person:jonathan-smith', '1980-02-02', 2]]);
        expect((await two.undo(id)).status).toBe('open');
        expect((await one.recall('Jonathon Smith', { subjectType: 'person' })).map((c) => c.subject)).toEqual(['person:jonathon-smith']);
        expect((await one.recall('Jonathan Smith', { subjectType: 'person' })).map((c) => c.provenance.length)).toEqual([1]);
      });
    });

    it('keeps scopes apart: nothing written under one is visible under another', async () => {
      const a = (await fresh(`iso-${tag}-a`)).store;
      const b = (await fresh(`iso-${tag}-b`)).store;
      const ma = new Memory({ store: a });
      const mb = new Memory({ store: b });
      await ma.remember({ predicate: 'born_on', object: '1990-01-01', provenance: { sourceId: 'a' } });
      const disputed = await ma.remember({ predicate: 'born_on', object: '1991-02-02', provenance: { sourceId: 'b' } });
      const r = ref('user', 'born_on');
      expect(await mb.recall('user', { includeHistory: true })).toEqual([]);
      expect(await mb.conflicts()).toEqual([]);
      expect(await b.listSlots({})).toEqual([]);
      expect(versionOf(await b.loadSlot(r))).toBe(0);
      expect((await b.readLog(r)) ?? []).toEqual([]);
      expect(none(await b.findClaim(disputed.claim.id))).toBe(true);
      expect(none(await b.findConflict(disputed.conflicts[0].id))).toBe(true);
      const own = await mb.remember({ predicate: 'born_on', object: '1985-05-05' });
      expect(own.slotVersion).toBe(1);
      expect((await ma.recall('user', { includeHistory: true })).map((c) => c.object)).toEqual(['1990-01-01', '1991-02-02']);
      expect((await mb.recall('user')).map((c) => c.object)).toEqual(['1985-05-05']);
    });
  });
}
