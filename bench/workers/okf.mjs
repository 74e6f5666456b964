// Section 6, in its own processes: OkfStore (a markdown bundle) write
// throughput and the time a fresh process takes to read a bundle back.
// Prints one JSON line.
//
//   node bench/workers/okf.mjs build <dir> <targetClaims>  one rememberMany per slot until the bundle holds targetClaims
//   node bench/workers/okf.mjs write <dir> <writes>        one remember at a time into a fresh bundle
//   node bench/workers/okf.mjs load <dir>                  a fresh OkfStore: listSlots + loadSlot of every slot
import { execFileSync } from 'node:child_process';
import { Memory, OkfStore } from 'credence';
import { nsSince, now } from '../lib.mjs';
import { bySlot, workload } from '../workload.mjs';

const [mode, dir, n] = process.argv.slice(2);
const target = Number(n);
const du = () => Number(execFileSync('du', ['-sb', dir], { encoding: 'utf8' }).split('\t')[0]);

if (mode === 'build') {
  const memory = new Memory({ store: new OkfStore(dir) });
  const claims = new Set();
  let writes = 0;
  let commits = 0;
  const t0 = now();
  for (let seed = 500; claims.size < target; seed++) {
    for (const group of bySlot(workload(Math.ceil((target - claims.size) / 0.7) + 20, { seed, prefix: `b${seed}_` }))) {
      // Every claim the bundle holds: each write's own, and any a write made beside it (a history copy
      // when a value reported between two reports of another splits it) — all named in `affected`.
      for (const o of await memory.rememberMany(group)) {
        if (o.action !== 'skipped' && o.action !== 'rejected') claims.add(o.claim.id);
        for (const c of o.affected) claims.add(c.id);
      }
      writes += group.length;
      commits++;
      if (claims.size >= target) break;
    }
  }
  const ns = nsSince(t0);
  console.log(JSON.stringify({ claims: claims.size, writes, commits, seconds: ns / 1e9, writesPerSec: writes / (ns / 1e9), bytes: du() }));
} else if (mode === 'write') {
  const memory = new Memory({ store: new OkfStore(dir) });
  const candidates = workload(target, { seed: 21, prefix: 'w' });
  const t0 = now();
  for (const c of candidates) await memory.remember(c);
  const ns = nsSince(t0);
  console.log(JSON.stringify({ writes: candidates.length, seconds: ns / 1e9, writesPerSec: candidates.length / (ns / 1e9) }));
} else if (mode === 'load') {
  const t0 = now();
  const store = new OkfStore(dir);
  const refs = await store.listSlots({});
  let claims = 0;
  for (const ref of refs) {
    const slot = await store.loadSlot(ref);
    // Slots memory keeps for itself (subject "\u001f…": an entity's names and same_entity questions, the calibration record) hold no written facts.
    if (!ref.subject.startsWith('\u001f')) claims += slot?.claims.length ?? 0;
  }
  const loadNs = nsSince(t0);
  // And one read through the engine once the store is warm: a subject's current beliefs.
  const memory = new Memory({ store });
  const t1 = now();
  const beliefs = await memory.recall(refs.find((r) => !r.subject.startsWith('\u001f'))?.subject);
  console.log(JSON.stringify({ slots: refs.length, claims, seconds: loadNs / 1e9, recallMs: nsSince(t1) / 1e6, beliefs: beliefs.length }));
} else {
  throw new Error(`unknown mode ${mode}`);
}
