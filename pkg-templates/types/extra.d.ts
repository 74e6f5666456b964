
// ---- hand-written declarations (what tsify cannot express) ----

export type CredenceErrorCode =
  | 'INVALID_INPUT'
  | 'INVALID_STRATEGY'
  | 'INVALID_TIME'
  | 'CONCURRENCY'
  | 'STORE_FAILED'
  | 'MALFORMED_STORE_DATA'
  | 'MERGE_HOOK_MISSING'
  | 'HOOK_FAILED'
  | 'CONFLICT_NOT_FOUND'
  | 'CONFLICT_ALREADY_SETTLED'
  | 'CONFLICT_NOT_SETTLED'
  | 'UNDO_STALE'
  | 'RANDOM_SOURCE_FAILED'
  | 'INVALID_SETTLEMENT'
  | 'CLAIM_NOT_FOUND'
  | 'JUDGE_MISSING'
  | 'CLAIM_NOT_LIVE'
  | 'STORE_V1';

/** Every failure reaching JS is a CredenceError with a stable `code`. */
export declare class CredenceError extends Error {
  constructor(message: string, options?: { code?: CredenceErrorCode | string; field?: string; cause?: unknown });
  readonly name: 'CredenceError' | 'ConcurrencyError';
  readonly code: CredenceErrorCode;
  /** The input field or id at fault, when there is one. */
  readonly field?: string;
  readonly cause?: unknown;
}

export declare class ConcurrencyError extends CredenceError {
  readonly code: 'CONCURRENCY';
}

export declare function isCredenceError(value: unknown): value is CredenceError;

/**
 * Wraps a store written against ClaimStore v1 (no `listConflicts`/`dirtySlots`)
 * so the engine accepts it. The adapter answers by loading every slot: correct,
 * but `conflicts()` and `review()` then slow down as the store grows.
 */
export declare function adaptV1Store(store: Omit<ClaimStore, 'listConflicts' | 'dirtySlots'>): ClaimStore;

/** Options of `memory.entity(idOrName, options?)`. */
export interface EntityOptions {
  /** The entity type a name is resolved in (`org`, `person`, …); not needed for an entity id. */
  type?: string;
}
