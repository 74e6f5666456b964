// Orgs with open `same_entity` questions: one `Memory` writes a new org per
// write, the names two words drawn from 300 (a third with a legal-ish
// suffix), so most new names share a word with earlier ones and each opens
// ~3 questions (SPEC §9: a shared token never merges silently), kept in the
// new org's entity slot. Prints, per block of writes, the mean cost of a write
// and the open questions so far: how a write grows with the questions open
// among the entities of its type (names that share no word:
// bench/workers/registry.mjs).
//
//   node bench/workers/registry-questions.mjs <orgs, e.g. 3000> <block, e.g. 500> [memory|okf|indexeddb|postgres] [tmpdir]
import os from 'node:os';
import { Memory } from 'credence';
import { mulberry32 } from '../../js-tests/lib/mulberry32.mjs';
import { closeStores, openStore } from './stores.mjs';

const [orgsArg = '3000', blockArg = '500', kind = 'memory', tmp = os.tmpdir()] = process.argv.slice(2);
const [orgs, block] = [Number(orgsArg), Number(blockArg)];
const memory = new Memory({ store: await openStore(kind, 'questions', tmp) });
const r = mulberry32(7);
const words = Array.from({ length: 300 }, () => `W${Math.floor(r() * 1e9).toString(36)}`);
const suffixes = ['Inc', 'Labs', 'Group', 'Systems', 'Holdings', 'Partners'];
const pick = (xs) => xs[Math.floor(r() * xs.length)];

const rows = [];
let started = performance.now();
for (let i = 1; i <= orgs; i++) {
  const name = `${pick(words)} ${pick(words)}${r() < 0.3 ? ` ${pick(suffixes)}` : ''}`;
  await memory.remember({ subject: `p${i}`, predicate: 'works_at', object: name });
  if (i % block === 0) {
    const msPerWrite = (performance.now() - started) / block;
    const open = (await memory.conflicts({ status: 'open' })).length;
    rows.push({ orgs: i, openQuestions: open, msPerWrite: Number(msPerWrite.toFixed(3)) });
    console.error(`${kind}: ${i} orgs, ${open} open questions, ${msPerWrite.toFixed(2)} ms per write`);
    started = performance.now();
  }
}
console.log(JSON.stringify({ store: kind, orgs, block, rows }));
await closeStores();
