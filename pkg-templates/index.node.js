// `import` in Node: the CommonJS build, re-exported by name.
import cjs from './index.cjs';

export const {
  Memory,
  MemoryStore,
  reconcile,
  upgradeBlob,
  CredenceError,
  ConcurrencyError,
  isCredenceError,
  OkfStore,
  PostgresStore,
  POSTGRES_SCHEMA,
  IndexedDbStore,
} = cjs;
export default cjs;
