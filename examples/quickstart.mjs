// The credence quickstart: a few writes on the in-memory store, printing what
// memory did with each one and why. Run with `npm run demo`.
import { Memory } from 'credence';

let day = 0;
const memory = new Memory({ now: () => new Date(Date.UTC(2026, 0, 1 + day)).toISOString() });

async function write(label, candidate, options) {
  day += 1;
  const o = await memory.remember(candidate, options);
  const rel = o.relation ? ` (${o.relation})` : '';
  console.log(`${label.padEnd(46)} → ${o.action}${rel}, belief ${o.claim.confidence.toFixed(2)}, strategy ${o.strategy}`);
  for (const a of o.affected) console.log(`${''.padEnd(49)}affected: ${a.object} (${a.status})`);
  for (const c of o.conflicts) console.log(`${''.padEnd(49)}conflict opened: ${c.reason}`);
  return o;
}

console.log('— a move: the old city becomes history');
await write('located_in NYC', { predicate: 'located_in', object: 'NYC' });
await write('lives in San Francisco (alias)', { predicate: 'lives in', object: 'San Francisco' });

console.log('\n— a multi-valued fact: allergies coexist');
await write('allergic_to peanuts', { predicate: 'allergic_to', object: 'peanuts' });
await write('allergic_to shellfish', { predicate: 'allergic_to', object: 'shellfish' });

console.log('\n— two sources disagree on a birthday; a third breaks the tie');
await write('born_on 1990-03-04 (source: crm)', { predicate: 'born_on', object: '1990-03-04', provenance: { sourceId: 'crm' } });
await write('born_on 1990-04-03 (source: chat)', { predicate: 'born_on', object: '1990-04-03', provenance: { sourceId: 'chat' } });
const tie = await write('born_on 1990-03-04 (source: passport)', { predicate: 'born_on', object: '1990-03-04', provenance: { sourceId: 'passport', sourceTrust: 0.95 } });

console.log('\n— a low-confidence guess never flattens a confident fact');
await write('works_at Acme (trusted HR feed)', { predicate: 'works_at', object: 'Acme', provenance: { sourceId: 'hr', sourceTrust: 0.99 } });
await write('works_at Globex (a 0.2-confidence guess)', { predicate: 'works_at', object: 'Globex', confidence: 0.2, provenance: { sourceId: 'extractor' } });

console.log('\n— a person decides');
await write('timezone CET', { predicate: 'timezone', object: 'CET' });
const asked = await write('timezone PST (ask_user)', { predicate: 'timezone', object: 'PST' }, { strategy: 'ask_user' });
const settled = await memory.settle(asked.conflicts[0].id, 'keep_newer', { by: 'ana' });
console.log(`settled by ${settled.settledBy}: ${settled.settlement}; earlier "${settled.earlier.object}" is ${settled.earlier.status}`);

console.log('\nwhat memory believes now:');
for (const c of await memory.recall()) console.log(`  ${c.predicate.padEnd(12)} ${c.object.padEnd(16)} ${c.status.padEnd(9)} ${c.confidence.toFixed(2)}`);

console.log('\nwhy is the birthday 1990-03-04?');
for (const e of (await memory.why(tie.claim.id)).log) console.log(`  v${e.version} ${e.rule}: ${e.note}`);
