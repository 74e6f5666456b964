// Types of `credence/conformance`: the ClaimStore conformance suite, run
// against a store of your own under Vitest or Jest, and the builders of the
// hand-made slots and commits it drives stores with.
import type { Claim, ClaimStore, ConflictRecord, LogEntry, Slot, SlotCommit, SlotRef } from '../index.js';

/** What `setup` returns for one test: a store over a fresh scope, and how to close and reopen it. */
export interface ConformanceHandle {
  store: ClaimStore;
  /** Called after the test (close connections, remove temporary folders). */
  teardown?(): unknown;
  /** Another store object over the same data, as a second process would construct it (default: the same object). */
  reopen?(): ClaimStore;
  /** Everything the store holds as text (files, rows): checked to hold no erased text after `erase`. */
  raw?(): Promise<string> | string;
  /** Deletes derived index files, for a store that rebuilds them from its data. */
  dropIndexes?(): Promise<unknown> | unknown;
}

/** The test functions the suite defines its cases with; Vitest's and Jest's both fit. */
export interface ConformanceTestFunctions {
  describe(name: string, fn: () => void): unknown;
  it(name: string, fn: () => Promise<unknown>, timeout?: number): unknown;
  // Vitest's and Jest's `expect` differ in their types; the suite uses only matchers both have.
  expect: ((actual: any) => any) & { stringMatching(pattern: string | RegExp): any };
  afterEach(fn: () => Promise<unknown> | unknown): unknown;
}

export interface StoreConformanceOptions {
  /** The test functions (e.g. `{ describe, it, expect, afterEach }` from 'vitest'); default: the globals (Jest, or Vitest with `globals: true`). */
  test?: Partial<ConformanceTestFunctions>;
  /** Each case's time limit in ms (default 30000). */
  timeout?: number;
  /** `Memory` instances writing one slot at once in the concurrency case (default 4). */
  writers?: number;
  /** Writes they make between them (default 24). */
  writes?: number;
}

/**
 * Defines the conformance suite for a ClaimStore (SPEC §8) as a `describe`
 * block named after `name`. `setup` is called once per test with a fresh
 * scope name; stores it creates for different scopes must share their backing
 * (one database, one parent folder), so that isolation is really tested.
 *
 * ```js
 * import { describe, it, expect, afterEach } from 'vitest';
 * import { runStoreConformance } from 'credence/conformance';
 * runStoreConformance('MyStore', ({ scope }) => ({ store: new MyStore({ scope }) }), { test: { describe, it, expect, afterEach } });
 * ```
 */
export declare function runStoreConformance(
  name: string,
  setup: (context: { scope: string }) => ConformanceHandle | Promise<ConformanceHandle>,
  options?: StoreConformanceOptions,
): void;

/** A fixed time (ISO) the builders stamp records with. */
export declare const T0: string;
/** Values that are easy to mangle in YAML, markdown, JSON or SQL. */
export declare const AWKWARD: string[];
/** The ref of slot (subject, predicate). */
export declare function ref(subject: string, predicate: string): SlotRef;
/** An active claim of `user`'s `likes` (override any field with `over`). */
export declare function claim(id: string, object: string, over?: Partial<Claim>): Claim;
/** An open dispute between two claims. */
export declare function conflict(id: string, earlierId: string, newerId: string, over?: Partial<ConflictRecord>): ConflictRecord;
/** A log entry of `version`. */
export declare function entry(version: number, rule: string, claimIds: string[], note: string, over?: Partial<LogEntry>): LogEntry;
/** A slot document at `version`. */
export declare function slot(version: number, claims: Claim[], options?: { conflicts?: ConflictRecord[]; writes?: Slot['writes']; reviewed?: number }): Slot;
/** A commit of `next` to `ref` expecting `expectedVersion` (changed ids and log derived unless given). */
export declare function commit(
  ref: SlotRef,
  expectedVersion: number,
  next: Slot,
  options?: { changedClaims?: string[]; changedConflicts?: string[]; log?: LogEntry[] },
): SlotCommit;
/** Drops undefined fields and sorts keys, so snapshots compare by content. */
export declare function normalize<T>(value: T): T;
/**
 * A plain object forwarding every ClaimStore method of `inner` (a store
 * "behind a JS object"); `over` replaces or adds methods, and a method named
 * in `without` is left out (e.g. `eraseSlot`, to test a store without it).
 */
export declare function delegating(inner: ClaimStore, over?: Partial<ClaimStore> & Record<string, unknown>, options?: { without?: string[] }): ClaimStore;
