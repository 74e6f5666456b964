// `import` in Node: the CommonJS build, re-exported by name. Every name the
// type declarations export is listed here (js-tests/packaging checks it).
import cjs from './index.cjs';

export const {
  Memory,
  MemoryStore,
  reconcile,
  upgradeBlob,
  builtinPredicates,
  CredenceError,
  ConcurrencyError,
  isCredenceError,
  OkfStore,
  PostgresStore,
  POSTGRES_SCHEMA,
  IndexedDbStore,
  adaptV1Store,
} = cjs;
export default cjs;
