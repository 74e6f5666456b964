// The entity evaluation (issue #16), part of `npm run eval`; alone:
//   node eval/entities/run.mjs [--verbose]
//
// For every labeled pair in pairs.json (sources: see build-pairs.mjs) a fresh
// Memory hears a fact about the first name, then a fact about the second
// (same single-valued predicate, different values). The second write either
// lands on the first entity (an automatic merge), opens a same_entity
// conflict with it (routed to a person), or neither (kept apart). Reported:
// precision and recall of automatic merges, how many pairs were routed, and
// whether any write changed the other entity's fact. Exits non-zero unless
// precision is 100%, recall ≥ 90%, no variant is lost and no fact changed.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Memory } from 'credence';

const here = dirname(fileURLToPath(import.meta.url));
const verbose = process.argv.includes('--verbose');
const data = JSON.parse(readFileSync(join(here, 'pairs.json'), 'utf8'));
const NOW = '2026-06-01T00:00:00.000Z';

/** What the second name did: 'merged' | 'routed' | 'apart', and whether the first entity's fact survived. */
async function judge(pair, { declared }) {
  const memory = new Memory({ now: () => NOW, ...(declared ? { entityAliases: data.entityAliases } : {}) });
  const first = await memory.remember({ subject: pair.a, subjectType: pair.type, predicate: 'located_in', object: 'first place' });
  const second = await memory.remember({ subject: pair.b, subjectType: pair.type, predicate: 'located_in', object: 'second place' });
  const entity = first.claim.subject;
  const merged = second.claim.subject === entity;
  const routed = second.conflicts.some((c) => c.kind === 'same_entity' && c.earlier.subject === entity && c.newer.subject === second.claim.subject);
  const firstNow = (await memory.recall(entity, { predicate: 'located_in' })).map((c) => c.object);
  const intact = merged || (firstNow.length === 1 && firstNow[0] === 'first place');
  return { outcome: merged ? 'merged' : routed ? 'routed' : 'apart', intact, rule: second.resolutions[0]?.rule };
}

function tally(results) {
  const t = { n: results.length, merged: 0, routed: 0, apart: 0, broken: 0 };
  for (const r of results) {
    t[r.outcome] += 1;
    if (!r.intact) t.broken += 1;
  }
  return t;
}

const pct = (x, n) => (n ? `${((100 * x) / n).toFixed(1)}%` : '—');
const row = (cells, widths) => cells.map((c, i) => String(c).padEnd(widths[i])).join('  ');

async function evaluate(list, options) {
  const out = [];
  for (const pair of list) out.push({ pair, ...(await judge(pair, options(pair))) });
  return out;
}

const distinct = await evaluate(data.distinct, () => ({ declared: false }));
const variants = await evaluate(data.variants, (p) => ({ declared: Boolean(p.declared) }));
const undeclared = await evaluate(data.variants.filter((p) => p.declared), () => ({ declared: false }));

const widths = [34, 6, 8, 8, 8, 8];
console.log('== entities: labeled name pairs (eval/entities/pairs.json; sources in build-pairs.mjs)');
console.log(row(['category', 'pairs', 'merged', 'routed', 'apart', 'changed'], widths));
const byCategory = (results) => {
  const groups = new Map();
  for (const r of results) groups.set(r.pair.category, [...(groups.get(r.pair.category) ?? []), r]);
  return [...groups.entries()];
};
for (const [label, results] of [['distinct (must not merge)', distinct], ['true variants (should merge)', variants]]) {
  console.log(`-- ${label}`);
  for (const [category, rs] of byCategory(results)) {
    const t = tally(rs);
    console.log(row([category, t.n, t.merged, t.routed, t.apart, t.broken], widths));
  }
}
const u = tally(undeclared);
console.log(row(['(known aliases, none declared)', u.n, u.merged, u.routed, u.apart, u.broken], widths));
if (verbose) for (const r of undeclared.filter((x) => x.outcome === 'apart')) console.log(`  apart without declared aliases: ${JSON.stringify(r.pair.a)} / ${JSON.stringify(r.pair.b)}`);

const d = tally(distinct);
const v = tally(variants);
const precision = v.merged + d.merged ? v.merged / (v.merged + d.merged) : 1;
const recall = v.merged / v.n;
console.log(`\nautomatic merges: precision ${pct(v.merged, v.merged + d.merged)} (${d.merged} of ${d.n} distinct pairs merged), ` +
  `recall ${pct(v.merged, v.n)} (${v.merged} of ${v.n} variants)`);
console.log(`routed to a person (same_entity): ${v.routed} variants (${pct(v.routed, v.n)}), ${d.routed} distinct look-alikes (${pct(d.routed, d.n)}); ` +
  `variants lost: ${v.apart}; another entity's fact changed: ${d.broken + v.broken}`);

const failures = [...distinct.filter((r) => r.outcome === 'merged' || !r.intact), ...variants.filter((r) => r.outcome === 'apart' || !r.intact)];
for (const r of verbose ? failures : failures.slice(0, 10)) {
  console.log(`  ${r.outcome}${r.intact ? '' : ' (changed the other fact)'}: ${JSON.stringify(r.pair.a)} / ${JSON.stringify(r.pair.b)} [${r.pair.category}, rule ${r.rule}]`);
}
// Crowded: every first name of the set in one memory per type, then each
// second name probed with a write that `reject` turns away (it reports how the
// name resolved and leaves no entity behind): is the match still found among
// hundreds of entities, within the three near matches a name may ask about?
async function crowded(pairs, options) {
  const out = [];
  for (const type of [...new Set(pairs.map((p) => p.type))]) {
    const ofType = pairs.filter((p) => p.type === type);
    const memory = new Memory({ now: () => NOW, predicates: [{ name: 'probe', cardinality: 'single', timeVarying: false, objectType: type }], ...options });
    const ids = new Map();
    for (const name of new Set(ofType.map((p) => p.a))) {
      ids.set(name, (await memory.remember({ subject: name, subjectType: type, predicate: 'located_in', object: 'somewhere' })).claim.subject);
    }
    await memory.remember({ subject: 'probe', predicate: 'probe', object: 'nobody in particular' });
    for (const pair of ofType) {
      const o = await memory.remember({ subject: 'probe', predicate: 'probe', object: pair.b }, { strategy: 'reject' });
      const r = o.resolutions[0];
      const target = ids.get(pair.a);
      // 'other': the name resolved exactly to another registered name (the set holds some entities under two first names).
      const outcome = r.rule === 'near' ? (r.nearMatches.some((m) => m.entityId === target) ? 'routed' : 'apart')
        : r.rule === 'new' ? 'apart' : r.entityId === target ? 'merged' : 'other';
      out.push({ pair, outcome, intact: o.action === 'rejected', rule: r.rule });
    }
  }
  return out;
}
const crowdDistinct = await crowded(data.distinct, {});
const crowdVariants = [
  ...(await crowded(data.variants.filter((p) => !p.declared), {})),
  ...(await crowded(data.variants.filter((p) => p.declared), { entityAliases: data.entityAliases })),
];
const count = (rs, outcome) => rs.filter((r) => r.outcome === outcome).length;
console.log(`crowded (all first names in one memory per type): distinct merged ${count(crowdDistinct, 'merged')}/${crowdDistinct.length}, ` +
  `variants merged ${count(crowdVariants, 'merged')}, routed to the right entity ${count(crowdVariants, 'routed')}, ` +
  `lost ${count(crowdVariants, 'apart')}, resolved to the entity of another name the set registered (its own, or one with the same key) ${count(crowdVariants, 'other')} variants / ${count(crowdDistinct, 'other')} distinct`);
for (const r of [...crowdVariants.filter((x) => x.outcome !== 'merged' && x.outcome !== 'routed'), ...crowdDistinct.filter((x) => x.outcome === 'merged')].slice(0, verbose ? 100 : 5)) {
  console.log(`  crowded ${r.outcome}: ${JSON.stringify(r.pair.a)} / ${JSON.stringify(r.pair.b)} [${r.pair.category}, rule ${r.rule}]`);
}

const ok = precision === 1 && recall >= 0.9 && v.apart === 0 && d.broken + v.broken === 0 && count(crowdDistinct, 'merged') === 0;
console.log(ok ? 'entities: pass (precision 100%, recall ≥ 90%, none lost)' : 'entities: FAIL');
if (!ok) process.exitCode = 1;
