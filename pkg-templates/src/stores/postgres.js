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
//                     entity slot by the same commit, for SQL readers
//   memory_entity_keys an entity's key rows (type, key, entity, name), replaced
//                     by each commit of its entity slot, for findEntities
// Every row carries `scope`; every query filters on it.
//
// A commit is one statement, so it is atomic without BEGIN/COMMIT: a
// compare-and-set on the slot row (INSERT ... ON CONFLICT DO NOTHING for
// version 0, UPDATE ... WHERE version = expected otherwise) in a CTE, with the
// claim, conflict, log and entity key rows written only when it returned a row; no row →
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
import { entityKeysOf, entityQueryOf } from './entity-keys.js';

const DEFAULT_TABLES = Object.freeze({
  slots: 'memory_slots',
  claims: 'memory_claims',
  conflicts: 'memory_conflicts',
  log: 'memory_claim_log',
  entities: 'memory_entities',
  writes: 'memory_writes',
  entityKeys: 'memory_entity_keys',
});

/** An entity registry (one slot per type) of a version before entity slots: see loadSlot. */
const REGISTRY = '\u001fentities';
const IDENT = /^[A-Za-z_][A-Za-z0-9_]{0,62}(\.[A-Za-z_][A-Za-z0-9_]{0,62})?$/;
// Lost races PostgreSQL itself reports: the transaction was rolled back.
const RETRYABLE = new Set(['40001', '40P01']);

/** The candidate ids a commit records and drops, as statement values (a hand-built commit may carry none). */
const writeIds = (commit) => [commit.index?.writes ?? [], commit.index?.droppedWrites ?? []];

/** An entity slot's key rows (index.entity) as a statement value, or null. */
const entityKeysValue = (commit) => {
  const entity = entityKeysOf(commit, invalid);
  return entity === null ? null : JSON.stringify(entity);
};

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
    const { rows } = await this.#query(this.#sql.load, [this.#scope, ref.key, ref.subject]);
    const slot = rows.length ? json(rows[0].slot) : null;
    // A registry still kept as rows by position: the tables were not migrated.
    if (ref.subject === REGISTRY && slot && !Array.isArray(slot.entities ?? [])) {
      throw new CredenceError(`PostgresStore: entity registry ${JSON.stringify(ref.predicate)} (scope ${JSON.stringify(this.#scope)}) is kept as rows by an older version; run POSTGRES_SCHEMA (or await store.ensureSchema()) once to migrate it`, { code: 'STORE_FAILED' });
    }
    this.#held.hold(ref.key, slot, rows[0]?.xmin);
    return slot;
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


  async commitSlot(commit) {
    const { ref, expectedVersion, slot } = commit;
    const values = [
      this.#scope, ref.key, ref.subject, ref.predicate, slot.version, JSON.stringify(slot),
      commit.changedClaims, commit.changedConflicts, JSON.stringify(commit.log),
    ];
    const keys = entityKeysValue(commit);
    const xmin = this.#held.take(ref.key, expectedVersion);
    try {
      const won = expectedVersion === 0
        ? await this.#query(this.#sql.commitInsert, [...values, ...writeIds(commit), keys])
        : await this.#query(this.#sql.commitUpdate, [...values, expectedVersion, xmin, ...writeIds(commit), keys]);
      if (won.rows.length > 0) this.#held.hold(ref.key, slot, won.rows[0].xmin);
      return won.rows.length > 0;
    } catch (err) {
      // Lost races PostgreSQL itself reports: the statement was rolled back.
      if (RETRYABLE.has(err?.code) || isIdTaken(err)) return false;
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
      ...writeIds(commit), entityKeysValue(commit),
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

  /**
   * The key rows of entities of `type` whose key is one of `keys` (see
   * `findEntities` in the ClaimStore docs): one query, by the keys' index.
   */
  async findEntities(query) {
    const { type, keys } = entityQueryOf(query, invalid);
    if (keys.length === 0) return [];
    const { rows } = await this.#query(this.#sql.findEntities, [this.#scope, type, keys]);
    return rows.map((row) => ({ key: row.key, entity: row.entity, name: row.name }));
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
