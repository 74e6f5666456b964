import { Memory, MemoryStore } from 'credence';
import { joiningMerge, runModel, useMemory } from './lib/model-driver.mjs';
useMemory(Memory);
const [from, to, ops] = process.argv.slice(2).map(Number);
let fails = 0;
for (let seed = from; seed <= to; seed++) {
  for (const wide of [true, false]) {
    try { await runModel({ openStore: () => new MemoryStore(), seed, ops, merge: joiningMerge, wide, asOf: true }); }
    catch (e) { fails++; console.log(`FAIL seed ${seed} wide=${wide}: ${e.message.slice(0, 600)}`); }
  }
}
console.log(`done ${from}-${to} fails=${fails}`);
