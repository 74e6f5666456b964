// SPEC §8: the PostgreSQL layout is distributable by scope — every primary
// key and index leads with `scope`, and every statement the store runs
// filters on it (or writes it first), so Citus can shard tenants unchanged.
// Checked on the exported schema and on every statement a workload sends.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PGlite } from '@electric-sql/pglite';
import { Memory, POSTGRES_SCHEMA, PostgresStore } from 'credence';

const db = new PGlite();
const seen = new Set();
const recording = { query: (text, values) => (seen.add(text), db.query(text, values)) };

beforeAll(async () => {
  await db.waitReady;
}, 60000);
afterAll(() => db.close());

const statements = (script) => script.split(/;\n/).map((s) => s.trim()).filter(Boolean);
// DO: the one-time migration of entity registries kept as rows (a no-op after).
const isDdl = (s) => /^(CREATE|ALTER|DROP|DO)\b/.test(s);

describe('PostgresStore layout is distributable by scope', () => {
  it('leads every primary key and index with scope', () => {
    const ddl = statements(POSTGRES_SCHEMA.replace(/DO \$(\w*)\$[\s\S]*?\$\1\$;\n/g, ''));
    const keys = ddl.flatMap((s) => [...s.matchAll(/PRIMARY KEY \(([^)]*)\)/g)].map((m) => m[1]));
    expect(keys.length).toBeGreaterThanOrEqual(5);
    for (const k of keys) expect(k.split(',')[0].trim()).toBe('scope');
    const indexes = ddl.filter((s) => /^CREATE INDEX/.test(s));
    expect(indexes.length).toBeGreaterThanOrEqual(4);
    for (const s of indexes) expect(s).toMatch(/ ON \S+ \(scope[,)]/);
  });

  it('filters every statement of a workload on scope', async () => {
    const store = new PostgresStore(recording, { scope: 'tenant-a' });
    await store.ensureSchema();
    const memory = new Memory({ store });
    await memory.remember({ predicate: 'preferences.theme', object: 'dark' });
    const asked = await memory.remember({ predicate: 'preferences.theme', object: 'light' }, { strategy: 'ask_user' });
    await memory.remember({ subject: 'Ana', subjectType: 'person', predicate: 'works_at', object: 'Acme Corp' });
    await memory.recall();
    await memory.why(asked.claim.id);
    const [open] = await memory.conflicts({ status: 'open' });
    await memory.settle(open.id, 'keep_both');
    await memory.undo(open.id);
    await memory.conflicts();
    await memory.review({ judge: { findPairs: () => [], confirmPair: () => ({ sameThing: false, newerInvalidatesEarlier: false, reason: '' }) } });
    await store.listSlots({});
    await store.listConflicts({ status: 'open', after: { openedAt: open.openedAt, id: open.id }, limit: 5 });
    await store.dirtySlots({ after: 'a', limit: 5 });

    const dml = [...seen].filter((s) => !isDdl(s));
    // Every kind of statement the store has: loads, commits (insert and update), finds, listings, the log.
    expect(dml.length).toBeGreaterThanOrEqual(10);
    for (const s of dml) {
      // Each SELECT/UPDATE/DELETE names its scope; each INSERT writes scope as its first column.
      const reads = s.match(/\b(FROM|UPDATE)\s+memory_\w+/g) ?? [];
      const wheres = s.match(/\bscope = \$1\b/g) ?? [];
      const inserts = s.match(/INSERT INTO memory_\w+\s*\(([^)]*)\)/g) ?? [];
      for (const insert of inserts) expect(insert, s).toMatch(/\(\s*scope\s*,/);
      expect(wheres.length, s).toBeGreaterThanOrEqual(reads.length);
      expect(reads.length + inserts.length, s).toBeGreaterThan(0);
    }
  });
});
