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
//   memory_entities   one row per entity (SPEC §9), kept in step with its
//                     type's registry slot by the same commit, for SQL readers;
//                     a registry committed by its changes (commitRegistry)
//                     keeps its entities only here, by `registry` and `pos`,
//                     and its slot row without them (`"entities": {"rows": n}`, which
//                     an older version refuses rather than reads as no entities)
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

const DEFAULT_TABLES = Object.freeze({
  slots: 'memory_slots',
  claims: 'memory_claims',
  conflicts: 'memory_conflicts',
  log: 'memory_claim_log',
  entities: 'memory_entities',
});

const REGISTRY = '\u001fentities';
/** A registry's lifetime as rows: random, so a registry begun anew never matches an old reader. */
const newGeneration = () => globalThis.crypto.randomUUID().replace(/-/g, '');
const IDENT = /^[A-Za-z_][A-Za-z0-9_]{0,62}(\.[A-Za-z_][A-Za-z0-9_]{0,62})?$/;
// Lost races PostgreSQL itself reports: the transaction was rolled back.
const RETRYABLE = new Set(['40001', '40P01']);

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

/** The unqualified part of a table name, for naming its indexes. */
const bare = (name) => name.slice(name.lastIndexOf('.') + 1);

/** The idempotent DDL for a set of table names, one statement per entry. */
function schemaStatements(t) {
  return [
    `CREATE TABLE IF NOT EXISTS ${t.slots} (
  scope      text        NOT NULL,
  key        text        NOT NULL,
  subject    text        NOT NULL,
  predicate  text        NOT NULL,
  version    bigint      NOT NULL,
  slot       jsonb       NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (scope, key)
)`,
    `CREATE INDEX IF NOT EXISTS ${bare(t.slots)}_subject_idx ON ${t.slots} (scope, subject)`,
    `CREATE TABLE IF NOT EXISTS ${t.claims} (
  scope       text             NOT NULL,
  id          text             NOT NULL,
  slot_key    text             NOT NULL,
  subject     text             NOT NULL,
  predicate   text             NOT NULL,
  object      text             NOT NULL,
  status      text             NOT NULL,
  confidence  double precision NOT NULL,
  recorded_at timestamptz      NOT NULL,
  claim       jsonb            NOT NULL,
  PRIMARY KEY (scope, id)
)`,
    `CREATE INDEX IF NOT EXISTS ${bare(t.claims)}_subject_idx ON ${t.claims} (scope, subject, predicate)`,
    `CREATE TABLE IF NOT EXISTS ${t.conflicts} (
  scope     text        NOT NULL,
  id        text        NOT NULL,
  slot_key  text        NOT NULL,
  subject   text        NOT NULL,
  predicate text        NOT NULL,
  kind      text        NOT NULL,
  status    text        NOT NULL,
  opened_at timestamptz NOT NULL,
  conflict  jsonb       NOT NULL,
  PRIMARY KEY (scope, id)
)`,
    `CREATE INDEX IF NOT EXISTS ${bare(t.conflicts)}_status_idx ON ${t.conflicts} (scope, status)`,
    // Store interface v2: conflicts by status, oldest first, paged.
    `CREATE INDEX IF NOT EXISTS ${bare(t.conflicts)}_listing_idx ON ${t.conflicts} (scope, status, opened_at, id COLLATE "C")`,
    // Store interface v2: the slots with entries the review pass has not seen,
    // derived from the snapshot itself so it can never disagree with it.
    `ALTER TABLE ${t.slots} ADD COLUMN IF NOT EXISTS unreviewed boolean
  GENERATED ALWAYS AS (jsonb_array_length(COALESCE(slot->'claims', '[]'::jsonb)) > COALESCE((slot->>'reviewed')::int, 0)) STORED`,
    `CREATE INDEX IF NOT EXISTS ${bare(t.slots)}_unreviewed_idx ON ${t.slots} (scope, key COLLATE "C") WHERE unreviewed`,
    `CREATE TABLE IF NOT EXISTS ${t.log} (
  scope    text        NOT NULL,
  slot_key text        NOT NULL,
  version  bigint      NOT NULL,
  seq      integer     NOT NULL,
  at       timestamptz NOT NULL,
  rule     text        NOT NULL,
  entry    jsonb       NOT NULL,
  PRIMARY KEY (scope, slot_key, version, seq)
)`,
    `CREATE TABLE IF NOT EXISTS ${t.entities} (
  scope      text        NOT NULL,
  id         text        NOT NULL,
  type       text,
  name       text        NOT NULL,
  aliases    jsonb       NOT NULL DEFAULT '[]'::jsonb,
  data       jsonb       NOT NULL DEFAULT '{}'::jsonb,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (scope, id)
)`,
    // A registry committed by its changes: its entities by (registry type, position).
    `ALTER TABLE ${t.entities} ADD COLUMN IF NOT EXISTS registry text`,
    `ALTER TABLE ${t.entities} ADD COLUMN IF NOT EXISTS pos integer`,
    `CREATE INDEX IF NOT EXISTS ${bare(t.entities)}_registry_idx ON ${t.entities} (scope, registry, pos)`,
    // ... and the registry version that wrote each, for a reader that asks what changed since its own.
    `ALTER TABLE ${t.entities} ADD COLUMN IF NOT EXISTS ver bigint`,
    `CREATE INDEX IF NOT EXISTS ${bare(t.entities)}_registry_ver_idx ON ${t.entities} (scope, registry, ver)`,
  ];
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

/**
 * The row writes of a commit, each joined to the slot CAS (`won`). An entity
 * registry slot (subject chr(31) + "entities", predicate = the entity type)
 * also keeps that type's rows of the entities table in step: each entity
 * written when it changed, removed when it left the registry.
 */
function commitRows(t, changed, removed) {
  return `${slotRows(t)}, ${entityRows(t, changed, removed)}`;
}

/** The claim, conflict and log rows of a commit (see commitRows). */
function slotRows(t) {
  return `claims_up AS (
      INSERT INTO ${t.claims}
        (scope, id, slot_key, subject, predicate, object, status, confidence, recorded_at, claim)
      SELECT $1, c->>'id', $2, $3, $4, c->>'object', c->>'status', (c->>'confidence')::float8,
             (c->>'recordedAt')::timestamptz, c
      FROM won, jsonb_array_elements(won.slot->'claims') AS c WHERE c->>'id' = ANY($7::text[])
      ON CONFLICT (scope, id) DO UPDATE SET slot_key = EXCLUDED.slot_key, subject = EXCLUDED.subject,
        predicate = EXCLUDED.predicate, object = EXCLUDED.object, status = EXCLUDED.status,
        confidence = EXCLUDED.confidence, recorded_at = EXCLUDED.recorded_at, claim = EXCLUDED.claim
    ), conflicts_up AS (
      INSERT INTO ${t.conflicts}
        (scope, id, slot_key, subject, predicate, kind, status, opened_at, conflict)
      SELECT $1, c->>'id', $2, $3, $4, c->>'kind', c->>'status', (c->>'openedAt')::timestamptz, c
      FROM won, jsonb_array_elements(won.slot->'conflicts') AS c WHERE c->>'id' = ANY($8::text[])
      ON CONFLICT (scope, id) DO UPDATE SET slot_key = EXCLUDED.slot_key, subject = EXCLUDED.subject,
        predicate = EXCLUDED.predicate, kind = EXCLUDED.kind, status = EXCLUDED.status,
        opened_at = EXCLUDED.opened_at, conflict = EXCLUDED.conflict
    ), log_up AS (
      INSERT INTO ${t.log} (scope, slot_key, version, seq, at, rule, entry)
      SELECT $1, $2, (e.value->>'version')::bigint, e.ord::int, (e.value->>'at')::timestamptz, e.value->>'rule', e.value
      FROM won, jsonb_array_elements($9::jsonb) WITH ORDINALITY AS e(value, ord)
    )`;
}

/** A registry slot's entity rows when the commit holds the whole registry (see commitRows). */
function entityRows(t, changed, removed) {
  return `entities_up AS (
      INSERT INTO ${t.entities} (scope, id, type, name, aliases, data)
      SELECT $1, e->>'id', e->>'type', e->>'name', COALESCE(e->'aliases', '[]'::jsonb), e
      FROM won, jsonb_array_elements(COALESCE(${changed}::jsonb, won.slot->'entities', '[]'::jsonb)) AS e
      WHERE $3 = chr(31) || 'entities'
      ON CONFLICT (scope, id) DO UPDATE SET type = EXCLUDED.type, name = EXCLUDED.name,
        aliases = EXCLUDED.aliases, data = EXCLUDED.data, updated_at = now()
      WHERE ${t.entities}.data IS DISTINCT FROM EXCLUDED.data
    ), entities_gone AS (
      DELETE FROM ${t.entities} AS d USING won
      WHERE d.scope = $1 AND $3 = chr(31) || 'entities' AND d.id = ANY(${removed}::text[])
    ), entities_unlisted AS (
      DELETE FROM ${t.entities} AS d USING won
      WHERE ${removed}::text[] IS NULL AND d.scope = $1 AND $3 = chr(31) || 'entities' AND d.type = $4
        AND NOT COALESCE(won.slot->'entities', '[]'::jsonb) @> jsonb_build_array(jsonb_build_object('id', d.id))
    )`;
}

/**
 * commitRegistry's entity rows: the changed entities ($11) and those of a
 * registry stored whole until now (`inline`: rows of (value, ord)), one row
 * per id (a changed entity wins over its stored copy).
 */
function registryRows(t, inline) {
  return `entities_rows AS (
      INSERT INTO ${t.entities} (scope, id, type, name, aliases, data, registry, pos, ver)
      SELECT DISTINCT ON (u.e->>'id') $1, u.e->>'id', u.e->>'type', u.e->>'name', COALESCE(u.e->'aliases', '[]'::jsonb), u.e, $4, u.pos, $5
      FROM won, (
        SELECT x->'entity' AS e, (x->>'at')::int AS pos, 0 AS pref FROM jsonb_array_elements($11::jsonb) AS x
        UNION ALL
        SELECT i.value, (i.ord - 1)::int, 1 FROM (${inline}) AS i
      ) AS u
      ORDER BY u.e->>'id', u.pref
      ON CONFLICT (scope, id) DO UPDATE SET type = EXCLUDED.type, name = EXCLUDED.name, aliases = EXCLUDED.aliases,
        data = EXCLUDED.data, registry = EXCLUDED.registry, pos = EXCLUDED.pos, ver = EXCLUDED.ver, updated_at = now()
    )`;
}

function sql(t) {
  return {
    // xmin::text: with the version, what a held snapshot's commit compares (see loadSlotToWrite).
    // `subject = $3` with the key: a tenant growing faster than ANALYZE runs gets plans from
    // stats that think its scope holds no rows, and the planner then took (scope, subject)
    // for scope alone and filtered every slot of the scope by key (1.5 ms at 10,000 slots).
    load: `SELECT slot, xmin::text AS xmin FROM ${t.slots} WHERE scope = $1 AND key = $2 AND subject = $3`,
    // xmin: the transaction that wrote this row version, so the tag changes with every
    // commit and never repeats for other content, even after the table is emptied.
    tag: `SELECT version::text || ':' || xmin::text AS tag FROM ${t.slots} WHERE scope = $1 AND key = $2 AND subject = $3`,
    // A commit is ONE statement (data-modifying CTEs run atomically, in one
    // snapshot): the compare-and-set on the slot row, then the claim,
    // conflict and log rows, each joined to the CAS's RETURNING so that a lost
    // race (no row) writes nothing. One round trip instead of five
    // (BEGIN, slot, claims, log, COMMIT): round trips dominate a write.
    // The changed claim and conflict rows are taken from the slot document
    // the CAS returned, by id, so they cross the wire once.
    // $1 scope, $2 key, $3 subject, $4 predicate, $5 new version, $6 slot,
    // $7 changed claim ids, $8 changed conflict ids, $9 log entries, $10 expected version,
    // then (after the erase's log, $11) the changed entities as a jsonb array and the
    // removed entity ids, or nulls for a commit that did not say (every entity compared);
    // commitUpdate's $13 is the xmin the slot was read at, or null (the version alone).
    commitInsert: `WITH won AS (
      INSERT INTO ${t.slots} (scope, key, subject, predicate, version, slot)
      VALUES ($1, $2, $3, $4, $5, $6::jsonb) ON CONFLICT (scope, key) DO NOTHING RETURNING version, slot, xmin::text AS xmin
    ), ${commitRows(t, '$10', '$11')}
    SELECT version, xmin FROM won`,
    commitUpdate: `WITH won AS (
      UPDATE ${t.slots} SET version = $5, slot = $6::jsonb, updated_at = now()
      WHERE scope = $1 AND key = $2 AND subject = $3 AND version = $10 AND ($13::text IS NULL OR xmin::text = $13::text)
      RETURNING version, slot, xmin::text AS xmin
    ), ${commitRows(t, '$11', '$12')}
    SELECT version, xmin FROM won`,
    // Privacy erasure: the commit above, plus the slot's existing log rows
    // rewritten in place, matched by position (version, seq order) with $11.
    eraseUpdate: `WITH won AS (
      UPDATE ${t.slots} SET version = $5, slot = $6::jsonb, updated_at = now()
      WHERE scope = $1 AND key = $2 AND subject = $3 AND version = $10 RETURNING version, slot
    ), ${commitRows(t, '$12', '$13')}, old_log AS (
      SELECT version, seq, row_number() OVER (ORDER BY version, seq) AS ord
      FROM ${t.log} WHERE scope = $1 AND slot_key = $2
    ), log_scrub AS (
      UPDATE ${t.log} AS l SET entry = x.value, rule = x.value->>'rule'
      FROM won, old_log AS o JOIN jsonb_array_elements($11::jsonb) WITH ORDINALITY AS x(value, ord) ON x.ord = o.ord
      WHERE l.scope = $1 AND l.slot_key = $2 AND l.version = o.version AND l.seq = o.seq
    )
    SELECT version FROM won`,
    // An entity registry: the slot row, and its entity rows when it was committed by its changes.
    loadRegistry: `SELECT s.slot, s.xmin::text AS xmin, CASE WHEN jsonb_typeof(s.slot->'entities') = 'object' THEN (
        SELECT COALESCE(jsonb_agg(jsonb_build_object('at', e.pos, 'entity', e.data) ORDER BY e.pos), '[]'::jsonb)
        FROM ${t.entities} AS e WHERE e.scope = $1 AND e.registry = $3 AND e.pos < (s.slot->'entities'->>'rows')::int) END AS entities
      FROM ${t.slots} AS s WHERE s.scope = $1 AND s.key = $2 AND s.subject = chr(31) || 'entities'`,
    // commitRegistry: the slot row without entities, the claim, conflict and log rows, and the
    // changed entities ($11: [{ at, entity }]) as rows; a registry stored whole until now has
    // every entity moved to rows by the same statement. $12 is commitUpdate's $13.
    registryInsert: `WITH won AS (
      INSERT INTO ${t.slots} (scope, key, subject, predicate, version, slot)
      SELECT $1, $2, $3, $4, $5, $6::jsonb WHERE $10::bigint = 0
      ON CONFLICT (scope, key) DO NOTHING RETURNING version, slot, xmin::text AS xmin
    ), ${slotRows(t)}, ${registryRows(t, `SELECT NULL::jsonb AS value, 0::bigint AS ord WHERE false`)}, detached AS (
      -- Rows a registry of this type left behind (its slot row deleted): not this one's.
      UPDATE ${t.entities} SET registry = NULL, pos = NULL FROM won
      WHERE scope = $1 AND registry = $4 AND NOT (id = ANY(SELECT x->'entity'->>'id' FROM jsonb_array_elements($11::jsonb) AS x))
    )
    SELECT version::text || ':' || xmin || ':' || (slot->>'generation') AS tag FROM won`,
    // A registry kept as rows keeps its generation; one moved over from a whole document takes $6's.
    registryUpdate: `WITH cur AS (
      SELECT slot FROM ${t.slots} WHERE scope = $1 AND key = $2 AND subject = $3
    ), won AS (
      UPDATE ${t.slots} AS s SET version = $5, updated_at = now(), slot = CASE
          WHEN jsonb_typeof(cur.slot->'entities') = 'object' AND jsonb_typeof(cur.slot->'generation') = 'string'
          THEN $6::jsonb || jsonb_build_object('generation', cur.slot->'generation') ELSE $6::jsonb END
      FROM cur
      WHERE s.scope = $1 AND s.key = $2 AND s.subject = $3 AND s.version = $10 AND ($12::text IS NULL OR s.xmin::text = $12::text)
      RETURNING s.version, s.slot, s.xmin::text AS xmin
    ), ${slotRows(t)}, ${registryRows(t, `SELECT o.value, o.ord FROM cur, jsonb_array_elements(CASE WHEN jsonb_typeof(cur.slot->'entities') = 'array' THEN cur.slot->'entities' ELSE '[]'::jsonb END) WITH ORDINALITY AS o(value, ord)`)}, detached AS (
      -- Moved over from a registry stored whole: rows of entities it no longer holds are not its.
      UPDATE ${t.entities} SET registry = NULL, pos = NULL FROM won, cur
      WHERE scope = $1 AND registry = $4 AND jsonb_typeof(cur.slot->'entities') IS DISTINCT FROM 'object'
        AND NOT (id = ANY(SELECT x->'entity'->>'id' FROM jsonb_array_elements($11::jsonb) AS x))
        AND NOT (id = ANY(SELECT o->>'id' FROM jsonb_array_elements(CASE WHEN jsonb_typeof(cur.slot->'entities') = 'array' THEN cur.slot->'entities' ELSE '[]'::jsonb END) AS o))
    )
    SELECT version::text || ':' || xmin || ':' || (slot->>'generation') AS tag FROM won`,
    // A registry's tag names its generation too (loadRegistryChanges answers only within one).
    registryTag: `SELECT version::text || ':' || xmin::text || ':' || COALESCE(slot->>'generation', '') AS tag
      FROM ${t.slots} WHERE scope = $1 AND key = $2 AND subject = chr(31) || 'entities'`,
    // The registry now and the entity rows written after version $4, when it is kept as rows
    // of generation $5 and not older than $4 (else entities is null: read it whole).
    registryChanges: `SELECT s.slot, s.version::text || ':' || s.xmin::text || ':' || COALESCE(s.slot->>'generation', '') AS tag,
      CASE WHEN jsonb_typeof(s.slot->'entities') = 'object' AND s.slot->>'generation' = $5 AND s.version >= $4 THEN (
        SELECT COALESCE(jsonb_agg(jsonb_build_object('at', e.pos, 'entity', e.data)), '[]'::jsonb)
        FROM ${t.entities} AS e WHERE e.scope = $1 AND e.registry = $3 AND e.ver > $4 AND e.pos < (s.slot->'entities'->>'rows')::int) END AS entities
      FROM ${t.slots} AS s WHERE s.scope = $1 AND s.key = $2 AND s.subject = chr(31) || 'entities'`,
    findClaim: `SELECT slot_key AS key, subject, predicate FROM ${t.claims} WHERE scope = $1 AND id = $2`,
    findConflict: `SELECT slot_key AS key, subject, predicate FROM ${t.conflicts} WHERE scope = $1 AND id = $2`,
    listAll: `SELECT key, subject, predicate FROM ${t.slots} WHERE scope = $1 ORDER BY key COLLATE "C"`,
    listSubject: `SELECT key, subject, predicate FROM ${t.slots} WHERE scope = $1 AND subject = $2 ORDER BY key COLLATE "C"`,
    readLog: `SELECT entry FROM ${t.log} WHERE scope = $1 AND slot_key = $2 ORDER BY version, seq`,
    // $2 status, $3/$4 the cursor (openedAt, id) or nulls, $5 limit.
    listConflicts: `SELECT id, status, opened_at, slot_key AS key, subject, predicate FROM ${t.conflicts}
      WHERE scope = $1 AND status = $2
        AND ($3::timestamptz IS NULL OR (opened_at, id COLLATE "C") > ($3::timestamptz, $4::text COLLATE "C"))
      ORDER BY opened_at, id COLLATE "C" LIMIT $5`,
    dirtySlots: `SELECT key, subject, predicate FROM ${t.slots}
      WHERE scope = $1 AND unreviewed AND ($2::text IS NULL OR key COLLATE "C" > $2::text COLLATE "C")
      ORDER BY key COLLATE "C" LIMIT $3`,
  };
}

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
    return slot;
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
    const { entities: count, generation: _, ...slot } = json(rows[0].slot);
    return { slot, entities: json(rows[0].entities), entityCount: count.rows, tag: rows[0].tag };
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
        ? await this.#query(this.#sql.commitInsert, [...values, ...entityChanges(commit)])
        : await this.#query(this.#sql.commitUpdate, [...values, expectedVersion, ...entityChanges(commit), xmin]);
      if (won.rows.length > 0) this.#held.hold(ref.key, slot, won.rows[0].xmin);
      return won.rows.length > 0;
    } catch (err) {
      // Lost races PostgreSQL itself reports: the statement was rolled back.
      if (RETRYABLE.has(err?.code)) return false;
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
    const values = [
      this.#scope, ref.key, ref.subject, ref.predicate, slot.version, JSON.stringify({ ...header, entities: { rows: commit.entityCount }, generation: newGeneration() }),
      commit.changedClaims, commit.changedConflicts, JSON.stringify(commit.log), expectedVersion, JSON.stringify(commit.entities),
    ];
    try {
      const won = expectedVersion === 0
        ? await this.#query(this.#sql.registryInsert, values)
        : await this.#query(this.#sql.registryUpdate, [...values, null]); // $12: registries are not held
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
      ...entityChanges(commit),
    ];
    try {
      return (await this.#query(this.#sql.eraseUpdate, values)).rows.length > 0;
    } catch (err) {
      if (RETRYABLE.has(err?.code)) return false;
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
