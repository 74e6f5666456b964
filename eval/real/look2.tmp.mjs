import { loadTruthDiscovery } from './data.mjs';
import { Memory } from 'credence';
const d = loadTruthDiscovery();
for (const set of d.sets) {
  let now;
  const m = new Memory({ now: () => now, predicates: [{ name: set.predicate, cardinality: 'single', timeVarying: set.timeVarying }] });
  for (const r of set.reports) { now = set.dates[r.week] + 'T00:00:00.000Z'; await m.remember({ subject: set.items[r.item], predicate: set.predicate, object: set.values[r.value], provenance: { sourceId: set.sources[r.source], observedAt: now } }); }
  const cal = await m.calibrate();
  let inverted = 0, lowActive = 0, ex = [];
  for (const item of set.gold.keys()) {
    const cs = await m.recall(set.items[item], { predicate: set.predicate, includeHistory: true });
    const cur = cs.filter((c) => c.status === 'active' || c.status === 'disputed');
    const best = cur.reduce((a, b) => (!a || b.confidence > a.confidence ? b : a), undefined);
    const other = cs.filter((c) => c.status === 'outweighed' || c.status === 'superseded').reduce((a, b) => (!a || b.confidence > a.confidence ? b : a), undefined);
    if (best && other && other.confidence > best.confidence) { inverted++; if (set.values[set.gold.get(item)] === best.object) globalThis.rightNow = (globalThis.rightNow ?? 0) + 1; if (ex.length < 3) ex.push(`${set.items[item]}: ${best.object} ${best.status} ${best.confidence.toFixed(3)} vs ${other.object} ${other.status} ${other.confidence.toFixed(3)} gold ${set.values[set.gold.get(item)]}`); }
    if (best && best.confidence < 0.5) lowActive++;
  }
  console.log('active one right', globalThis.rightNow); globalThis.rightNow = 0; console.log(set.name, 'after calibrate: slots where a non-current claim is more confident than the answer', inverted, 'answers < 0.5', lowActive, ex);
  console.log(' sources', cal.sources?.slice(0, 12).map((s) => `${s.sourceId} ${s.reliability?.toFixed(2)} (${s.observations})`).join(', '));
  if (cal.predicates) console.log(' predicates', JSON.stringify(cal.predicates));
}
