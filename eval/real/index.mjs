// The real-data section of `npm run eval`: each public truth-discovery set
// (data.mjs) through credence and four baselines from the literature, scored
// on the set's gold items. Figures are per set; nothing is tuned to either.
import { latestBySource } from './data.mjs';
import { majorityVote } from './vote.mjs';
import { truthFinder } from './truthfinder.mjs';
import { ACCU, accu } from './accu.mjs';
import { calibrateOptionSupported, runCredence } from './credence.mjs';
import { score } from './score.mjs';
import { spearman } from '../sim/index.mjs';

/**
 * Accu's n (false values per item): the paper's 100 on an open domain; a
 * predicate whose domain is a fixed list has exactly (size − 1).
 */
const CLOSED_DOMAINS = { business_status: ['open', 'closed'] };
export const falseValues = (set) => (CLOSED_DOMAINS[set.predicate] ? CLOSED_DOMAINS[set.predicate].length - 1 : 100);

/** The credence rows this engine supports, headline first. */
export function credenceConfigs() {
  if (!calibrateOptionSupported()) return { headline: 'credence (default)', runs: [{ name: 'credence (default)', config: {}, thenCalibrate: true }] };
  // The default calibrates in the background; the eval idles after each crawl
  // (credence.mjs), so it is as reproducible as "inline", which calibrates
  // inside the write that makes a calibration due.
  return {
    headline: 'credence (default)',
    runs: [
      { name: 'credence (default)', config: {}, thenCalibrate: true },
      { name: 'credence, calibrate: "inline"', config: { calibrate: 'inline' } },
      { name: 'credence, calibrate: false', config: { calibrate: false } },
    ],
  };
}

/**
 * Runs one set (allConfigs false, as in --quick: only the headline credence
 * run, plus its read after calibrate() when it has one). Returns { set,
 * rows: [{ name, accuracy, ece, brier, bins, n, note? }], headline,
 * order: { name, accuracy, reversed, changed: gold items answered otherwise, n }, wrong: the headline's wrong answers
 * (diagnose), seconds }.
 */
export async function runSet(set, { orderCheck = true, allConfigs = true } = {}) {
  const started = Date.now();
  const latest = latestBySource(set);
  const { headline, runs } = credenceConfigs();
  const rows = [];
  let head;
  let calibration;
  for (const run of allConfigs ? runs : runs.filter((x) => x.name === headline)) {
    const r = await runCredence(set, run);
    rows.push({ name: run.name, ...score(r.answers, set.gold), seconds: r.seconds, actions: r.actions });
    if (r.calibrated) rows.push({ name: 'credence after calibrate()', ...score(r.calibrated, set.gold) });
    if (run.name === headline) head = r;
    calibration ??= r.calibration;
  }
  const text = (v) => set.values[v];
  const n = falseValues(set);
  const majority = majorityVote(latest);
  rows.push({ name: 'majority vote', ...score(majority, set.gold), note: `${majority.ties} ties` });
  const tf = truthFinder(latest, text);
  rows.push({ name: 'TruthFinder', ...score(tf, set.gold), note: `${tf.rounds} rounds` });
  const ac = accu(latest, { n });
  const rounds = (x) => (x.cycled ? `${x.rounds} rounds, stopped on a cycle` : x.rounds >= ACCU.maxRounds ? `stopped at ${x.rounds} rounds` : `${x.rounds} rounds`);
  rows.push({ name: 'Accu', ...score(ac, set.gold), note: `n = ${n}, ${rounds(ac)}` });
  const copy = accu(latest, { n, copy: true });
  rows.push({ name: 'AccuCopy', ...score(copy, set.gold), note: `n = ${n}, ${rounds(copy)}, ${copy.copyingPairs} source pairs with Pr(copying) > 0.5` });
  let order;
  if (orderCheck) {
    const run = runs.find((x) => x.name === headline);
    const reversed = await runCredence(set, { config: run.config, reverse: true });
    const changed = [...set.gold.keys()].filter((item) => reversed.answers.get(item)?.value !== head.answers.get(item)?.value).length;
    order = { name: headline, accuracy: rows.find((r) => r.name === headline).accuracy, reversed: score(reversed.answers, set.gold).accuracy, changed, n: set.gold.size };
  }
  const reliability = sourceRanking(set, latest, { 'calibrate()': calibration && new Map(calibration.sources.map((x) => [set.sources.indexOf(x.sourceId), x.reliability])), Accu: ac.accuracy, AccuCopy: copy.accuracy });
  return { set, rows, headline, order, reliability, wrong: diagnose(set, latest, head), seconds: (Date.now() - started) / 1000 };
}

/** Sources with at least this many gold items are ranked (each one's accuracy on them is its truth). */
const MIN_GOLD_PER_SOURCE = 10;

/**
 * How well each method's estimate of source quality ranks the sources by
 * their accuracy on the gold items (their latest reports): Spearman per
 * method, over the sources with ≥ MIN_GOLD_PER_SOURCE gold items.
 */
function sourceRanking(set, latest, estimates) {
  const tally = new Map();
  for (const [item, truth] of set.gold) {
    for (const r of latest.get(item) ?? []) {
      const t = tally.get(r.source) ?? { n: 0, right: 0 };
      t.n++; t.right += r.value === truth ? 1 : 0;
      tally.set(r.source, t);
    }
  }
  const ranked = [...tally].filter(([, t]) => t.n >= MIN_GOLD_PER_SOURCE);
  const truth = ranked.map(([, t]) => t.right / t.n);
  const out = { sources: ranked.length, minGold: MIN_GOLD_PER_SOURCE, by: {} };
  for (const [name, m] of Object.entries(estimates)) {
    if (!m || ranked.length < 3) continue;
    out.by[name] = spearman(truth, ranked.map(([s]) => m.get(s) ?? NaN));
  }
  return out;
}

/**
 * Why credence's wrong answers are wrong, each put in the first class that
 * fits: no answer; a claim a `refined` write produced; a disputed answer; the
 * right value reported by no source; outvoted (more sources' latest report
 * gives the right value than the answer's); a tie in sources; the right value
 * is a minority (majority vote is wrong too). Examples keep the reports behind them.
 */
function diagnose(set, latest, run) {
  const classes = {};
  const examples = [];
  for (const [item, truth] of set.gold) {
    const a = run.answers.get(item);
    if (a && a.value === truth) continue;
    const votes = new Map();
    for (const r of latest.get(item) ?? []) votes.set(r.value, (votes.get(r.value) ?? 0) + 1);
    const right = votes.get(truth) ?? 0;
    const answered = a ? votes.get(a.value) ?? 0 : 0;
    const kind = !a ? 'no answer'
      : run.refined.has(a.claim.id) ? 'refinement'
        : a.status === 'disputed' ? 'disputed'
          : right === 0 ? 'right value never reported'
            : right > answered ? 'outvoted (right value has more sources)'
              : right === answered ? 'tie in sources'
                : 'right value is a minority';
    classes[kind] = (classes[kind] ?? 0) + 1;
    examples.push({
      kind, item: set.items[item], gold: set.values[truth],
      answer: a && { value: a.claim.object, confidence: a.confidence, status: a.status },
      votes: [...votes].sort((x, y) => y[1] - x[1]).map(([v, k]) => [set.values[v], k]),
    });
  }
  return { classes, examples };
}
