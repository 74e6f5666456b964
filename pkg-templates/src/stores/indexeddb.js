// IndexedDbStore: the ClaimStore for browsers (SPEC §8), one IndexedDB
// database that several scopes (tenants) and several tabs share safely.
//
// Its layout, versions and upgrade steps: indexeddb-schema.js.
//
// Invariant: `commitSlot` reads the version and writes the slot, the id indexes,
// the entity's key rows and the log in ONE readwrite transaction over every
// object store.
// IndexedDB runs overlapping readwrite transactions one after another, across
// connections and tabs, so a commit either sees the version it expects and
// applies completely, or sees another writer's version and writes nothing.
// It resolves only once the transaction has completed (is durable).
import { CredenceError } from '../errors.js';
import { knownOptions } from '../options.js';
import { HeldSlots } from './held-slots.js';
import { DB_VERSION, STORES, conflictRecord, entityKeysRecord, slotFieldsOf, upgrade } from './indexeddb-schema.js';
import { entityKeysOf, entityQueryOf } from './entity-keys.js';
import { changedConflictRows, indexOf } from './slot-index.js';

/** Calls `free` once no id of `ids` is held by a slot other than `key`, else `taken` (once). */
function whenIdsFree(writes, scope, key, ids, taken, free) {
  if (ids.length === 0) return free();
  let left = ids.length;
  let done = false;
  for (const id of ids) {
    const get = writes.get([scope, id]);
    get.onsuccess = () => {
      if (done) return;
      if (get.result && get.result.key !== key) {
        done = true;
        taken();
      } else if (--left === 0) {
        done = true;
        free();
      }
    };
  }
}

/** A commit's tag: random, so it never returns for other content (not even after the database is deleted). */
function newTag() {
  const words = globalThis.crypto?.getRandomValues ? globalThis.crypto.getRandomValues(new Uint32Array(4)) : Array.from({ length: 4 }, () => Math.floor(Math.random() * 2 ** 32));
  return Array.from(words, (w) => w.toString(16).padStart(8, '0')).join('');
}

/** Resolves with a request's result; rejects with its error. */
function request(req) {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

/** Whether the slot record read (`previous`) is at the version a commit expects, and at the tag this store saw it with. */
function isExpected(previous, expectedVersion, seenTag) {
  const version = previous?.slot?.version ?? 0;
  return version === expectedVersion && (seenTag === null || previous?.tag === seenTag);
}

/**
 * The claim, conflict and candidate-id records of a commit (conflict records
 * the slot it replaces (`previous`) already wrote stay as they are); a
 * dropped id's record goes only if it names this slot.
 */
function putIdRecords(tx, at, commit, index, previous) {
  const claims = tx.objectStore('claims');
  for (const id of commit.changedClaims) claims.put({ ...at, id });
  const conflicts = tx.objectStore('conflicts');
  const before = previous?.slot ? indexOf({ slot: previous.slot }) : null;
  for (const c of changedConflictRows(before, index)) conflicts.put(conflictRecord(at, c));
  const writes = tx.objectStore('writes');
  for (const id of index.writes ?? []) writes.put({ ...at, id });
  for (const id of index.droppedWrites ?? []) {
    // Only a row naming this slot goes (a record an entity merge carried here keeps its own).
    const held = writes.get([at.scope, id]);
    held.onsuccess = () => held.result?.key === at.key && writes.delete([at.scope, id]);
  }
}

/** An entity slot's commit (`entity`: its index.entity, else null): every key row of the entity replaced, one record. */
function putEntityKeys(store, scope, entity) {
  if (entity === null) return;
  if (entity.keys.length === 0) store.delete([scope, entity.id]);
  else store.put(entityKeysRecord(scope, entity));
}

function toRef(record) {
  return { key: record.key, subject: record.subject, predicate: record.predicate };
}

function isText(v) {
  return typeof v === 'string';
}

export class IndexedDbStore {
  #name;
  #scope;
  #factory;
  #keyRange;
  #durability;
  #db = null;
  #held = new HeldSlots();

  /**
   * @param {string} name the IndexedDB database name (created when missing).
   * @param {{ scope?: string, indexedDB?: IDBFactory, IDBKeyRange?: typeof IDBKeyRange, durability?: 'default' | 'strict' | 'relaxed' }} [options]
   *   `scope` names the tenant (default "default"); `indexedDB` and
   *   `IDBKeyRange` let tests pass fake-indexeddb's; `durability` is handed
   *   to every readwrite transaction.
   */
  constructor(name, options = {}) {
    if (!isText(name) || name.trim() === '') {
      throw new CredenceError('IndexedDbStore: name must be a non-empty string', { code: 'INVALID_INPUT', field: 'name' });
    }
    const { scope = 'default', indexedDB = globalThis.indexedDB, IDBKeyRange: keyRange = globalThis.IDBKeyRange, durability = 'default' } = knownOptions('IndexedDbStore', options, ['scope', 'indexedDB', 'IDBKeyRange', 'durability']);
    if (!isText(scope) || scope === '') {
      throw new CredenceError('IndexedDbStore: scope must be a non-empty string', { code: 'INVALID_INPUT', field: 'scope' });
    }
    if (!indexedDB || typeof indexedDB.open !== 'function') {
      throw new CredenceError('IndexedDbStore: no IndexedDB here (pass options.indexedDB)', { code: 'INVALID_INPUT', field: 'indexedDB' });
    }
    this.#name = name;
    this.#scope = scope;
    this.#factory = indexedDB;
    this.#keyRange = keyRange;
    this.#durability = durability;
  }

  get name() {
    return this.#name;
  }

  get scope() {
    return this.#scope;
  }

  /** Closes the connection; the next call opens it again. */
  close() {
    const pending = this.#db;
    this.#db = null;
    pending?.then((db) => db.close(), () => {});
  }

  // ---- ClaimStore ----

  async loadSlot(ref) {
    const record = await this.#read('loadSlot', 'slots', (s) => s.get([this.#scope, ref.key]));
    if (record === undefined) return null;
    if (!record || typeof record.slot !== 'object' || record.slot === null || typeof record.slot.version !== 'number') {
      throw this.#malformed('loadSlot', `slot ${JSON.stringify(ref.key)}`);
    }
    this.#held.hold(ref.key, record.slot, record.tag);
    return record.slot;
  }

  /**
   * A write's load, answered from the version of the slot this store last
   * loaded or committed when it holds one (`held: true`): one transaction per
   * write, its commit. The commit compares the version and the random tag
   * that version was written with, so a snapshot another tab or store made
   * stale (even in a database deleted and refilled) writes nothing.
   */
  async loadSlotToWrite(ref) {
    return this.#held.answer(ref, (r) => this.loadSlot(r));
  }

  async commitSlot(commit) {
    return this.#commit('commitSlot', commit, null);
  }

  /**
   * Privacy erasure: commitSlot, and in the same transaction the slot's log
   * records are deleted and `log` (the scrubbed entries) written in their place.
   */
  async eraseSlot(commit, log) {
    if (!Array.isArray(log)) throw new CredenceError('IndexedDbStore.eraseSlot: log must be an array of entries', { code: 'INVALID_INPUT', field: 'log' });
    return this.#commit('eraseSlot', commit, log);
  }

  /**
   * A commit's transaction, in named steps: read the slot record; refuse
   * (write nothing) unless it is at the expected version and tag and no
   * other slot holds a candidate id the commit records; then the slot
   * record, the id and conflict records, an entity slot's key rows and the log.
   */
  async #commit(method, commit, rewrite) {
    const scope = this.#scope;
    const { ref } = commit;
    const entity = entityKeysOf(commit, (field, message) => new CredenceError(`IndexedDbStore.${method}: ${field} ${message}`, { code: 'INVALID_INPUT', field }));
    // The tag of the version this store saw, when it saw the expected one.
    const seenTag = this.#held.take(ref.key, commit.expectedVersion);
    const tag = newTag();
    const won = await this.#withDb(method, (db) => new Promise((resolve, reject) => {
      const tx = db.transaction(STORES, 'readwrite', { durability: this.#durability });
      let stale = false;
      let failure = null;
      tx.oncomplete = () => resolve(true);
      tx.onabort = () => (stale ? resolve(false) : reject(failure ?? tx.error ?? new Error('transaction aborted')));
      // Another writer got there first: write nothing.
      const refuse = () => {
        stale = true;
        tx.abort();
      };
      // e.g. DataCloneError: undo the puts already queued.
      const fail = (err) => {
        failure = err;
        tx.abort();
      };
      const read = tx.objectStore('slots').get([scope, ref.key]);
      read.onsuccess = () => {
        const previous = read.result;
        if (!isExpected(previous, commit.expectedVersion, seenTag)) return refuse();
        const index = indexOf(commit);
        // A candidate id this commit records that another slot holds: write nothing (SPEC §8: once).
        whenIdsFree(tx.objectStore('writes'), scope, ref.key, index.writes ?? [], refuse, () => {
          try {
            const at = { scope, key: ref.key, subject: ref.subject, predicate: ref.predicate };
            tx.objectStore('slots').put({ ...at, slot: commit.slot, ...slotFieldsOf(at, index), tag });
            putIdRecords(tx, at, commit, index, previous);
            putEntityKeys(tx.objectStore('entityKeys'), scope, entity);
            this.#putLog(tx.objectStore('log'), at, commit.log, rewrite, fail);
          } catch (err) {
            fail(err);
          }
        });
      };
    }));
    if (won) this.#held.hold(ref.key, commit.slot, tag);
    return won;
  }

  /** The commit's log entries; an erasure (`rewrite`: the scrubbed entries) first replaces the slot's records. */
  #putLog(log, at, entries, rewrite, fail) {
    const append = () => {
      for (const entry of entries) log.add({ scope: at.scope, key: at.key, entry });
    };
    if (!rewrite) return append();
    const keys = log.index('bySlot').getAllKeys([at.scope, at.key]);
    keys.onsuccess = () => {
      try {
        for (const k of keys.result) log.delete(k);
        for (const entry of rewrite) log.add({ scope: at.scope, key: at.key, entry });
        append();
      } catch (err) {
        fail(err);
      }
    };
  }

  async findClaim(claimId) {
    const record = await this.#read('findClaim', 'claims', (s) => s.get([this.#scope, String(claimId)]));
    return record ? toRef(record) : null;
  }

  async findConflict(conflictId) {
    const record = await this.#read('findConflict', 'conflicts', (s) => s.get([this.#scope, String(conflictId)]));
    return record ? toRef(record) : null;
  }

  /** The slot a candidate id (idempotency key) was written to. */
  async findWrite(writeId) {
    const record = await this.#read('findWrite', 'writes', (s) => s.get([this.#scope, String(writeId)]));
    return record ? toRef(record) : null;
  }

  /**
   * The key rows of entities of `type` whose key is one of `keys` (see
   * `findEntities` in the ClaimStore docs), read in one readonly transaction:
   * a range of the byKey index per key, index keys only (no entity record read).
   */
  async findEntities(query) {
    const { type, keys } = entityQueryOf(query, (field, message) => new CredenceError(`IndexedDbStore.findEntities: ${field} ${message}`, { code: 'INVALID_INPUT', field }));
    if (keys.length === 0) return [];
    const scope = this.#scope;
    return this.#withDb('findEntities', (db) => new Promise((resolve, reject) => {
      const tx = db.transaction('entityKeys', 'readonly');
      const byKey = tx.objectStore('entityKeys').index('byKey');
      const rows = [];
      for (const key of keys) {
        // Arrays sort after strings: [scope, type, key, []] bounds every name of the key.
        const req = byKey.openKeyCursor(this.#range([scope, type, key], [scope, type, key, []]));
        req.onsuccess = () => {
          const cursor = req.result;
          if (!cursor) return;
          rows.push({ key, entity: cursor.primaryKey[1], name: cursor.key[3] });
          cursor.continue();
        };
      }
      tx.oncomplete = () => resolve(rows);
      tx.onabort = () => reject(tx.error ?? new Error('transaction aborted'));
    }));
  }

  async listSlots(filter = {}) {
    const subject = filter?.subject;
    // Index entries with equal index keys come back in primary-key order,
    // i.e. ordered by slot key, as the contract asks.
    const records = await this.#read('listSlots', 'slots', (s) =>
      isText(subject) ? s.index('bySubject').getAll([this.#scope, subject]) : s.index('byScope').getAll(this.#scope),
    );
    return records.map(toRef);
  }

  async listConflicts({ status, after, limit }) {
    const scope = this.#scope;
    // Arrays sort after strings: [scope, status, []] bounds every (openedAt, id).
    const range = after
      ? this.#range([scope, status, after.openedAt, after.id], [scope, status, []], true, false)
      : this.#range([scope, status], [scope, status, []]);
    const records = await this.#read('listConflicts', 'conflicts', (s) => s.index('byStatus').getAll(range, limit));
    return records.map((r) => ({ id: r.id, status: r.status, openedAt: r.openedAt, ref: toRef(r) }));
  }

  async dirtySlots({ after, limit }) {
    const scope = this.#scope;
    const range = this.#range([scope, after ?? ''], [scope, []], after !== undefined && after !== null, false);
    const records = await this.#read('dirtySlots', 'slots', (s) => s.index('byDirty').getAll(range, limit));
    return records.map(toRef);
  }

  async readLog(ref) {
    // Auto-increment keys grow with every commit: primary-key order is oldest first.
    const records = await this.#read('readLog', 'log', (s) => s.index('bySlot').getAll([this.#scope, ref.key]));
    return records.map((r) => r.entry);
  }

  // ---- internals ----

  #range(lower, upper, lowerOpen = false, upperOpen = false) {
    if (!this.#keyRange) {
      throw new CredenceError('IndexedDbStore: no IDBKeyRange here (pass options.IDBKeyRange with options.indexedDB)', { code: 'STORE_FAILED', field: 'IDBKeyRange' });
    }
    return this.#keyRange.bound(lower, upper, lowerOpen, upperOpen);
  }

  /** One readonly request in its own transaction. */
  #read(method, storeName, makeRequest) {
    return this.#withDb(method, (db) => request(makeRequest(db.transaction(storeName, 'readonly').objectStore(storeName))));
  }

  /**
   * Runs `work(db)`, turning failures into STORE_FAILED. A connection the
   * browser closed under us (InvalidStateError before anything was queued) is
   * reopened once.
   */
  async #withDb(method, work) {
    for (let attempt = 0; ; attempt++) {
      const db = await this.#open(method);
      try {
        return await work(db);
      } catch (err) {
        if (attempt === 0 && err?.name === 'InvalidStateError') {
          if (this.#db) this.close();
          continue;
        }
        throw this.#failed(method, err);
      }
    }
  }

  #open(method) {
    if (!this.#db) {
      const opening = new Promise((resolve, reject) => {
        const req = this.#factory.open(this.#name, DB_VERSION);
        req.onupgradeneeded = (event) => {
          upgrade(req.result, req.transaction, event.oldVersion, this.#keyRange);
        };
        req.onsuccess = () => {
          const db = req.result;
          // Forget this connection (only if it is still the current one).
          const forget = () => {
            if (this.#db === opening) this.#db = null;
          };
          // Let another tab upgrade or delete the database: close, reopen later.
          db.onversionchange = () => {
            db.close();
            forget();
          };
          // The browser may close the connection itself (storage cleared).
          db.onclose = forget;
          resolve(db);
        };
        req.onerror = () => reject(req.error);
        // onblocked: another connection holds an older version open; keep
        // waiting for it to close (ours close on versionchange) rather than fail.
      });
      this.#db = opening;
      opening.catch(() => {
        if (this.#db === opening) this.#db = null;
      });
    }
    return this.#db.catch((err) => {
      throw this.#failed(method, err, 'cannot open the database');
    });
  }

  #failed(method, err, what) {
    if (err instanceof CredenceError) return err;
    const detail = err && err.name ? `${err.name}: ${err.message}` : String(err);
    return new CredenceError(
      `IndexedDbStore(${JSON.stringify(this.#name)}, scope ${JSON.stringify(this.#scope)}).${method}: ${what ?? 'IndexedDB failed'} (${detail})`,
      { code: 'STORE_FAILED', cause: err },
    );
  }

  #malformed(method, what) {
    return new CredenceError(
      `IndexedDbStore(${JSON.stringify(this.#name)}, scope ${JSON.stringify(this.#scope)}).${method}: ${what} is not a slot record`,
      { code: 'MALFORMED_STORE_DATA' },
    );
  }
}
