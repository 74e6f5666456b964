// IndexedDbStore database upgrades: a version-1 database (before the conflict
// and review indexes) gets them filled from its slots on first open, and a
// version-4 one (registry records, slot tags) loses what version 7 dropped
// and gains the entity key records; both keep working. Registries kept as
// records by versions 4 to 6: legacy-registry.test.js.
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
    const memory = new Memory({ store });
    const [open] = await memory.conflicts({ status: 'open' });
    expect([open.earlier.object, open.newer.object]).toEqual(['dark', 'light']);
    await memory.settle('cf_1', 'keep_newer');
    expect(await store.listConflicts({ status: 'open', limit: 10 })).toEqual([]);
    expect((await store.listConflicts({ status: 'settled', limit: 10 })).map((c) => c.id)).toEqual(['cf_1']);
    store.close();
  });
});

describe('IndexedDbStore upgrade from database version 4', () => {
  it('drops the registry records and the tag index, adds the entity key records, and keeps working', async () => {
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
    const store = new IndexedDbStore('v4-db', { indexedDB, IDBKeyRange });
    const memory = new Memory({ store });
    await memory.remember({ subject: 'ana', predicate: 'works_at', object: 'Acme' });
    expect((await memory.recall('ana')).map((c) => c.object)).toEqual(['Acme']);
    const ref = { key: '\u001fentity\u001forg:zeta', subject: '\u001fentity', predicate: 'org:zeta' };
    const slot = { version: 1, claims: [], conflicts: [], writes: [], reviewed: 0, entities: [{ id: 'org:zeta', type: 'org', name: 'Zeta', aliases: ['Zeta'] }] };
    const entity = { type: 'org', id: 'org:zeta', keys: [{ key: 'zeta', name: 'Zeta' }] };
    expect(await store.commitSlot({ ref, expectedVersion: 0, slot, changedClaims: [], changedConflicts: [], log: [], index: { conflicts: [], unreviewed: false, entity } })).toBe(true);
    expect(await store.findEntities({ type: 'org', keys: ['zeta'] })).toEqual([{ key: 'zeta', entity: 'org:zeta', name: 'Zeta' }]);
    store.close();
    const db = await request(indexedDB.open('v4-db'));
    expect([db.version, [...db.objectStoreNames].sort()]).toEqual([7, ['claims', 'conflicts', 'entityKeys', 'log', 'slots', 'writes']]);
    expect([...db.transaction('slots', 'readonly').objectStore('slots').indexNames].sort()).toEqual(['byDirty', 'byScope', 'bySubject']);
    db.close();
  });
});
