// The conformance suite on the in-memory store: used natively by Memory, and
// through a plain JS wrapper (the path every JS store takes).
import { MemoryStore } from 'credence';
import { runStoreConformance } from '../conformance/store-conformance.js';

// One MemoryStore is one tenant: scopes map to separate stores.
runStoreConformance('MemoryStore', async () => ({ store: new MemoryStore() }));

runStoreConformance('MemoryStore behind a JS object', async () => {
  const inner = new MemoryStore();
  const wrap = () => ({
    loadSlot: (r) => inner.loadSlot(r),
    commitSlot: (c) => inner.commitSlot(c),
    findClaim: (id) => inner.findClaim(id),
    findConflict: (id) => inner.findConflict(id),
    listSlots: (f) => inner.listSlots(f),
    readLog: (r) => inner.readLog(r),
    eraseSlot: (c, log) => inner.eraseSlot(c, log),
    listConflicts: (q) => inner.listConflicts(q),
    dirtySlots: (q) => inner.dirtySlots(q),
  });
  return { store: wrap(), reopen: wrap };
});
