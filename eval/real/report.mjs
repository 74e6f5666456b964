// Printing the real-data section: one table per set, the order check, and
// why credence's wrong answers are wrong.

const pct = (x) => `${(100 * x).toFixed(1)}%`;
const f3 = (x) => (Number.isFinite(x) ? x.toFixed(3) : '  —  ');
const thousands = (x) => x.toLocaleString('en-US');

export function realTable(result, { explain = false } = {}) {
  const { set, rows, order, wrong } = result;
  const lines = [];
  lines.push(`${set.name}: ${set.about}`);
  lines.push(`  ${thousands(set.sources.length)} sources, ${thousands(set.items.length)} items, ${thousands(set.reports.length)} reports` +
    `${set.dates.length > 1 ? ` over ${set.dates.length} weekly crawls (${set.dates[0]} … ${set.dates.at(-1)})` : ', one crawl'}; ` +
    `predicate ${set.predicate} (${set.timeVarying ? 'time-varying' : 'fixed'}); ${result.seconds.toFixed(1)} s`);
  const head = `  ${'method'.padEnd(30)} accuracy    ECE   #gold`;
  lines.push(head);
  lines.push(`  ${'-'.repeat(head.length - 2)}`);
  for (const r of rows) {
    lines.push(`  ${r.name.padEnd(30)} ${pct(r.accuracy).padStart(8)}  ${f3(r.ece)}  ${String(r.n).padStart(5)}${r.note ? `   (${r.note})` : ''}`);
  }
  if (order) {
    const d = 100 * (order.reversed - order.accuracy);
    lines.push(`  order check (${order.name}): same-instant reports written in reverse order: ${pct(order.accuracy)} → ${pct(order.reversed)} (${d >= 0 ? '+' : ''}${d.toFixed(1)} pts; ${order.changed} of ${order.n} answers differ)`);
  }
  const rel = result.reliability;
  if (rel && Object.keys(rel.by).length) {
    lines.push(`  source quality vs each source's accuracy on the gold (${rel.sources} sources with ≥ ${rel.minGold} gold items), Spearman: ` +
      Object.entries(rel.by).map(([k, v]) => `${k} ${Number.isFinite(v) ? v.toFixed(2) : '—'}`).join(', '));
  }
  if (wrong) {
    const total = Object.values(wrong.classes).reduce((s, k) => s + k, 0);
    const classes = Object.entries(wrong.classes).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${v} ${k}`).join(', ');
    lines.push(`  ${result.headline}: ${total} wrong answers: ${classes || 'none'}`);
    if (explain) {
      for (const e of wrong.examples) {
        const answer = e.answer ? `"${e.answer.value}" ${e.answer.status} ${e.answer.confidence.toFixed(3)}` : 'none';
        lines.push(`    [${e.kind}] ${e.item}: answered ${answer}, gold "${e.gold}"; latest reports ${e.votes.map(([v, k]) => `"${v}"×${k}`).join(', ')}`);
      }
    }
  }
  return lines.join('\n');
}

export const REAL_NOTES = [
  'ECE: 10 equal-width bins over the confidence each method states in its answer: credence claim.confidence;',
  'majority vote the vote share; TruthFinder s(f); Accu/AccuCopy the posterior P(v). Baselines read each',
  "source's latest report per item (restaurant: a site that stopped listing already reports \"closed\").",
].join('\n');
