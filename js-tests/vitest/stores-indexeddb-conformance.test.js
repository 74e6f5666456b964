// The shared ClaimStore conformance suite on IndexedDbStore (fake-indexeddb in
// Node; the browser-specific cases run in Chromium from scripts/test-extra-browser.sh).
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { IndexedDbStore } from 'credence';
import { runStoreConformance } from '../conformance/store-conformance.js';

const indexedDB = new IDBFactory();

runStoreConformance('IndexedDbStore (fake-indexeddb)', async ({ scope }) => {
  const open = () => new IndexedDbStore('credence-conformance', { scope, indexedDB, IDBKeyRange });
  const store = open();
  const reopened = [];
  return {
    store,
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
});
