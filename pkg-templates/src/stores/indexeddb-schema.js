// IndexedDbStore's database: its layout, its versions and the upgrade step of
// each, and the shape of the index records a commit and an upgrade both
// write. Kept apart from the store's logic (indexeddb.js) so both read whole,
// as postgres-sql.js is for PostgresStore.
//
// Layout (database version 6), every record carries its `scope`:
//   slots      [scope, key] → { scope, key, subject, predicate, slot, dirty?, tag?, entityRows?, claimRows?, conflictRows? }
//              the whole slot document, `slot.version` is the version (an
//              entity registry committed by `commitRegistry` keeps its
//              entities in `entities` instead, `entityRows` of them);
//              indexes byScope (scope), bySubject ([scope, subject]),
//              byDirty ([scope, dirty]: `dirty` = key, present only while the
//              slot has entries the review pass has not seen) and byTag
//              ([scope, key, tag]: a random tag written by every commit, read
//              by `slotTag` from the index alone, without the slot document).
//   claims     [scope, id]  → { scope, id, key, subject, predicate }
//   conflicts  [scope, id]  → { scope, id, key, subject, predicate, status, openedAt }
//              index byStatus ([scope, status, openedAt, id]).
//   log        auto-increment → { scope, key, entry }; index bySlot ([scope, key]).
//   writes     [scope, id]  → { scope, id, key, subject, predicate }: the slot a
//              candidate id (idempotency key) was written to; a commit that
//              records an id held by another slot writes nothing (`false`).
//   entities   [scope, key, at] → { scope, key, at, entity, ver }: a registry's
//              entities by position, so a new name writes one record; index
//              byVer ([scope, key, ver]: the registry version that wrote it).
//              Its claims and conflicts (names, same_entity questions) too,
//              as { scope, key, at, item, ver } under key + "\u001fclaims" /
//              "\u001fconflicts" (`registryRows`; the slot record then says
//              how many: `claimRows`, `conflictRows`).
//
// A database of an older version is upgraded in place when opened: each step
// below adds what its version brought, filling it from the records there.
import { indexOf } from './slot-index.js';

export const DB_VERSION = 6;
/** Every object store: a commit's readwrite transaction spans them all. */
export const STORES = ['slots', 'claims', 'conflicts', 'log', 'entities', 'writes'];

/** The index fields of a slot record: `dirty` while it has entries the review pass has not seen. */
export const slotFieldsOf = (at, index) => (index.unreviewed ? { dirty: at.key } : {});

/** A conflict's record in the `conflicts` object store. */
export const conflictRecord = (at, c) => ({ ...at, id: c.id, status: c.status, openedAt: c.openedAt });

/** Where a registry's claims or conflicts are kept as records: the `entities` store, under this key. */
export const itemsKey = (registryKey, kind) => `${registryKey}\u001f${kind}`;

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

/** The upgrade from `oldVersion` (0: a new database) to DB_VERSION, inside the versionchange transaction `tx`. */
export function upgrade(db, tx, oldVersion) {
  if (oldVersion < 1) createV1(db);
  if (oldVersion < 2) addIndexesV2(tx);
  // Version 3: slot tags. Slots stored before have none (slotTag answers null) until their next commit.
  if (oldVersion < 3) tx.objectStore('slots').createIndex('byTag', ['scope', 'key', 'tag']);
  // Version 4: registry entities as records of their own (commitRegistry).
  if (oldVersion < 4) db.createObjectStore('entities', { keyPath: ['scope', 'key', 'at'] });
  // Version 5: the records a registry version wrote (byVer), for a reader asking what changed since its own.
  if (oldVersion < 5) tx.objectStore('entities').createIndex('byVer', ['scope', 'key', 'ver']);
  // Version 6: candidate ids. Ids written before are idempotent within their slot only.
  if (oldVersion < 6) db.createObjectStore('writes', { keyPath: ['scope', 'id'] });
}
