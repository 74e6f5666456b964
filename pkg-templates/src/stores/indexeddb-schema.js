// IndexedDbStore's database: its layout, its versions and the upgrade step of
// each, and the shape of the index records a commit and an upgrade both
// write. Kept apart from the store's logic (indexeddb.js) so both read whole,
// as postgres-sql.js is for PostgresStore.
//
// Layout (database version 7), every record carries its `scope`:
//   slots      [scope, key] → { scope, key, subject, predicate, slot, dirty?, tag }
//              the whole slot document, `slot.version` is the version, and
//              `tag`, a random mark every commit writes (what a held
//              snapshot's commit compares, see loadSlotToWrite); indexes
//              byScope (scope), bySubject ([scope, subject]) and byDirty
//              ([scope, dirty]: `dirty` = key, present only while the slot
//              has entries the review pass has not seen).
//   claims     [scope, id]  → { scope, id, key, subject, predicate }
//   conflicts  [scope, id]  → { scope, id, key, subject, predicate, status, openedAt }
//              index byStatus ([scope, status, openedAt, id]).
//   log        auto-increment → { scope, key, entry }; index bySlot ([scope, key]).
//   writes     [scope, id]  → { scope, id, key, subject, predicate }: the slot a
//              candidate id (idempotency key) was written to; a commit that
//              records an id held by another slot writes nothing (`false`).
//   entityKeys [scope, id]  → { scope, id, type, keys: [[scope, type, key, name], …] }:
//              an entity's key rows (findEntities), one record per entity,
//              replaced by each commit of its slot; index byKey over `keys`
//              (multiEntry), so a look-up by key is an index range and an
//              entity's commit one put, however many keys it has.
//
// A database of an older version is upgraded in place when opened: each step
// below adds what its version brought, filling it from the records there.
// Versions 3 to 6 kept entity registries as positioned records (an
// `entities` object store) and a `byTag` index; version 7 turns each such
// registry back into an ordinary slot record, whole, and drops both.
import { indexOf } from './slot-index.js';

export const DB_VERSION = 7;
/** Every object store: a commit's readwrite transaction spans them all. */
export const STORES = ['slots', 'claims', 'conflicts', 'log', 'writes', 'entityKeys'];

/** The index fields of a slot record: `dirty` while it has entries the review pass has not seen. */
export const slotFieldsOf = (at, index) => (index.unreviewed ? { dirty: at.key } : {});

/** A conflict's record in the `conflicts` object store. */
export const conflictRecord = (at, c) => ({ ...at, id: c.id, status: c.status, openedAt: c.openedAt });

/** An entity's record in the `entityKeys` object store: its key rows as index keys. */
export const entityKeysRecord = (scope, entity) => ({
  scope, id: entity.id, type: entity.type, keys: entity.keys.map((k) => [scope, entity.type, k.key, k.name]),
});

function createV1(db) {
  const slots = db.createObjectStore('slots', { keyPath: ['scope', 'key'] });
  slots.createIndex('byScope', 'scope');
  slots.createIndex('bySubject', ['scope', 'subject']);
  db.createObjectStore('claims', { keyPath: ['scope', 'id'] });
  db.createObjectStore('conflicts', { keyPath: ['scope', 'id'] });
  const log = db.createObjectStore('log', { autoIncrement: true });
  log.createIndex('bySlot', ['scope', 'key']);
}

/** Version 2: the conflict and dirty-slot indexes, filled from the slots already stored. */
function addIndexesV2(tx) {
  const slots = tx.objectStore('slots');
  slots.createIndex('byDirty', ['scope', 'dirty']);
  const conflicts = tx.objectStore('conflicts');
  conflicts.createIndex('byStatus', ['scope', 'status', 'openedAt', 'id']);
  slots.openCursor().onsuccess = (event) => {
    const cursor = event.target.result;
    if (!cursor) return;
    const { scope, key, subject, predicate, slot } = cursor.value;
    const at = { scope, key, subject, predicate };
    const index = indexOf({ slot });
    cursor.update({ ...at, slot, ...slotFieldsOf(at, index) });
    for (const c of index.conflicts) conflicts.put(conflictRecord(at, c));
    cursor.continue();
  };
}

/**
 * Version 7: each entity registry kept as records (versions 4 to 6: its
 * entities, and its claims and conflicts when `claimRows` says so, under the
 * registry's key in `entities`) becomes an ordinary slot record holding them
 * whole, in position order; then the `entities` store goes. A registry whose
 * records do not run 0 to its count keeps those it has, in order.
 */
function registriesToSlotsV7(db, tx, keyRange) {
  if (!db.objectStoreNames.contains('entities')) return;
  const slots = tx.objectStore('slots');
  const records = tx.objectStore('entities');
  let pending = 1;
  const settled = () => --pending === 0 && db.deleteObjectStore('entities');
  const rowsOf = (scope, key, count, done) => {
    if (count === undefined) return done(undefined);
    const req = records.getAll(keyRange.bound([scope, key], [scope, key, []]));
    req.onsuccess = () => done(req.result.filter((r) => r.at < count).sort((a, b) => a.at - b.at));
  };
  slots.openCursor().onsuccess = (event) => {
    const cursor = event.target.result;
    if (!cursor) return settled();
    const { scope, key, subject, predicate, slot, tag, entityRows, claimRows, conflictRows } = cursor.value;
    if (entityRows !== undefined) {
      pending++;
      rowsOf(scope, key, entityRows, (entities) => rowsOf(scope, `${key}\u001fclaims`, claimRows, (claims) => rowsOf(scope, `${key}\u001fconflicts`, conflictRows, (conflicts) => {
        const whole = { ...slot, entities: entities.map((r) => r.entity) };
        if (claims) Object.assign(whole, { claims: claims.map((r) => r.item), conflicts: conflicts.map((r) => r.item) });
        const at = { scope, key, subject, predicate };
        slots.put({ ...at, slot: whole, ...slotFieldsOf(at, indexOf({ slot: whole })), tag });
        settled();
      })));
    }
    cursor.continue();
  };
}

/**
 * The upgrade from `oldVersion` (0: a new database) to DB_VERSION, inside the
 * versionchange transaction `tx`; `keyRange` is that IndexedDB's IDBKeyRange.
 */
export function upgrade(db, tx, oldVersion, keyRange) {
  if (oldVersion < 1) createV1(db);
  if (oldVersion < 2) addIndexesV2(tx);
  // Version 6: candidate ids. Ids written before are idempotent within their slot only.
  if (oldVersion < 6) db.createObjectStore('writes', { keyPath: ['scope', 'id'] });
  if (oldVersion < 7) {
    // Versions 3 to 6 tagged slots in an index (slotTag); the tag stays on the record, for held snapshots.
    if (tx.objectStore('slots').indexNames.contains('byTag')) tx.objectStore('slots').deleteIndex('byTag');
    db.createObjectStore('entityKeys', { keyPath: ['scope', 'id'] }).createIndex('byKey', 'keys', { multiEntry: true });
    registriesToSlotsV7(db, tx, keyRange);
  }
}
