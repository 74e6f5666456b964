
// ---- declarations for stores/indexeddb.js ----

/**
 * The page's IndexedDB factory and key-range class, typed as the DOM lib
 * types them when the consumer's tsconfig has that lib, and `unknown`
 * otherwise: a Node project type-checks this file without the DOM lib.
 */
type DomGlobal<K extends string> = typeof globalThis extends { [P in K]: infer T } ? T : unknown;

export interface IndexedDbStoreOptions {
  /** The tenant: nothing one scope writes is visible to another. Default "default". */
  scope?: string;
  /** The IndexedDB factory; defaults to `globalThis.indexedDB` (pass fake-indexeddb's in Node). */
  indexedDB?: DomGlobal<'indexedDB'>;
  /** The key-range class of that IndexedDB; defaults to `globalThis.IDBKeyRange` (pass fake-indexeddb's in Node). */
  IDBKeyRange?: DomGlobal<'IDBKeyRange'>;
  /** Handed to every readwrite transaction. Default "default" (the browser's choice). */
  durability?: 'default' | 'strict' | 'relaxed';
}

/**
 * A `ClaimStore` on IndexedDB, for pages and workers. Every commit is one
 * readwrite transaction over the slots, claims, conflicts and log object
 * stores that checks the slot version and writes everything or nothing, so
 * several tabs on one database never lose an update.
 *
 * ```js
 * import { Memory, IndexedDbStore } from 'credence';
 * const memory = new Memory({ store: new IndexedDbStore('my-app', { scope: 'alice' }) });
 * ```
 */
export declare class IndexedDbStore implements ClaimStore {
  constructor(name: string, options?: IndexedDbStoreOptions);
  readonly name: string;
  readonly scope: string;
  /** Closes the connection; the next call opens it again. */
  close(): void;
  loadSlot(ref: SlotRef): Promise<Slot | null>;
  commitSlot(commit: SlotCommit): Promise<boolean>;
  /** The key rows of entities of `type` whose key is one of `keys` (see `ClaimStore.findEntities`), in one readonly transaction. */
  findEntities(query: { type: string; keys: string[] }): Promise<{ key: string; entity: string; name: string }[]>;
  findClaim(claimId: string): Promise<SlotRef | null>;
  findConflict(conflictId: string): Promise<SlotRef | null>;
  listSlots(filter?: { subject?: string }): Promise<SlotRef[]>;
  readLog(ref: SlotRef): Promise<LogEntry[]>;
  listConflicts(query: ConflictQuery): Promise<IndexedConflict[]>;
  dirtySlots(query: DirtyQuery): Promise<SlotRef[]>;
}
