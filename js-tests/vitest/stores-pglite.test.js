// PostgresStore on PGlite (PostgreSQL in wasm, one connection): the
// conformance suite, the schema, options and tenant isolation in the tables.
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PGlite } from '@electric-sql/pglite';
import { CredenceError, Memory, POSTGRES_SCHEMA, PostgresStore } from 'credence';
import { runStoreConformance } from 'credence/conformance';

// One PGlite for the file (a cold start costs seconds and hundreds of MB).
const db = new PGlite();
beforeAll(async () => {
  await db.waitReady;
  await db.exec(POSTGRES_SCHEMA);
  await db.exec(POSTGRES_SCHEMA); // idempotent
}, 60000);
afterAll(() => db.close());

/** Every row of every table of the schema for one scope, as text. */
async function tableBytes(scope) {
  const out = [];
  for (const table of ['memory_slots', 'memory_claims', 'memory_conflicts', 'memory_claim_log', 'memory_entities', 'memory_entity_keys']) {
    const { rows } = await db.query(`SELECT t::text AS row FROM ${table} t WHERE scope = $1`, [scope]);
    out.push(...rows.map((r) => r.row));
  }
  return out.join('\n');
}

// Vitest's test functions, for the suite (this repo's Vitest runs without globals).
const test = { describe, it, expect, afterEach };

runStoreConformance('PostgresStore on PGlite', async ({ scope }) => ({
  store: new PostgresStore(db, { scope }),
  reopen: () => new PostgresStore(db, { scope }),
  raw: () => tableBytes(scope),
}), { test });

describe('PostgresStore on PGlite — schema and options', () => {
  it('exports idempotent DDL naming the required tables', () => {
    for (const table of ['memory_claims', 'memory_claim_log', 'memory_entities', 'memory_slots', 'memory_conflicts', 'memory_entity_keys']) {
      expect(POSTGRES_SCHEMA).toContain(`CREATE TABLE IF NOT EXISTS ${table} (`);
    }
    expect(POSTGRES_SCHEMA).not.toMatch(/CREATE (TABLE|INDEX) (?!IF NOT EXISTS)/);
    expect(PostgresStore.schema()).toBe(POSTGRES_SCHEMA);
  });

  it('documents the registry migration as POSTGRES_SCHEMA runs it (docs/postgres.md)', () => {
    const migration = POSTGRES_SCHEMA.slice(POSTGRES_SCHEMA.indexOf('DO $credence_registry_migration$')).trim();
    expect(migration).toMatch(/^DO [\s\S]*\$;$/);
    expect(readFileSync(new URL('../../docs/postgres.md', import.meta.url), 'utf8')).toContain(migration);
  });

  it('works with overridden table names, schema-qualified', async () => {
    const tables = { slots: 'app.slots', claims: 'app.claims', conflicts: 'app.conflicts', log: 'app.claim_log', entities: 'app.entities' };
    await db.exec('CREATE SCHEMA IF NOT EXISTS app');
    const store = new PostgresStore(db, { scope: 'custom', tables });
    await store.ensureSchema();
    await store.ensureSchema();
    expect(PostgresStore.schema(tables)).toContain('CREATE TABLE IF NOT EXISTS app.claim_log (');
    const memory = new Memory({ store });
    const o = await memory.remember({ predicate: 'located_in', object: 'Lisbon' });
    expect((await memory.why(o.claim.id)).log.map((l) => l.rule)).toEqual(['add']);
    const { rows } = await db.query('SELECT object, status FROM app.claims WHERE scope = $1', ['custom']);
    expect(rows).toEqual([{ object: 'Lisbon', status: 'active' }]);
    expect((await db.query("SELECT count(*)::int AS n FROM memory_claims WHERE scope = 'custom'")).rows[0].n).toBe(0);
  });

  it('rewrites a claim row when the claim changes, not when only its belief moves', async () => {
    let t = Date.UTC(2026, 0, 1);
    const memory = new Memory({ store: new PostgresStore(db, { scope: 'beliefs' }), now: () => new Date(t).toISOString() });
    const oslo = await memory.remember({ predicate: 'located_in', object: 'Oslo', provenance: { sourceId: 'a', sourceTrust: 0.9 } });
    const row = async (id) => (await db.query("SELECT xmin::text AS x, confidence FROM memory_claims WHERE scope = 'beliefs' AND id = $1", [id])).rows[0];
    const before = await row(oslo.claim.id);
    t += 86_400_000;
    // A weak rival: outweighed, and Oslo's belief moves (it now shares the slot's mass).
    expect((await memory.remember({ predicate: 'located_in', object: 'Rome', provenance: { sourceId: 'b', sourceTrust: 0.3 } })).action).toBe('outweighed');
    const slot = (await db.query("SELECT slot FROM memory_slots WHERE scope = 'beliefs'")).rows[0].slot;
    const inSlot = slot.claims.find((c) => c.id === oslo.claim.id).confidence;
    expect(inSlot).not.toBeCloseTo(before.confidence, 6); // the slot document carries the moved belief
    expect(await row(oslo.claim.id)).toEqual(before); // the row was not rewritten for it
    const again = await memory.remember({ predicate: 'located_in', object: 'Oslo', provenance: { sourceId: 'c' } });
    expect(again.action).toBe('confirmed');
    expect((await row(oslo.claim.id)).x).not.toBe(before.x); // a new observation rewrites it
  });

  it('keeps memory_entities and memory_entity_keys in step with each entity slot (SPEC §8, §9)', async () => {
    const store = new PostgresStore(db, { scope: 'ents' });
    const ref = { key: '\u001fentity\u001forg:acme', subject: '\u001fentity', predicate: 'org:acme' };
    const ent = (aliases) => ({ id: 'org:acme', type: 'org', name: 'Acme Corp', aliases });
    const commit = (expected, entities, keys) => ({
      ref, expectedVersion: expected, changedClaims: [], changedConflicts: [], log: [],
      slot: { version: expected + 1, claims: [], conflicts: [], writes: [], reviewed: 0, entities },
      index: { conflicts: [], unreviewed: false, entity: { type: 'org', id: 'org:acme', keys: keys.map(([key, name]) => ({ key, name })) } },
    });
    const entities = async () => (await db.query("SELECT id, type, name, aliases, data, xmin::text AS x FROM memory_entities WHERE scope = 'ents'")).rows;
    const keys = async () => (await db.query("SELECT type, key, entity, name FROM memory_entity_keys WHERE scope = 'ents' ORDER BY key")).rows.map((r) => [r.type, r.key, r.entity, r.name]);
    expect(await store.commitSlot(commit(0, [ent(['Acme Corp'])], [['acme corp', 'Acme Corp']]))).toBe(true);
    const [row] = await entities();
    expect(row).toMatchObject({ id: 'org:acme', type: 'org', name: 'Acme Corp', aliases: ['Acme Corp'], data: ent(['Acme Corp']) });
    expect(await keys()).toEqual([['org', 'acme corp', 'org:acme', 'Acme Corp']]);
    // Same entity, other keys: the entity row is not rewritten, the key rows are replaced.
    expect(await store.commitSlot(commit(1, [ent(['Acme Corp'])], [['acme', 'Acme Corp'], ['acme corp', 'Acme Corp']]))).toBe(true);
    expect((await entities())[0].x).toBe(row.x);
    expect(await keys()).toEqual([['org', 'acme', 'org:acme', 'Acme Corp'], ['org', 'acme corp', 'org:acme', 'Acme Corp']]);
    expect(await store.commitSlot(commit(2, [ent(['Acme Corp', 'ACME, Inc.'])], [['acme inc', 'ACME, Inc.']]))).toBe(true);
    expect((await entities())[0].aliases).toEqual(['Acme Corp', 'ACME, Inc.']);
    expect(await keys()).toEqual([['org', 'acme inc', 'org:acme', 'ACME, Inc.']]);
    // A registry slot of an older version (subject "\u001fentities") leaves both tables alone; an emptied entity slot empties them.
    const registry = { key: '\u001fentities\u001forg', subject: '\u001fentities', predicate: 'org' };
    expect(await store.commitSlot({ ref: registry, expectedVersion: 0, changedClaims: [], changedConflicts: [], log: [], slot: { version: 1, claims: [], conflicts: [], writes: [], reviewed: 0, entities: [] } })).toBe(true);
    expect((await entities()).map((r) => r.id)).toEqual(['org:acme']);
    expect(await store.commitSlot(commit(3, [], []))).toBe(true);
    expect([await entities(), await keys()]).toEqual([[], []]);
  });

  it('refuses bad options with CredenceError naming the field', () => {
    const field = (f) => {
      try {
        f();
      } catch (e) {
        expect(e).toBeInstanceOf(CredenceError);
        return [e.code, e.field];
      }
      return null;
    };
    expect(field(() => new PostgresStore(db, {}))).toEqual(['INVALID_INPUT', 'scope']);
    expect(field(() => new PostgresStore({}, { scope: 'x' }))).toEqual(['INVALID_INPUT', 'queryable']);
    expect(field(() => new PostgresStore(db, { scope: 'x', tables: { claims: 'x; DROP TABLE y' } }))).toEqual(['INVALID_INPUT', 'tables.claims']);
    expect(field(() => new PostgresStore(db, { scope: 'x', tables: { widgets: 'w' } }))).toEqual(['INVALID_INPUT', 'tables.widgets']);
  });

  it('explains missing tables', async () => {
    const memory = new Memory({ store: new PostgresStore(db, { scope: 'x', tables: { slots: 'nowhere' } }) });
    const err = await memory.recall('user').catch((e) => e);
    expect(err).toBeInstanceOf(CredenceError);
    expect(err.code).toBe('STORE_FAILED');
    expect(err.message).toContain('ensureSchema');
    expect(err.cause.code).toBe('42P01');
  });

  it('keeps claims, conflicts, slots and log rows of every scope under that scope', async () => {
    const [a, b] = ['tenant-a', 'tenant-b'].map((scope) => new Memory({ store: new PostgresStore(db, { scope }) }));
    await a.remember({ predicate: 'born_on', object: '1990-01-01', provenance: { sourceId: 'x' } });
    await a.remember({ predicate: 'born_on', object: '1991-01-01', provenance: { sourceId: 'y' } });
    await b.remember({ predicate: 'born_on', object: '1985-01-01' });
    for (const table of ['memory_slots', 'memory_claims', 'memory_conflicts', 'memory_claim_log']) {
      const { rows } = await db.query(`SELECT scope, count(*)::int AS n FROM ${table} WHERE scope LIKE 'tenant-%' GROUP BY scope ORDER BY scope`);
      const expected = { memory_slots: [1, 1], memory_claims: [2, 1], memory_conflicts: [1], memory_claim_log: [2, 1] }[table];
      expect(rows.map((r) => r.n), table).toEqual(expected);
    }
    expect((await b.conflicts()).length).toBe(0);
    expect((await b.recall('user', { includeHistory: true })).map((c) => c.object)).toEqual(['1985-01-01']);
  });
});
