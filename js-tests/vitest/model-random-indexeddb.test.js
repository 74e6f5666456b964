// The model-based random test on IndexedDbStore over fake-indexeddb
// (js-tests/lib/model-stores.mjs); real IndexedDB in Chromium is
// scripts/test-extra-browser.sh's.
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { IndexedDbStore } from 'credence';
import { storeModelTest } from '../lib/model-stores.mjs';

const idb = new IDBFactory();
storeModelTest('IndexedDbStore (fake-indexeddb)', (i) => new IndexedDbStore('credence-model', { scope: `t${i}`, indexedDB: idb, IDBKeyRange }));
