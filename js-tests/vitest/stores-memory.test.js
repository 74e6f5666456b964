// The conformance suite on the in-memory store: used natively by Memory, and
// through a plain JS wrapper (the path every JS store takes).
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryStore } from 'credence';
import { delegating, runStoreConformance } from 'credence/conformance';

// Vitest's test functions, for the suite (this repo's Vitest runs without globals).
const test = { describe, it, expect, afterEach };

// One MemoryStore is one tenant: scopes map to separate stores.
runStoreConformance('MemoryStore', async () => ({ store: new MemoryStore() }), { test });

runStoreConformance('MemoryStore behind a JS object', async () => {
  const inner = new MemoryStore();
  const wrap = () => delegating(inner);
  return { store: wrap(), reopen: wrap };
}, { test });
