// The store a scale worker measures, by kind: a fresh one per `name` (a bundle
// folder under `tmp`, an IndexedDB database, a PostgreSQL scope on DATABASE_URL).
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { MemoryStore, OkfStore, IndexedDbStore, PostgresStore } from 'credence';

let pool = null;

export async function openStore(kind, name, tmp) {
  if (kind === 'memory') return new MemoryStore();
  if (kind === 'okf') {
    const dir = path.join(tmp, `${name}-okf-${process.pid}`);
    mkdirSync(dir, { recursive: true });
    return new OkfStore(dir);
  }
  if (kind === 'indexeddb') {
    const { IDBFactory, IDBKeyRange } = await import('fake-indexeddb');
    return new IndexedDbStore(name, { indexedDB: new IDBFactory(), IDBKeyRange });
  }
  if (kind === 'postgres') {
    const pg = (await import('pg')).default;
    pool ??= new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 4 });
    const store = new PostgresStore(pool, { scope: `${name}-${process.pid}` });
    await store.ensureSchema();
    return store;
  }
  throw new Error(`unknown store ${kind}`);
}

/** Ends the PostgreSQL pool, if one was opened. */
export const closeStores = () => pool?.end();
