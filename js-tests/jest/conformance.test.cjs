// The store conformance suite as a user runs it under Jest: required from the
// packed package with no argument (Jest's globals), here against MemoryStore
// and against MemoryStore behind a plain JS object (the path a store of your
// own takes).
const { MemoryStore } = require('credence');
const { delegating, runStoreConformance } = require('credence/conformance');

runStoreConformance('MemoryStore (Jest)', () => ({ store: new MemoryStore() }));

runStoreConformance('MemoryStore behind a JS object (Jest)', () => {
  const inner = new MemoryStore();
  const wrap = () => delegating(inner);
  return { store: wrap(), reopen: wrap };
});
