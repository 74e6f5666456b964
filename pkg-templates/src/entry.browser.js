// Browser / bundler entry: native ESM, the wasm fetched next to the glue.
import init, * as wasm from './web/credence.js';
import { CredenceError, ConcurrencyError, isCredenceError } from './errors.js';
import { stringify } from './json.js';
import { strictMemoryStore } from './options.js';
import { turnIfDue } from './turn.js';

await init();
wasm.setErrorClasses(CredenceError, ConcurrencyError);
wasm.setStringify(stringify);
wasm.setTurn(turnIfDue);

export const Memory = wasm.Memory;
export const MemoryStore = strictMemoryStore(wasm.MemoryStore);
export const reconcile = wasm.reconcile;
export const upgradeBlob = wasm.upgradeBlob;
export const builtinPredicates = wasm.builtinPredicates;
export { CredenceError, ConcurrencyError, isCredenceError };

// Stores that work in a page (OkfStore needs Node's fs and is not here).
export { PostgresStore, POSTGRES_SCHEMA } from './stores/postgres.js';
export { IndexedDbStore } from './stores/indexeddb.js';
export { adaptV1Store } from './stores/v1-adapter.js';
