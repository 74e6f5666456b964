// Node entry (bundled to index.cjs; index.node.js re-exports it for `import`,
// so `import` and `require` share one wasm instance and one set of classes).
import * as wasm from './node/credence.cjs';
import { CredenceError, ConcurrencyError, isCredenceError } from './errors.js';
import { stringify } from './json.js';
import { strictMemoryStore } from './options.js';
import { turnIfDue } from './turn.js';

wasm.setErrorClasses(CredenceError, ConcurrencyError);
wasm.setStringify(stringify);
wasm.setTurn(turnIfDue);

export const Memory = wasm.Memory;
export const MemoryStore = strictMemoryStore(wasm.MemoryStore);
export const reconcile = wasm.reconcile;
export const upgradeBlob = wasm.upgradeBlob;
export const builtinPredicates = wasm.builtinPredicates;
export { CredenceError, ConcurrencyError, isCredenceError };

// Stores (one file each under stores/).
export { OkfStore } from './stores/okf.js';
export { PostgresStore, POSTGRES_SCHEMA } from './stores/postgres.js';
export { IndexedDbStore } from './stores/indexeddb.js';
export { adaptV1Store } from './stores/v1-adapter.js';
