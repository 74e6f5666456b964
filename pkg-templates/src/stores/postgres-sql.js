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
    // (scope, subject, key): a subject's slots in key order, and one slot by (scope, key, subject)
    // whatever plan the statistics choose — every entity slot shares one subject, so an index
    // on (scope, subject) alone made loading one of 10,000 entities a 10,000-row filter.
    `CREATE INDEX IF NOT EXISTS ${bare(t.slots)}_subject_key_idx ON ${t.slots} (scope, subject, key COLLATE "C")`,
    `DROP INDEX IF EXISTS ${bare(t.slots)}_subject_idx`,
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
    // Candidate ids (idempotency keys) → the slot each was written to: an id
    // changes memory once, whatever slot it is sent to again (SPEC §8).
    `CREATE TABLE IF NOT EXISTS ${t.writes} (
  scope    text NOT NULL,
  id       text NOT NULL,
  slot_key text NOT NULL,
  PRIMARY KEY (scope, id)
)`,
    // An entity's key rows (findEntities), replaced by each commit of its slot. No primary key:
    // a commit deletes the entity's rows and inserts the new ones in one statement, whose parts
    // do not see each other's rows. Keys are found by their md5 (a key may be too long for a
    // btree entry) and compared whole.
    `CREATE TABLE IF NOT EXISTS ${t.entityKeys} (
  scope  text NOT NULL,
  type   text NOT NULL,
  key    text NOT NULL,
  entity text NOT NULL,
  name   text NOT NULL
)`,
    `CREATE INDEX IF NOT EXISTS ${bare(t.entityKeys)}_key_idx ON ${t.entityKeys} (scope, type, md5(key))`,
    `CREATE INDEX IF NOT EXISTS ${bare(t.entityKeys)}_entity_idx ON ${t.entityKeys} (scope, entity)`,
    registryMigration(t),
  ];
}

/**
 * The migration from entity registries kept as rows by position (versions
 * up to main 783f0e6: `"entities": {"rows": n}` in the slot row, the entities
 * in the entities table by registry and pos, a registry's claims and
 * conflicts by pos when the slot row says `claimRows`): each such registry's
 * slot row gets them back whole, in position order, and the columns that
 * kept them (registry, pos, ver; the slots' generated `generation`) go. Runs
 * once, under an advisory lock, when the entities table still has `pos`;
 * a no-op after. Processes of the older version must be stopped first: they
 * write those columns.
 */
function registryMigration(t) {
  const has = (table, column) => `EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass('${table}') AND attname = '${column}' AND NOT attisdropped)`;
  const rows = (table, column, key, count) => `(SELECT COALESCE(jsonb_agg(r.${column} ORDER BY r.pos), '[]'::jsonb) FROM ${table} AS r
        WHERE r.scope = s.scope AND ${key} AND r.pos IS NOT NULL AND r.pos < (s.slot->>'${count}')::int)`;
  return `DO $credence_registry_migration$
BEGIN
  IF NOT ${has(t.entities, 'pos')} THEN RETURN; END IF;
  PERFORM pg_advisory_xact_lock(hashtext('credence registry rows ${t.slots}'));
  IF NOT ${has(t.entities, 'pos')} THEN RETURN; END IF;
  IF ${has(t.claims, 'pos')} THEN
    UPDATE ${t.slots} AS s SET slot = (s.slot - 'claimRows' - 'conflictRows') || jsonb_build_object(
        'claims', ${rows(t.claims, 'claim', 'r.slot_key = s.key', 'claimRows')},
        'conflicts', ${rows(t.conflicts, 'conflict', 'r.slot_key = s.key', 'conflictRows')})
      WHERE s.subject = chr(31) || 'entities' AND s.slot ? 'claimRows';
  END IF;
  UPDATE ${t.slots} AS s SET slot = (s.slot - 'generation') || jsonb_build_object('entities',
      (SELECT COALESCE(jsonb_agg(r.data ORDER BY r.pos), '[]'::jsonb) FROM ${t.entities} AS r
        WHERE r.scope = s.scope AND r.registry = s.predicate AND r.pos IS NOT NULL AND r.pos < (s.slot->'entities'->>'rows')::int))
    WHERE s.subject = chr(31) || 'entities' AND jsonb_typeof(s.slot->'entities') = 'object';
  ALTER TABLE ${t.entities} DROP COLUMN IF EXISTS registry, DROP COLUMN IF EXISTS pos, DROP COLUMN IF EXISTS ver;
  ALTER TABLE ${t.claims} DROP COLUMN IF EXISTS pos, DROP COLUMN IF EXISTS ver;
  ALTER TABLE ${t.conflicts} DROP COLUMN IF EXISTS pos, DROP COLUMN IF EXISTS ver;
  ALTER TABLE ${t.slots} DROP COLUMN IF EXISTS generation;
END
$credence_registry_migration$`;
}

/**
 * The row writes of a commit, each joined to the slot CAS (`won`). An entity
 * slot (subject chr(31) + "entity", predicate = the entity id) also keeps its
 * row of the entities table in step, and its key rows (`entity`: the
 * commit's index.entity as jsonb, or null) replaced.
 */
function commitRows(t, writes, dropped, entity) {
  return `${slotRows(t)}, ${entityRows(t)}, ${entityKeyRows(t, entity)}, ${writeRows(t, writes, dropped)}`;
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

/** An entity slot's row of the entities table, for SQL readers: written when it changed, removed when the slot holds it no more. */
function entityRows(t) {
  return `entities_up AS (
      INSERT INTO ${t.entities} (scope, id, type, name, aliases, data)
      SELECT $1, e->>'id', e->>'type', e->>'name', COALESCE(e->'aliases', '[]'::jsonb), e
      FROM won, jsonb_array_elements(COALESCE(won.slot->'entities', '[]'::jsonb)) AS e
      WHERE $3 = chr(31) || 'entity'
      ON CONFLICT (scope, id) DO UPDATE SET type = EXCLUDED.type, name = EXCLUDED.name,
        aliases = EXCLUDED.aliases, data = EXCLUDED.data, updated_at = now()
      WHERE ${t.entities}.data IS DISTINCT FROM EXCLUDED.data
    ), entities_gone AS (
      DELETE FROM ${t.entities} AS d USING won
      WHERE d.scope = $1 AND $3 = chr(31) || 'entity' AND d.id = $4
        AND NOT COALESCE(won.slot->'entities', '[]'::jsonb) @> jsonb_build_array(jsonb_build_object('id', d.id))
    )`;
}

/**
 * An entity slot's key rows (see commitRows): every row of the entity
 * deleted and its keys inserted, when the commit carries them. The two parts
 * see the same snapshot, so the delete never meets the rows just inserted.
 */
function entityKeyRows(t, entity) {
  return `entity_keys_gone AS (
      DELETE FROM ${t.entityKeys} AS d USING won
      WHERE d.scope = $1 AND ${entity}::jsonb IS NOT NULL AND d.entity = ${entity}::jsonb->>'id'
    ), entity_keys_up AS (
      INSERT INTO ${t.entityKeys} (scope, type, key, entity, name)
      SELECT $1, ${entity}::jsonb->>'type', k->>'key', ${entity}::jsonb->>'id', k->>'name'
      FROM won, jsonb_array_elements(COALESCE(${entity}::jsonb->'keys', '[]'::jsonb)) AS k
    )`;
}

export function sql(t) {
  return {
    // xmin::text: with the version, what a held snapshot's commit compares (see loadSlotToWrite).
    // `subject = $3` with the key: a tenant growing faster than ANALYZE runs gets plans from
    // stats that think its scope holds no rows, and the planner then took (scope, subject)
    // for scope alone and filtered every slot of the scope by key (1.5 ms at 10,000 slots).
    load: `SELECT slot, xmin::text AS xmin FROM ${t.slots} WHERE scope = $1 AND key = $2 AND subject = $3`,
    // A commit is ONE statement (data-modifying CTEs run atomically, in one
    // snapshot): the compare-and-set on the slot row, then the claim,
    // conflict and log rows, each joined to the CAS's RETURNING so that a lost
    // race (no row) writes nothing. One round trip instead of five
    // (BEGIN, slot, claims, log, COMMIT): round trips dominate a write.
    // The changed claim and conflict rows are taken from the slot document
    // the CAS returned, by id, so they cross the wire once.
    // $1 scope, $2 key, $3 subject, $4 predicate, $5 new version, $6 slot,
    // $7 changed claim ids, $8 changed conflict ids, $9 log entries; then commitInsert's
    // $10/$11 and the others' $12/$13 are the candidate ids the commit records and drops,
    // and $12 / $14 an entity slot's key rows (index.entity as jsonb) or null.
    // commitUpdate's and eraseUpdate's $10 is the expected version; commitUpdate's $11 the
    // xmin the slot was read at, or null (the version alone), eraseUpdate's the scrubbed log.
    commitInsert: `WITH won AS (
      INSERT INTO ${t.slots} (scope, key, subject, predicate, version, slot)
      SELECT $1, $2, $3, $4, $5, $6::jsonb WHERE ${idsFree(t, '$10')}
      ON CONFLICT (scope, key) DO NOTHING RETURNING version, slot, xmin::text AS xmin
    ), ${commitRows(t, '$10', '$11', '$12')}
    SELECT version, xmin FROM won`,
    commitUpdate: `WITH won AS (
      UPDATE ${t.slots} SET version = $5, slot = $6::jsonb, updated_at = now()
      WHERE scope = $1 AND key = $2 AND subject = $3 AND version = $10 AND ($11::text IS NULL OR xmin::text = $11::text)
        AND ${idsFree(t, '$12')}
      RETURNING version, slot, xmin::text AS xmin
    ), ${commitRows(t, '$12', '$13', '$14')}
    SELECT version, xmin FROM won`,
    // Privacy erasure: the commit above, plus the slot's existing log rows
    // rewritten in place, matched by position (version, seq order) with $11.
    eraseUpdate: `WITH won AS (
      UPDATE ${t.slots} SET version = $5, slot = $6::jsonb, updated_at = now()
      WHERE scope = $1 AND key = $2 AND subject = $3 AND version = $10 AND ${idsFree(t, '$12')} RETURNING version, slot
    ), ${commitRows(t, '$12', '$13', '$14')}, old_log AS (
      SELECT version, seq, row_number() OVER (ORDER BY version, seq) AS ord
      FROM ${t.log} WHERE scope = $1 AND slot_key = $2
    ), log_scrub AS (
      UPDATE ${t.log} AS l SET entry = x.value, rule = x.value->>'rule'
      FROM won, old_log AS o JOIN jsonb_array_elements($11::jsonb) WITH ORDINALITY AS x(value, ord) ON x.ord = o.ord
      WHERE l.scope = $1 AND l.slot_key = $2 AND l.version = o.version AND l.seq = o.seq
    )
    SELECT version FROM won`,
    // $2 the entity type, $3 the keys: by md5 through the index (ARRAY(...) is computed
    // once, so the index is probed with every hash), then compared whole.
    findEntities: `SELECT key, entity, name FROM ${t.entityKeys}
      WHERE scope = $1 AND type = $2 AND md5(key) = ANY(ARRAY(SELECT md5(k) FROM unnest($3::text[]) AS k)) AND key = ANY($3::text[])`,
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
