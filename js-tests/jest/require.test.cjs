// The packed package, required by name as CommonJS (zero Jest transform config).
const { Memory, MemoryStore, CredenceError, ConcurrencyError } = require('credence');

describe('credence via require()', () => {
  test('remember → recall round trip', async () => {
    const memory = new Memory();
    await memory.remember({ predicate: 'located_in', object: 'NYC' });
    const o = await memory.remember({ predicate: 'located_in', object: 'San Francisco' });
    expect(o.action).toBe('superseded');
    const now = await memory.recall();
    expect(now.map((c) => c.object)).toEqual(['San Francisco']);
  });

  test('errors are CredenceError instances with codes', async () => {
    const memory = new Memory();
    await expect(memory.remember({ predicate: '', object: 'x' })).rejects.toMatchObject({ code: 'INVALID_INPUT', field: 'predicate' });
    await expect(memory.remember({ predicate: '', object: 'x' })).rejects.toBeInstanceOf(CredenceError);
    expect(() => new Memory({ strategy: 'nope' })).toThrow(CredenceError);
  });

  test('stale expectedVersion → ConcurrencyError, memory unchanged', async () => {
    const store = new MemoryStore();
    const memory = new Memory({ store });
    await memory.remember({ predicate: 'likes', object: 'tea' });
    await expect(memory.remember({ predicate: 'likes', object: 'cake' }, { expectedVersion: 0 })).rejects.toBeInstanceOf(ConcurrencyError);
    expect(store.claimCount).toBe(1);
  });
});
