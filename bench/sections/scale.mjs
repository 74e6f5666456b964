// Section 9: scale. Each operation's cost at growing store sizes, per store
// (a child process per store), as a growth ratio: largest size / smallest.
// SPEC §8: every operation's cost depends on the slot or the answer, not on
// the size of the store.
import path from 'node:path';
import { fmtInt, fmtNs, fmtX, lastJson, row, run } from '../lib.mjs';

const ROOT = path.resolve(import.meta.dirname, '../..');
const OPS = [
  ['rememberNewSlot', 'remember, new slot'],
  ['rememberHotSlot', 'remember, hot slot (confirm)'],
  ['rememberEntityTyped', 'remember, entity-typed (works_at)'],
  ['recall', 'recall(subject)'],
  ['why', 'why(claimId)'],
  ['conflicts', 'conflicts({ status: open })'],
  ['reviewNothingNew', 'review, nothing new'],
];
const GOAL = 1.3;

export async function scale({ quick, tmp }) {
  const plans = quick
    ? [['memory', [1_000, 10_000]], ['okf', [1_000, 5_000]], ['indexeddb', [1_000, 5_000]]]
    : [['memory', [1_000, 10_000, 100_000]], ['okf', [1_000, 10_000]], ['indexeddb', [1_000, 10_000]]];
  const reps = quick ? 15 : 31;
  const rows = [];
  const data = {};
  let n = 0;
  for (const [store, sizes] of plans) {
    const result = lastJson(run(process.execPath, [path.join(ROOT, 'bench', 'workers', 'scale.mjs'), store, sizes.join(','), String(reps), tmp], { cwd: ROOT }).stdout);
    data[store] = result;
    const small = result.sizes[sizes[0]];
    const large = result.sizes[sizes[sizes.length - 1]];
    for (const [op, label] of OPS) {
      const ratio = large.ops[op] / small.ops[op];
      const steps = sizes.map((s) => `${fmtInt(result.sizes[s].claims)}: ${fmtNs(result.sizes[s].ops[op])}`).join(', ');
      rows.push(row(`9${String.fromCharCode(97 + n++)}`, `${store}: ${label}, ${fmtInt(large.claims)} vs ${fmtInt(small.claims)} claims`,
        fmtNs(large.ops[op]), fmtNs(small.ops[op]), fmtX(ratio), `≤ ${GOAL}×`, ratio <= GOAL, steps));
    }
  }
  return { rows, data };
}
