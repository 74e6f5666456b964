// Soak run of the model-based random test through the packed package:
// `node js-tests/soak/model-soak.mjs [ops] [seed]` on MemoryStore and
// IndexedDbStore (fake-indexeddb). Prints the seed and the figures; exits 1 on
// the first invariant violation (the message holds the replayable trace).
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { IndexedDbStore, Memory, MemoryStore } from 'credence';
import { joiningMerge, modelSeed, runModel, useMemory } from '../lib/model-driver.mjs';

useMemory(Memory);
const ops = Number(process.argv[2]) || 20000;
const seed = Number(process.argv[3]) || modelSeed();
console.log(`model soak seed: ${seed} (replay: node js-tests/soak/model-soak.mjs ${ops} ${seed})`);
const idb = new IDBFactory();
const stores = {
  MemoryStore: () => new MemoryStore(),
  'IndexedDbStore (fake-indexeddb)': (i) => new IndexedDbStore('credence-soak', { scope: `t${i}`, indexedDB: idb, IDBKeyRange }),
};
let failed = false;
for (const [name, openStore] of Object.entries(stores)) {
  const started = Date.now();
  try {
    const r = await runModel({ openStore, seed, ops, merge: joiningMerge });
    console.log(`model soak ${name}: ${r.ops} operations in ${r.traces} traces, 0 violations, ${((Date.now() - started) / 1000).toFixed(0)} s`);
  } catch (e) {
    failed = true;
    console.error(`model soak ${name}: FAILED\n${e.message}`);
  }
}
process.exit(failed ? 1 : 0);
