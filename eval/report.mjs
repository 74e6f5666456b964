// Printing the figures and comparing them with the committed regression floor.

const f3 = (x) => (Number.isFinite(x) ? x.toFixed(3) : '  —  ');
const pct = (x) => `${(100 * x).toFixed(1)}%`;

const SHORT = [
  ['credence, half-life fitted', 'cred. fitted'], ['credence, calibrate()', 'cred. calib.'], ['credence (reconcile)', 'credence'], ['credence, calibrate: false', 'cred. uncal.'], ['latest-observation-wins', 'latest-obs'],
  ['last-write-wins', 'LWW'], ['majority vote, best window', 'majority*'], ['trust-weighted vote, best window', 'trust-vote*'],
  ['recency-weighted trust vote, best window', 'recency-trust*'], ['confidence-gated', 'conf-gated'], ['Bayes filter (ceiling)', 'ceiling'],
  ['proposed rule (JS prototype)', 'proto: SPEC'], ['proposed: + oracle half-lives & reliabilities', 'proto: oracle'],
  ['proposed: once per observation', 'proto: per-obs'], ['proposed: once per observation + oracle', 'per-obs+oracle'], ['proposed: online per-slot hazard', 'proto: online h'], ['proposed: per observation, abandoned answers dropped + oracle', 'abandon+oracle'],
];
const short = (name) => SHORT.find(([long]) => long === name)?.[1] ?? name;

export function simTable(sim, params) {
  const preds = params.predicates.map((p) => p.name);
  const lines = [];
  const queries = sim.rows[0].n;
  lines.push(`simulation: seed ${sim.seed}, ${params.subjects} subjects × ${preds.length} predicates = ${sim.slots} slots, ` +
    `${sim.reports} reports (${pct(sim.reportAccuracy)} correct, ${pct(sim.late / sim.reports)} late), ${queries} slot-queries, ${sim.seconds.toFixed(1)} s`);
  const head = ['method'.padEnd(42), 'accuracy', ...preds.map((p) => p.padStart(11)), '   ECE ', ' Brier', ' false-repl.'];
  lines.push(head.join(' '));
  lines.push('-'.repeat(head.join(' ').length));
  for (const row of sim.rows) {
    lines.push([row.name.padEnd(42), `  ${f3(row.accuracy)} `, ...preds.map((p) => f3(row.by[p]).padStart(11)), `  ${f3(row.ece)}`, ` ${f3(row.brier)}`, `     ${pct(row.falseReplacementRate).padStart(6)}`].join(' '));
  }
  lines.push('ECE/Brier score each method\'s stated confidence in its answer (credence: claim.confidence; baselines: the report\'s');
  lines.push('trust × extractorConf or the (weighted) vote share; the ceiling: its posterior). * best window per predicate, in hindsight:');
  for (const row of sim.rows.filter((r) => r.windows)) lines.push(`  ${row.family}: ${row.windows}`);
  lines.push(`false-repl. = a write that replaced a right current answer by a wrong one, per write that found it right.`);
  lines.push(`credence disputes: ${sim.disputes} opened (${pct(sim.disputeRate)} of writes), ${sim.falseDisputes} while the ceiling gave one value ≥ 0.9 ` +
    `(false-dispute rate ${pct(sim.falseDisputeRate)} of writes); answered from a dispute in ${pct(sim.disputedRate)} of queries`);
  const acts = Object.entries(sim.actions).sort().map(([k, v]) => `${k} ${v}`).join(', ');
  lines.push(`credence actions: ${acts}`);
  if (sim.calibration) lines.push(calibrationLine(sim.calibration));
  return lines.join('\n');
}

/** The last calibration of the calibrated row against the generator's truth. */
export function calibrationLine(c) {
  const sources = c.sources.map((s) => `${s.id} ${s.estimated.toFixed(2)} (true ${s.truth})`).join(', ');
  const halves = c.halfLives.map((h) => `${h.predicate} ${h.estimated.toFixed(0)} d vs ${h.generator.toFixed(0)} d (×${h.ratio.toFixed(2)})`).join(', ');
  return `calibrate(): version ${c.version} (${c.calibrations} runs, last ${c.lastMs} ms); reliabilities ${sources}: Spearman ${c.spearman.toFixed(2)}; half-lives ${halves}`;
}

/** Where credence trails a baseline in one run: overall or on a predicate. */
export function trails(sim, cred = sim.rows[0]) {
  const out = [];
  for (const o of sim.rows) {
    if (o.name.startsWith('Bayes') || o.name.startsWith('credence') || o.name.startsWith('proposed')) continue;
    if (cred.accuracy < o.accuracy) out.push(`${short(o.name)} overall ${f3(o.accuracy)}`);
    for (const p of Object.keys(cred.by)) if (cred.by[p] < o.by[p]) out.push(`${short(o.name)} on ${p} ${f3(cred.by[p])} < ${f3(o.by[p])}`);
  }
  return out;
}

export function sweepTable(results) {
  const names = results[0].sim.rows.map((r) => r.name);
  const width = Math.max(...results.map((r) => r.label.length), 10);
  const lines = [[''.padEnd(width), ...names.map((n) => short(n).padStart(14)), '  cred. ECE', ' calib. ECE', ' false-repl.', ' false-disp.'].join(' ')];
  for (const { label, sim } of results) {
    const c = sim.rows[0];
    const calibrated = sim.rows.find((r) => r.name === 'credence, calibrate()');
    lines.push([label.padEnd(width), ...sim.rows.map((r) => f3(r.accuracy).padStart(14)), `      ${f3(c.ece)}`, `     ${f3(calibrated?.ece)}`, `     ${pct(c.falseReplacementRate).padStart(6)}`, `      ${pct(sim.falseDisputeRate).padStart(5)}`].join(' '));
  }
  lines.push('');
  lines.push('calibrate() against the generator (last calibration of the run):');
  for (const { label, sim } of results) if (sim.calibration) lines.push(`  ${label.padEnd(width)} ${calibrationLine(sim.calibration)}`);
  lines.push('');
  lines.push('per predicate (credence / best baseline / ceiling; credence ECE) and where credence trails:');
  for (const { label, sim } of results) {
    const c = sim.rows[0];
    const base = sim.rows.filter((r) => !/^(credence|Bayes|proposed)/.test(r.name));
    const ceiling = sim.rows.find((r) => r.name.startsWith('Bayes'));
    const cells = Object.keys(c.by).map((p) => {
      const best = base.reduce((a, b) => (b.by[p] > a.by[p] ? b : a));
      return `${p} ${f3(c.by[p])}/${f3(best.by[p])}/${f3(ceiling.by[p])} ECE ${f3(c.eceBy[p])}`;
    });
    const t = trails(sim);
    lines.push(`  ${label.padEnd(width)} ${cells.join('; ')}${t.length ? `  TRAILS: ${t.join(', ')}` : ''}`);
  }
  const prototypes = results[0].sim.rows.filter((r) => r.name.startsWith('proposed'));
  if (prototypes.length) {
    lines.push('');
    lines.push('JS prototypes (not credence): ECE, and where each trails a baseline (overall or on a predicate):');
    for (const { label, sim } of results) {
      const cells = sim.rows.filter((r) => r.name.startsWith('proposed')).map((r) => {
        const t = trails(sim, r);
        return `${short(r.name)} ECE ${f3(r.ece)}${t.length ? ` trails ${t.join(', ')}` : ' trails none'}`;
      });
      lines.push(`  ${label.padEnd(width)} ${cells.join(' | ')}`);
    }
  }
  return lines.join('\n');
}

/** The figures a floor keeps for one mode. */
export function floorOf(corpus, sim) {
  const cred = sim.rows[0];
  return {
    seed: sim.seed,
    corpus: {
      pass: corpus.filter((c) => c.pass).length,
      total: corpus.length,
      knownFailures: corpus.filter((c) => !c.pass).map((c) => c.name),
    },
    credence: { accuracy: round(cred.accuracy), ece: round(cred.ece), brier: round(cred.brier) },
    methods: Object.fromEntries(sim.rows.map((r) => [r.name, round(r.accuracy)])),
  };
}

const round = (x) => Math.round(x * 10000) / 10000;

/**
 * Regressions against the floor: a case that passed now fails, credence's
 * accuracy below the floor by more than `tol.accuracy`, or its ECE/Brier above
 * it by more than `tol.ece`/`tol.brier`. Returns { failures, notes }.
 */
export function compare(floor, corpus, sim, tol) {
  const failures = [];
  const notes = [];
  if (corpus) {
    const known = new Set(floor.corpus.knownFailures);
    for (const c of corpus) {
      if (!c.pass && !known.has(c.name)) failures.push(`corpus case ${c.name} fails (it is not a known failure)`);
      if (c.pass && known.has(c.name)) notes.push(`corpus case ${c.name} now passes: raise the floor (npm run eval -- --update-baseline)`);
    }
  }
  if (sim) {
    if (sim.seed !== floor.seed) {
      notes.push(`seed ${sim.seed} differs from the floor's ${floor.seed}: simulation figures not compared`);
      return { failures, notes };
    }
    const cred = sim.rows[0];
    const f = floor.credence;
    if (cred.accuracy < f.accuracy - tol.accuracy) failures.push(`credence accuracy ${f3(cred.accuracy)} < floor ${f3(f.accuracy)} − ${tol.accuracy}`);
    if (cred.ece > f.ece + tol.ece) failures.push(`credence ECE ${f3(cred.ece)} > floor ${f3(f.ece)} + ${tol.ece}`);
    if (cred.brier > f.brier + tol.brier) failures.push(`credence Brier ${f3(cred.brier)} > floor ${f3(f.brier)} + ${tol.brier}`);
    if (cred.accuracy > f.accuracy + tol.accuracy || cred.ece < f.ece - tol.ece) notes.push('credence improved on the floor: raise it (npm run eval -- --update-baseline)');
  }
  return { failures, notes };
}

/** Where credence stands against each other method (the issue's goal). */
export function standing(sim) {
  const [cred, ...others] = sim.rows;
  const ceiling = sim.rows.find((r) => r.name.startsWith('Bayes'));
  const lines = [];
  for (const o of others) {
    if (o === ceiling || o.name.startsWith('credence') || o.name.startsWith('proposed')) continue;
    const d = cred.accuracy - o.accuracy;
    const perPred = Object.keys(cred.by).filter((p) => cred.by[p] < o.by[p]);
    lines.push(`  vs ${o.name.padEnd(26)} ${d >= 0 ? '+' : ''}${(100 * d).toFixed(1)} pts` +
      (perPred.length ? `   (behind on ${perPred.map((p) => `${p} ${f3(cred.by[p])} < ${f3(o.by[p])}`).join(', ')})` : ''));
  }
  if (ceiling) {
    const gap = ceiling.accuracy - cred.accuracy;
    const span = ceiling.accuracy - Math.max(...others.filter((o) => o !== ceiling && !/^(credence|proposed)/.test(o.name)).map((o) => o.accuracy));
    lines.push(`  gap to the ceiling: ${(100 * gap).toFixed(1)} pts (best baseline is ${(100 * span).toFixed(1)} pts below the ceiling)`);
  }
  return lines.join('\n');
}
