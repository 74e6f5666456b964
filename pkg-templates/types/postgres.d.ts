// declarations for stores/postgres.js

/** Anything that runs one SQL statement with positional parameters: pg.Pool, pg.Client, PGlite. */
export interface Queryable {
  query(text: string, values?: unknown[]): Promise<{ rows: any[] }>;
}

/** Table names, each optionally schema-qualified (`app.memory_claims`). */
export interface PostgresTables {
  slots?: string;
  claims?: string;
  conflicts?: string;
  log?: string;
  entities?: string;
  writes?: string;
  /** An entity's key rows (type, key, entity, name), for `findEntities`. */
  entityKeys?: string;
}

export interface PostgresStoreOptions {
  /** The tenant. Every row carries it and every query filters on it. */
  scope: string;
  tables?: PostgresTables;
  /**
   * Whether `queryable` is a pool whose `connect()` hands out clients with
   * `release()` (auto-detected). A pool runs each commit on a checked-out
   * client; a single connection is used by this store one statement at a time.
   */
  pool?: boolean;
  /**
   * Run the store's statements as named prepared statements (node-postgres's
   * `{ name, text, values }`): PostgreSQL parses and plans each once per
   * connection instead of once per call. Off by default: PGlite takes no
   * statement names, and PgBouncer in transaction mode (before 1.21's
   * `max_prepared_statements`) breaks them.
   */
  prepared?: boolean;
}

/** Idempotent DDL (CREATE ... IF NOT EXISTS) for the default table names. */
export declare const POSTGRES_SCHEMA: string;

/**
 * A ClaimStore in PostgreSQL. A commit is one atomic statement with a version check;
 * no dependency on `pg` at run time.
 *
 * ```js
 * const store = new PostgresStore(new pg.Pool(), { scope: 'tenant-42' });
 * await store.ensureSchema();
 * ```
 */
export declare class PostgresStore implements ClaimStore {
  constructor(queryable: Queryable, options: PostgresStoreOptions);
  /** The idempotent DDL for these table names. */
  static schema(tables?: PostgresTables): string;
  readonly scope: string;
  readonly tables: Required<PostgresTables>;
  /** Runs the DDL, one statement per query (and, once, the migration of entity registries kept as rows by an older version). */
  ensureSchema(): Promise<void>;
  loadSlot(ref: SlotRef): Promise<Slot | null>;
  commitSlot(commit: SlotCommit): Promise<boolean>;
  /** The key rows of entities of `type` whose key is one of `keys` (see `ClaimStore.findEntities`), in one query. */
  findEntities(query: { type: string; keys: string[] }): Promise<{ key: string; entity: string; name: string }[]>;
  findClaim(claimId: string): Promise<SlotRef | null>;
  findConflict(conflictId: string): Promise<SlotRef | null>;
  listSlots(filter?: { subject?: string }): Promise<SlotRef[]>;
  readLog(ref: SlotRef): Promise<LogEntry[]>;
  listConflicts(query: ConflictQuery): Promise<IndexedConflict[]>;
  dirtySlots(query: DirtyQuery): Promise<SlotRef[]>;
}
