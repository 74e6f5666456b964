// A third-party store written against ClaimStore v1 (no listConflicts /
// dirtySlots): refused with STORE_V1, or run through adaptV1Store.
import { describe, expect, it } from 'vitest';
import { CredenceError, Memory, MemoryStore, adaptV1Store } from 'credence';

function v1Store() {
  const inner = new MemoryStore();
  const store = {};
  for (const m of ['loadSlot', 'commitSlot', 'findClaim', 'findConflict', 'listSlots', 'readLog']) store[m] = (...args) => inner[m](...args);
  return store;
}

describe('ClaimStore v1', () => {
  it('is refused with STORE_V1, naming the missing method and the adapter', () => {
    let err;
    try {
      new Memory({ store: v1Store() });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CredenceError);
    expect(err.code).toBe('STORE_V1');
    expect(err.field).toBe('store');
    expect(err.message).toMatch(/listConflicts\(\)/);
    expect(err.message).toMatch(/adaptV1Store/);
  });

  it('runs through adaptV1Store with the same answers as an indexed store', async () => {
    const judge = { findPairs: () => [], confirmPair: () => ({ sameThing: false, newerInvalidatesEarlier: false, reason: '' }) };
    const answers = [];
    for (const store of [adaptV1Store(v1Store()), new MemoryStore()]) {
      let t = Date.parse('2026-06-01T10:00:00.000Z');
      const memory = new Memory({ store, now: () => (t += 60_000) });
      for (const subject of ['ana', 'bo', 'cy']) {
        await memory.remember({ subject, predicate: 'preferences.theme', object: 'dark' });
        await memory.remember({ subject, predicate: 'preferences.theme', object: 'light' }, { strategy: 'ask_user' });
      }
      const open = await memory.conflicts({ status: 'open' });
      await memory.settle(open[0].id, 'keep_both');
      const all = await memory.conflicts();
      const review = await memory.review({ judge });
      const again = await memory.review({ judge });
      answers.push({
        all: all.map((c) => [c.subject, c.status]),
        review: [review.calls, review.slotsLeft, again.calls],
      });
    }
    expect(answers[0]).toEqual(answers[1]);
    expect(answers[0].all.map(([, s]) => s)).toEqual(['open', 'open', 'settled']);
    expect(answers[0].review[2]).toBe(0);
  });
});
