import { loadTruthDiscovery } from './data.mjs';
import { Memory } from 'credence';
const d = loadTruthDiscovery();
const set = d.sets[1];
for (const name of process.argv.slice(2)) {
  const item = set.items.indexOf(name);
  const reps = set.reports.filter((r) => r.item === item);
  const bySrc = {};
  for (const r of reps) (bySrc[set.sources[r.source]] ??= []).push(set.values[r.value][0]);
  console.log(name, 'gold', set.values[set.gold.get(item)], JSON.stringify(bySrc));
  let now;
  const m = new Memory({ now: () => now, predicates: [{ name: set.predicate, cardinality: 'single', timeVarying: true }] });
  for (const r of reps) {
    now = set.dates[r.week] + 'T00:00:00.000Z';
    const o = await m.remember({ subject: name, predicate: set.predicate, object: set.values[r.value], provenance: { sourceId: set.sources[r.source], observedAt: now } });
    if (o.action !== 'confirmed') console.log('  w', r.week, set.sources[r.source], set.values[r.value], '->', o.action, o.claim.confidence.toFixed(3));
  }
  const cs = await m.recall(name, { predicate: set.predicate, includeHistory: true });
  for (const c of cs) console.log('   ', c.object, c.status, c.confidence.toFixed(3), c.validFrom, c.validTo, c.provenance.length);
}
