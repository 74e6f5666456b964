// The stores through require(): the CommonJS bundle with yaml as a dependency.
const { mkdtempSync, rmSync, readdirSync } = require('node:fs');
const { tmpdir } = require('node:os');
const path = require('node:path');
const { Memory, OkfStore, PostgresStore, POSTGRES_SCHEMA, CredenceError } = require('credence');

describe('stores via require()', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'credence-jest-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('OkfStore writes a bundle a second store reads back', async () => {
    const memory = new Memory({ store: new OkfStore(dir) });
    await memory.remember({ predicate: 'located_in', object: 'NYC' });
    await memory.remember({ predicate: 'located_in', object: 'Berlin', validFrom: '2030-01-01' });
    expect(readdirSync(path.join(dir, 'claims'))).toEqual(['user~located_in.md']);
    const again = new Memory({ store: new OkfStore(dir) });
    // Berlin from 2030 is a scheduled change (SPEC §3): NYC holds until then.
    expect((await again.recall('user')).map((c) => c.object)).toEqual(['NYC']);
    expect((await again.recall('user', { at: '2030-06-01' })).map((c) => c.object)).toEqual(['Berlin']);
  });

  test('PostgresStore and its schema are exported', () => {
    expect(POSTGRES_SCHEMA).toContain('CREATE TABLE IF NOT EXISTS memory_claims');
    expect(() => new PostgresStore({ query() {} }, {})).toThrow(CredenceError);
  });
});
