//! The binding layer: the only module that knows about JavaScript. It converts
//! values, bridges JS stores and hooks to the core's traits, and turns core
//! errors into `CredenceError`s. No reconciliation logic lives here.

mod bridge;
mod convert;
mod errors;
mod headroom;
mod memory;
mod memory_store;
mod calibrate;
mod erase;
mod predicates;
mod retract;

pub use memory::{reconcile, upgrade_blob, Memory};
pub use calibrate::set_turn;
pub use convert::set_stringify;
pub use errors::set_error_classes_for_tests;
pub use memory_store::MemoryStore;

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_INTERFACES: &'static str = r#"
/**
 * Persistence supplied by JavaScript (SPEC §8). Every method may return a value
 * or a Promise. A store is scoped to one tenant.
 *
 * - `loadSlot` returns the slot's snapshot, or null/undefined when empty (version 0).
 * - `commitSlot` applies `commit` atomically if and only if the slot is still at
 *   `commit.expectedVersion`; it resolves `true` when written and `false` (having
 *   changed nothing) when another writer got there first. `commit.slot` is the
 *   complete new state; `changedClaims`/`changedConflicts` name what differs;
 *   `log` entries are appended.
 * - `findClaim` / `findConflict` map an id to the slot holding it.
 * - `listSlots` lists every slot (or one subject's), ordered by key.
 * - `readLog` returns a slot's log, oldest first.
 * - `eraseSlot` (optional) is `commitSlot` that also rewrites the slot's log, for `erase`.
 *
 * Interface v2 — answers from indexes the store keeps in the same atomic step
 * as `commitSlot`, so no call's cost grows with the store:
 * - `commit.index` carries the slot's index rows: every conflict `{ id, status,
 *   openedAt }` (upsert by id) and `unreviewed` (the slot has entries the
 *   review pass has not seen: keep it in a "dirty" set, drop it when false).
 * - `listConflicts({ status, after?, limit })` returns conflicts with that
 *   status as `{ id, status, openedAt, ref }`, ordered by (openedAt, id),
 *   starting strictly after the cursor `after: { openedAt, id }`, at most `limit`.
 * - `dirtySlots({ after?, limit })` returns the dirty slots' refs ordered by
 *   key, starting strictly after the key `after`, at most `limit`.
 * - `listSlots({ subject })` must answer from an index of the subject's slots.
 *
 * A store without `listConflicts`/`dirtySlots` (v1) is refused with
 * `STORE_V1`; `adaptV1Store(store)` wraps one by scanning every slot.
 */
export interface ClaimStore {
  loadSlot(ref: SlotRef): Promise<Slot | null | undefined> | Slot | null | undefined;
  commitSlot(commit: SlotCommit): Promise<boolean> | boolean;
  findClaim(claimId: string): Promise<SlotRef | null | undefined> | SlotRef | null | undefined;
  findConflict(conflictId: string): Promise<SlotRef | null | undefined> | SlotRef | null | undefined;
  /**
   * Optional: the slot a candidate id (idempotency key) was written to. A store
   * with it keeps an index of ids in the same atomic step as `commitSlot`:
   * `commit.index.writes` lists the ids a commit records (index each to the
   * commit's slot; refuse the whole commit, answering `false` and changing
   * nothing, when one is indexed to another slot), `commit.index.droppedWrites`
   * those whose records it drops (remove their rows that name this slot). Then
   * an id written once changes memory once whatever slot it is sent to again;
   * without it an id is idempotent within its slot only.
   */
  findWrite?(writeId: string): Promise<SlotRef | null | undefined> | SlotRef | null | undefined;
  listSlots(filter: { subject?: string }): Promise<SlotRef[]> | SlotRef[];
  readLog(ref: SlotRef): Promise<LogEntry[]> | LogEntry[];
  /**
   * Privacy erasure (optional; `memory.erase` refuses without it): like
   * `commitSlot`, and in the same atomic step the slot's stored log is
   * replaced by `log` (the same entries in order, scrubbed) before
   * `commit.log` is appended. Nothing of the replaced text may remain.
   */
  eraseSlot?(commit: SlotCommit, log: LogEntry[]): Promise<boolean> | boolean;
  listConflicts(query: ConflictQuery): Promise<IndexedConflict[]> | IndexedConflict[];
  dirtySlots(query: DirtyQuery): Promise<SlotRef[]> | SlotRef[];
  /**
   * Optional: the load of a write, which may come from a snapshot the store
   * holds (`held: true`) instead of its backend — one round trip saved per
   * write. A held snapshot must be a version the slot really had, as loaded
   * or committed. It may be stale: `commitSlot` refuses it by version (so a
   * version must never name two contents), and the engine loads again with
   * `loadSlot` before it answers anything it does not commit.
   */
  loadSlotToWrite?(ref: SlotRef): Promise<{ slot: Slot | null | undefined; held: boolean }> | { slot: Slot | null | undefined; held: boolean };
  /**
   * Entities by key: every key row of an entity of `query.type` whose key is
   * one of `query.keys` (any order). The rows come with each commit of an
   * entity slot (subject "\u001fentity", predicate the entity id):
   * `commit.index.entity = { type, id, keys: [{ key, name }] }` replaces every
   * row of that entity, in the same atomic step as the commit. Optional: a
   * store without it is answered by loading every entity slot (slower as
   * the store grows).
   */
  findEntities?(query: { type: string; keys: string[] }): Promise<EntityKeyRow[]> | EntityKeyRow[];
}

/** Consolidates the active entries (oldest first) with the incoming one. */
export type MergeHook = (
  entries: Claim[],
  incoming: Claim,
) => Promise<string | MergeResult> | string | MergeResult;

/** The two judge calls of the review pass. */
export interface Judge {
  findPairs(claimsOldestFirst: Claim[]): Promise<PairRef[]> | PairRef[];
  confirmPair(earlier: Claim, newer: Claim): Promise<PairVerdict> | PairVerdict;
}

export interface MemoryConfig extends EngineConfig {
  /** Defaults to a fresh in-memory store. */
  store?: ClaimStore;
  merge?: MergeHook;
  judge?: Judge;
  /** The clock: an ISO string, a Date or epoch milliseconds. Defaults to Date.now. */
  now?: () => string | Date | number;
}

export interface ReviewOptions { judge?: Judge; budget?: number }
export interface SettleOptions { by?: string }
export interface SubjectOptions { subject?: string }
export interface ConflictsOptions { status?: ConflictStatus }
"#;
