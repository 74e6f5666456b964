// Output for people. (`--json` prints the engine's values as they are.)

const UNITS = [
  ['year', 365 * 86400],
  ['month', 30 * 86400],
  ['day', 86400],
  ['hour', 3600],
  ['minute', 60],
  ['second', 1],
];

/** "3 minutes ago", "just now", "in 2 days". */
export function age(iso, now = Date.now()) {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return String(iso);
  const seconds = Math.round((now - t) / 1000);
  const abs = Math.abs(seconds);
  if (abs < 5) return 'just now';
  const [unit, size] = UNITS.find(([, s]) => abs >= s);
  const n = Math.floor(abs / size);
  const text = `${n} ${unit}${n === 1 ? '' : 's'}`;
  return seconds >= 0 ? `${text} ago` : `in ${text}`;
}

const num = (x) => (typeof x === 'number' ? x.toFixed(2) : '?');
const q = (s) => JSON.stringify(String(s));
const slotName = (c) => `${c.subject} · ${c.predicate}`;
const SOURCES = { call: 'this call', config: 'CREDENCE_MERGE_POLICY', predicate: 'the predicate', memory_type: 'the memory type' };

/** One line for a claim: "CET" (active, belief 0.80, 2 minutes ago) cl_… */
export function claimLine(c) {
  return `${q(c.object)}  (${c.status}, belief ${num(c.confidence)}, ${age(c.recordedAt)})  ${c.id}`;
}

export function outcomeText(o) {
  const rel = o.relation ? ` (${o.relation})` : '';
  const lines = [
    `${o.action}${rel}: ${slotName(o.claim)} = ${q(o.claim.object)}`,
    `  strategy ${o.strategy}, chosen by ${SOURCES[o.strategySource] ?? o.strategySource}; slot version ${o.slotVersion}`,
  ];
  if (o.action === 'rejected') {
    lines.push('  nothing written; memory already holds:');
    for (const a of o.affected) lines.push(`    ${claimLine(a)}`);
    lines.push('  re-run with --strategy <replace|append|ask_user|…> or -i to choose');
  } else if (o.action === 'skipped') {
    lines.push('  nothing written');
  } else {
    lines.push(`  claim ${o.claim.id}, belief ${num(o.claim.confidence)}${o.replayed ? ' (replayed: this id was written before)' : ''}`);
    for (const a of o.affected) lines.push(`  ${q(a.object)}: ${a.status}, belief ${num(a.confidence)}  ${a.id}`);
  }
  for (const c of o.conflicts) lines.push(`  conflict ${c.id} opened (${c.kind}): ${c.reason}`);
  return lines.join('\n');
}

export function claimsText(claims, { history = false } = {}) {
  if (claims.length === 0) return history ? 'nothing recorded' : 'nothing believed (try --history)';
  const lines = [];
  let subject;
  const pw = Math.min(28, Math.max(...claims.map((c) => c.predicate.length)));
  for (const c of claims) {
    if (c.subject !== subject) {
      if (subject !== undefined) lines.push('');
      subject = c.subject;
      lines.push(subject);
    }
    const valid = c.validTo ? `, valid until ${c.validTo.slice(0, 10)}` : '';
    lines.push(`  ${c.predicate.padEnd(pw)}  ${q(c.object)}  ${c.status} ${num(c.confidence)}, ${age(c.recordedAt)}${valid}  ${c.id}`);
  }
  return lines.join('\n');
}

export function whyText({ claim, lineage, log, calibrationVersion }) {
  const sources = claim.provenance.map((p) => `${p.sourceId} (trust ${num(p.sourceTrust ?? 0.8)})`).join(', ');
  const lines = [
    `${claim.id}: ${slotName(claim)} = ${q(claim.object)}`,
    `  ${claim.status}, belief ${num(claim.confidence)} (log-odds ${num(claim.logOdds)}), recorded ${age(claim.recordedAt)}`,
  ];
  if (claim.validFrom || claim.validTo) lines.push(`  valid ${claim.validFrom ?? '…'} → ${claim.validTo ?? 'now'}`);
  lines.push(`  sources: ${sources || 'none'}`);
  if (calibrationVersion !== undefined) lines.push(`  belief computed with calibration version ${calibrationVersion} (credence calibrate)`);
  if (lineage.length > 1) {
    lines.push('lineage (oldest first):');
    for (const c of lineage) lines.push(`  ${claimLine(c)}`);
  }
  lines.push('log:');
  for (const e of log) {
    const belief = e.confidenceAfter !== undefined ? `  [${num(e.confidenceBefore)} → ${num(e.confidenceAfter)}]` : '';
    const by = e.cause?.by ? ` by ${e.cause.by}` : '';
    lines.push(`  v${e.version} ${e.at}  ${e.rule}${by}: ${e.note}${belief}`);
  }
  return lines.join('\n');
}

export function conflictText(c) {
  const head = `${c.id}  ${c.status}  ${c.kind}  ${slotName(c)}  opened ${age(c.openedAt)}`;
  const lines = c.kind === 'dependent'
    // The changed fact lives in another slot: name its predicate.
    ? [head, `  fact     ${claimLine(c.earlier)}`, `  hangs on ${c.newer.predicate} ${claimLine(c.newer)}`]
    : [head, `  earlier  ${claimLine(c.earlier)}`, `  newer    ${claimLine(c.newer)}`];
  if (c.proposed) lines.push(`  proposed ${q(c.proposed)}`);
  lines.push(`  reason   ${c.reason}`);
  if (c.settlement) lines.push(`  settled  ${c.settlement}${c.settledBy ? ` by ${c.settledBy}` : ''} ${age(c.settledAt)}`);
  return lines.join('\n');
}

export function conflictsText(list, status) {
  if (list.length === 0) return status === 'open' ? 'no open conflicts' : 'no conflicts';
  const body = list.map(conflictText).join('\n\n');
  const open = list.some((c) => c.status === 'open');
  if (!open) return body;
  const hints = [];
  if (list.some((c) => c.status === 'open' && c.kind !== 'same_entity')) hints.push('credence settle <id> keep_newer|keep_earlier|keep_both');
  if (list.some((c) => c.status === 'open' && c.kind === 'same_entity')) hints.push('credence settle <id> same|different   (two names: one entity?)');
  if (list.some((c) => c.status === 'open' && c.kind === 'dependent')) hints.push('(dependent: keep_earlier = it still holds, keep_newer = retract it)');
  return `${body}\n\nsettle one with: ${hints.join('\n             or: ')}`;
}

export function settledText(c, verb) {
  return `${verb} ${c.id}${c.settlement ? ` (${c.settlement}${c.settledBy ? ` by ${c.settledBy}` : ''})` : ''}\n` +
    `  earlier  ${claimLine(c.earlier)}\n  newer    ${claimLine(c.newer)}`;
}

export function retractionText(r) {
  const head = r.undone ? `undid retraction ${r.id}: the claim holds again` : `retracted ${r.claim.id} (retraction ${r.id})`;
  const lines = [head, `  ${slotName(r.claim)} = ${q(r.claim.object)}  (${r.claim.status}${r.claim.validTo ? `, valid until ${r.claim.validTo}` : ''})`];
  if (!r.undone) lines.push(`  by ${r.by}${r.reason ? `: ${r.reason}` : ''}`, `  undo with: credence undo ${r.id}`);
  for (const d of r.dependents ?? []) lines.push(`  flagged ${d.id} (dependent): ${d.reason}`);
  return lines.join('\n');
}

export function erasureText(e) {
  if (e.tombstones.length === 0) return 'erased nothing: no claim matched';
  const lines = [`erased ${e.tombstones.length} claim(s) in ${e.slots} slot(s); their text is gone for good`];
  for (const t of e.tombstones) lines.push(`  ${t.claimId}  ${t.subject} · ${t.predicate}  (by ${t.by}: ${t.reason})`);
  return lines.join('\n');
}

export function reviewText(r) {
  const lines = [`review: ${r.calls} judge call(s), ${r.pairsNamed} pair(s) named, ${r.pairsConfirmed} confirmed, ${r.slotsLeft} slot(s) left for the next pass`];
  for (const c of r.conflicts) lines.push('', conflictText(c));
  return lines.join('\n');
}

/** A calibration as two tables: predicates (half-lives) and sources (reliabilities). */
export function calibrationText(c) {
  const table = (head, rows) => {
    const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
    const line = (r) => r.map((x, i) => (i === 0 ? String(x).padEnd(widths[i]) : String(x).padStart(widths[i]))).join('  ');
    return [line(head), ...rows.map(line)].join('\n');
  };
  const mark = (used) => (used ? 'yes' : 'no (too few)');
  const lines = [`calibration version ${c.version} (${c.calibratedAt}; min ${c.minObservations} observations)`, ''];
  lines.push(table(['predicate', 'half-life (d)', 'configured (d)', 'changes', 'slots', 'observations', 'used'],
    c.predicates.map((p) => [p.predicate, p.halfLifeDays.toFixed(0), p.configuredHalfLifeDays.toFixed(0), p.changes.toFixed(1), p.slots, p.observations, mark(p.used)])));
  lines.push('');
  lines.push(table(['source', 'reliability', 'stated trust', 'agreed', 'observations', 'used'],
    c.sources.map((s) => [s.sourceId, s.reliability.toFixed(2), s.statedTrust.toFixed(2), s.agreed.toFixed(1), s.observations, mark(s.used)])));
  return lines.join('\n');
}
