// The store a scale worker measures, by kind: a fresh one per `name` (a bundle
// folder under `tmp`, an IndexedDB database, a PostgreSQL scope on DATABASE_URL),
// and `again` another store object on the same data (what another process or tab opens).
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { MemoryStore, OkfStore, IndexedDbStore, PostgresStore } from 'credence';

let pool = null;
const factories = new Map();

export async function openStore(kind, name, tmp, again = false) {
  if (kind === 'memory') return new MemoryStore();
  if (kind === 'okf') {
    const dir = path.join(tmp, `${name}-okf-${process.pid}`);
    if (!again) mkdirSync(dir, { recursive: true });
    return new OkfStore(dir);
  }
  if (kind === 'indexeddb') {
    const { IDBFactory, IDBKeyRange } = await import('fake-indexeddb');
    if (!again) factories.set(name, new IDBFactory());
    return new IndexedDbStore(name, { indexedDB: factories.get(name), IDBKeyRange });
  }
  if (kind === 'postgres') {
    const pg = (await import('pg')).default;
    pool ??= new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 4 });
    const store = new PostgresStore(pool, { scope: `${name}-${process.pid}` });
    if (!again) await store.ensureSchema();
    return store;
  }
  throw new Error(`unknown store ${kind}`);
}

/** Ends the PostgreSQL pool, if one was opened. */
export const closeStores = () => pool?.end();
