// IndexedDbStore cases that run unchanged in Node (Vitest on fake-indexeddb)
// and in Chromium (native ESM page driven by playwright-core). No test
// framework inside: each case is `[name, async () => {}]` and throws on failure.
//
// setup = {
//   api:       the credence module ({ Memory, IndexedDbStore, CredenceError, ... }),
//   indexedDB: the IDBFactory to use,
//   freshName: () => a database name nobody used yet,
// }
// The slot/commit cases only use the ClaimStore methods, so they can move into
// the shared `runStoreConformance` suite as they are; the rest are specific to
// IndexedDB (scopes in one database, raw records, reopening, two engines).

class AssertionError extends Error {}

function eq(actual, expected, what) {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) throw new AssertionError(`${what}: expected ${e}, got ${a}`);
}

function ok(value, what) {
  if (!value) throw new AssertionError(`${what}: expected truthy, got ${JSON.stringify(value)}`);
}

async function rejects(promise, code, what) {
  try {
    await promise;
  } catch (err) {
    if (err?.code !== code) throw new AssertionError(`${what}: expected code ${code}, got ${err?.code} (${err?.message})`);
    return err;
  }
  throw new AssertionError(`${what}: expected a rejection with ${code}`);
}

const ref = (subject, predicate) => ({ key: `${subject}\u001f${predicate}`, subject, predicate });

function claim(id, subject, predicate, object) {
  return {
    id, subject, predicate, object, status: 'active', confidence: 0.8, logOdds: 1.386, statedConfidence: 1,
    recordedAt: '2026-01-01T00:00:00.000Z', provenance: [{ sourceId: 'test', sourceTrust: 0.8, extractorConf: 1 }],
  };
}

function entry(version, rule, claimIds) {
  return { version, at: '2026-01-01T00:00:00.000Z', rule, claimIds, cause: { op: 'remember' }, note: rule };
}

/** A commit that adds one claim (and optionally opens a conflict) to `r`. */
function commitOf(r, expectedVersion, claims, { conflicts = [], log } = {}) {
  return {
    ref: r,
    expectedVersion,
    slot: { version: expectedVersion + 1, claims, conflicts, writes: [], reviewed: 0 },
    changedClaims: claims.slice(-1).map((c) => c.id),
    changedConflicts: conflicts.map((c) => c.id),
    log: log ?? [entry(expectedVersion + 1, 'added', claims.slice(-1).map((c) => c.id))],
  };
}

export function indexedDbCases({ api, indexedDB, IDBKeyRange = globalThis.IDBKeyRange, freshName }) {
  const { Memory, IndexedDbStore, CredenceError } = api;
  const open = (name, scope) => new IndexedDbStore(name, { scope, indexedDB, IDBKeyRange });
  const stores = [];
  const store = (name = freshName(), scope) => {
    const s = open(name, scope);
    stores.push(s);
    return s;
  };

  return [
    ['an empty store has no slots, ids or log', async () => {
      const s = store();
      eq(await s.loadSlot(ref('u', 'p')), null, 'loadSlot');
      eq(await s.findClaim('cl_x'), null, 'findClaim');
      eq(await s.findConflict('cf_x'), null, 'findConflict');
      eq(await s.listSlots({}), [], 'listSlots');
      eq(await s.readLog(ref('u', 'p')), [], 'readLog');
    }],

    ['a commit at the expected version applies whole: slot, id look-ups, log', async () => {
      const s = store();
      const r = ref('ada', 'located_in');
      const a = claim('cl_a', 'ada', 'located_in', 'Paris');
      const b = { ...claim('cl_b', 'ada', 'located_in', 'Rome'), status: 'disputed' };
      const conflict = { id: 'cf_1', kind: 'dispute', earlierId: 'cl_a', newerId: 'cl_b', reason: 'r', status: 'open', openedAt: '2026-01-01T00:00:00.000Z' };
      eq(await s.commitSlot(commitOf(r, 0, [a])), true, 'first commit');
      eq(await s.commitSlot(commitOf(r, 1, [a, b], { conflicts: [conflict], log: [entry(2, 'added', ['cl_b']), entry(2, 'dispute_opened', ['cl_a', 'cl_b'])] })), true, 'second commit');
      const slot = await s.loadSlot(r);
      eq(slot.version, 2, 'version');
      eq(slot.claims.map((c) => c.object), ['Paris', 'Rome'], 'claims oldest first');
      eq(slot.conflicts.map((c) => c.id), ['cf_1'], 'conflicts');
      eq(await s.findClaim('cl_a'), r, 'findClaim earlier');
      eq(await s.findClaim('cl_b'), r, 'findClaim newer');
      eq(await s.findConflict('cf_1'), r, 'findConflict');
      eq((await s.readLog(r)).map((e) => `${e.version}:${e.rule}`), ['1:added', '2:added', '2:dispute_opened'], 'log oldest first');
    }],

    ['a stale commit returns false and changes nothing', async () => {
      const s = store();
      const r = ref('ada', 'born_on');
      const a = claim('cl_a', 'ada', 'born_on', '1990-01-01');
      eq(await s.commitSlot(commitOf(r, 0, [a])), true, 'first');
      const before = await s.loadSlot(r);
      const stale = commitOf(r, 0, [claim('cl_z', 'ada', 'born_on', '1999-09-09')], { conflicts: [{ id: 'cf_z', kind: 'dispute', earlierId: 'cl_a', newerId: 'cl_z', reason: 'r', status: 'open', openedAt: '2026-01-01T00:00:00.000Z' }] });
      eq(await s.commitSlot(stale), false, 'stale at 0');
      eq(await s.commitSlot(commitOf(r, 5, [a])), false, 'ahead of the store');
      eq(await s.loadSlot(r), before, 'slot unchanged');
      eq(await s.findClaim('cl_z'), null, 'no claim index written');
      eq(await s.findConflict('cf_z'), null, 'no conflict index written');
      eq((await s.readLog(r)).length, 1, 'no log appended');
    }],

    ['racing commits at one version: exactly one wins', async () => {
      const s1 = store();
      const s2 = store(s1.name);
      const r = ref('ada', 'timezone');
      const results = await Promise.all(
        ['CET', 'PST', 'JST', 'UTC'].map((tz, i) => (i % 2 ? s2 : s1).commitSlot(commitOf(r, 0, [claim(`cl_${tz}`, 'ada', 'timezone', tz)]))),
      );
      eq(results.filter(Boolean).length, 1, 'winners');
      const slot = await s1.loadSlot(r);
      eq(slot.version, 1, 'version');
      eq((await s2.readLog(r)).length, 1, 'one log entry');
      const winner = slot.claims[0].id;
      ok(await s1.findClaim(winner), 'winner indexed');
      const losers = ['cl_CET', 'cl_PST', 'cl_JST', 'cl_UTC'].filter((id) => id !== winner);
      for (const id of losers) eq(await s2.findClaim(id), null, `loser ${id} not indexed`);
    }],

    ['listSlots is ordered by key and filters by subject', async () => {
      const s = store();
      const refs = [ref('zoe', 'likes'), ref('ada', 'works_at'), ref('ada', 'born_on'), ref('bob', 'likes')];
      for (const [i, r] of refs.entries()) await s.commitSlot(commitOf(r, 0, [claim(`cl_${i}`, r.subject, r.predicate, 'x')]));
      eq((await s.listSlots({})).map((r) => r.key), refs.map((r) => r.key).sort(), 'all, by key');
      eq(await s.listSlots({ subject: 'ada' }), [ref('ada', 'born_on'), ref('ada', 'works_at')], 'one subject');
      eq(await s.listSlots({ subject: 'nobody' }), [], 'unknown subject');
      eq((await s.listSlots()).length, 4, 'no filter argument');
    }],

    ['scopes in one database never see each other', async () => {
      const name = freshName();
      const alice = store(name, 'alice');
      const bob = store(name, 'bob');
      const r = ref('user', 'located_in');
      eq(await alice.commitSlot(commitOf(r, 0, [claim('cl_shared', 'user', 'located_in', 'Paris')])), true, 'alice writes');
      eq(await bob.loadSlot(r), null, 'bob sees no slot');
      eq(await bob.findClaim('cl_shared'), null, 'bob cannot find the claim');
      eq(await bob.listSlots({}), [], 'bob lists nothing');
      eq(await bob.readLog(r), [], 'bob reads no log');
      // Each scope keeps its own version of the same slot key.
      eq(await bob.commitSlot(commitOf(r, 1, [claim('cl_b', 'user', 'located_in', 'Oslo')])), false, 'bob at alice\'s version');
      eq(await bob.commitSlot(commitOf(r, 0, [claim('cl_b', 'user', 'located_in', 'Oslo')])), true, 'bob at 0');
      eq((await alice.loadSlot(r)).claims.map((c) => c.object), ['Paris'], 'alice unchanged');
      eq(await alice.findClaim('cl_b'), null, 'alice cannot find bob\'s claim');
      const dflt = store(name);
      eq(dflt.scope, 'default', 'default scope');
      eq(await dflt.listSlots({}), [], 'the default scope is a scope too');
    }],

    ['data survives closing and reopening the database', async () => {
      const first = store();
      const r = ref('ada', 'likes');
      await first.commitSlot(commitOf(r, 0, [claim('cl_tea', 'ada', 'likes', 'tea')]));
      first.close();
      const again = store(first.name);
      eq((await again.loadSlot(r)).claims[0].object, 'tea', 'slot');
      eq(await again.findClaim('cl_tea'), r, 'index');
      eq((await again.readLog(r)).length, 1, 'log');
    }],

    ['an open store lets another tab delete the database, then starts afresh', async () => {
      const s = store();
      const r = ref('ada', 'likes');
      await s.commitSlot(commitOf(r, 0, [claim('cl_tea', 'ada', 'likes', 'tea')]));
      const deleted = await Promise.race([
        new Promise((resolve, reject) => {
          const req = indexedDB.deleteDatabase(s.name);
          req.onsuccess = () => resolve('deleted');
          req.onerror = () => reject(req.error);
        }),
        new Promise((resolve) => setTimeout(() => resolve('blocked: the store kept its connection open'), 5000)),
      ]);
      eq(deleted, 'deleted', 'deleteDatabase');
      eq(await s.loadSlot(r), null, 'the store reopens an empty database');
      eq(await s.commitSlot(commitOf(r, 0, [claim('cl_tea', 'ada', 'likes', 'tea')])), true, 'and writes to it');
    }],

    ['a broken record is MALFORMED_STORE_DATA, through the engine too', async () => {
      const s = store();
      await s.listSlots({}); // creates the database
      await new Promise((resolve, reject) => {
        const req = indexedDB.open(s.name);
        req.onsuccess = () => {
          const tx = req.result.transaction('slots', 'readwrite');
          tx.objectStore('slots').put({ scope: 'default', key: 'user\u001flikes', subject: 'user', predicate: 'likes', slot: 'garbage' });
          tx.oncomplete = () => { req.result.close(); resolve(); };
          tx.onerror = () => reject(tx.error);
        };
        req.onerror = () => reject(req.error);
      });
      const err = await rejects(s.loadSlot(ref('user', 'likes')), 'MALFORMED_STORE_DATA', 'loadSlot');
      ok(err instanceof CredenceError, 'a CredenceError');
      const memory = new Memory({ store: s });
      const viaEngine = await rejects(memory.recall('user'), 'MALFORMED_STORE_DATA', 'recall');
      ok(viaEngine instanceof CredenceError, 'engine error is a CredenceError');
    }],

    ['a commit that fails part-way writes nothing (one transaction)', async () => {
      const s = store();
      const r = ref('ada', 'works_at');
      eq(await s.commitSlot(commitOf(r, 0, [claim('cl_a', 'ada', 'works_at', 'Acme')])), true, 'first');
      // The log entry cannot be stored (a function is not cloneable): the slot
      // and id puts queued before it must be rolled back with it.
      const bad = commitOf(r, 1, [claim('cl_a', 'ada', 'works_at', 'Acme'), claim('cl_b', 'ada', 'works_at', 'Initech')], {
        log: [entry(2, 'added', ['cl_b']), { ...entry(2, 'oops', []), note: () => 'not cloneable' }],
      });
      const err = await rejects(s.commitSlot(bad), 'STORE_FAILED', 'commit');
      ok(err instanceof CredenceError && err.cause, 'a CredenceError with the IndexedDB error as cause');
      eq((await s.loadSlot(r)).version, 1, 'slot unchanged');
      eq(await s.findClaim('cl_b'), null, 'no claim index');
      eq((await s.readLog(r)).length, 1, 'no log entry');
      eq(await s.commitSlot(commitOf(r, 1, [claim('cl_a', 'ada', 'works_at', 'Acme'), claim('cl_c', 'ada', 'works_at', 'Globex')])), true, 'the next commit works');
    }],

    ['an IndexedDB that cannot open is STORE_FAILED with the cause; nothing is written', async () => {
      const denied = new Error('IndexedDB denied in this context');
      const broken = new IndexedDbStore(freshName(), { indexedDB: { open() { throw denied; } } });
      const err = await rejects(broken.listSlots({}), 'STORE_FAILED', 'listSlots');
      ok(err.cause === denied, 'the original error is the cause');
      ok(err.message.includes('cannot open the database'), `message says what failed: ${err.message}`);
      const memory = new Memory({ store: broken });
      const viaEngine = await rejects(memory.remember({ predicate: 'likes', object: 'tea' }), 'STORE_FAILED', 'remember');
      ok(viaEngine instanceof CredenceError && viaEngine.cause === denied, 'the engine passes it through');
    }],

    ['bad constructor arguments are refused by name', async () => {
      const bad = (f, field) => {
        try { f(); } catch (e) { eq([e.code, e.field], ['INVALID_INPUT', field], field); return; }
        throw new AssertionError(`${field}: expected a throw`);
      };
      bad(() => new IndexedDbStore('', { indexedDB }), 'name');
      bad(() => new IndexedDbStore('x', { indexedDB, scope: '' }), 'scope');
      bad(() => new IndexedDbStore('x', { indexedDB: {} }), 'indexedDB');
    }],

    ['Memory on IndexedDB: dispute, settle, undo, seen by a second Memory', async () => {
      const name = freshName();
      const one = new Memory({ store: store(name) });
      const two = new Memory({ store: store(name) });
      await one.remember({ predicate: 'born_on', object: '1990-01-01', provenance: { sourceId: 'passport' } });
      const second = await two.remember({ predicate: 'born_on', object: '1991-02-02', provenance: { sourceId: 'chat' } });
      eq(second.action, 'disputed', 'second write');
      const [open] = await one.conflicts({ status: 'open' });
      eq([open.kind, open.earlier.object, open.newer.object], ['dispute', '1990-01-01', '1991-02-02'], 'conflict seen by the other Memory');
      await two.settle(open.id, 'keep_newer', { by: 'test' });
      const kept = await one.recall('user', { includeHistory: true });
      eq(kept.map((c) => [c.object, c.status]), [['1990-01-01', 'retired'], ['1991-02-02', 'active']], 'after keep_newer');
      await one.undo(open.id);
      const back = await two.recall('user', { includeHistory: true });
      eq(back.map((c) => [c.object, c.status]), [['1990-01-01', 'disputed'], ['1991-02-02', 'disputed']], 'after undo');
      const why = await two.why(second.claim.id);
      ok(why.log.some((e) => e.conflictId === open.id), 'why shows the conflict in the log');
      const again = await one.remember({ id: 'w1', predicate: 'likes', object: 'tea' });
      const dup = await two.remember({ id: 'w1', predicate: 'likes', object: 'tea' });
      eq(dup.claim.id, again.claim.id, 'idempotent write id across engines');
      eq((await one.recall('user', { predicate: 'likes' })).length, 1, 'written once');
    }],

    ['an entity slot commit replaces its key rows as one record; findEntities reads them from another store', async () => {
      const name = freshName();
      const r = ref('\u001fentity', 'org:acme');
      const keyed = (keys) => ({ type: 'org', id: 'org:acme', keys: keys.map(([key, n]) => ({ key, name: n })) });
      const first = { ...commitOf(r, 0, []), index: { conflicts: [], unreviewed: false, entity: keyed([['acme', 'Acme Corp'], ['acme corp', 'Acme Corp'], ['\u00e9 \ud83c\udf89', 'Acme Corp']]) } };
      eq(await store(name).commitSlot(first), true, 'first commit');
      const reader = store(name);
      const found = await reader.findEntities({ type: 'org', keys: ['acme', '\u00e9 \ud83c\udf89', 'nobody'] });
      eq(found.map((x) => [x.key, x.entity, x.name]).sort(), [['acme', 'org:acme', 'Acme Corp'], ['\u00e9 \ud83c\udf89', 'org:acme', 'Acme Corp']], 'found by key');
      eq(await reader.findEntities({ type: 'person', keys: ['acme'] }), [], 'another type finds nothing');
      const records = await new Promise((resolve, reject) => {
        const req = indexedDB.open(name);
        req.onsuccess = () => {
          const db = req.result;
          const all = db.transaction('entityKeys', 'readonly').objectStore('entityKeys').getAll();
          all.onsuccess = () => { db.close(); resolve(all.result); };
          all.onerror = () => reject(all.error);
        };
        req.onerror = () => reject(req.error);
      });
      eq(records.map((x) => [x.id, x.keys.length]), [['org:acme', 3]], 'one record per entity');
      const second = { ...commitOf(r, 1, []), index: { conflicts: [], unreviewed: false, entity: keyed([['acme inc', 'ACME, Inc.']]) } };
      eq(await store(name).commitSlot(second), true, 'second commit');
      eq((await reader.findEntities({ type: 'org', keys: ['acme', 'acme inc'] })).map((x) => x.key), ['acme inc'], 'rows replaced');
    }],

    ['erase leaves no trace of the text in any record of any object store', async () => {
      const SECRET = '12 Quiet Lane';
      const s = store();
      const memory = new Memory({ store: s });
      const first = await memory.remember({ predicate: 'home_address', object: SECRET, provenance: { sourceId: 'crm-export-7' } });
      await memory.remember({ predicate: 'home_address', object: '7 Loud Street' });
      await memory.remember({ predicate: 'likes', object: 'green tea' });
      const everyRecord = () => new Promise((resolve, reject) => {
        const req = indexedDB.open(s.name);
        req.onerror = () => reject(req.error);
        req.onsuccess = () => {
          const db = req.result;
          const names = [...db.objectStoreNames];
          const tx = db.transaction(names, 'readonly');
          const parts = [];
          for (const n of names) {
            const all = tx.objectStore(n).getAll();
            all.onsuccess = () => parts.push(JSON.stringify(all.result));
          }
          tx.oncomplete = () => { db.close(); resolve({ names, text: parts.join('\n') }); };
          tx.onerror = () => reject(tx.error);
        };
      });
      ok((await everyRecord()).text.includes(SECRET), 'the text is there before');
      const done = await memory.erase({ subject: 'user', predicate: 'home_address' }, { reason: 'asked', by: 'dpo' });
      eq(done.tombstones.length, 2, 'two tombstones');
      const after = await everyRecord();
      eq(after.names.sort(), ['claims', 'conflicts', 'entityKeys', 'log', 'slots', 'writes'], 'object stores read');
      for (const gone of [SECRET, '7 Loud Street', 'crm-export-7']) ok(!after.text.includes(gone), `${gone} gone from every object store`);
      ok(after.text.includes('green tea'), 'other facts kept');
      eq((await memory.why(first.claim.id)).tombstone.by, 'dpo', 'why shows the tombstone');
    }],

    ['two Memory instances writing one slot concurrently lose nothing', async () => {
      const name = freshName();
      const engines = [0, 1].map(() => new Memory({ store: store(name), retries: 50 }));
      const writes = [];
      for (let i = 0; i < 12; i++) {
        writes.push(engines[i % 2].remember({ predicate: 'likes', object: `fruit ${i}` }, { strategy: 'append' }));
      }
      const outcomes = await Promise.all(writes);
      // The write that finds the slot empty is `added`, every later one `appended`.
      eq(outcomes.map((o) => o.action).sort(), ['added', ...Array(11).fill('appended')], 'every write acknowledged');
      ok(outcomes.some((o) => o.attempts > 1), 'some writes raced and retried');
      const stored = await engines[0].recall('user', { predicate: 'likes' });
      eq(stored.map((c) => c.object).sort(), outcomes.map((o) => o.claim.object).sort(), 'every acknowledged write is stored');
      eq(Math.max(...outcomes.map((o) => o.slotVersion)), 12, 'one version per write');
    }],
  ];
}

/** Runs the cases sequentially; resolves with [{ name, ok, error? }]. */
export async function runCases(cases) {
  const results = [];
  for (const [name, fn] of cases) {
    try {
      await fn();
      results.push({ name, ok: true });
    } catch (err) {
      results.push({ name, ok: false, error: `${err?.name}: ${err?.message}` });
    }
  }
  return results;
}
