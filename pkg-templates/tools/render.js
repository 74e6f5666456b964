// What a model reads: a line per fact, outcome or conflict instead of the
// full JSON (about 15 tokens a fact where the JSON takes 130). The full
// objects stay available with `format: "json"`.

const day = (t) => (typeof t === 'string' ? t.slice(0, 10) : undefined);
const conf = (c) => (typeof c === 'number' ? c.toFixed(2) : '?');
const quoted = (s) => JSON.stringify(String(s));

/** When the claim's value began: its validFrom, else its first observation, else when it was recorded. */
function since(claim) {
  return day(claim.validFrom ?? claim.provenance?.[0]?.observedAt ?? claim.recordedAt);
}

/** `predicate: value (status, confidence, since …, id …)`. */
export function factLine(claim, { subject = false } = {}) {
  const parts = [claim.status, conf(claim.confidence)];
  const from = since(claim);
  if (from) parts.push(`since ${from}`);
  if (claim.validTo) parts.push(`until ${day(claim.validTo)}`);
  parts.push(`id ${claim.id}`);
  const who = subject ? `${claim.subject} ` : '';
  return `${who}${claim.predicate}: ${claim.object} (${parts.join(', ')})`;
}

/** A recall as text: a header, then a line per claim. */
export function recallText(claims, subject) {
  const about = subject ?? claims[0]?.subject ?? 'the subject';
  if (claims.length === 0) return `${about}: nothing remembered.`;
  const mixed = claims.some((c) => c.subject !== claims[0].subject);
  const head = `${about}: ${claims.length} fact${claims.length === 1 ? '' : 's'} (status says what holds now; confidence is belief 0-1)`;
  return [head, ...claims.map((c) => factLine(c, { subject: mixed }))].join('\n');
}

function conflictLine(c) {
  const where = `${c.subject} ${c.predicate}`;
  return `conflict ${c.id} (${c.kind}, ${c.status}) ${where}: earlier ${quoted(c.earlier?.object)} [${c.earlier?.id}] vs newer ${quoted(c.newer?.object)} [${c.newer?.id}]: ${c.reason}`;
}

export function conflictsText(conflicts) {
  if (conflicts.length === 0) return 'No conflicts.';
  return conflicts.map(conflictLine).join('\n');
}

function specLine(spec) {
  if (!spec) return undefined;
  const kind = `${spec.cardinality === 'multi' ? 'multi-valued (values coexist)' : 'single-valued (a new value supersedes the old)'}, ${spec.timeVarying ? 'time-varying' : 'not time-varying'}`;
  if (spec.assumed) {
    return `spec: ${spec.name} was never declared, so it is ${kind}; if several values can hold at once, declare it with cardinality "multi" on the next remember.`;
  }
  return `spec: ${spec.name} is ${kind}.`;
}

/** An outcome as text: what memory did, the claims it changed, the conflicts it opened, the spec it used. */
export function outcomeText(o) {
  const rel = o.relation ? ` (relation ${o.relation})` : '';
  const lines = [`${o.action}${rel}: ${factLine(o.claim)}`];
  for (const a of o.affected ?? []) lines.push(`changed: ${factLine(a)}`);
  for (const c of o.conflicts ?? []) lines.push(conflictLine(c));
  const spec = specLine(o.spec);
  if (spec) lines.push(spec);
  return lines.join('\n');
}

export function predicatesText(list) {
  const lines = list.map((p) => {
    const aliases = p.aliases?.length ? `; aliases ${p.aliases.join(', ')}` : '';
    return `${p.name}: ${p.cardinality}, ${p.timeVarying ? 'time-varying' : 'not time-varying'}${aliases}`;
  });
  lines.push('Any other predicate: single, time-varying (a new value supersedes the old) unless declared with remember\'s cardinality.');
  return lines.join('\n');
}
