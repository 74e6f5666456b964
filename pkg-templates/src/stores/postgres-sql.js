// PostgresStore's SQL: the schema (idempotent DDL) and every statement the
// store runs, for a set of table names. Kept apart from the store's logic so
// both read whole; postgres-layout.test.js checks each statement filters on
// `scope` (SPEC §8: the layout distributable by scope).

/** The unqualified part of a table name, for naming its indexes. */
const bare = (name) => name.slice(name.lastIndexOf('.') + 1);

/** The idempotent DDL for a set of table names, one statement per entry. */
export function schemaStatements(t) {
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
    // A registry's generation (part of its tag), so reading the tag does not read the whole
    // (TOASTed) registry document: that took 0.7 ms per tag at 1,300 open questions.
    `ALTER TABLE ${t.slots} ADD COLUMN IF NOT EXISTS generation text GENERATED ALWAYS AS (slot->>'generation') STORED`,
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
    // A registry's claims and conflicts (its names and same_entity questions) kept as rows by
    // position, with the registry version that wrote each (commitRegistry with registry rows).
    `ALTER TABLE ${t.claims} ADD COLUMN IF NOT EXISTS pos integer`,
    `ALTER TABLE ${t.claims} ADD COLUMN IF NOT EXISTS ver bigint`,
    `CREATE INDEX IF NOT EXISTS ${bare(t.claims)}_registry_idx ON ${t.claims} (scope, slot_key, ver) WHERE pos IS NOT NULL`,
    `ALTER TABLE ${t.conflicts} ADD COLUMN IF NOT EXISTS pos integer`,
    `ALTER TABLE ${t.conflicts} ADD COLUMN IF NOT EXISTS ver bigint`,
    `CREATE INDEX IF NOT EXISTS ${bare(t.conflicts)}_registry_idx ON ${t.conflicts} (scope, slot_key, ver) WHERE pos IS NOT NULL`,
    `CREATE INDEX IF NOT EXISTS ${bare(t.entities)}_registry_ver_idx ON ${t.entities} (scope, registry, ver)`,
    // Candidate ids (idempotency keys) → the slot each was written to: an id
    // changes memory once, whatever slot it is sent to again (SPEC §8).
    `CREATE TABLE IF NOT EXISTS ${t.writes} (
  scope    text NOT NULL,
  id       text NOT NULL,
  slot_key text NOT NULL,
  PRIMARY KEY (scope, id)
)`,
  ];
}

/**
 * The row writes of a commit, each joined to the slot CAS (`won`). An entity
 * registry slot (subject chr(31) + "entities", predicate = the entity type)
 * also keeps that type's rows of the entities table in step: each entity
 * written when it changed, removed when it left the registry.
 */
function commitRows(t, changed, removed, writes, dropped) {
  return `${slotRows(t)}, ${entityRows(t, changed, removed)}, ${writeRows(t, writes, dropped)}`;
}

/**
 * A commit's candidate-id rows (see commitRows): the ids it records, a plain
 * INSERT, so a writer racing the same id into another slot fails on the
 * primary key (unique_violation: the store answers false, nothing written),
 * and the ids whose records it dropped.
 */
function writeRows(t, writes, dropped) {
  return `writes_up AS (
      INSERT INTO ${t.writes} (scope, id, slot_key)
      SELECT DISTINCT $1, w.id, $2 FROM won, unnest(${writes}::text[]) AS w(id)
    ), writes_gone AS (
      DELETE FROM ${t.writes} AS d USING won WHERE d.scope = $1 AND d.slot_key = $2 AND d.id = ANY(${dropped}::text[])
    )`;
}

/** The CAS's condition that no id the commit records was written to another slot. */
const idsFree = (t, writes) =>
  `NOT EXISTS (SELECT 1 FROM ${t.writes} AS x WHERE x.scope = $1 AND x.id = ANY(${writes}::text[]) AND x.slot_key <> $2)`;

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
 * commitRegistry's claim and conflict rows when the registry keeps them by
 * position (`claims`/`conflicts`: jsonb arrays of { at, item }, or null for a
 * commit that carries them in the document): the changed ones, plus every
 * one of a registry that held them in its document until now (`inlineClaims`,
 * `inlineConflicts`: rows of (value, ord)); rows of this key no longer among
 * them (an earlier registry of the same key) lose their position when
 * `detach` holds.
 */
function registryItemRows(t, claims, conflicts, inlineClaims, inlineConflicts, detach) {
  const item = (table, kind, param, inline, columns, values, updates) => `${kind}_rows AS (
      INSERT INTO ${table} (scope, id, slot_key, subject, predicate, ${columns}, pos, ver)
      SELECT DISTINCT ON (u.c->>'id') $1, u.c->>'id', $2, $3, $4, ${values}, u.pos, $5
      FROM won, (
        SELECT x->'item' AS c, (x->>'at')::int AS pos, 0 AS pref FROM jsonb_array_elements(${param}::jsonb) AS x
        UNION ALL
        SELECT i.value, (i.ord - 1)::int, 1 FROM (${inline}) AS i
      ) AS u
      WHERE ${param}::jsonb IS NOT NULL
      ORDER BY u.c->>'id', u.pref
      ON CONFLICT (scope, id) DO UPDATE SET slot_key = EXCLUDED.slot_key, subject = EXCLUDED.subject,
        predicate = EXCLUDED.predicate, ${updates}, pos = EXCLUDED.pos, ver = EXCLUDED.ver
    ), ${kind}_detached AS (
      UPDATE ${table} AS d SET pos = NULL, ver = NULL FROM won
      WHERE d.scope = $1 AND d.slot_key = $2 AND d.pos IS NOT NULL AND ${param}::jsonb IS NOT NULL AND (${detach})
        AND NOT (d.id = ANY(SELECT x->'item'->>'id' FROM jsonb_array_elements(${param}::jsonb) AS x))
        AND NOT (d.id = ANY(SELECT i.value->>'id' FROM (${inline}) AS i))
    )`;
  return `${item(t.claims, 'claim', claims, inlineClaims, 'object, status, confidence, recorded_at, claim',
    `u.c->>'object', u.c->>'status', (u.c->>'confidence')::float8, (u.c->>'recordedAt')::timestamptz, u.c`,
    'object = EXCLUDED.object, status = EXCLUDED.status, confidence = EXCLUDED.confidence, recorded_at = EXCLUDED.recorded_at, claim = EXCLUDED.claim')}, ${item(t.conflicts, 'conflict', conflicts, inlineConflicts, 'kind, status, opened_at, conflict',
    `u.c->>'kind', u.c->>'status', (u.c->>'openedAt')::timestamptz, u.c`,
    'kind = EXCLUDED.kind, status = EXCLUDED.status, opened_at = EXCLUDED.opened_at, conflict = EXCLUDED.conflict')}`;
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

/** An empty (value, ord) row set. */
const NONE = 'SELECT NULL::jsonb AS value, 0::bigint AS ord WHERE false';

export function sql(t) {
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
    // $12/$14 and $13/$15 (after commitUpdate's): the candidate ids the commit records and drops.
    commitInsert: `WITH won AS (
      INSERT INTO ${t.slots} (scope, key, subject, predicate, version, slot)
      SELECT $1, $2, $3, $4, $5, $6::jsonb WHERE ${idsFree(t, '$12')}
      ON CONFLICT (scope, key) DO NOTHING RETURNING version, slot, xmin::text AS xmin
    ), ${commitRows(t, '$10', '$11', '$12', '$13')}
    SELECT version, xmin FROM won`,
    commitUpdate: `WITH won AS (
      UPDATE ${t.slots} SET version = $5, slot = $6::jsonb, updated_at = now()
      WHERE scope = $1 AND key = $2 AND subject = $3 AND version = $10 AND ($13::text IS NULL OR xmin::text = $13::text)
        AND ${idsFree(t, '$14')}
      RETURNING version, slot, xmin::text AS xmin
    ), ${commitRows(t, '$11', '$12', '$14', '$15')}
    SELECT version, xmin FROM won`,
    // Privacy erasure: the commit above, plus the slot's existing log rows
    // rewritten in place, matched by position (version, seq order) with $11.
    eraseUpdate: `WITH won AS (
      UPDATE ${t.slots} SET version = $5, slot = $6::jsonb, updated_at = now()
      WHERE scope = $1 AND key = $2 AND subject = $3 AND version = $10 AND ${idsFree(t, '$14')} RETURNING version, slot
    ), ${commitRows(t, '$12', '$13', '$14', '$15')}, old_log AS (
      SELECT version, seq, row_number() OVER (ORDER BY version, seq) AS ord
      FROM ${t.log} WHERE scope = $1 AND slot_key = $2
    ), log_scrub AS (
      UPDATE ${t.log} AS l SET entry = x.value, rule = x.value->>'rule'
      FROM won, old_log AS o JOIN jsonb_array_elements($11::jsonb) WITH ORDINALITY AS x(value, ord) ON x.ord = o.ord
      WHERE l.scope = $1 AND l.slot_key = $2 AND l.version = o.version AND l.seq = o.seq
    )
    SELECT version FROM won`,
    // An entity registry: the slot row, and its entity rows when it was committed by its changes.
    // The entity count is taken from the document once (MATERIALIZED): a condition on the
    // document inside the entity subquery read the whole document again for every entity row.
    // Claims and conflicts kept as rows (`claimRows` in the document) come back in position order.
    loadRegistry: `WITH s AS MATERIALIZED (
        SELECT slot, xmin::text AS xmin, jsonb_typeof(slot->'entities') AS kind, (slot->'entities'->>'rows')::int AS n,
               (slot->>'claimRows')::int AS nc, (slot->>'conflictRows')::int AS nf
        FROM ${t.slots} WHERE scope = $1 AND key = $2 AND subject = chr(31) || 'entities'
      )
      SELECT s.slot, s.xmin, CASE WHEN s.kind = 'object' THEN (
        SELECT COALESCE(jsonb_agg(jsonb_build_object('at', e.pos, 'entity', e.data) ORDER BY e.pos), '[]'::jsonb)
        FROM ${t.entities} AS e WHERE e.scope = $1 AND e.registry = $3 AND e.pos < s.n) END AS entities,
      CASE WHEN s.nc IS NOT NULL THEN (
        SELECT COALESCE(jsonb_agg(c.claim ORDER BY c.pos), '[]'::jsonb)
        FROM ${t.claims} AS c WHERE c.scope = $1 AND c.slot_key = $2 AND c.pos IS NOT NULL AND c.pos < s.nc) END AS claims,
      CASE WHEN s.nf IS NOT NULL THEN (
        SELECT COALESCE(jsonb_agg(f.conflict ORDER BY f.pos), '[]'::jsonb)
        FROM ${t.conflicts} AS f WHERE f.scope = $1 AND f.slot_key = $2 AND f.pos IS NOT NULL AND f.pos < s.nf) END AS conflicts
      FROM s`,
    // commitRegistry: the slot row without entities, the claim, conflict and log rows, and the
    // changed entities ($11: [{ at, entity }]) as rows; a registry stored whole until now has
    // every entity moved to rows by the same statement. $12 is commitUpdate's $13.
    registryInsert: `WITH won AS (
      INSERT INTO ${t.slots} (scope, key, subject, predicate, version, slot)
      SELECT $1, $2, $3, $4, $5, $6::jsonb WHERE $10::bigint = 0
      ON CONFLICT (scope, key) DO NOTHING RETURNING version, slot, xmin::text AS xmin
    ), ${slotRows(t)}, ${registryRows(t, NONE)}, ${registryItemRows(t, '$12', '$13', NONE, NONE, 'true')}, detached AS (
      -- Rows a registry of this type left behind (its slot row deleted): not this one's.
      UPDATE ${t.entities} SET registry = NULL, pos = NULL FROM won
      WHERE scope = $1 AND registry = $4 AND NOT (id = ANY(SELECT x->'entity'->>'id' FROM jsonb_array_elements($11::jsonb) AS x))
    )
    SELECT version::text || ':' || xmin || ':' || (slot->>'generation') AS tag FROM won`,
    // A registry kept as rows keeps its generation; one moved over from a whole document (its
    // entities, or its claims and conflicts: $13 null or not) takes $6's.
    // `cur` takes what it needs from the stored document once: a condition on cur.slot itself
    // was evaluated per entity row, each time reading the whole (TOASTed) registry document,
    // which made a commit cost entities × document size (147 ms at 500 orgs and 1,300 open questions).
    registryUpdate: `WITH cur AS (
      SELECT jsonb_typeof(slot->'entities') AS kind, slot->'generation' AS generation,
             CASE WHEN jsonb_typeof(slot->'entities') = 'array' THEN slot->'entities' ELSE '[]'::jsonb END AS whole,
             (slot->'claimRows') IS NOT NULL AS item_rows,
             CASE WHEN jsonb_typeof(slot->'claims') = 'array' THEN slot->'claims' ELSE '[]'::jsonb END AS whole_claims,
             CASE WHEN jsonb_typeof(slot->'conflicts') = 'array' THEN slot->'conflicts' ELSE '[]'::jsonb END AS whole_conflicts
      FROM ${t.slots} WHERE scope = $1 AND key = $2 AND subject = $3
    ), won AS (
      UPDATE ${t.slots} AS s SET version = $5, updated_at = now(), slot = CASE
          WHEN cur.kind = 'object' AND jsonb_typeof(cur.generation) = 'string' AND cur.item_rows = ($13::jsonb IS NOT NULL)
          THEN $6::jsonb || jsonb_build_object('generation', cur.generation) ELSE $6::jsonb END
      FROM cur
      WHERE s.scope = $1 AND s.key = $2 AND s.subject = $3 AND s.version = $10 AND ($12::text IS NULL OR s.xmin::text = $12::text)
      RETURNING s.version, s.slot, s.xmin::text AS xmin
    ), ${slotRows(t)}, ${registryRows(t, `SELECT o.value, o.ord FROM cur, jsonb_array_elements(cur.whole) WITH ORDINALITY AS o(value, ord)`)}, ${registryItemRows(t, '$13', '$14',
      `SELECT o.value, o.ord FROM cur, jsonb_array_elements(cur.whole_claims) WITH ORDINALITY AS o(value, ord)`,
      `SELECT o.value, o.ord FROM cur, jsonb_array_elements(cur.whole_conflicts) WITH ORDINALITY AS o(value, ord)`,
      'NOT (SELECT item_rows FROM cur)')}, detached AS (
      -- Moved over from a registry stored whole: rows of entities it no longer holds are not its.
      UPDATE ${t.entities} SET registry = NULL, pos = NULL FROM won, cur
      WHERE scope = $1 AND registry = $4 AND cur.kind IS DISTINCT FROM 'object'
        AND NOT (id = ANY(SELECT x->'entity'->>'id' FROM jsonb_array_elements($11::jsonb) AS x))
        AND NOT (id = ANY(SELECT o->>'id' FROM jsonb_array_elements(cur.whole) AS o))
    )
    SELECT version::text || ':' || xmin || ':' || (slot->>'generation') AS tag FROM won`,
    // A registry's tag names its generation too (loadRegistryChanges answers only within one).
    registryTag: `SELECT version::text || ':' || xmin::text || ':' || COALESCE(generation, '') AS tag
      FROM ${t.slots} WHERE scope = $1 AND key = $2 AND subject = chr(31) || 'entities'`,
    // The registry now and the entity rows written after version $4, when it is kept as rows
    // of generation $5 and not older than $4 (else entities is null: read it whole).
    registryChanges: `WITH s AS MATERIALIZED (
        SELECT slot, version, xmin::text AS xmin, generation, jsonb_typeof(slot->'entities') AS kind, (slot->'entities'->>'rows')::int AS n,
               (slot->>'claimRows')::int AS nc, (slot->>'conflictRows')::int AS nf,
               jsonb_typeof(slot->'entities') = 'object' AND generation = $5 AND version >= $4 AS known
        FROM ${t.slots} WHERE scope = $1 AND key = $2 AND subject = chr(31) || 'entities'
      )
      SELECT s.slot, s.version::text || ':' || s.xmin || ':' || COALESCE(s.generation, '') AS tag,
      CASE WHEN s.known THEN (
        SELECT COALESCE(jsonb_agg(jsonb_build_object('at', e.pos, 'entity', e.data)), '[]'::jsonb)
        FROM ${t.entities} AS e WHERE e.scope = $1 AND e.registry = $3 AND e.ver > $4 AND e.pos < s.n) END AS entities,
      CASE WHEN s.known AND s.nc IS NOT NULL THEN (
        SELECT COALESCE(jsonb_agg(jsonb_build_object('at', c.pos, 'item', c.claim)), '[]'::jsonb)
        FROM ${t.claims} AS c WHERE c.scope = $1 AND c.slot_key = $2 AND c.pos IS NOT NULL AND c.ver > $4 AND c.pos < s.nc) END AS claims,
      CASE WHEN s.known AND s.nf IS NOT NULL THEN (
        SELECT COALESCE(jsonb_agg(jsonb_build_object('at', f.pos, 'item', f.conflict)), '[]'::jsonb)
        FROM ${t.conflicts} AS f WHERE f.scope = $1 AND f.slot_key = $2 AND f.pos IS NOT NULL AND f.ver > $4 AND f.pos < s.nf) END AS conflicts
      FROM s`,
    findClaim: `SELECT slot_key AS key, subject, predicate FROM ${t.claims} WHERE scope = $1 AND id = $2`,
    findConflict: `SELECT slot_key AS key, subject, predicate FROM ${t.conflicts} WHERE scope = $1 AND id = $2`,
    findWrite: `SELECT w.slot_key AS key, s.subject, s.predicate FROM ${t.writes} AS w
      JOIN ${t.slots} AS s ON s.scope = w.scope AND s.key = w.slot_key WHERE w.scope = $1 AND w.id = $2`,
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
