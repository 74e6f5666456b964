// memory.erase through the packed package: strict input, and a store that
// cannot rewrite its log refuses instead of pretending.
import { describe, expect, it } from 'vitest';
import { CredenceError, Memory, MemoryStore } from 'credence';
import { delegating } from 'credence/conformance';

describe('memory.erase', () => {
  it('refuses bad input before anything is written, naming the field', async () => {
    const memory = new Memory();
    await memory.remember({ predicate: 'home_address', object: '12 Quiet Lane' });
    const cases = [
      [[{ subject: 'user' }], 'INVALID_INPUT', /options/],
      [[{ subject: 'user' }, { by: 'dpo' }], 'INVALID_INPUT', /reason/],
      [[{ subject: 'user' }, { reason: 'asked', by: '  ' }], 'INVALID_INPUT', /by/],
      [[{ subject: 'user', predicte: 'home_address' }, { reason: 'asked', by: 'dpo' }], 'INVALID_INPUT', /predicte/],
      [[{ subject: 'user' }, { reason: 'asked', by: 'dpo', force: true }], 'INVALID_INPUT', /force/],
      [[{ subject: 'user', claimId: 'cl_nope' }, { reason: 'asked', by: 'dpo' }], 'CLAIM_NOT_FOUND', /cl_nope/],
    ];
    for (const [args, code, message] of cases) {
      const err = await memory.erase(...args).then(() => null, (e) => e);
      expect(err, JSON.stringify(args)).toBeInstanceOf(CredenceError);
      expect(err.code, JSON.stringify(args)).toBe(code);
      expect(err.message, JSON.stringify(args)).toMatch(message);
    }
    expect((await memory.recall('user')).map((c) => c.object)).toEqual(['12 Quiet Lane']);
  });

  it('a store without eraseSlot refuses with STORE_FAILED and keeps everything', async () => {
    const inner = new MemoryStore();
    const store = delegating(inner, {}, { without: ['eraseSlot'] });
    const memory = new Memory({ store });
    await memory.remember({ predicate: 'home_address', object: '12 Quiet Lane' });
    await expect(memory.erase({ subject: 'user' }, { reason: 'asked', by: 'dpo' })).rejects.toMatchObject({ code: 'STORE_FAILED', message: expect.stringMatching(/eraseSlot/) });
    expect((await memory.recall('user')).map((c) => c.object)).toEqual(['12 Quiet Lane']);
  });
});
