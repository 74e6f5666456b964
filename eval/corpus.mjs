// The labeled scenario corpus: every case is a sequence of writes with the
// expected action of each, then checks of the active set (object + status),
// optionally of confidences, conflicts and as-of views. Format: EVAL.md.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Memory } from 'credence';

const START = '2026-01-01T00:00:00.000Z';
const MINUTE = 60_000;

export function loadCorpus(dir) {
  const cases = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
    const doc = JSON.parse(readFileSync(join(dir, file), 'utf8'));
    for (const c of doc.cases) cases.push({ ...c, category: doc.category ?? file.replace(/\.json$/, '') });
  }
  const seen = new Set();
  for (const c of cases) {
    if (seen.has(c.name)) throw new Error(`duplicate case name ${c.name}`);
    seen.add(c.name);
  }
  return cases;
}

/** A scenario write → a Candidate (shorthand: source, trust, conf). */
function candidateOf(w) {
  const { expect, relation, at, strategy, source, trust, conf, observedAt, expectConfidence, replayed, ...rest } = w;
  const provenance = { sourceId: source ?? 's1' };
  if (trust !== undefined) provenance.sourceTrust = trust;
  if (conf !== undefined) provenance.extractorConf = conf;
  if (observedAt !== undefined) provenance.observedAt = observedAt;
  return { ...rest, provenance };
}

const within = (x, [lo, hi]) => x >= lo - 1e-9 && x <= hi + 1e-9;
const pairKey = ([o, s]) => `${o}\u0000${s}`;
const show = (pairs) => JSON.stringify(pairs.map(([o, s]) => `${o}:${s}`));

/** Runs one case on a fresh Memory; returns a list of failure messages (empty = pass). */
export async function runCase(c) {
  let clock = Date.parse(c.clock ?? START);
  const memory = new Memory({ ...(c.config ?? {}), now: () => new Date(clock).toISOString() });
  const failures = [];
  for (const [i, w] of c.writes.entries()) {
    if (w.at) clock = Date.parse(w.at);
    const label = `write ${i + 1} (${w.predicate} = ${JSON.stringify(w.object)})`;
    let outcome;
    try {
      outcome = await memory.remember(candidateOf(w), w.strategy ? { strategy: w.strategy } : undefined);
    } catch (e) {
      failures.push(`${label}: threw ${e.code ?? ''} ${e.message}`);
      clock += MINUTE;
      continue;
    }
    if (w.expect && outcome.action !== w.expect) failures.push(`${label}: action ${outcome.action}, expected ${w.expect}`);
    if (w.relation && outcome.relation !== w.relation) failures.push(`${label}: relation ${outcome.relation}, expected ${w.relation}`);
    if (w.replayed !== undefined && Boolean(outcome.replayed) !== w.replayed) failures.push(`${label}: replayed ${Boolean(outcome.replayed)}, expected ${w.replayed}`);
    if (w.expectConfidence && !within(outcome.claim.confidence, w.expectConfidence)) {
      failures.push(`${label}: confidence ${outcome.claim.confidence.toFixed(3)}, expected in [${w.expectConfidence}]`);
    }
    clock += MINUTE;
  }
  for (const check of c.checks) {
    if (check.clock) clock = Date.parse(check.clock);
    const where = `check ${check.predicate}${check.at ? ` at ${check.at}` : ''}${check.clock ? ` (clock ${check.clock})` : ''}`;
    const claims = await memory.recall(check.subject ?? 'user', { predicate: check.predicate, at: check.at });
    if (check.active) {
      const got = claims.map((x) => [x.object, x.status]).sort((a, b) => pairKey(a).localeCompare(pairKey(b)));
      const want = check.active.map(([o, s]) => [o, s ?? 'active']).sort((a, b) => pairKey(a).localeCompare(pairKey(b)));
      if (show(got) !== show(want)) failures.push(`${where}: got ${show(got)}, expected ${show(want)}`);
    }
    for (const [object, range] of Object.entries(check.confidence ?? {})) {
      const claim = claims.find((x) => x.object === object);
      if (!claim) failures.push(`${where}: no claim ${JSON.stringify(object)} to check confidence`);
      else if (!within(claim.confidence, range)) failures.push(`${where}: confidence of ${object} ${claim.confidence.toFixed(3)}, expected in [${range}]`);
    }
    if (check.conflicts) {
      for (const [status, n] of Object.entries(check.conflicts)) {
        const got = (await memory.conflicts({ status })).length;
        if (got !== n) failures.push(`${where}: ${got} ${status} conflicts, expected ${n}`);
      }
    }
  }
  return failures;
}

/** Runs every case; prints one line per case (details for failures). */
export async function runCorpus(dir, { verbose = true } = {}) {
  const cases = loadCorpus(dir);
  const results = [];
  for (const c of cases) {
    const failures = await runCase(c);
    results.push({ name: c.name, category: c.category, pass: failures.length === 0, failures });
    if (verbose) {
      console.log(`  ${failures.length ? 'FAIL' : 'pass'}  ${c.category.padEnd(12)} ${c.name}`);
      for (const f of failures) console.log(`          - ${f}`);
    }
  }
  return results;
}
