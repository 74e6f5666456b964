// The packed package, imported by name as ESM.
import { describe, expect, it } from 'vitest';
import { Memory, MemoryStore, CredenceError, ConcurrencyError, reconcile } from 'credence';
import { delegating } from 'credence/conformance';

describe('remember and recall', () => {
  it('remembers and recalls through the default in-memory store', async () => {
    const memory = new Memory();
    const outcome = await memory.remember({ predicate: 'likes', object: 'tea' });
    expect(outcome.action).toBe('added');
    expect(outcome.claim).toMatchObject({ subject: 'user', predicate: 'likes', object: 'tea', status: 'active' });
    expect(outcome.slotVersion).toBe(1);
    expect(outcome.claim.recordedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const recalled = await memory.recall('user');
    expect(recalled.map((c) => c.object)).toEqual(['tea']);
  });

  it('refuses an empty predicate with a CredenceError and writes nothing', async () => {
    const memory = new Memory();
    const err = await memory.remember({ predicate: '  ', object: 'x' }).catch((e) => e);
    expect(err).toBeInstanceOf(CredenceError);
    expect(err).toBeInstanceOf(Error);
    expect(err.code).toBe('INVALID_INPUT');
    expect(err.field).toBe('predicate');
    expect(err.message).toContain('predicate');
    expect(await memory.recall()).toEqual([]);
  });

  it('refuses out-of-range confidence and bad times, naming the field', async () => {
    const memory = new Memory();
    const a = await memory.remember({ predicate: 'p', object: 'o', confidence: 1.5 }).catch((e) => e);
    expect([a.code, a.field]).toEqual(['INVALID_INPUT', 'confidence']);
    const b = await memory.remember({ predicate: 'p', object: 'o', validFrom: 'next tuesday' }).catch((e) => e);
    expect([b.code, b.field]).toEqual(['INVALID_TIME', 'validFrom']);
    const c = await memory.remember({ predicate: 'p', object: 42 }).catch((e) => e);
    expect([c.code, c.field]).toEqual(['INVALID_INPUT', 'object']);
    const d = await memory.remember({ object: 'x' }).catch((e) => e);
    expect([d.code, d.field]).toEqual(['INVALID_INPUT', 'predicate']);
    expect(await memory.recall()).toEqual([]);
  });

  it('passes a throwing JS store error through as the cause, leaving memory unchanged', async () => {
    const inner = new MemoryStore();
    const failing = Object.create(null);
    let fail = false;
    for (const m of ['loadSlot', 'commitSlot', 'findClaim', 'findConflict', 'listSlots', 'readLog', 'listConflicts', 'dirtySlots']) {
      failing[m] = (...args) => {
        if (fail && m === 'commitSlot') throw new TypeError('disk full');
        return inner[m](...args);
      };
    }
    const memory = new Memory({ store: failing });
    await memory.remember({ predicate: 'located_in', object: 'Paris' });
    fail = true;
    const err = await memory.remember({ predicate: 'located_in', object: 'Rome' }).catch((e) => e);
    expect(err).toBeInstanceOf(CredenceError);
    expect(err.code).toBe('STORE_FAILED');
    expect(err.cause).toBeInstanceOf(TypeError);
    expect(err.cause.message).toBe('disk full');
    fail = false;
    const after = await memory.recall();
    expect(after.map((c) => [c.object, c.status])).toEqual([['Paris', 'active']]);
  });

  it('rejects a stale expectedVersion with ConcurrencyError and changes nothing', async () => {
    const memory = new Memory();
    const first = await memory.remember({ predicate: 'timezone', object: 'CET' });
    const err = await memory
      .remember({ predicate: 'timezone', object: 'PST' }, { expectedVersion: first.slotVersion - 1 })
      .catch((e) => e);
    expect(err).toBeInstanceOf(ConcurrencyError);
    expect(err).toBeInstanceOf(CredenceError);
    expect(err.code).toBe('CONCURRENCY');
    expect((await memory.recall()).map((c) => c.object)).toEqual(['CET']);
    const ok = await memory.remember({ predicate: 'timezone', object: 'PST' }, { expectedVersion: first.slotVersion });
    expect(ok.slotVersion).toBe(first.slotVersion + 1);
  });

  it('retries after a lost race and reports the attempts', async () => {
    const inner = new MemoryStore();
    let races = 2;
    const racy = delegating(inner, {
      async commitSlot(c) {
        if (races-- > 0) return false;
        return inner.commitSlot(c);
      },
    }, { without: ['eraseSlot'] });
    const memory = new Memory({ store: racy, retries: 3 });
    const o = await memory.remember({ predicate: 'likes', object: 'jazz' });
    expect(o.attempts).toBe(3);
    races = 10;
    const err = await memory.remember({ predicate: 'likes', object: 'rock' }).catch((e) => e);
    expect(err).toBeInstanceOf(ConcurrencyError);
  });

  it('makes writes idempotent by candidate id', async () => {
    const memory = new Memory();
    const a = await memory.remember({ id: 'w-1', predicate: 'likes', object: 'tea' });
    const b = await memory.remember({ id: 'w-1', predicate: 'likes', object: 'tea' });
    expect(b.replayed).toBe(true);
    expect(b.claim.id).toBe(a.claim.id);
    expect(b.slotVersion).toBe(a.slotVersion);
    expect((await memory.recall()).length).toBe(1);
  });

  it('shares one MemoryStore between two Memory instances', async () => {
    const store = new MemoryStore();
    const one = new Memory({ store });
    const two = new Memory({ store });
    await one.remember({ predicate: 'likes', object: 'tea' });
    expect((await two.recall()).map((c) => c.object)).toEqual(['tea']);
    expect(store.claimCount).toBe(1);
  });

  it('settles a call at once on the in-memory store, and queues a call a hook makes from inside another call', async () => {
    // A call that never waits resolves without the task queue...
    const memory = new Memory();
    let settled = false;
    memory.remember({ predicate: 'likes', object: 'tea' }).then(() => { settled = true; });
    await Promise.resolve();
    expect(settled).toBe(true);
    // ...but a hook that calls back into memory must not run that call inside
    // the engine call under way (it would re-enter the engine): it is queued.
    let hooked;
    const nested = [];
    let t = Date.UTC(2026, 0, 1);
    hooked = new Memory({
      now: () => {
        if (hooked && nested.length < 2) nested.push(hooked.remember({ subject: 'x', predicate: 'likes', object: `tea ${nested.length}` }));
        return new Date((t += 1000)).toISOString();
      },
    });
    expect((await hooked.remember({ subject: 'x', predicate: 'located_in', object: 'Paris' })).action).toBe('added');
    expect((await Promise.all(nested)).map((o) => o.action)).toEqual(['added', 'added']);
    expect((await hooked.recall('x')).map((c) => c.object).sort()).toEqual(['Paris', 'tea 0', 'tea 1']);
    expect(await hooked.checkInvariants()).toEqual([]);
  });

  it('offers the one-shot reconcile()', async () => {
    const store = new MemoryStore();
    const o = await reconcile({ predicate: 'likes', object: 'tea' }, { store });
    expect(o.action).toBe('added');
    expect((await new Memory({ store }).recall()).length).toBe(1);
  });

  it('refuses a store that does not implement ClaimStore', () => {
    expect(() => new Memory({ store: { loadSlot() {} } })).toThrow(CredenceError);
  });
});

describe('rememberMany', () => {
  it('writes a batch with the same decisions as one-at-a-time', async () => {
    const memory = new Memory();
    const outs = await memory.rememberMany([
      { predicate: 'located_in', object: 'NYC' },
      { predicate: 'likes', object: 'tea' },
      { predicate: 'located_in', object: 'nyc', provenance: { sourceId: 'b' } },
    ]);
    expect(outs.map((o) => o.action)).toEqual(['added', 'added', 'confirmed']);
    expect(outs[2].claim.provenance).toHaveLength(2);
    const err = await memory.rememberMany([{ predicate: 'x', object: 'y' }, { predicate: 'x' }]).catch((e) => e);
    expect([err.code, err.field]).toEqual(['INVALID_INPUT', '[1].object']);
    expect((await memory.recall()).length).toBe(2);
  });
});
