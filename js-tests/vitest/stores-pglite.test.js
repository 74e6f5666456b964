// PostgresStore on PGlite (PostgreSQL in wasm, one connection): the
// conformance suite, the schema, options and tenant isolation in the tables.
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
  for (const table of ['memory_slots', 'memory_claims', 'memory_conflicts', 'memory_claim_log', 'memory_entities']) {
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
    for (const table of ['memory_claims', 'memory_claim_log', 'memory_entities', 'memory_slots', 'memory_conflicts']) {
      expect(POSTGRES_SCHEMA).toContain(`CREATE TABLE IF NOT EXISTS ${table} (`);
    }
    expect(POSTGRES_SCHEMA).not.toMatch(/CREATE (TABLE|INDEX) (?!IF NOT EXISTS)/);
    expect(PostgresStore.schema()).toBe(POSTGRES_SCHEMA);
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

  it('loads a registry kept as rows only as committed: rows another registry left, a deleted row, a schema not upgraded', async () => {
    const store = new PostgresStore(db, { scope: 'rows' });
    const ref = { key: '\u001fentities\u001forg', subject: '\u001fentities', predicate: 'org' };
    const ent = (slug) => ({ id: `org:${slug}`, type: 'org', name: slug, aliases: [slug] });
    const base = { ref, changedClaims: [], changedConflicts: [], log: [] };
    const loaded = async () => (await store.loadSlot(ref)).entities.map((e) => e.id);
    expect(await store.commitRegistry({ ...base, expectedVersion: 0, slot: { version: 1, claims: [], conflicts: [], writes: [], reviewed: 0 }, entities: ['a', 'b', 'c'].map((x, at) => ({ at, entity: ent(x) })), entityCount: 3 })).toBeTypeOf('string');
    // Written whole with other entities (a caller's own commit), then by its changes again.
    expect(await store.commitSlot({ ...base, expectedVersion: 1, slot: { version: 2, claims: [], conflicts: [], writes: [], reviewed: 0, entities: [ent('x'), ent('y')] } })).toBe(true);
    expect(await store.commitRegistry({ ...base, expectedVersion: 2, slot: { version: 3, claims: [], conflicts: [], writes: [], reviewed: 0 }, entities: [{ at: 2, entity: ent('z') }], entityCount: 3 })).toBeTypeOf('string');
    expect(await loaded()).toEqual(['org:x', 'org:y', 'org:z']);
    // A row deleted by hand: refused, naming the registry, not read as a shorter one.
    await db.query("DELETE FROM memory_entities WHERE scope = 'rows' AND id = 'org:z'");
    await expect(store.loadSlot(ref)).rejects.toMatchObject({ code: 'MALFORMED_STORE_DATA', message: expect.stringContaining('"org"') });
    // Tables from before registry rows (no registry/pos columns): told to run the schema again.
    const tables = { slots: 'old_slots', claims: 'old_claims', conflicts: 'old_conflicts', log: 'old_log', entities: 'old_entities' };
    await db.exec(PostgresStore.schema(tables));
    await db.exec('ALTER TABLE old_entities DROP COLUMN pos');
    const old = new PostgresStore(db, { scope: 'rows', tables });
    await expect(new Memory({ store: old }).remember({ subject: 'ana', predicate: 'works_at', object: 'Acme' })).rejects.toMatchObject({ message: expect.stringContaining('after every upgrade') });
  });

  it('keeps memory_entities in step with the entity registries (SPEC §8, §9)', async () => {
    const memory = new Memory({ store: new PostgresStore(db, { scope: 'ents' }) });
    // The registry as the store loads it (its entities come from these rows when it was committed by its changes).
    const store = new PostgresStore(db, { scope: 'ents' });
    const ref = { key: `\u001fentities\u001forg`, subject: '\u001fentities', predicate: 'org' };
    await memory.remember({ subject: 'alice', predicate: 'works_at', object: 'Acme Corp' });
    await memory.remember({ subject: 'bob', predicate: 'works_at', object: 'Globex' });
    await memory.remember({ subject: 'carol', predicate: 'works_at', object: 'ACME, Inc.' });
    const { rows } = await db.query("SELECT id, type, name, aliases, data FROM memory_entities WHERE scope = 'ents' ORDER BY id");
    const registry = await store.loadSlot(ref);
    // The slot row counts them (an older version refuses that rather than reading no entities).
    expect((await db.query("SELECT slot FROM memory_slots WHERE scope = 'ents' AND predicate = 'org'")).rows[0].slot.entities).toEqual({ rows: 2 });
    expect(rows.map((r) => r.data)).toEqual([...registry.entities].sort((a, b) => (a.id < b.id ? -1 : 1)));
    expect(rows.map((r) => [r.type, r.name])).toEqual([['org', 'Acme Corp'], ['org', 'Globex']]);
    expect(rows[0].aliases).toContain('ACME, Inc.');
    // A commit rewrites only the entities it changed (the engine names them), and
    // every change lands: a merge, its undo, a new name, a new entity.
    const inStep = async () => {
      const now = (await db.query("SELECT data FROM memory_entities WHERE scope = 'ents' ORDER BY id")).rows.map((r) => r.data);
      const reg = await store.loadSlot(ref);
      expect(now).toEqual([...reg.entities].sort((a, b) => (a.id < b.id ? -1 : 1)));
      return reg;
    };
    const xmin = async (id) => (await db.query("SELECT xmin::text AS x FROM memory_entities WHERE scope = 'ents' AND id = $1", [id])).rows[0].x;
    const [acme, globex] = rows.map((r) => r.id);
    const globexRow = await xmin(globex);
    await memory.remember({ subject: 'dan', predicate: 'works_at', object: 'Initech' });
    expect(await xmin(globex)).toBe(globexRow);
    const merge = await memory.mergeEntities(acme, globex);
    expect((await inStep()).entities.find((e) => e.id === globex).mergedInto).toBe(acme);
    await memory.undoEntityMerge(merge.id);
    expect((await inStep()).entities.find((e) => e.id === globex).mergedInto).toBeUndefined();
    await memory.remember({ subject: 'erin', predicate: 'works_at', object: 'Globex Corporation' });
    expect((await inStep()).entities).toHaveLength(3);
    // A commit that does not name its entity changes (a caller's own): every entity
    // is compared, and one the registry no longer holds loses its row.
    const slot = await store.loadSlot(ref);
    const kept = { ...slot, version: slot.version + 1, entities: slot.entities.filter((e) => e.id !== 'org:initech') };
    expect(await store.commitSlot({ ref, expectedVersion: slot.version, slot: kept, changedClaims: [], changedConflicts: [], log: [] })).toBe(true);
    expect((await inStep()).entities.map((e) => e.id)).not.toContain('org:initech');
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
