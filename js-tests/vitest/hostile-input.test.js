// Hostile and careless input through the packed package: strict input, what
// blobs, configs, hooks and stores may say, a custom store answering wrongly,
// the one-shot form's write options, a judge answering in the wrong shape,
// moot conflicts, UNDO_STALE, and memory.checkInvariants().
import { describe, expect, it } from 'vitest';
import { IndexedDbStore, Memory, MemoryStore, OkfStore, PostgresStore, reconcile } from 'credence';

function clock(start = Date.UTC(2026, 0, 1)) {
  let t = start;
  return () => new Date((t += 86_400_000)).toISOString();
}

async function refused(promise, code) {
  const e = await promise.then(() => null, (err) => err);
  expect(e, 'expected a CredenceError').not.toBeNull();
  expect(e.code).toBe(code);
  return e;
}

describe('strict input (SPEC §11)', () => {
  it('an option object whose keys or getters throw is INVALID_INPUT naming the field, never a raw Error', async () => {
    const memory = new Memory({ now: clock() });
    const keysThrow = () => new Proxy({}, { ownKeys() { throw new Error('hostile keys'); } });
    const getThrow = (o) => new Proxy(o, { get() { throw new Error('hostile getter'); } });
    for (const call of [(o) => memory.review(o), (o) => memory.entity('org:acme', o), (o) => memory.blob('likes', o), (o) => memory.importBlob({ key: 'likes', content: '' }, o)]) {
      const e = await refused(call(keysThrow()), 'INVALID_INPUT');
      expect(e.field).toBe('options');
    }
    expect((await refused(memory.review(getThrow({ budget: 1 })), 'INVALID_INPUT')).field).toBe('judge');
    expect((await refused(memory.entity('acme', getThrow({ type: 'org' })), 'INVALID_INPUT')).field).toBe('type');
    expect((await refused(memory.blob('likes', getThrow({ subject: 'ana' })), 'INVALID_INPUT')).field).toBe('subject');
    expect(await memory.checkInvariants()).toEqual([]);
  });

  it('refuses an unknown key in any input object, naming it, and writes nothing', async () => {
    const memory = new Memory({ now: clock() });
    let e = await refused(memory.recall('user', { asOf: '2026-01-01' }), 'INVALID_INPUT');
    expect(e.message).toContain('asOf');
    expect(e.field).toBe('asOf');
    e = await refused(memory.remember({ predicate: 'timezone', object: 'CET', validfrom: '2026-01-01' }), 'INVALID_INPUT');
    expect(e.message).toContain('validfrom');
    e = await refused(memory.remember({ predicate: 'timezone', object: 'CET', provenance: { sourceId: 'a', trust: 0.9 } }), 'INVALID_INPUT');
    expect(e.message).toContain('trust');
    e = await refused(memory.remember({ predicate: 'timezone', object: 'CET' }, { expectedversion: 0 }), 'INVALID_INPUT');
    expect(e.message).toContain('expectedversion');
    await refused(memory.conflicts({ state: 'open' }), 'INVALID_INPUT');
    await refused(memory.blob('timezone', { subjet: 'ana' }), 'INVALID_INPUT');
    await refused(memory.review({ judge: {}, budgett: 3 }), 'INVALID_INPUT');
    expect(() => new Memory({ disputeMargn: 1 })).toThrow(/disputeMargn/);
    expect(await memory.recall('user', { includeHistory: true })).toEqual([]);
  });

  it('refuses an unknown key in a store\'s options, naming it, before touching anything', async () => {
    const queryable = { query: async () => { throw new Error('must not be reached'); } };
    const idb = { open() { throw new Error('must not be reached'); } };
    const cases = [
      [() => new PostgresStore(queryable, { scope: 't', tabels: {} }), 'options.tabels', /PostgresStore: options\.tabels: unknown key "tabels" \(expected one of `scope`, `tables`, `pool`, `prepared`\)/],
      [() => new OkfStore('/nonexistent/credence-options', { scopes: 't' }), 'options.scopes', /OkfStore: options\.scopes/],
      [() => new IndexedDbStore('app', { indexedDB: idb, durabilty: 'strict' }), 'options.durabilty', /IndexedDbStore: options\.durabilty/],
      [() => new OkfStore('/nonexistent/credence-options', 'tenant'), 'options', /OkfStore: options must be an object/],
      [() => new MemoryStore({ scope: 't' }), 'options.scope', /MemoryStore: options\.scope: unknown key "scope" \(it takes no options\)/],
    ];
    for (const [make, field, message] of cases) {
      let err = null;
      try { make(); } catch (e) { err = e; }
      expect(err?.code, String(message)).toBe('INVALID_INPUT');
      expect(err.field).toBe(field);
      expect(err.message).toMatch(message);
    }
    expect(() => new OkfStore('/nonexistent/credence-options', null)).not.toThrow();
    // The embedded store is still the engine's own: a Memory over it works.
    const store = new MemoryStore();
    expect(store).toBeInstanceOf(MemoryStore);
    return new Memory({ store }).remember({ predicate: 'timezone', object: 'CET' }).then((o) => expect(o.action).toBe('added'));
  });

  it('refuses a subject that is not a string instead of reading the default subject', async () => {
    const memory = new Memory({ now: clock() });
    await memory.remember({ predicate: 'timezone', object: 'CET' });
    for (const subject of [123, { predicate: 'timezone' }, ['user'], true]) {
      expect((await refused(memory.recall(subject), 'INVALID_INPUT')).field).toBe('subject');
    }
    expect((await refused(memory.entity('acme', { type: 7 }), 'INVALID_INPUT')).field).toBe('options.type');
    expect(await memory.recall(undefined)).toHaveLength(1);
    expect(await memory.recall(null, { predicate: 'timezone' })).toHaveLength(1);
  });

  it('refuses a function or symbol where data belongs, naming the field, and cuts huge ids in messages', async () => {
    const memory = new Memory({ now: clock() });
    for (const object of [() => 'x', Symbol('x')]) {
      const e = await refused(memory.remember({ predicate: 'timezone', object }), 'INVALID_INPUT');
      expect(e.field).toBe('object');
      expect(e.message).toContain('candidate.object');
    }
    const lone = await refused(memory.remember({ predicate: 'timezone', object: 'a\ud800b' }), 'INVALID_INPUT');
    expect(lone.message).toBe('candidate.object: is not valid Unicode text (a lone surrogate)');
    const e = await refused(memory.why('x'.repeat(1_000_000)), 'CLAIM_NOT_FOUND');
    expect(e.message.length).toBeLessThan(2100);
    expect(await memory.recall('user', { includeHistory: true })).toEqual([]);
  });

  it('refuses the NUL character in anything it would store, on every store alike, naming the field', async () => {
    const memory = new Memory({ now: clock() });
    const cases = [
      [() => memory.remember({ predicate: 'timezone', object: 'CET\u0000' }), 'object', 'candidate.object'],
      [() => memory.remember({ subject: 'a\u0000', predicate: 'likes', object: 'tea' }), 'subject', 'candidate.subject'],
      [() => memory.remember({ predicate: 'likes', object: 'tea', provenance: { sourceId: '\u0000' } }), 'provenance.sourceId', 'candidate.provenance.sourceId'],
      [() => memory.rememberMany([{ predicate: 'likes', object: 'tea' }, { predicate: 'likes', object: 'x\u0000' }]), '[1].object', 'candidates[1].object'],
    ];
    for (const [call, field, shown] of cases) {
      const e = await refused(call(), 'INVALID_INPUT');
      expect(e.field).toBe(field);
      expect(e.message).toContain(`${shown}: contains the NUL character`);
    }
    expect(await memory.recall('user', { includeHistory: true })).toEqual([]);
    const kept = await memory.remember({ predicate: 'likes', object: 'tea' });
    const settled = refused(memory.retract(kept.claim.id, { reason: 'gone\u0000' }), 'INVALID_INPUT');
    expect((await settled).field).toBe('reason');
    // A backslash followed by "u0000" is six ordinary characters, not NUL.
    const literal = await memory.remember({ predicate: 'notes', object: 'C:\\u0000dir' });
    expect(literal.claim.object).toBe('C:\\u0000dir');
  });

  it('refuses text that would name another slot or tenant, or that a store would alter, from callers and hooks alike', async () => {
    const memory = new Memory({ now: clock() });
    await memory.remember({ subject: 'alice', predicate: 'salary_amount', object: '100' });
    // U+001F joins subject and predicate in a slot key (and opens the reserved subjects).
    for (const [candidate, field] of [
      [{ subject: 'alice\u001fsalary', predicate: 'amount', object: '1' }, 'subject'],
      [{ subject: 'alice', predicate: 'salary\u001famount', object: '2' }, 'predicate'],
      [{ subject: '\u001fentities', predicate: 'org', object: 'garbage' }, 'subject'],
    ]) {
      expect((await refused(memory.remember(candidate), 'INVALID_INPUT')).field).toBe(field);
    }
    expect((await memory.recall('alice')).map((c) => c.object)).toEqual(['100']);
    // A string argument with a lone surrogate would cross as U+FFFD: refused, like JSON-borne text.
    for (const [call, field] of [[() => memory.recall('a\ud800'), 'subject'], [() => memory.recall(''), 'subject'], [() => memory.why('cl_\udc00'), 'claimId']]) {
      expect((await refused(call(), 'INVALID_INPUT')).field).toBe(field);
    }
    // A merge hook's text is checked as a caller's would be: nothing is written.
    for (const content of ['step\u0000c', 'a\ud800b', { content: 'x\u0000' }]) {
      const hooked = new Memory({ now: clock(), merge: async () => content });
      await hooked.remember({ predicate: 'notes', object: 'one' }, { strategy: 'llm_merge' });
      // Belief decays with the clock; what is stored is what must not change.
      const stored = async () => (await hooked.recall('user', { includeHistory: true })).map((c) => [c.id, c.object, c.status, c.provenance.length]);
      const before = await stored();
      const e = await refused(hooked.remember({ predicate: 'notes', object: 'two' }, { strategy: 'llm_merge' }), 'HOOK_FAILED');
      expect(e.message).toMatch(/NUL character|lone surrogate/);
      expect(await stored()).toEqual(before);
    }
    // A config that is an array, or a judge that is not one, is refused where it is given.
    for (const config of [[], [{ store: null }]]) expect(() => new Memory(config)).toThrow(expect.objectContaining({ code: 'INVALID_INPUT', field: 'config' }));
    for (const judge of [5, 'llm', { findPairs: () => [] }]) {
      expect(() => new Memory({ judge })).toThrow(expect.objectContaining({ code: 'INVALID_INPUT', field: 'judge' }));
      expect((await refused(memory.review({ judge }), 'INVALID_INPUT')).field).toBe('options.judge');
    }
    // PostgreSQL text cannot tell these scopes apart: refused when the store is made.
    const pool = { query: async () => ({ rows: [] }) };
    for (const scope of ['tenant\ud800', 'tenant\udbff', 'ten\u0000ant']) {
      expect(() => new PostgresStore(pool, { scope })).toThrow(expect.objectContaining({ code: 'INVALID_INPUT', field: 'scope' }));
    }
  });

  it('refuses an array where an object belongs (serde would read it by position), naming the place', async () => {
    const memory = new Memory({ now: clock() });
    const cases = [
      [() => memory.remember(['alice', null, 'likes', 'tea']), 'candidate'],
      [() => memory.remember({ predicate: 'likes', object: 'tea', provenance: ['a', 0.9] }), 'provenance'],
      [() => memory.rememberMany([{ predicate: 'likes', object: 'tea' }, ['bob', null, 'likes', 'tea']]), '[1]'],
      [() => memory.remember({ predicate: 'likes', object: 'tea' }, ['append']), 'options'],
      [() => memory.recall('alice', ['likes']), 'options'],
      [() => memory.erase(['alice'], { reason: 'r', by: 'b' }), 'target'],
      [() => memory.erase({ subject: 'alice' }, ['r', 'b']), 'options'],
    ];
    for (const [call, field] of cases) expect((await refused(call(), 'INVALID_INPUT')).field).toBe(field);
    expect(await memory.recall('alice', { includeHistory: true })).toEqual([]);
    expect(await memory.recall('user', { includeHistory: true })).toEqual([]);
  });

  it('reads a year or a month (ISO 8601 reduced precision) as its first instant', async () => {
    const memory = new Memory({ now: clock() });
    await memory.remember({ subject: 'ana', predicate: 'works_at', object: 'Acme', validFrom: '2019' });
    const moved = await memory.remember({ subject: 'ana', predicate: 'works_at', object: 'Globex', validFrom: '2023-07' });
    expect(moved.action).toBe('superseded');
    expect(moved.claim.validFrom).toBe('2023-07-01T00:00:00.000Z');
    expect((await memory.recall('ana', { at: '2021' })).map((c) => c.object)).toEqual(['Acme']);
    expect((await memory.recall('ana', { at: '2023-07-01 00:00:00' })).map((c) => c.object)).toEqual(['Globex']);
    const e = await refused(memory.remember({ subject: 'ana', predicate: 'works_at', object: 'Initech', validFrom: 'July 2024' }), 'INVALID_TIME');
    expect(e.field).toBe('validFrom');
  });

  it('refuses times outside years 0–9999 (a millisecond timestamp read as seconds)', async () => {
    const memory = new Memory({ now: clock() });
    const e = await refused(memory.importBlob({ key: 'notes', content: 'a', confidence: 0.7, timestamp: Date.UTC(2026, 0, 1) }), 'INVALID_TIME');
    expect(e.field).toBe('blob.timestamp'); // the v1 blob's own field
    expect(await memory.blob('notes')).toMatchObject({ content: '' });
    const broken = new Memory({ now: () => Date.UTC(2026, 0, 1) * 1000 });
    await refused(broken.remember({ predicate: 'timezone', object: 'CET' }), 'INVALID_TIME');
  });
});

describe('what a blob, a config or a stated period can say (audit)', () => {
  it('refuses a blob key or subject that would name another slot, an empty entry, and such a defaultSubject', async () => {
    const memory = new Memory({ now: clock() });
    await memory.remember({ subject: 'alice', predicate: 'salary_amount', object: '100k' });
    const blob = (key, content = 'mallory wrote this') => ({ key, content, confidence: 0.9, timestamp: 1_700_000_000 });
    expect((await refused(memory.importBlob(blob('salary\u001famount'), { subject: 'alice' }), 'INVALID_INPUT')).message).toMatch(/blob\.key/);
    expect((await refused(memory.importBlob(blob('amount'), { subject: 'alice\u001fsalary' }), 'INVALID_INPUT')).field).toBe('options.subject');
    const empty = { key: 'notes', content: '', schema_version: 2, entries: [{ content: ' ', confidence: 0.7, timestamp: 1, status: 'active' }] };
    expect((await refused(memory.importBlob(empty), 'INVALID_INPUT')).message).toMatch(/blob\.entries\[0\]\.content/);
    expect((await memory.recall('alice')).map((c) => c.object)).toEqual(['100k']);
    expect(await memory.checkInvariants()).toEqual([]);
    expect(() => new Memory({ defaultSubject: 'alice\u001fsalary' })).toThrow(expect.objectContaining({ code: 'INVALID_INPUT', field: 'defaultSubject' }));
  });

  it('refuses a validTo at or before the start, stated or implicit (the observation), and writes nothing', async () => {
    const memory = new Memory({ now: () => '2026-03-01T00:00:00.000Z' });
    await memory.remember({ predicate: 'located_in', object: 'NYC', validFrom: '2024-01-01' });
    for (const extra of [{}, { provenance: { sourceId: 'crm', observedAt: '2025-06-01' } }, { validFrom: '2020-01-01' }]) {
      const e = await refused(memory.remember({ predicate: 'located_in', object: 'Paris', validTo: '2020-01-01', ...extra }), 'INVALID_INPUT');
      expect(e.field).toBe('validTo');
    }
    expect((await memory.recall('user')).map((c) => c.object)).toEqual(['NYC']);
    // A period in the past, stated whole, is history as before.
    const past = await memory.remember({ predicate: 'located_in', object: 'Paris', validFrom: '2019-01-01', validTo: '2020-01-01' });
    expect(past.action).toBe('historical');
    expect((await memory.recall('user')).map((c) => c.object)).toEqual(['NYC']);
  });
});

describe('what hooks, stores and config say in their own words (audit)', () => {
  it('refuses a half-life of 0 in the config as in a predicate (every belief would fall to uniform between reports)', () => {
    for (const [config, field] of [[{ halfLifeDays: 0 }, 'halfLifeDays'], [{ predicates: [{ name: 'tz', cardinality: 'single', timeVarying: true, halfLifeDays: 0 }] }, 'predicates[0].halfLifeDays']]) {
      let e;
      try { new Memory(config); } catch (err) { e = err; }
      expect(e?.code).toBe('INVALID_INPUT');
      expect(e.field).toBe(field);
      expect(e.message).toMatch(/positive/);
    }
    expect(() => new Memory({ halfLifeDays: 0.5 }).free()).not.toThrow();
  });

  it('wraps a thrown CredenceError of an unknown code, reads hook results strictly, and refuses ambiguous config', async () => {
    const { CredenceError } = await import('credence');
    const inner = new MemoryStore();
    const store = new Proxy(inner, {
      get: (target, key) => (key === 'commitSlot' ? async () => { throw new CredenceError('my store is full', { code: 'MY_CODE' }); } : Reflect.get(target, key).bind(target)),
    });
    const e = await refused(new Memory({ store, now: clock() }).remember({ predicate: 'likes', object: 'tea' }), 'STORE_FAILED');
    expect(e.cause.code).toBe('MY_CODE');
    expect(await new Memory({ store: inner, now: clock() }).recall('user')).toEqual([]);
    // A merge hook's result with a throwing getter, or an array, is the hook's fault.
    const getter = { get content() { throw new Error('boom'); } };
    for (const answer of [getter, ['merged text']]) {
      const hooked = new Memory({ now: clock(), merge: async () => answer });
      await hooked.remember({ predicate: 'notes', object: 'one' }, { strategy: 'llm_merge' });
      await refused(hooked.remember({ predicate: 'notes', object: 'two' }, { strategy: 'llm_merge' }), 'HOOK_FAILED');
      expect((await hooked.recall('user', { includeHistory: true })).map((c) => c.object)).toEqual(['one']);
    }
    // Two specs for one predicate, or an empty objectType, are refused where given.
    for (const [predicates, field] of [
      [[{ name: 'team', cardinality: 'single', timeVarying: true }, { name: 'Team', cardinality: 'multi', timeVarying: false }], 'predicates[1].name'],
      [[{ name: 'employer', cardinality: 'single', timeVarying: true, objectType: ' ' }], 'predicates[0].objectType'],
    ]) {
      expect(() => new Memory({ predicates })).toThrow(expect.objectContaining({ code: 'INVALID_INPUT', field }));
    }
    // An empty actor is no actor, for settle as for retract.
    const memory = new Memory({ now: clock() });
    await memory.remember({ predicate: 'timezone', object: 'CET' });
    const asked = await memory.remember({ predicate: 'timezone', object: 'PST' }, { strategy: 'ask_user' });
    expect((await memory.settle(asked.conflicts[0].id, 'keep_newer', { by: ' ' })).settledBy).toBe('user');
  });
});

describe('a custom store answering wrongly (audit)', () => {
  /** A store delegating to a MemoryStore, with `override` replacing some methods. */
  function wrapped(inner, override) {
    const methods = ['loadSlot', 'commitSlot', 'findClaim', 'findConflict', 'listSlots', 'readLog', 'dirtySlots', 'listConflicts'];
    const store = Object.fromEntries(methods.map((m) => [m, (...a) => inner[m](...a)]));
    return Object.assign(store, override);
  }

  it('a store without findWrite keeps candidate ids per slot, and is never refused for one', async () => {
    // A wrapper forwarding commitSlot but not findWrite: the commits it sees carry no
    // candidate ids, so the store it wraps neither indexes nor refuses them.
    const inner = new MemoryStore();
    const memory = new Memory({ store: wrapped(inner, {}) });
    const seen = [];
    const spying = new Memory({ store: wrapped(inner, { commitSlot: (c) => (seen.push(c.index), inner.commitSlot(c)) }) });
    const a = await memory.remember({ id: 'k', predicate: 'likes', object: 'tea' });
    const b = await spying.remember({ id: 'k', predicate: 'mood', object: 'calm' });
    expect([!!a.replayed, !!b.replayed, b.claim.object]).toEqual([false, false, 'calm']);
    expect(seen.every((index) => index.writes === undefined && index.droppedWrites === undefined)).toBe(true);
    expect((await spying.remember({ id: 'k', predicate: 'mood', object: 'calm' })).replayed).toBe(true);
    // With findWrite forwarded, the same id sent to a third slot replays the first write.
    const full = new Memory({ store: wrapped(inner, { findWrite: (id) => inner.findWrite(id) }) });
    const c = await full.remember({ id: 'k2', predicate: 'diet', object: 'vegan' });
    const d = await full.remember({ id: 'k2', predicate: 'likes', object: 'coffee' });
    expect([!!c.replayed, d.replayed, d.claim.id]).toEqual([false, true, c.claim.id]);
  });

  it('refuses a listConflicts that ignores the cursor with MALFORMED_STORE_DATA instead of paging forever', async () => {
    const inner = new MemoryStore();
    let calls = 0;
    const store = wrapped(inner, {
      async listConflicts({ status, limit }) {
        calls += 1;
        return (await inner.listConflicts({ status, limit: 1e9 })).slice(0, limit);
      },
    });
    const memory = new Memory({ store, now: clock() });
    const many = (object, strategy) => memory.rememberMany(Array.from({ length: 501 }, (_, i) => ({ subject: `s${i}`, predicate: 'timezone', object })), strategy && { strategy });
    await many('PST');
    await many('EST', 'ask_user');
    const e = await refused(memory.conflicts({ status: 'open' }), 'MALFORMED_STORE_DATA');
    expect(e.message).toMatch(/listConflicts/);
    expect(calls).toBe(2);
    expect(await new Memory({ store: inner, now: clock() }).conflicts({ status: 'open' })).toHaveLength(501);
  });

  it('lists open conflicts first, each once, by the slots\' word when the store\'s index lags behind a settlement', async () => {
    const inner = new MemoryStore();
    let frozen = null; // the index as it was before the settlement
    const store = wrapped(inner, {
      async listConflicts(query) {
        if (!frozen) return inner.listConflicts(query);
        // A lagging index: both still open, the first one listed twice.
        return query.status === 'open' && !query.after ? [...frozen, frozen[0]] : [];
      },
    });
    const memory = new Memory({ store, now: clock() });
    await memory.remember({ predicate: 'timezone', object: 'CET' });
    const first = (await memory.remember({ predicate: 'timezone', object: 'PST' }, { strategy: 'ask_user' })).conflicts[0];
    await memory.remember({ subject: 'bo', predicate: 'timezone', object: 'CET' });
    const second = (await memory.remember({ subject: 'bo', predicate: 'timezone', object: 'PST' }, { strategy: 'ask_user' })).conflicts[0];
    frozen = await inner.listConflicts({ status: 'open', limit: 100 });
    expect(frozen.map((r) => [r.id, r.status])).toEqual([[first.id, 'open'], [second.id, 'open']]);
    await memory.settle(first.id, 'keep_newer');
    const listed = await memory.conflicts();
    expect(listed.map((c) => [c.id, c.status])).toEqual([[second.id, 'open'], [first.id, 'settled']]);
    expect((await memory.conflicts({ status: 'open' })).map((c) => c.id)).toEqual([second.id]);
  });

  it('refuses a slot document that is not whole, or is another slot, before writing on it', async () => {
    const inner = new MemoryStore();
    const memory = new Memory({ store: inner, now: clock() });
    await memory.remember({ predicate: 'located_in', object: 'NYC', id: 'w1' });
    await memory.remember({ predicate: 'timezone', object: 'EST' });
    const cases = [
      // The claims dropped: the idempotency record names a claim that is not there.
      async (ref) => { const { claims, ...rest } = await inner.loadSlot(ref); return claims && rest; },
      // Another slot's document.
      async (ref) => inner.loadSlot({ ...ref, predicate: 'timezone', key: `${ref.subject}\u001ftimezone` }),
      // A belief out of range.
      async (ref) => { const s = await inner.loadSlot(ref); return { ...s, claims: s.claims.map((c) => ({ ...c, confidence: 7 })) }; },
    ];
    for (const loadSlot of cases) {
      const broken = new Memory({ store: wrapped(inner, { loadSlot: async (ref) => (ref.predicate === 'located_in' ? loadSlot(ref) : inner.loadSlot(ref)) }), now: clock() });
      const e = await refused(broken.remember({ predicate: 'located_in', object: 'Paris' }), 'MALFORMED_STORE_DATA');
      expect(e.message).toMatch(/loadSlot\(\) result for user\/located_in/);
    }
    expect((await memory.recall('user', { predicate: 'located_in', includeHistory: true })).map((c) => c.object)).toEqual(['NYC']);
    // listSlots answering every slot for one subject's question.
    const everyone = new Memory({ store: wrapped(inner, { listSlots: async () => inner.listSlots({}) }), now: clock() });
    expect((await refused(everyone.recall('bob'), 'MALFORMED_STORE_DATA')).message).toMatch(/listSlots/);
  });
});

describe('reconcile() one-shot', () => {
  it('passes strategy and expectedVersion as this write options', async () => {
    const store = new MemoryStore();
    const first = await reconcile({ predicate: 'timezone', object: 'CET' }, { store, strategy: 'append', expectedVersion: 0 });
    expect([first.strategy, first.strategySource]).toEqual(['append', 'call']);
    await refused(reconcile({ predicate: 'timezone', object: 'PST' }, { store, expectedVersion: 0 }), 'CONCURRENCY');
    const second = await reconcile({ predicate: 'timezone', object: 'PST' }, { store, expectedVersion: 1 });
    expect(second.slotVersion).toBe(2);
  });
});

describe('review with a judge that answers in the wrong shape', () => {
  it('is an error for the slot, which the next pass reviews again', async () => {
    const memory = new Memory({ now: clock() });
    await memory.remember({ predicate: 'experience.trip', object: 'flew to Oslo' }, { strategy: 'append' });
    await memory.remember({ predicate: 'experience.trip', object: 'flew back' }, { strategy: 'append' });
    const wrong = { findPairs: () => ({ pairs: [] }), confirmPair: () => ({ sameThing: false, newerInvalidatesEarlier: false, reason: '' }) };
    const first = await memory.review({ judge: wrong });
    expect(first.slotsLeft).toBeGreaterThan(0);
    let asked = 0;
    const right = { findPairs: (claims) => { asked += 1; return []; }, confirmPair: wrong.confirmPair };
    await memory.review({ judge: right });
    expect(asked).toBe(1);
  });
});

describe('lifecycle invariants', () => {
  it('closes an ask_user conflict as moot when a newer value supersedes it; settling it is refused', async () => {
    const memory = new Memory({ now: clock() });
    await memory.remember({ predicate: 'timezone', object: 'CET' });
    const asked = await memory.remember({ predicate: 'timezone', object: 'PST' }, { strategy: 'ask_user' });
    await memory.remember({ predicate: 'timezone', object: 'JST' });
    const [conflict] = await memory.conflicts();
    expect(conflict.status).toBe('moot');
    await refused(memory.settle(asked.conflicts[0].id, 'keep_earlier'), 'CONFLICT_ALREADY_SETTLED');
    expect((await memory.recall()).map((c) => c.object)).toEqual(['JST']);
    expect(await memory.checkInvariants()).toEqual([]);
  });

  it('refuses a stale undo with UNDO_STALE, naming the later change', async () => {
    const memory = new Memory({ now: clock() });
    const cet = await memory.remember({ predicate: 'timezone', object: 'CET' });
    const asked = await memory.remember({ predicate: 'timezone', object: 'PST' }, { strategy: 'ask_user' });
    await memory.settle(asked.conflicts[0].id, 'keep_earlier');
    await memory.remember({ predicate: 'timezone', object: 'JST' });
    const e = await refused(memory.undo(asked.conflicts[0].id), 'UNDO_STALE');
    expect(e.message).toContain(cet.claim.id);
    expect((await memory.recall()).map((c) => c.object)).toEqual(['JST']);
  });

  it('replays an idempotent write before checking expectedVersion', async () => {
    const memory = new Memory({ now: clock() });
    const c = { predicate: 'timezone', object: 'CET', id: 'w1' };
    const first = await memory.remember(c, { expectedVersion: 0 });
    const again = await memory.remember(c, { expectedVersion: 0 });
    expect(again.claim.id).toBe(first.claim.id);
  });

  it('checkInvariants reports nothing on a sound store', async () => {
    const memory = new Memory({ now: clock() });
    await memory.remember({ predicate: 'timezone', object: 'CET' });
    await memory.remember({ predicate: 'likes', object: 'tea' });
    expect(await memory.checkInvariants()).toEqual([]);
  });
});
