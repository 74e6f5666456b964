// The error classes every failure reaching JS is an instance of (SPEC §11).
// The wasm engine constructs them through `setErrorClasses`, so `instanceof`
// works for errors raised in Rust as well as here.

/** A failure with a stable `code` and, where one is at fault, the input `field`. */
export class CredenceError extends Error {
  constructor(message, { code = 'INTERNAL', field, cause } = {}) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'CredenceError';
    this.code = code;
    if (field !== undefined) this.field = field;
  }
}

/** A write lost its race too often, or an `expectedVersion` was stale. */
export class ConcurrencyError extends CredenceError {
  constructor(message, options = {}) {
    super(message, { ...options, code: 'CONCURRENCY' });
    this.name = 'ConcurrencyError';
  }
}

export function isCredenceError(value) {
  return value instanceof CredenceError;
}
