// declarations for stores/okf.js

export interface OkfStoreOptions {
  /** A tenant: the bundle then lives in `<dir>/scopes/<scope>/`. Letters, digits, `.`, `_`, `-`. */
  scope?: string;
  /** How long a commit waits for a slot's lock file before failing (default 10000 ms). */
  lockTimeoutMs?: number;
  /** Age after which a lock held by a live or remote process is considered abandoned (default 30000 ms). */
  staleLockMs?: number;
}

/**
 * A ClaimStore in a directory of markdown files (Node only): `claims/*.md` (one
 * file per slot, YAML front matter + a readable body) and an append-only
 * `log.md`. The files are the source of truth; writes are atomic
 * and safe across processes. A hand-broken file fails with a CredenceError
 * (`MALFORMED_STORE_DATA`) naming it.
 *
 * ```js
 * const memory = new Memory({ store: new OkfStore('./memory') });
 * ```
 */
export declare class OkfStore implements ClaimStore {
  constructor(dir: string, options?: OkfStoreOptions);
  /** The bundle directory (absolute). */
  readonly dir: string;
  loadSlot(ref: SlotRef): Promise<Slot | null>;
  commitSlot(commit: SlotCommit): Promise<boolean>;
  findClaim(claimId: string): Promise<SlotRef | null>;
  findConflict(conflictId: string): Promise<SlotRef | null>;
  /** Key rows of entities of `query.type` by key (see `ClaimStore.findEntities`), kept in each entity's slot file. */
  findEntities(query: { type: string; keys: string[] }): Promise<EntityKeyRow[]>;
  listSlots(filter?: { subject?: string }): Promise<SlotRef[]>;
  readLog(ref: SlotRef): Promise<LogEntry[]>;
  listConflicts(query: ConflictQuery): Promise<IndexedConflict[]>;
  dirtySlots(query: DirtyQuery): Promise<SlotRef[]>;
}
