// memory.retract through the packed package: options checked strictly, the
// retracted claim visible as history and as of earlier moments, undo exact.
import { describe, expect, it } from 'vitest';
import { CredenceError, Memory } from 'credence';

function clock(start = '2026-03-01T00:00:00.000Z') {
  let t = Date.parse(start);
  return { now: () => new Date(t).toISOString(), advance: (days) => (t += days * 86400000) };
}

describe('memory.retract', () => {
  it('ends validity at `at`, keeps what held before, and undo restores it exactly', async () => {
    const c = clock();
    const memory = new Memory({ now: c.now });
    const plan = await memory.remember({ predicate: 'context.project.trip', object: 'Trip to Rome in May' });
    c.advance(3);
    const before = await memory.recall('user', { includeHistory: true });
    const r = await memory.retract(plan.claim.id, { reason: 'trip cancelled', at: '2026-03-02' });
    expect(r.claim).toMatchObject({ status: 'retracted', validTo: '2026-03-02T00:00:00.000Z' });
    expect(r.by).toBe('user');
    expect(await memory.recall('user')).toEqual([]);
    expect((await memory.recall('user', { at: '2026-03-01T12:00:00Z' })).map((x) => x.object)).toEqual(['Trip to Rome in May']);
    expect(await memory.recall('user', { at: '2026-03-02T12:00:00Z' })).toEqual([]);
    const undone = await memory.undo(r.id);
    expect(undone.undone).toBe(true);
    expect(await memory.recall('user', { includeHistory: true })).toEqual(before);
  });

  it('refuses bad input before writing anything, naming the field', async () => {
    const memory = new Memory();
    const { claim } = await memory.remember({ predicate: 'likes', object: 'tea' });
    const cases = [
      [[claim.id, { asOf: '2026-01-01' }], 'INVALID_INPUT', /asOf/],
      [[claim.id, { reason: 7 }], 'INVALID_INPUT', /reason/],
      [[claim.id, { at: 'last tuesday' }], 'INVALID_TIME', /at/],
      [['', {}], 'INVALID_INPUT', /claimId/],
      [[42], 'INVALID_INPUT', /claimId/],
      [['cl_missing'], 'CLAIM_NOT_FOUND', /cl_missing/],
    ];
    for (const [args, code, message] of cases) {
      const err = await memory.retract(...args).then(() => null, (e) => e);
      expect(err, JSON.stringify(args)).toBeInstanceOf(CredenceError);
      expect(err.code, JSON.stringify(args)).toBe(code);
      expect(err.message, JSON.stringify(args)).toMatch(message);
    }
    expect((await memory.recall('user')).map((x) => [x.object, x.status])).toEqual([['tea', 'active']]);
    await expect(memory.undo('rt:9:cl_missing')).rejects.toMatchObject({ code: 'CONFLICT_NOT_FOUND' });
    // A retraction id that is not well-formed is still no retraction (it was answered as no conflict).
    await expect(memory.undo('rt:nope')).rejects.toMatchObject({ code: 'CONFLICT_NOT_FOUND', field: 'id', message: expect.stringMatching(/no retraction with id "rt:nope"/) });
  });

  it('a retracted value of a multi-valued slot leaves the others as they were', async () => {
    const memory = new Memory();
    const tea = await memory.remember({ predicate: 'likes', object: 'tea' });
    await memory.remember({ predicate: 'likes', object: 'chess' });
    await memory.retract(tea.claim.id, { reason: 'went off tea' });
    expect((await memory.recall('user')).map((x) => x.object)).toEqual(['chess']);
    const again = await memory.remember({ predicate: 'likes', object: 'tea' });
    expect(again.claim.id).not.toBe(tea.claim.id);
    expect((await memory.recall('user')).map((x) => x.object).sort()).toEqual(['chess', 'tea']);
  });

  it('withdraws a scheduled change before it begins: the value it would have ended holds on', async () => {
    const c = clock();
    const memory = new Memory({ now: c.now });
    await memory.remember({ predicate: 'located_in', object: 'Paris' });
    c.advance(1);
    const move = await memory.remember({ predicate: 'located_in', object: 'Berlin', validFrom: '2026-06-01' });
    expect(move.action).toBe('superseded');
    const r = await memory.retract(move.claim.id, { reason: 'the move fell through' });
    expect(r.claim).toMatchObject({ status: 'retracted', validFrom: '2026-06-01T00:00:00.000Z', validTo: '2026-06-01T00:00:00.000Z' });
    expect((await memory.recall('user', { at: '2026-07-01' })).map((x) => x.object)).toEqual(['Paris']);
    c.advance(120);
    expect((await memory.recall('user')).map((x) => [x.object, x.status, x.validTo])).toEqual([['Paris', 'active', undefined]]);
    expect(await memory.checkInvariants()).toEqual([]);
    await memory.undo(r.id);
    expect((await memory.recall('user')).map((x) => x.object)).toEqual(['Berlin']);
    expect((await memory.recall('user', { at: '2026-05-01' })).map((x) => x.object)).toEqual(['Paris']);
  });
});
