// The reconciliation benchmark (issue #3): `npm run eval [-- options]`.
//   --quick             smaller simulation (CI); the floor keeps figures per mode
//   --seed N            another world (figures are then not compared with the floor)
//   --sweep             also run the simulation under the other generator regimes (per regime and predicate)
//   --proposal          add rows for JS prototypes of the belief rule, each changing one thing (EVAL.md)
//   --update-baseline   write the current figures as the floor for this mode
//   --corpus-only / --sim-only
//   --real              only the real-data section (public truth-discovery sets, eval/real/)
//   --no-real           skip it
//   --write-docs        write the reliability diagrams into docs/eval/ (committed, shown in EVAL.md)
//                       instead of the git-ignored artifacts/eval/
//   --explain           list each of credence's wrong answers on the real data with the reports behind it
// Exits non-zero when a corpus case that passed on the floor fails, or
// credence's accuracy / ECE / Brier regress past the tolerances.
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCorpus } from './corpus.mjs';
import { runSimulation } from './sim/index.mjs';
import { DEFAULTS } from './sim/world.mjs';
import { compare, floorOf, simTable, standing, sweepTable } from './report.mjs';
import { loadTruthDiscovery } from './real/data.mjs';
import { runSet } from './real/index.mjs';
import { realTable, REAL_NOTES } from './real/report.mjs';
import { compareReal, realFloorOf, targets } from './real/floor.mjs';
import { reliabilitySvg, slug, writeDiagram } from './reliability.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const FLOOR_FILE = join(here, 'baseline.json');
const DEFAULT_SEED = 20260601;
const TOLERANCE = { accuracy: 0.01, ece: 0.01, brier: 0.01 };

const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const option = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const mode = flag('--quick') ? 'quick' : 'full';
const seed = Number(option('--seed') ?? DEFAULT_SEED);
if (!Number.isInteger(seed) || seed < 0) throw new Error(`--seed must be a non-negative integer, got ${option('--seed')}`);
const params = { ...DEFAULTS, subjects: mode === 'quick' ? 40 : DEFAULTS.subjects };

/** Generator regimes for --sweep: the main regime with one thing changed. */
const slower = (k) => DEFAULTS.predicates.map((p) => (p.timeVarying ? { ...p, meanDwellDays: p.meanDwellDays * k } : p));
const REGIMES = [
  ['main regime', {}],
  ['cleaner sources', { sources: DEFAULTS.sources.map((s) => ({ ...s, reliability: Math.min(0.99, s.reliability + 0.15) })), extractorConf: [0.8, 1.0] }],
  ['30% re-deliveries', { duplicateProbability: 0.3 }],
  ['no late reports', { lateProbability: 0 }],
  ['30% stale reports', { staleProbability: 0.3 }],
  ['correlated: b copies d', { copies: { by: 'src-b', from: 'src-d' } }],
  ['every source states 0.8', { statedTrust: 0.8 }],
  ['changes 2× faster', { predicates: slower(0.5) }],
  ['changes 2× slower', { predicates: slower(2) }],
  ['sparse reports (60 d)', { meanReportGapDays: 60 }],
];

const diagrams = [];
const draw = (name, title, rows) => diagrams.push(writeDiagram(name, reliabilitySvg(title, rows.filter((r) => r.bins)), { docs: flag('--write-docs') }));
/** The simulated rows a diagram shows: credence's and the ceiling's (the windowed baselines state a vote share per window). */
const simPanels = (sim) => sim.rows.filter((r) => /^(credence|Bayes)/.test(r.name));
const simName = (label) => `reliability-sim-${slug(label)}${mode === 'quick' ? '-quick' : ''}`;

const only = flag('--real') ? 'real' : flag('--sim-only') ? 'sim' : flag('--corpus-only') ? 'corpus' : undefined;

let corpus;
if (!only || only === 'corpus') {
  console.log('== corpus: labeled scenarios (eval/scenarios/*.json)');
  corpus = await runCorpus(join(here, 'scenarios'));
  const failed = corpus.filter((c) => !c.pass);
  console.log(`corpus: ${corpus.length - failed.length}/${corpus.length} cases pass` + (failed.length ? ` (failing: ${failed.map((c) => c.name).join(', ')})` : ''));
}

let sim;
if (!only || only === 'sim') {
  console.log(`\n== simulation (${mode}; seed ${seed}; replay with --seed ${seed}${mode === 'quick' ? ' --quick' : ''})`);
  sim = await runSimulation(params, seed, { proposal: flag('--proposal') });
  console.log(simTable(sim, params));
  console.log('credence against each baseline:');
  console.log(standing(sim));
  draw(simName('main regime'), `Simulation, main regime (${mode}, seed ${seed}): reliability`, simPanels(sim));
  if (corpus) console.log(`corpus: ${corpus.filter((c) => c.pass).length}/${corpus.length} cases pass`);
}

if (flag('--sweep')) {
  console.log(`\n== sweep: accuracy by generator regime (${params.subjects} subjects, seed ${seed})`);
  const results = [];
  for (const [label, change] of REGIMES) results.push({ label, sim: await runSimulation({ ...params, ...change }, seed, { proposal: flag('--proposal') }) });
  console.log(sweepTable(results));
  for (const { label, sim: s } of results) if (label !== 'main regime') draw(simName(label), `Simulation, ${label} (${mode}, seed ${seed}): reliability`, simPanels(s));
}

let real;
if ((!only || only === 'real') && !flag('--no-real')) {
  console.log('\n== real public data (truth discovery; ../shared/data/README.md)');
  const data = loadTruthDiscovery();
  if (data.skipped) console.log(`real-data section skipped: ${data.skipped}`);
  else {
    real = [];
    for (const set of data.sets) {
      const result = await runSet(set, { allConfigs: mode === 'full' });
      real.push(result);
      console.log(realTable(result, { explain: flag('--explain') }));
      console.log(targets(result));
      draw(`reliability-${slug(set.name)}`, `${set.name} (real data, ${set.gold.size} gold items): reliability`, result.rows);
    }
    console.log(REAL_NOTES);
  }
}
if (diagrams.length) console.log(`\nreliability diagrams: ${diagrams.join(', ')}`);

const floors = existsSync(FLOOR_FILE) ? JSON.parse(readFileSync(FLOOR_FILE, 'utf8')) : {};
const tolerance = floors.tolerance ?? TOLERANCE;
if (flag('--update-baseline')) {
  if (seed !== DEFAULT_SEED) throw new Error(`the floor is kept for the default seed ${DEFAULT_SEED}`);
  if (only !== 'real') {
    if (!corpus || !sim) throw new Error('--update-baseline needs both the corpus and the simulation (or --real for the real-data floor alone)');
    floors[mode] = floorOf(corpus, sim);
  }
  if (real) floors.real = realFloorOf(real);
  floors.tolerance = tolerance;
  writeFileSync(FLOOR_FILE, JSON.stringify(floors, null, 2) + '\n');
  console.log(`\nfloor written to eval/baseline.json (${[only !== 'real' && mode, real && 'real data'].filter(Boolean).join(', ')})`);
  process.exit(0);
}

const floor = floors[mode];
if (!floor && only !== 'real') {
  console.log(`\nno floor for mode ${mode} in eval/baseline.json (write one with --update-baseline)`);
  process.exit(1);
}
const { failures, notes } = only === 'real' ? { failures: [], notes: [] } : compare(floor, corpus, sim, tolerance);
if (real) {
  const r = compareReal(floors.real, real, tolerance);
  failures.push(...r.failures);
  notes.push(...r.notes);
}
console.log(`\n== against the floor (eval/baseline.json, ${only === 'real' ? 'real data' : mode})`);
if (floor?.corpus.knownFailures.length && corpus) console.log(`known failing cases (kept on purpose, see EVAL.md): ${floor.corpus.knownFailures.join(', ')}`);
for (const n of notes) console.log(`note: ${n}`);
for (const f of failures) console.log(`REGRESSION: ${f}`);
console.log(failures.length ? `eval FAILED (${failures.length} regression${failures.length > 1 ? 's' : ''})` : 'eval passed: no regression against the floor');
process.exit(failures.length ? 1 : 0);
