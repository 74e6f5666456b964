// IndexedDbStore in Node, on fake-indexeddb, imported from the packed package.
// The same cases run in Chromium (js-tests/browser/e2e.test.mjs).
import { describe, it } from 'vitest';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import * as api from 'credence';
import { indexedDbCases } from '../browser/indexeddb-cases.js';

let n = 0;
const indexedDB = new IDBFactory();
const cases = indexedDbCases({ api, indexedDB, IDBKeyRange, freshName: () => `credence-vitest-${++n}` });

describe('IndexedDbStore (fake-indexeddb)', () => {
  for (const [name, run] of cases) it(name, run);
});
