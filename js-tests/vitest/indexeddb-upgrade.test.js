// IndexedDbStore database version 1 → 3 (store interface v2, then slot tags): a database
// written before the conflict and review indexes existed gets them filled
// from its slots on first open, and keeps working.
import { describe, expect, it } from 'vitest';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { IndexedDbStore, Memory } from 'credence';

const T0 = '2026-06-01T10:00:00.000Z';
const request = (req) => new Promise((resolve, reject) => {
  req.onsuccess = () => resolve(req.result);
  req.onerror = () => reject(req.error);
});

/** A version-1 database as the previous IndexedDbStore wrote it. */
async function versionOne(indexedDB, name) {
  const open = indexedDB.open(name, 1);
  open.onupgradeneeded = () => {
    const db = open.result;
    const slots = db.createObjectStore('slots', { keyPath: ['scope', 'key'] });
    slots.createIndex('byScope', 'scope');
    slots.createIndex('bySubject', ['scope', 'subject']);
    db.createObjectStore('claims', { keyPath: ['scope', 'id'] });
    db.createObjectStore('conflicts', { keyPath: ['scope', 'id'] });
    const log = db.createObjectStore('log', { autoIncrement: true });
    log.createIndex('bySlot', ['scope', 'key']);
  };
  const db = await request(open);
  const claim = (id, object) => ({
    id, subject: 'user', predicate: 'preferences.theme', object, status: 'disputed', confidence: 0.5, logOdds: 0,
    statedConfidence: 1, recordedAt: T0, provenance: [{ sourceId: 'chat', sourceTrust: 0.8, extractorConf: 1, observedAt: T0 }], conflictIds: ['cf_1'],
  });
  const slot = {
    version: 1, reviewed: 0, writes: [],
    claims: [claim('cl_1', 'dark'), claim('cl_2', 'light')],
    conflicts: [{ id: 'cf_1', kind: 'ask_user', earlierId: 'cl_1', newerId: 'cl_2', reason: 'asked', status: 'open', openedAt: T0 }],
  };
  const at = { scope: 'default', key: 'user\u001fpreferences.theme', subject: 'user', predicate: 'preferences.theme' };
  const tx = db.transaction(['slots', 'claims', 'conflicts'], 'readwrite');
  tx.objectStore('slots').put({ ...at, slot });
  for (const id of ['cl_1', 'cl_2']) tx.objectStore('claims').put({ ...at, id });
  tx.objectStore('conflicts').put({ ...at, id: 'cf_1' });
  await new Promise((resolve, reject) => {
    tx.oncomplete = resolve;
    tx.onerror = () => reject(tx.error);
  });
  db.close();
  return at;
}

describe('IndexedDbStore upgrade from database version 1', () => {
  it('fills the conflict and review indexes from the stored slots', async () => {
    const indexedDB = new IDBFactory();
    const at = await versionOne(indexedDB, 'old-db');
    const store = new IndexedDbStore('old-db', { indexedDB, IDBKeyRange });
    const ref = { key: at.key, subject: at.subject, predicate: at.predicate };
    expect(await store.listConflicts({ status: 'open', limit: 10 })).toEqual([{ id: 'cf_1', status: 'open', openedAt: T0, ref }]);
    expect(await store.dirtySlots({ limit: 10 })).toEqual([ref]);
    // Version 3: a slot stored before has no tag until its next commit.
    expect(await store.slotTag(ref)).toBeNull();
    const memory = new Memory({ store });
    const [open] = await memory.conflicts({ status: 'open' });
    expect([open.earlier.object, open.newer.object]).toEqual(['dark', 'light']);
    await memory.settle('cf_1', 'keep_newer');
    expect(await store.listConflicts({ status: 'open', limit: 10 })).toEqual([]);
    expect((await store.listConflicts({ status: 'settled', limit: 10 })).map((c) => c.id)).toEqual(['cf_1']);
    expect(await store.slotTag(ref)).toMatch(/^[0-9a-f]{32}$/);
    store.close();
  });
});

describe('IndexedDbStore upgrade from database version 4', () => {
  it('adds the byVer index, so a registry another store moved is read as its changes', async () => {
    const indexedDB = new IDBFactory();
    // Version 4 as it was first written: the entities store without its byVer index.
    const open = indexedDB.open('v4-db', 4);
    open.onupgradeneeded = () => {
      const db = open.result;
      const slots = db.createObjectStore('slots', { keyPath: ['scope', 'key'] });
      slots.createIndex('byScope', 'scope');
      slots.createIndex('bySubject', ['scope', 'subject']);
      slots.createIndex('byDirty', ['scope', 'dirty']);
      slots.createIndex('byTag', ['scope', 'key', 'tag']);
      db.createObjectStore('claims', { keyPath: ['scope', 'id'] });
      db.createObjectStore('conflicts', { keyPath: ['scope', 'id'] }).createIndex('byStatus', ['scope', 'status', 'openedAt', 'id']);
      db.createObjectStore('log', { autoIncrement: true }).createIndex('bySlot', ['scope', 'key']);
      db.createObjectStore('entities', { keyPath: ['scope', 'key', 'at'] });
    };
    (await request(open)).close();
    const ref = { key: '\u001fentities\u001forg', subject: '\u001fentities', predicate: 'org' };
    const reader = new IndexedDbStore('v4-db', { indexedDB, IDBKeyRange });
    const writer = new Memory({ store: new IndexedDbStore('v4-db', { indexedDB, IDBKeyRange }) });
    await writer.remember({ subject: 'ana', predicate: 'works_at', object: 'Acme' });
    const since = { version: (await reader.loadSlot(ref)).version, tag: await reader.slotTag(ref) };
    await writer.remember({ subject: 'bo', predicate: 'works_at', object: 'Globex' });
    const changes = await reader.loadRegistryChanges(ref, since);
    expect(changes.entities.map((e) => e.entity.name)).toEqual(['Globex']);
    expect(changes.entityCount).toBe(2);
    reader.close();
  });
});
