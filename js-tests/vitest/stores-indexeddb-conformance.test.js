// The shared ClaimStore conformance suite on IndexedDbStore (fake-indexeddb in
// Node; the browser-specific cases run in Chromium from scripts/test-extra-browser.sh).
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { afterEach, describe, expect, it } from 'vitest';
import { IndexedDbStore } from 'credence';
import { runStoreConformance } from 'credence/conformance';

// Vitest's test functions, for the suite (this repo's Vitest runs without globals).
const test = { describe, it, expect, afterEach };

const indexedDB = new IDBFactory();

/** Every record of every object store of the database, as JSON. */
function databaseBytes(name) {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(name);
    req.onerror = () => reject(req.error);
    req.onsuccess = () => {
      const db = req.result;
      const names = [...db.objectStoreNames];
      const tx = db.transaction(names, 'readonly');
      const parts = [];
      for (const n of names) {
        const all = tx.objectStore(n).getAll();
        all.onsuccess = () => parts.push(JSON.stringify(all.result));
      }
      tx.oncomplete = () => {
        db.close();
        resolve(parts.join('\n'));
      };
      tx.onerror = () => reject(tx.error);
    };
  });
}

runStoreConformance('IndexedDbStore (fake-indexeddb)', async ({ scope }) => {
  const open = () => new IndexedDbStore('credence-conformance', { scope, indexedDB, IDBKeyRange });
  const store = open();
  const reopened = [];
  return {
    store,
    raw: () => databaseBytes('credence-conformance'),
    reopen: () => {
      const s = open();
      reopened.push(s);
      return s;
    },
    teardown: () => {
      store.close();
      for (const s of reopened) s.close();
    },
  };
}, { test });
