// The store a scale worker measures, by kind: a fresh one per `name` (a bundle
// folder under `tmp`, an IndexedDB database, a PostgreSQL scope on DATABASE_URL
// or in one in-process PGlite database), and `again` another store object on
// the same data (what another process or tab opens).
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Memory, MemoryStore, OkfStore, IndexedDbStore, POSTGRES_SCHEMA, PostgresStore } from 'credence';

let pool = null;
let pglite = null;
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
  if (kind === 'pglite') {
    if (!pglite) {
      const { PGlite } = await import('@electric-sql/pglite');
      pglite = new PGlite();
      await pglite.waitReady;
      await pglite.exec(POSTGRES_SCHEMA);
    }
    const store = new PostgresStore(pglite, { scope: name });
    if (!again) await store.ensureSchema();
    return store;
  }
  throw new Error(`unknown store ${kind}`);
}

/** Ends the PostgreSQL pool and closes PGlite, if opened. */
export async function closeStores() {
  await pool?.end();
  await pglite?.close();
}

/**
 * The slots a template written by the engine holds, each as JSON text
 * `{ ref, slot, log, index }` for copies through commitSlot. The engine writes
 * through a plain JS store around a MemoryStore, so each commit arrives with the
 * index the engine sends every JS store, and `index` is the last one of its
 * slot: an entity slot's copy needs its key rows (`index.entity`), which only
 * the engine derives.
 */
export async function templateSlots(candidates) {
  const inner = new MemoryStore();
  const indexes = new Map();
  const store = {};
  for (const m of ['loadSlot', 'findClaim', 'findConflict', 'findWrite', 'listSlots', 'readLog', 'eraseSlot', 'listConflicts', 'dirtySlots']) store[m] = (...args) => inner[m](...args);
  store.commitSlot = async (commit) => {
    const ok = await inner.commitSlot(commit);
    if (ok) indexes.set(commit.ref.key, commit.index);
    return ok;
  };
  const memory = new Memory({ store });
  await memory.rememberMany(candidates);
  await memory.idle(); // a background calibration, if one became due
  const slots = [];
  for (const ref of await inner.listSlots({})) {
    slots.push(JSON.stringify({ ref, slot: await inner.loadSlot(ref), log: await inner.readLog(ref), index: indexes.get(ref.key) }));
  }
  return slots;
}
