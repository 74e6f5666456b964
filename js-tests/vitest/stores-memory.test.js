// The conformance suite on the in-memory store: used natively by Memory, and
// through a plain JS wrapper (the path every JS store takes).
import { MemoryStore } from 'credence';
import { runStoreConformance } from '../conformance/store-conformance.js';
import { delegating } from '../conformance/fixtures.js';

// One MemoryStore is one tenant: scopes map to separate stores.
runStoreConformance('MemoryStore', async () => ({ store: new MemoryStore() }));

runStoreConformance('MemoryStore behind a JS object', async () => {
  const inner = new MemoryStore();
  const wrap = () => delegating(inner);
  return { store: wrap(), reopen: wrap };
});
