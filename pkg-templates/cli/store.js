// Which store the CLI and the MCP server use, from the environment:
//
//   CREDENCE_STORE_MODULE  a module whose default export is `(env) => ClaimStore`
//                          (or a Promise of one): bring your own store
//   CREDENCE_BUNDLE_DIR    an OkfStore markdown bundle in that directory
//   DATABASE_URL           a PostgresStore on a `pg.Pool` (install `pg` yourself),
//                          scoped by CREDENCE_SCOPE (default "default");
//                          with a bundle, CREDENCE_SCOPE names its scopes/<scope>/
//   (none of these)        an OkfStore bundle under ~/.credence/bundle
//
// An explicit bundle directory wins over DATABASE_URL, which is often set for
// other programs. Failures to open a store are `SetupError`s (exit code 4).
import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { OkfStore, PostgresStore, POSTGRES_SCHEMA } from '../index.node.js';
import { SetupError } from './exit.js';

/** The default bundle directory: `~/.credence/bundle`. */
export function defaultBundleDir() {
  return join(homedir(), '.credence', 'bundle');
}

/**
 * Opens the store the environment names.
 * @returns {Promise<{ store: object, label: string, close: () => Promise<void> }>}
 */
export async function openStore(env = process.env) {
  if (env.CREDENCE_STORE_MODULE) return openModule(env.CREDENCE_STORE_MODULE, env);
  if (env.CREDENCE_BUNDLE_DIR) return openBundle(env.CREDENCE_BUNDLE_DIR, env.CREDENCE_SCOPE);
  if (env.DATABASE_URL) return openPostgres(env.DATABASE_URL, env.CREDENCE_SCOPE || 'default');
  return openBundle(defaultBundleDir(), env.CREDENCE_SCOPE);
}

async function openModule(spec, env) {
  const path = isAbsolute(spec) ? spec : resolve(spec);
  let mod;
  try {
    mod = await import(pathToFileURL(path).href);
  } catch (err) {
    throw new SetupError(`CREDENCE_STORE_MODULE: cannot load ${path}: ${err.message}`, { cause: err });
  }
  if (typeof mod.default !== 'function') {
    throw new SetupError(`CREDENCE_STORE_MODULE: ${path} must export a default function (env) => ClaimStore`);
  }
  const store = await mod.default(env);
  return { store, label: `module ${path}`, close: async () => store.close?.() };
}

/** A bundle, or with CREDENCE_SCOPE one tenant's part of it (`<dir>/scopes/<scope>/`). */
async function openBundle(dir, scope) {
  const path = resolve(dir);
  try {
    mkdirSync(path, { recursive: true });
    const store = scope ? new OkfStore(path, { scope }) : new OkfStore(path);
    return { store, label: scope ? `bundle ${path}, scope ${scope}` : `bundle ${path}`, close: async () => store.close?.() };
  } catch (err) {
    throw new SetupError(`cannot open the bundle at ${path}: ${err.message}`, { cause: err });
  }
}

async function openPostgres(url, scope) {
  let pg;
  try {
    pg = (await import('pg')).default;
  } catch (err) {
    throw new SetupError("DATABASE_URL is set but the 'pg' package is not installed next to credence: run `npm install pg`", { cause: err });
  }
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  // An idle pooled connection cut by the server (a restart, a failover, an
  // idle timeout) is dropped by the pool, which then emits 'error'; unheard,
  // that event would end a long-running `credence mcp`. The next query opens
  // a new connection; a write that fails meanwhile is a STORE_FAILED result.
  pool.on('error', (err) => {
    process.stderr.write(`credence: a pooled PostgreSQL connection was lost (${err.message}); reconnecting on the next query\n`);
  });
  try {
    if (POSTGRES_SCHEMA) await createSchema(pool);
    const store = new PostgresStore(pool, { scope });
    return { store, label: `postgres (scope ${scope})`, close: () => pool.end() };
  } catch (err) {
    await pool.end().catch(() => {});
    throw new SetupError(`cannot open the Postgres store: ${err.message}`, { cause: err });
  }
}

// The schema is idempotent, but two processes creating it at once can still
// collide on the catalog; the loser finds the tables made by the winner.
async function createSchema(pool) {
  try {
    await pool.query(POSTGRES_SCHEMA);
  } catch (err) {
    if (err.code !== '23505' && err.code !== '42P07') throw err;
  }
}
