// PostgresStore: slots in PostgreSQL through anything with `query(text, values)`
// (pg.Pool, pg.Client, a pool client, PGlite). No dependency on `pg` itself.
//
// Layout (names overridable with `tables`):
//   memory_slots      one row per (scope, slot): its version and the whole slot
//                     snapshot as jsonb, so loadSlot is one query; `unreviewed`
//                     (generated from the snapshot) feeds a partial index of
//                     the slots the review pass must visit
//   memory_claims     one row per claim (rewritten when the claim changes,
//                     not when only its belief moves) for look-ups by id and
//                     for SQL readers
//   memory_conflicts  one row per conflict, likewise; indexed by
//                     (scope, status, opened_at, id) for listConflicts
//   memory_claim_log  the append-only log, one row per entry
//   memory_writes     one row per candidate id (idempotency key): the slot it
//                     was written to; a commit recording an id held by another
//                     slot writes nothing (`false`), so an id changes memory once
//   memory_entities   one row per entity (SPEC §9), kept in step with its
//                     type's registry slot by the same commit, for SQL readers;
//                     a registry committed by its changes (commitRegistry)
//                     keeps its entities only here, by `registry` and `pos`,
//                     and its slot row without them (`"entities": {"rows": n}`, which
//                     an older version refuses rather than reads as no entities);
//                     its claims and conflicts (names, same_entity questions)
//                     likewise live only in their rows, by `pos` (`ver`: the
//                     registry version that wrote each), the slot row saying
//                     how many (`claimRows`, `conflictRows`)
// Every row carries `scope`; every query filters on it.
//
// A commit is one statement, so it is atomic without BEGIN/COMMIT: a
// compare-and-set on the slot row (INSERT ... ON CONFLICT DO NOTHING for
// version 0, UPDATE ... WHERE version = expected otherwise) in a CTE, with the
// claim, conflict and log rows written only when it returned a row; no row →
// nothing written → `false`, and the engine retries. With a pool (a
// `connect()` and no `release()`) statements go to `pool.query` (pg.Pool
// listens for 'error' on the client it checks out for a query, so a
// connection cut mid-commit fails that write instead of crashing the
// process); a single connection (pg.Client, PGlite, a checked-out client) is
// shared, so this store runs its statements on it one at a time, in order.
import { CredenceError } from '../errors.js';
import { HeldSlots } from './held-slots.js';
import { knownOptions } from '../options.js';
import { schemaStatements, sql } from './postgres-sql.js';
import { registryItemsOf } from './registry-items.js';

const DEFAULT_TABLES = Object.freeze({
  slots: 'memory_slots',
  claims: 'memory_claims',
  conflicts: 'memory_conflicts',
  log: 'memory_claim_log',
  entities: 'memory_entities',
  writes: 'memory_writes',
});

const REGISTRY = '\u001fentities';
/** A registry's lifetime as rows: random, so a registry begun anew never matches an old reader. */
const newGeneration = () => globalThis.crypto.randomUUID().replace(/-/g, '');
const IDENT = /^[A-Za-z_][A-Za-z0-9_]{0,62}(\.[A-Za-z_][A-Za-z0-9_]{0,62})?$/;
// Lost races PostgreSQL itself reports: the transaction was rolled back.
const RETRYABLE = new Set(['40001', '40P01']);

/** The candidate ids a commit records and drops, as statement values (a hand-built commit may carry none). */
const writeIds = (commit) => [commit.index?.writes ?? [], commit.index?.droppedWrites ?? []];

/**
 * A commit that lost the race for a candidate id: another writer recorded the
 * same id in another slot first. A commit's only plain INSERT into a unique
 * key is its memory_writes rows (every other row is upserted, its log rows
 * keyed by the version it just won), so unique_violation means that.
 */
const isIdTaken = (err) => err?.code === '23505';

function invalid(field, message) {
  return new CredenceError(`PostgresStore: ${field} ${message}`, { code: 'INVALID_INPUT', field });
}

function resolveTables(tables) {
  if (tables === undefined || tables === null) return { ...DEFAULT_TABLES };
  if (typeof tables !== 'object') throw invalid('tables', 'must be an object of table names');
  const out = { ...DEFAULT_TABLES };
  for (const [role, name] of Object.entries(tables)) {
    if (!(role in DEFAULT_TABLES)) {
      throw invalid(`tables.${role}`, `is not a table role (expected one of ${Object.keys(DEFAULT_TABLES).join(', ')})`);
    }
    if (name === undefined) continue;
    if (typeof name !== 'string' || !IDENT.test(name)) {
      throw invalid(`tables.${role}`, 'must be a plain SQL identifier, optionally schema-qualified (letters, digits, _)');
    }
    out[role] = name;
  }
  return out;
}


const toScript = (statements) => statements.map((s) => `${s};\n`).join('\n');

/**
 * A registry commit's entity rows to write: the entities the engine says
 * changed (as JSON), and the ids it removed. Nulls when the commit does not
 * say (built by a caller of its own): then every entity is compared.
 */
function entityChanges(commit) {
  if (!Array.isArray(commit.changedEntities) || !Array.isArray(commit.removedEntities)) return [null, null];
  const changed = new Set(commit.changedEntities);
  const entities = changed.size === 0 ? [] : (commit.slot.entities ?? []).filter((e) => changed.has(e.id));
  return [JSON.stringify(entities), commit.removedEntities];
}

/** Idempotent DDL for the default table names (safe to run at every start). */
export const POSTGRES_SCHEMA = toScript(schemaStatements(DEFAULT_TABLES));


// One queue per single-connection queryable, shared by every store using it.
const queues = new WeakMap();
function serially(connection, work) {
  const previous = queues.get(connection) ?? Promise.resolve();
  const run = previous.then(() => work());
  queues.set(connection, run.catch(() => {}));
  return run;
}

/** pg.Pool and look-alikes: `connect()` hands out clients that have `release()`. */
function looksLikePool(q) {
  return typeof q.connect === 'function' && typeof q.release !== 'function' && !('connectionParameters' in q);
}

const statementNames = new Map();
/** A name per statement text (two FNV-1a hashes): the same text gets the same name on every connection. */
function statementName(text) {
  let name = statementNames.get(text);
  if (name === undefined) {
    let a = 0x811c9dc5;
    let b = 0x01000193 ^ text.length;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193) >>> 0;
      b = Math.imul(b ^ c, 0x5bd1e995) >>> 0;
    }
    name = `credence_${a.toString(16)}${b.toString(16)}`;
    statementNames.set(text, name);
  }
  return name;
}

const json = (value) => (typeof value === 'string' ? JSON.parse(value) : value);
// timestamptz comes back as a Date (pg, PGlite) or text: the engine reads ISO strings.
const isoOf = (value) => new Date(value).toISOString();
const slotRef = (row) => (row ? { key: row.key, subject: row.subject, predicate: row.predicate } : null);

function explain(err, tables) {
  // 42703: a column this version added (run the schema again after an upgrade: it is idempotent).
  if (err && (err.code === '42P01' || err.code === '42703')) {
    return new CredenceError(
      `PostgresStore: ${err.message}; create or upgrade the tables first (run POSTGRES_SCHEMA, idempotent, after every upgrade, or await store.ensureSchema() for tables ${Object.values(tables).join(', ')})`,
      { code: 'STORE_FAILED', cause: err },
    );
  }
  return err;
}

/**
 * A ClaimStore in PostgreSQL, scoped to one tenant.
 *
 * ```js
 * const store = new PostgresStore(pool, { scope: 'tenant-42' });
 * await store.ensureSchema();
 * const memory = new Memory({ store });
 * ```
 */
export class PostgresStore {
  #q;
  #scope;
  #tables;
  #sql;
  #pool;
  #prepared;
  #held = new HeldSlots();

  constructor(queryable, options = {}) {
    if (!queryable || typeof queryable.query !== 'function') {
      throw invalid('queryable', 'must have a query(text, values) method (pg.Pool, pg.Client, PGlite)');
    }
    const { scope, tables, pool, prepared = false } = knownOptions('PostgresStore', options, ['scope', 'tables', 'pool', 'prepared']);
    if (typeof scope !== 'string' || scope.length === 0) {
      throw invalid('scope', 'must be a non-empty string naming the tenant');
    }
    // PostgreSQL text holds neither; encoded, lone surrogates become U+FFFD,
    // so "t\uD800" and "t\uDBFF" would name one tenant.
    if (scope.includes('\0') || !scope.isWellFormed()) {
      throw invalid('scope', 'must be valid Unicode text without the NUL character (a lone surrogate or NUL would let two scopes name one tenant)');
    }
    if (typeof prepared !== 'boolean') throw invalid('prepared', 'must be a boolean');
    // Named statements are node-postgres's `{ name, text, values }` form; PGlite's query takes text only.
    if (prepared && !looksLikePool(queryable) && !('connectionParameters' in queryable)) {
      throw invalid('prepared', 'needs node-postgres (a pg.Pool or pg.Client); leave it off for PGlite and other queryables');
    }
    this.#prepared = prepared;
    this.#q = queryable;
    this.#scope = scope;
    this.#tables = resolveTables(tables);
    this.#sql = sql(this.#tables);
    this.#pool = pool === undefined ? looksLikePool(queryable) : Boolean(pool);
  }

  /** The idempotent DDL for these table names (defaults: POSTGRES_SCHEMA). */
  static schema(tables) {
    return toScript(schemaStatements(resolveTables(tables)));
  }

  get scope() {
    return this.#scope;
  }

  get tables() {
    return { ...this.#tables };
  }

  /** Creates the tables and indexes if they do not exist (one statement per query). */
  async ensureSchema() {
    for (const statement of schemaStatements(this.#tables)) {
      try {
        await this.#query(statement, [], true);
      } catch (err) {
        // Two processes racing through CREATE ... IF NOT EXISTS: one loses on
        // the catalog's unique index; by now the object exists.
        if (!['23505', '42P07', '42710'].includes(err?.code)) throw err;
        await this.#query(statement, [], true);
      }
    }
  }

  async loadSlot(ref) {
    if (ref.subject === REGISTRY) return this.#loadRegistry(ref);
    const { rows } = await this.#query(this.#sql.load, [this.#scope, ref.key, ref.subject]);
    const slot = rows.length ? json(rows[0].slot) : null;
    this.#held.hold(ref.key, slot, rows[0]?.xmin);
    return slot;
  }

  /** A registry, with its entities from their rows when it was committed by its changes. */
  async #loadRegistry(ref) {
    const { rows } = await this.#query(this.#sql.loadRegistry, [this.#scope, ref.key, ref.predicate]);
    if (rows.length === 0) return null;
    const slot = json(rows[0].slot);
    if (rows[0].entities === null || rows[0].entities === undefined) return slot;
    const positioned = json(rows[0].entities);
    if (positioned.length !== slot.entities.rows || positioned.some((p, i) => p.at !== i)) {
      throw new CredenceError(`PostgresStore: the entity rows of registry ${JSON.stringify(ref.predicate)} (scope ${JSON.stringify(this.#scope)}) are not positions 0 to ${slot.entities.rows - 1}`, { code: 'MALFORMED_STORE_DATA' });
    }
    slot.entities = positioned.map((p) => p.entity);
    delete slot.generation;
    if (slot.claimRows !== undefined) {
      const [claims, conflicts] = [json(rows[0].claims ?? '[]'), json(rows[0].conflicts ?? '[]')];
      if (claims.length !== slot.claimRows || conflicts.length !== slot.conflictRows) {
        throw new CredenceError(`PostgresStore: registry ${JSON.stringify(ref.predicate)} (scope ${JSON.stringify(this.#scope)}) holds ${slot.claimRows} claims and ${slot.conflictRows} conflicts as rows, but ${claims.length} and ${conflicts.length} rows have positions below those counts`, { code: 'MALFORMED_STORE_DATA' });
      }
      Object.assign(slot, { claims, conflicts });
      delete slot.claimRows;
      delete slot.conflictRows;
    }
    return slot;
  }

  /**
   * This store keeps a registry's claims and conflicts (its names and
   * `same_entity` questions) as rows by position too: a registry commit then
   * carries only those that changed (see `registryRows` in the ClaimStore docs).
   */
  get registryRows() {
    return true;
  }

  /**
   * A registry whose tag moved since `since` (see `loadRegistryChanges` in the
   * ClaimStore docs): the entity rows written after `since.version`, in the
   * same generation; null when it is another generation or not kept as rows.
   */
  async loadRegistryChanges(ref, since) {
    const generation = typeof since?.tag === 'string' ? since.tag.split(':')[2] : undefined;
    if (ref?.subject !== REGISTRY || !generation || !Number.isSafeInteger(since.version)) return null;
    const { rows } = await this.#query(this.#sql.registryChanges, [this.#scope, ref.key, ref.predicate, since.version, generation]);
    if (rows.length === 0 || rows[0].entities === null || rows[0].entities === undefined) return null;
    const { entities: count, generation: _, claimRows, conflictRows, ...slot } = json(rows[0].slot);
    const answer = { slot, entities: json(rows[0].entities), entityCount: count.rows, tag: rows[0].tag };
    if (claimRows === undefined) return answer;
    if (rows[0].claims === null || rows[0].conflicts === null) return null;
    return { ...answer, claims: json(rows[0].claims), claimCount: claimRows, conflicts: json(rows[0].conflicts), conflictCount: conflictRows };
  }

  /**
   * A write's load, answered from the version of the slot this store last
   * loaded or committed when it holds one (`held: true`), without a query: a
   * write then costs one round trip, its commit. The commit compares the
   * version and the row's xmin (the transaction that wrote it, which a
   * wiped and refilled table does not repeat), so a snapshot another writer
   * made stale writes nothing; the engine then loads again.
   */
  async loadSlotToWrite(ref) {
    return this.#held.answer(ref, (r) => this.loadSlot(r));
  }


  /** The slot row's version and writing transaction (see `slotTag` in the ClaimStore docs); null when empty. */
  async slotTag(ref) {
    const registry = ref.subject === REGISTRY;
    const { rows } = await this.#query(registry ? this.#sql.registryTag : this.#sql.tag, registry ? [this.#scope, ref.key] : [this.#scope, ref.key, ref.subject]);
    return rows.length ? rows[0].tag : null;
  }

  async commitSlot(commit) {
    const { ref, expectedVersion, slot } = commit;
    const values = [
      this.#scope, ref.key, ref.subject, ref.predicate, slot.version, JSON.stringify(slot),
      commit.changedClaims, commit.changedConflicts, JSON.stringify(commit.log),
    ];
    const xmin = this.#held.take(ref.key, expectedVersion);
    try {
      const won = expectedVersion === 0
        ? await this.#query(this.#sql.commitInsert, [...values, ...entityChanges(commit), ...writeIds(commit)])
        : await this.#query(this.#sql.commitUpdate, [...values, expectedVersion, ...entityChanges(commit), xmin, ...writeIds(commit)]);
      if (won.rows.length > 0) this.#held.hold(ref.key, slot, won.rows[0].xmin);
      return won.rows.length > 0;
    } catch (err) {
      // Lost races PostgreSQL itself reports: the statement was rolled back.
      if (RETRYABLE.has(err?.code) || isIdTaken(err)) return false;
      throw err;
    }
  }

  /**
   * An entity registry committed by its changes (see `commitRegistry` in
   * the ClaimStore docs): one statement writes the slot row without
   * entities and a row per changed entity. Resolves to the new tag, or false.
   */
  async commitRegistry(commit) {
    const { ref, expectedVersion, slot } = commit;
    if (ref?.subject !== REGISTRY || !Array.isArray(commit.entities)) {
      throw invalid('commit', 'must be an entity registry commit with an entities list');
    }
    if (commit.entities.some((e) => !Number.isSafeInteger(e?.at) || e.at < 0 || e.at >= commit.entityCount || typeof e.entity?.id !== 'string')) {
      throw invalid('commit.entities', 'must be { at: position below entityCount, entity } items');
    }
    const { entities: _, ...header } = slot;
    const items = registryItemsOf(commit, invalid);
    if (items) {
      delete header.claims;
      delete header.conflicts;
      Object.assign(header, { claimRows: items.claimCount, conflictRows: items.conflictCount });
    }
    const values = [
      this.#scope, ref.key, ref.subject, ref.predicate, slot.version, JSON.stringify({ ...header, entities: { rows: commit.entityCount }, generation: newGeneration() }),
      commit.changedClaims, commit.changedConflicts, JSON.stringify(commit.log), expectedVersion, JSON.stringify(commit.entities),
    ];
    const rows = items ? [JSON.stringify(items.claims), JSON.stringify(items.conflicts)] : [null, null];
    try {
      const won = expectedVersion === 0
        ? await this.#query(this.#sql.registryInsert, [...values, ...rows])
        : await this.#query(this.#sql.registryUpdate, [...values, null, ...rows]); // $12: registries are not held
      return won.rows.length > 0 ? won.rows[0].tag : false;
    } catch (err) {
      if (RETRYABLE.has(err?.code)) return false;
      throw err;
    }
  }

  /**
   * Privacy erasure: commitSlot, and in the same statement the slot's log
   * rows rewritten with `log` (the same entries in order, scrubbed). Claim
   * and conflict rows follow the slot as in every commit. PostgreSQL keeps
   * the old row versions on disk until VACUUM reclaims them.
   */
  async eraseSlot(commit, log) {
    const { ref, expectedVersion, slot } = commit;
    if (!Array.isArray(log)) throw invalid('log', 'must be an array of log entries');
    this.#held.take(ref.key);
    if (expectedVersion === 0) return this.commitSlot(commit);
    const values = [
      this.#scope, ref.key, ref.subject, ref.predicate, slot.version, JSON.stringify(slot),
      commit.changedClaims, commit.changedConflicts, JSON.stringify(commit.log), expectedVersion, JSON.stringify(log),
      ...entityChanges(commit), ...writeIds(commit),
    ];
    try {
      return (await this.#query(this.#sql.eraseUpdate, values)).rows.length > 0;
    } catch (err) {
      if (RETRYABLE.has(err?.code) || isIdTaken(err)) return false;
      throw err;
    }
  }

  async findClaim(claimId) {
    const { rows } = await this.#query(this.#sql.findClaim, [this.#scope, claimId]);
    return slotRef(rows[0]);
  }

  async findConflict(conflictId) {
    const { rows } = await this.#query(this.#sql.findConflict, [this.#scope, conflictId]);
    return slotRef(rows[0]);
  }

  /** The slot a candidate id (idempotency key) was written to. */
  async findWrite(writeId) {
    const { rows } = await this.#query(this.#sql.findWrite, [this.#scope, String(writeId)]);
    return slotRef(rows[0]);
  }

  async listSlots(filter = {}) {
    const subject = filter?.subject;
    const { rows } =
      subject === undefined || subject === null
        ? await this.#query(this.#sql.listAll, [this.#scope])
        : await this.#query(this.#sql.listSubject, [this.#scope, subject]);
    return rows.map(slotRef);
  }

  async listConflicts({ status, after, limit }) {
    const { rows } = await this.#query(this.#sql.listConflicts, [this.#scope, status, after?.openedAt ?? null, after?.id ?? null, limit]);
    return rows.map((row) => ({ id: row.id, status: row.status, openedAt: isoOf(row.opened_at), ref: slotRef(row) }));
  }

  async dirtySlots({ after, limit }) {
    const { rows } = await this.#query(this.#sql.dirtySlots, [this.#scope, after ?? null, limit]);
    return rows.map(slotRef);
  }

  async readLog(ref) {
    const { rows } = await this.#query(this.#sql.readLog, [this.#scope, ref.key]);
    return rows.map((row) => json(row.entry));
  }

  /** One statement outside a transaction (queued on a single connection); named when `prepared`, except DDL. */
  async #query(text, values, ddl = false) {
    const run = () => (this.#prepared && !ddl ? this.#q.query({ name: statementName(text), text, values }) : this.#q.query(text, values));
    try {
      return await (this.#pool ? run() : serially(this.#q, run));
    } catch (err) {
      throw explain(err, this.#tables);
    }
  }
}
