// The legacy-registry fixtures (js-tests/fixtures/legacy-registry: data written
// by main at 783f0e6, before entities had slots of their own) restored as they
// were, for the tests that open them with today's stores.
import { readFileSync } from 'node:fs';

const base = new URL('../fixtures/legacy-registry/', import.meta.url);

/** A fixture file, parsed. */
export const fixture = (path) => JSON.parse(readFileSync(new URL(path, base), 'utf8'));

const request = (req) => new Promise((resolve, reject) => {
  req.onsuccess = () => resolve(req.result);
  req.onerror = () => reject(req.error);
});

/** The dumped IndexedDB database as it was: its version, object stores, indexes and records. Answers its version. */
export async function restoreIndexedDb(indexedDB, name) {
  const { version, stores } = fixture('indexeddb/records.json');
  const open = indexedDB.open(name, version);
  open.onupgradeneeded = () => {
    for (const [store, { keyPath, autoIncrement, indexes }] of Object.entries(stores)) {
      const created = open.result.createObjectStore(store, { keyPath, autoIncrement });
      for (const i of indexes) created.createIndex(i.name, i.keyPath, { multiEntry: i.multiEntry, unique: i.unique });
    }
  };
  const db = await request(open);
  const tx = db.transaction(Object.keys(stores), 'readwrite');
  for (const [store, { keyPath, records }] of Object.entries(stores)) {
    for (const { key, value } of records) tx.objectStore(store).put(value, keyPath === null ? key : undefined);
  }
  await new Promise((resolve, reject) => {
    tx.oncomplete = resolve;
    tx.onabort = () => reject(tx.error);
  });
  db.close();
  return version;
}

/** The old PostgreSQL schema and every dumped row, into `db` (PGlite or a pg client). */
export async function restorePostgres(db) {
  await db.exec(readFileSync(new URL('postgres/schema.sql', base), 'utf8'));
  for (const [table, rows] of Object.entries(fixture('postgres/rows.json'))) {
    if (rows.length === 0) continue;
    const columns = Object.keys(rows[0]).join(', ');
    await db.query(`INSERT INTO ${table} (${columns}) SELECT ${columns} FROM jsonb_populate_recordset(NULL::${table}, $1::jsonb)`, [JSON.stringify(rows)]);
  }
}
