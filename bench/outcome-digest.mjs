// `node bench/outcome-digest.mjs [writes] [--batch]`: one hash of every outcome
// of the bench workload (action, relation, each claim's value, status,
// confidence and log-odds to the last bit, validity, observation count) and
// of recall() over every subject, under a fixed clock. Two builds that print
// the same digest decided every write alike, beliefs included; the bench's
// own check compares only the action mix. Claim ids are random, so they and
// the order of equal-ranked claims are left out.
import { createHash } from 'node:crypto';
import { Memory } from 'credence';
import { workload } from './workload.mjs';

const args = process.argv.slice(2);
const batch = args.includes('--batch');
const writes = Number(args.find((a) => /^\d+$/.test(a)) ?? 3000);
const candidates = workload(writes, { seed: 42, prefix: 'u' });
let t = Date.UTC(2026, 0, 1);
const memory = new Memory({ now: () => new Date((t += 1000)).toISOString() });
const outcomes = [];
if (batch) {
  for (let i = 0; i < candidates.length; i += 100) outcomes.push(...(await memory.rememberMany(candidates.slice(i, i + 100))));
} else {
  for (const c of candidates) outcomes.push(await memory.remember(c));
}
const facts = (c) => String([c.object, c.status, c.confidence, c.logOdds, c.validFrom, c.validTo, c.provenance.length]);
const hash = createHash('sha256');
for (const o of outcomes) {
  hash.update(JSON.stringify([o.action, o.relation, facts(o.claim), o.affected.map(facts).sort(), o.conflicts.length, o.slotVersion]));
}
for (const subject of new Set(candidates.map((c) => c.subject))) {
  hash.update(JSON.stringify((await memory.recall(subject)).map(facts).sort()));
}
console.log(`${batch ? 'rememberMany' : 'remember'} ${writes} writes: ${hash.digest('hex').slice(0, 16)}`);
