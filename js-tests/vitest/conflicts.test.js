// Issue 5: settle, undo, review and merge proposals through the package.
import { describe, expect, it } from 'vitest';
import { Memory, MemoryStore, CredenceError } from 'credence';

async function askedPair(memory) {
  await memory.remember({ predicate: 'preferences.theme', object: 'dark' });
  const o = await memory.remember({ predicate: 'preferences.theme', object: 'light' }, { strategy: 'ask_user' });
  return o.conflicts[0];
}
const objects = async (m) => (await m.recall()).map((c) => c.object);

describe('conflicts through the package', () => {
  it('keep_newer / keep_earlier / keep_both, each undoable, stamped', async () => {
    const memory = new Memory();
    const c = await askedPair(memory);
    expect(await objects(memory)).toEqual(['dark', 'light']);
    const s = await memory.settle(c.id, 'keep_newer', { by: 'ana' });
    expect(s).toMatchObject({ status: 'settled', settlement: 'keep_newer', settledBy: 'ana' });
    expect(s.earlier.status).toBe('retired');
    expect(await objects(memory)).toEqual(['light']);
    const u = await memory.undo(c.id);
    expect(u.status).toBe('open');
    expect(await objects(memory)).toEqual(['dark', 'light']);
    await memory.settle(c.id, 'keep_earlier');
    expect(await objects(memory)).toEqual(['dark']);
    await memory.undo(c.id);
    await memory.settle(c.id, 'keep_both');
    expect(await objects(memory)).toEqual(['dark', 'light']);
    expect(await memory.conflicts({ status: 'open' })).toEqual([]);
  });

  it('refuses unknown ids, unknown settlements and double settlement', async () => {
    const memory = new Memory();
    const c = await askedPair(memory);
    const codes = [];
    for (const p of [memory.settle('cf_nope', 'keep_newer'), memory.settle(c.id, 'keep_everything')]) codes.push((await p.catch((e) => e)).code);
    await memory.settle(c.id, 'keep_newer');
    const again = await memory.settle(c.id, 'keep_newer').catch((e) => e);
    expect(again).toBeInstanceOf(CredenceError);
    codes.push(again.code);
    expect(codes).toEqual(['CONFLICT_NOT_FOUND', 'INVALID_SETTLEMENT', 'CONFLICT_ALREADY_SETTLED']);
  });

  it('is visible from a second Memory on the same store and never noted twice', async () => {
    const store = new MemoryStore();
    const a = new Memory({ store });
    const b = new Memory({ store });
    const c = await askedPair(a);
    expect((await b.conflicts()).map((x) => x.id)).toEqual([c.id]);
    await b.settle(c.id, 'keep_both', { by: 'bo' });
    const again = await a.remember({ predicate: 'preferences.theme', object: 'light' }, { strategy: 'ask_user' });
    expect(again.conflicts).toEqual([]);
    expect((await a.conflicts())[0].settledBy).toBe('bo');
  });

  it('the review pass counts calls, ignores invalid pairs, confirms at most 3 per slot, resumes', async () => {
    const memory = new Memory();
    for (const t of ['is vegetarian', 'likes hiking', 'eats fish now', 'has a cat', 'plays chess']) {
      await memory.remember({ predicate: 'experience.facts', object: t });
    }
    let calls = 0;
    let down = true;
    const judge = {
      findPairs(claims) {
        calls++;
        const pairs = [{ earlier: 'cl_unknown', newer: claims[0].id }, { earlier: claims[2].id, newer: claims[0].id }, 'garbage'];
        for (let i = 0; i < claims.length; i++) for (let j = i + 1; j < claims.length; j++) pairs.push({ earlier: claims[i].id, newer: claims[j].id });
        return pairs;
      },
      async confirmPair(earlier, newer) {
        calls++;
        if (down) throw new Error('judge offline');
        const real = earlier.object.includes('vegetarian') && newer.object.includes('fish');
        return { sameThing: real, newerInvalidatesEarlier: real, reason: 'diet changed' };
      },
    };
    const first = await memory.review({ judge });
    expect(first).toMatchObject({ calls: 2, pairsConfirmed: 0, slotsLeft: 1 });
    down = false;
    const second = await memory.review({ judge, budget: 160 });
    expect(second).toMatchObject({ calls: 4, pairsNamed: 10, pairsConfirmed: 1, slotsLeft: 0 });
    expect(second.conflicts[0]).toMatchObject({ kind: 'review', reason: 'diet changed' });
    expect(second.conflicts[0].earlier.object).toBe('is vegetarian');
    expect(calls).toBe(6);
    expect((await memory.review({ judge })).calls).toBe(0);
    const budgeted = new Memory();
    await budgeted.remember({ predicate: 'experience.a', object: 'x' });
    await budgeted.remember({ predicate: 'experience.a', object: 'y' });
    expect(await budgeted.review({ judge, budget: 1 })).toMatchObject({ calls: 1, slotsLeft: 1 });
  });

  it('a merge that rewrites approved content waits as a merge_proposal', async () => {
    let contradicts = false;
    const memory = new Memory({ merge: (entries, incoming) => ({ content: [...entries.map((e) => e.object), incoming.object].join('; '), contradicts, reason: 'drops an approved step' }) });
    await memory.remember({ predicate: 'workflow.ship', object: 'run tests' });
    const asked = await memory.remember({ predicate: 'workflow.ship', object: 'run tests twice' }, { strategy: 'ask_user' });
    await memory.settle(asked.conflicts[0].id, 'keep_earlier', { by: 'lead' });
    contradicts = true;
    const o = await memory.remember({ predicate: 'workflow.ship', object: 'skip tests' });
    expect(o.conflicts[0]).toMatchObject({ kind: 'merge_proposal', reason: 'drops an approved step' });
    expect(await objects(memory)).toEqual(['run tests']);
    await memory.settle(o.conflicts[0].id, 'keep_newer');
    expect(await objects(memory)).toEqual(['run tests; skip tests']);
  });
});
