// Exit codes scripts can rely on (also listed by `credence help`):
import { CredenceError } from '../index.node.js';

export const EXIT = Object.freeze({
  OK: 0, //          done
  CREDENCE: 1, //    the engine refused: a CredenceError (bad input, unknown id, …)
  USAGE: 2, //       bad command line, or --interactive without a terminal
  CONCURRENCY: 3, // a stale --expected-version, or the write lost its race too often: retry
  SETUP: 4, //       the store could not be opened, or the judge/LLM endpoint failed
  REJECTED: 5, //    strategy "reject" found a different value: nothing written
  INTERRUPTED: 130, // Ctrl-C at a prompt
});

export const EXIT_HELP = `Exit codes:
  0  done
  1  the engine refused (a CredenceError: bad input, unknown id, already settled, …)
  2  usage error, or --interactive without a terminal
  3  concurrency: stale --expected-version, or too many lost races; retry
  4  setup: the store could not be opened, or the judge/LLM endpoint failed
  5  strategy "reject" found a different value; nothing was written`;

/** A bad command line (exit 2). */
export class UsageError extends Error {
  constructor(message) {
    super(message);
    this.name = 'UsageError';
    this.code = 'USAGE';
  }
}

/** The environment is not usable: store, module, endpoint (exit 4). */
export class SetupError extends Error {
  constructor(message, options) {
    super(message, options);
    this.name = 'SetupError';
    this.code = 'SETUP';
  }
}

export function exitCodeFor(err) {
  if (err instanceof UsageError) return EXIT.USAGE;
  if (err instanceof CredenceError) return err.code === 'CONCURRENCY' ? EXIT.CONCURRENCY : EXIT.CREDENCE;
  return EXIT.SETUP;
}

/** `{ code, field?, message }` for --json output and MCP tool errors. */
export function errorJson(err) {
  const out = { code: err?.code ?? 'INTERNAL', message: err?.message ?? String(err) };
  if (err?.field !== undefined) out.field = err.field;
  return out;
}
