// Entity registries written by main at 783f0e6 (one slot per type, kept as
// positioned rows: commitRegistry, registryRows) open with nothing lost:
// IndexedDbStore converts them when it upgrades the database to version 7,
// PostgresStore when its schema (the migration in POSTGRES_SCHEMA) runs.
// The fixtures are real old data (js-tests/fixtures/legacy-registry,
// generate.mjs): each is restored into an old-layout database, opened with
// the new store, and must answer loadSlot whole and readLog as the old
// store did, then accept the emptied registry through a plain commitSlot
// (what the engine does once it has moved every entity to its own slot).
import { describe, expect, it } from 'vitest';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { PGlite } from '@electric-sql/pglite';
import { IndexedDbStore, PostgresStore } from 'credence';
import { fixture, restoreIndexedDb, restorePostgres } from '../lib/legacy-fixtures.mjs';

const SCOPE = 'tenant-a';
const registry = (type) => ({ key: `\u001fentities\u001f${type}`, subject: '\u001fentities', predicate: type });
const plain = (value) => JSON.parse(JSON.stringify(value));
const request = (req) => new Promise((resolve, reject) => {
  req.onsuccess = () => resolve(req.result);
  req.onerror = () => reject(req.error);
});

/** Every registry answers as the old store did; emptied by a plain commit, it keeps its log and loads empty. */
async function checkRegistries(store, expected) {
  expect(Object.keys(expected).sort()).toEqual(['org', 'person']);
  for (const [type, { slot, log }] of Object.entries(expected)) {
    expect(plain(await store.loadSlot(registry(type)))).toEqual(slot);
    expect(plain(await store.readLog(registry(type)))).toEqual(log);
  }
  const person = expected.person.slot;
  expect(person.entities.map((e) => e.id)).toContain('person:jonathon-smith');
  expect(person.conflicts.map((c) => [c.kind, c.status])).toEqual([['same_entity', 'open'], ['same_entity', 'settled']]);
  expect(expected.org.slot.merges).toHaveLength(1);
  expect(expected.org.slot.entities.find((e) => e.id === 'org:acme').aliases).toContain('ACME, Inc.');
  // The open question is still listed, and found by id.
  const open = await store.listConflicts({ status: 'open', limit: 10 });
  expect(open.map((c) => c.id)).toEqual([person.conflicts[0].id]);
  expect(await store.findConflict(person.conflicts[0].id)).toEqual(registry('person'));
  // The engine's last step of its own migration: each registry committed emptied.
  for (const [type, { slot, log }] of Object.entries(expected)) {
    const version = slot.version + 1;
    const emptied = { ...slot, version, entities: [], claims: [], conflicts: [], merges: [] };
    const entry = { version, at: '2026-02-01T00:00:00.000Z', rule: 'entities_moved', claimIds: [], cause: { op: 'migrate' }, note: `moved to entity slots` };
    const commit = { ref: registry(type), expectedVersion: slot.version, slot: emptied, changedClaims: [], changedConflicts: [], log: [entry] };
    expect(await store.commitSlot(commit)).toBe(true);
    expect(plain(await store.loadSlot(registry(type)))).toEqual(plain(emptied));
    expect(plain(await store.readLog(registry(type)))).toEqual([...log, entry]);
  }
  expect(await store.findEntities({ type: 'org', keys: ['acme'] })).toEqual([]);
}

describe('an IndexedDB database of main 783f0e6', () => {
  it('is upgraded to version 7: each registry an ordinary slot record, whole; its log kept; the emptied registry commits', async () => {
    const indexedDB = new IDBFactory();
    expect(await restoreIndexedDb(indexedDB, 'legacy')).toBe(6);
    const store = new IndexedDbStore('legacy', { indexedDB, IDBKeyRange, scope: SCOPE });
    await checkRegistries(store, fixture('indexeddb/expected.json'));
    store.close();
    const db = await request(indexedDB.open('legacy'));
    expect(db.version).toBe(7);
    expect([...db.objectStoreNames].sort()).toEqual(['claims', 'conflicts', 'entityKeys', 'log', 'slots', 'writes']);
    const records = await request(db.transaction('slots', 'readonly').objectStore('slots').getAll());
    for (const r of records) expect(Object.keys(r).filter((k) => ['entityRows', 'claimRows', 'conflictRows', 'generation'].includes(k))).toEqual([]);
    db.close();
  });
});

describe('PostgreSQL tables of main 783f0e6', () => {
  it('are migrated by the schema: each registry row whole, the row columns dropped; its log kept; the emptied registry commits', async () => {
    const db = new PGlite();
    try {
      await restorePostgres(db);
      const store = new PostgresStore(db, { scope: SCOPE });
      // Not migrated yet: refused, saying what to run, rather than read as a registry without entities.
      await expect(store.loadSlot(registry('org'))).rejects.toMatchObject({ code: 'STORE_FAILED', message: expect.stringContaining('POSTGRES_SCHEMA') });
      await store.ensureSchema();
      await store.ensureSchema(); // a no-op once migrated
      const columns = (await db.query(`SELECT table_name || '.' || column_name AS c FROM information_schema.columns
        WHERE column_name IN ('registry', 'pos', 'ver', 'generation') AND table_name LIKE 'memory_%'`)).rows;
      expect(columns).toEqual([]);
      await checkRegistries(store, fixture('postgres/expected.json'));
    } finally {
      await db.close();
    }
  });
});
