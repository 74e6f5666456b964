// One run of the long write loop a new user tries first (issue #21): a
// warm-up, 20,000 timed writes, then 200,000 more, all through the packed
// package into one in-memory Memory. On Node 20 this aborted the process
// (V8 "unreachable code" in the deoptimizer, nodejs/node#51555); the soak
// (scripts/soak.sh) runs it many times per supported Node line.
//   node js-tests/soak/long-write-loop.mjs [more writes, default 200000]
import { Memory } from 'credence';
import { workload } from '../../bench/workload.mjs';

const WARM_UP = 2_000;
const TIMED = 20_000;
const more = Number(process.argv[2] ?? 200_000);
if (!Number.isInteger(more) || more < 0) throw new Error(`more writes must be a whole number, got ${process.argv[2]}`);

const memory = new Memory();
async function writeAll(candidates) {
  let last;
  for (const c of candidates) last = await memory.remember(c);
  return last;
}

await writeAll(workload(WARM_UP, { seed: 1, prefix: 'warm' }));
const timed = workload(TIMED, { seed: 2, prefix: 'timed' });
const t0 = performance.now();
await writeAll(timed);
const timedMs = performance.now() - t0;
const last = await writeAll(workload(more, { seed: 3, prefix: 'more' }));
const recalled = last ? (await memory.recall(last.claim.subject, { includeHistory: true })).length : 0;
if (more > 0 && recalled === 0) throw new Error(`the last write's subject ${last?.claim?.subject} recalls nothing`);
console.log(`long-write-loop: ${JSON.stringify({
  node: process.version, writes: WARM_UP + TIMED + more, usPerTimedWrite: Math.round((timedMs / TIMED) * 10_000) / 10, recalled,
})}`);
