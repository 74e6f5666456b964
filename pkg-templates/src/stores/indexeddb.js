// IndexedDbStore: the ClaimStore for browsers (SPEC §8), one IndexedDB
// database that several scopes (tenants) and several tabs share safely.
//
// Its layout, versions and upgrade steps: indexeddb-schema.js.
//
// Invariant: `commitSlot` reads the version and writes the slot, the id indexes
// and the log in ONE readwrite transaction over every object store.
// IndexedDB runs overlapping readwrite transactions one after another, across
// connections and tabs, so a commit either sees the version it expects and
// applies completely, or sees another writer's version and writes nothing.
// It resolves only once the transaction has completed (is durable).
import { CredenceError } from '../errors.js';
import { knownOptions } from '../options.js';
import { HeldSlots } from './held-slots.js';
import { DB_VERSION, STORES, conflictRecord, itemsKey, slotFieldsOf, upgrade } from './indexeddb-schema.js';
import { changedConflictRows, indexOf } from './slot-index.js';
import { registryItemsOf } from './registry-items.js';

const REGISTRY = '\u001fentities';

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
 * The generation of a registry committed by its changes (the first part of
 * its tag): kept while the registry stays records (its entities, and its
 * claims and conflicts or not), new when it becomes them.
 */
function registryGenerationOf(previous, items) {
  const kept = previous?.entityRows !== undefined && previous.generation && (previous.claimRows !== undefined) === (items !== null);
  return kept ? previous.generation : newTag();
}

/**
 * The slot record: the slot document, its index fields and tag. A registry
 * by its changes (`registry`: `{ generation, items }`, else null) says how
 * many entity records it has, and, with items, keeps its claims and
 * conflicts as records instead of in the document.
 */
function putSlotRecord(slots, at, commit, index, tag, registry) {
  let rows = {};
  let slot = commit.slot;
  if (registry !== null) {
    rows = { entityRows: commit.entityCount, generation: registry.generation };
    if (registry.items) {
      const { claims: _c, conflicts: _f, ...header } = commit.slot;
      slot = header;
      Object.assign(rows, { claimRows: registry.items.claimCount, conflictRows: registry.items.conflictCount });
    }
  }
  slots.put({ ...at, slot, ...slotFieldsOf(at, index), tag, ...rows });
}

/** The conflict records a commit writes: those that changed (a registry keeping its conflicts as records: those it sends). */
function conflictRowsOf(at, previous, index, items) {
  // Conflict rows the slot it replaces already wrote stay as they are.
  const before = previous?.slot ? indexOf({ slot: previous.slot }) : null;
  return (items ? items.conflicts.map((p) => p.item) : changedConflictRows(before, index)).map((c) => conflictRecord(at, c));
}

/** The claim, conflict and candidate-id records of a commit; a dropped id's record goes only if it names this slot. */
function putIdRecords(tx, at, commit, index, conflictRows) {
  const claims = tx.objectStore('claims');
  for (const id of commit.changedClaims) claims.put({ ...at, id });
  const conflicts = tx.objectStore('conflicts');
  for (const row of conflictRows) conflicts.put(row);
  const writes = tx.objectStore('writes');
  for (const id of index.writes ?? []) writes.put({ ...at, id });
  for (const id of index.droppedWrites ?? []) {
    // Only a row naming this slot goes (a record an entity merge carried here keeps its own).
    const held = writes.get([at.scope, id]);
    held.onsuccess = () => held.result?.key === at.key && writes.delete([at.scope, id]);
  }
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
    const [record, rows, claimRows, conflictRows] = ref.subject === REGISTRY ? await this.#readRegistry(ref) : [await this.#read('loadSlot', 'slots', (s) => s.get([this.#scope, ref.key])), null];
    if (record === undefined) return null;
    if (!record || typeof record.slot !== 'object' || record.slot === null || typeof record.slot.version !== 'number') {
      throw this.#malformed('loadSlot', `slot ${JSON.stringify(ref.key)}`);
    }
    if (record.entityRows !== undefined) {
      const inOrder = (list, count, what) => {
        const held = list.filter((r) => r.at < count);
        if (held.length !== count || held.some((r, i) => r.at !== i)) throw this.#malformed('loadSlot', `the ${what} of registry ${JSON.stringify(ref.key)}`);
        return held;
      };
      const slot = { ...record.slot, entities: inOrder(rows, record.entityRows, 'entities').map((r) => r.entity) };
      if (record.claimRows !== undefined) {
        slot.claims = inOrder(claimRows, record.claimRows, 'claims').map((r) => r.item);
        slot.conflicts = inOrder(conflictRows, record.conflictRows, 'conflicts').map((r) => r.item);
      }
      return slot;
    }
    this.#held.hold(ref.key, record.slot, record.tag);
    return record.slot;
  }

  /**
   * A registry whose tag moved since `since` (see `loadRegistryChanges` in
   * the ClaimStore docs): the entity records written after `since.version`,
   * in the same generation, read in one transaction; null when it cannot tell.
   */
  async loadRegistryChanges(ref, since) {
    const generation = typeof since?.tag === 'string' ? since.tag.split('~')[0] : '';
    if (ref?.subject !== REGISTRY || !generation || !Number.isSafeInteger(since.version)) return null;
    const key = [this.#scope, ref.key];
    const [record, rows, claimRows, conflictRows] = await this.#withDb('loadRegistryChanges', (db) => {
      const tx = db.transaction(['slots', 'entities'], 'readonly');
      const byVer = tx.objectStore('entities').index('byVer');
      const after = (k) => request(byVer.getAll(this.#range([this.#scope, k, since.version], [this.#scope, k, []], true, false)));
      return Promise.all([request(tx.objectStore('slots').get(key)), after(ref.key), after(itemsKey(ref.key, 'claims')), after(itemsKey(ref.key, 'conflicts'))]);
    });
    if (!record || record.entityRows === undefined || record.generation !== generation || record.slot?.version < since.version) return null;
    const entities = rows.filter((r) => r.at < record.entityRows).map((r) => ({ at: r.at, entity: r.entity }));
    const answer = { slot: record.slot, entities, entityCount: record.entityRows, tag: record.tag };
    if (record.claimRows === undefined) return answer;
    const items = (list, count) => list.filter((r) => r.at < count).map((r) => ({ at: r.at, item: r.item }));
    return { ...answer, claims: items(claimRows, record.claimRows), claimCount: record.claimRows, conflicts: items(conflictRows, record.conflictRows), conflictCount: record.conflictRows };
  }

  /**
   * This store keeps a registry's claims and conflicts (its names and
   * `same_entity` questions) as records by position too, beside its entities:
   * a registry commit then carries only those that changed (see
   * `registryRows` in the ClaimStore docs).
   */
  get registryRows() {
    return true;
  }

  /** A registry's slot record and its entity, claim and conflict records (by position), read in one transaction. */
  #readRegistry(ref) {
    const key = [this.#scope, ref.key];
    return this.#withDb('loadSlot', (db) => {
      const tx = db.transaction(['slots', 'entities'], 'readonly');
      const records = (k) => request(tx.objectStore('entities').getAll(this.#range([this.#scope, k], [this.#scope, k, []])));
      return Promise.all([request(tx.objectStore('slots').get(key)), records(ref.key), records(itemsKey(ref.key, 'claims')), records(itemsKey(ref.key, 'conflicts'))]);
    });
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

  /** The tag the slot's last commit wrote, read from the byTag index (not the slot); null when empty or untagged. */
  async slotTag(ref) {
    // A registry is read whole: small once written by its changes (its entities are records of
    // their own), and fake-indexeddb walks an index range in time linear in the index.
    if (ref.subject === REGISTRY) {
      const record = await this.#read('slotTag', 'slots', (s) => s.get([this.#scope, ref.key]));
      return record?.tag ?? null;
    }
    const range = this.#keyRange.bound([this.#scope, ref.key], [this.#scope, ref.key, []]);
    return this.#withDb('slotTag', (db) => new Promise((resolve, reject) => {
      const req = db.transaction('slots', 'readonly').objectStore('slots').index('byTag').openKeyCursor(range);
      req.onsuccess = () => resolve(req.result ? req.result.key[2] : null);
      req.onerror = () => reject(req.error);
    }));
  }

  async commitSlot(commit) {
    return this.#commit('commitSlot', commit, null);
  }

  /**
   * An entity registry committed by its changes (see `commitRegistry` in the
   * ClaimStore docs): the slot record without entities, and one record per
   * entity new or changed. A registry still stored whole has its entities
   * moved to records by the same transaction. Resolves to the new tag, or false.
   */
  async commitRegistry(commit) {
    if (commit?.ref?.subject !== REGISTRY || !Array.isArray(commit.entities) || !Number.isSafeInteger(commit.entityCount) || commit.entities.some((e) => !(e?.at < commit.entityCount))) {
      throw new CredenceError('IndexedDbStore.commitRegistry: commit must be an entity registry commit with an entities list', { code: 'INVALID_INPUT', field: 'commit' });
    }
    const written = { tag: null, items: registryItemsOf(commit, (field, message) => new CredenceError(`IndexedDbStore.commitRegistry: ${field} ${message}`, { code: 'INVALID_INPUT', field })) };
    const won = await this.#commit('commitRegistry', commit, null, written);
    return won ? written.tag : false;
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
   * other slot holds a candidate id the commit records; then the registry's
   * records, the slot record, the id and conflict records and the log.
   * `byChanges` (commitRegistry): a registry written by its changes, whose
   * tag (its generation — kept while it stays records, new when it becomes
   * them — and a random part) is set on it once known.
   */
  async #commit(method, commit, rewrite, byChanges = null) {
    const scope = this.#scope;
    const { ref } = commit;
    // The tag of the version this store saw, when it saw the expected one.
    const seenTag = this.#held.take(ref.key, commit.expectedVersion);
    let tag = newTag();
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
            const items = byChanges?.items ?? null;
            if (ref.subject === REGISTRY) this.#putRegistryRecords(tx.objectStore('entities'), at, previous, commit, byChanges, items);
            const registry = byChanges === null ? null : { generation: registryGenerationOf(previous, items), items };
            if (registry) tag = byChanges.tag = `${registry.generation}~${tag}`;
            putSlotRecord(tx.objectStore('slots'), at, commit, index, tag, registry);
            putIdRecords(tx, at, commit, index, conflictRowsOf(at, previous, index, items));
            this.#putLog(tx.objectStore('log'), at, commit.log, rewrite, fail);
          } catch (err) {
            fail(err);
          }
        });
      };
    }));
    if (won && byChanges === null) this.#held.hold(ref.key, commit.slot, tag);
    return won;
  }

  /** A registry's entity, claim and conflict records for a commit (see #putEntities, #putItems). */
  #putRegistryRecords(store, at, previous, commit, byChanges, items) {
    this.#putEntities(store, at, previous, byChanges === null ? null : commit.entities, commit.slot.version);
    this.#putItems(store, at, previous, items, commit.slot.version);
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

  /**
   * A registry's entity records for a commit: a whole commit (`changed` null)
   * keeps its entities in the slot document and drops the records; a commit
   * by changes writes the changed ones, and every entity of a registry
   * stored whole until now.
   */
  #putEntities(entities, at, previous, changed, version) {
    const range = this.#range([at.scope, at.key], [at.scope, at.key, []]);
    // A registry begun anew (its slot record deleted) or written whole: no records of its own.
    if (changed === null || !previous) {
      if (changed === null ? previous?.entityRows !== undefined : true) entities.delete(range);
      if (changed === null) return;
    }
    if (previous && previous.entityRows === undefined) {
      (previous.slot.entities ?? []).forEach((entity, i) => entities.put({ scope: at.scope, key: at.key, at: i, entity, ver: version }));
    }
    for (const { at: i, entity } of changed) {
      if (!Number.isSafeInteger(i) || i < 0) throw new CredenceError('IndexedDbStore.commitRegistry: every entity needs its position `at`', { code: 'INVALID_INPUT', field: 'entities' });
      entities.put({ scope: at.scope, key: at.key, at: i, entity, ver: version });
    }
  }

  /**
   * A registry's claim and conflict records for a commit: a commit that
   * carries them in its slot (`items` null) drops the records; one by
   * changes writes the changed ones, and every one of a registry that held
   * them in its document until now (records of an earlier registry of the
   * same key are dropped first).
   */
  #putItems(store, at, previous, items, version) {
    const kinds = ['claims', 'conflicts'];
    const range = (kind) => this.#range([at.scope, itemsKey(at.key, kind)], [at.scope, itemsKey(at.key, kind), []]);
    const put = (kind, i, item) => store.put({ scope: at.scope, key: itemsKey(at.key, kind), at: i, item, ver: version });
    if (items === null || previous?.claimRows === undefined) {
      if (items !== null || previous?.claimRows !== undefined) for (const kind of kinds) store.delete(range(kind));
      if (items === null) return;
      if (previous) for (const kind of kinds) (previous.slot[kind] ?? []).forEach((item, i) => put(kind, i, item));
    }
    for (const kind of kinds) for (const p of items[kind]) put(kind, p.at, p.item);
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
          upgrade(req.result, req.transaction, event.oldVersion);
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
