// Runs the simulated world through credence and every baseline, and scores
// each method's current answer per slot against ground truth at every query.
import { Memory } from 'credence';
import { generate, iso, truthAt } from './world.mjs';
import { BayesFilter, ConfidenceGated, LastWriteWins, LatestObservationWins, MajorityVote, RecencyTrustVote, TrustWeightedVote } from './methods.mjs';
import { PROTOTYPES, ProposedFilter } from './proposal.mjs';

/** credence with its shipped defaults: built-in predicate specs, prior, margins, half-lives. */
class Credence {
  constructor(world, clock, config = {}, name = 'credence (reconcile)', { calibrateEveryDays } = {}) {
    this.name = name;
    this.calibrateEveryDays = calibrateEveryDays;
    this.calibratedOn = 0;
    this.calibrations = [];
    this.slots = world.slots;
    this.clock = clock;
    this.memory = new Memory({ ...config, now: () => iso(clock.day) });
    this.actions = {};
    this.answers = new Map();
  }
  async observe(r) {
    const slot = this.slots[r.slot];
    const outcome = await this.memory.remember({
      subject: slot.subject,
      predicate: slot.predicate,
      object: r.value,
      provenance: { sourceId: r.source, sourceTrust: r.trust, extractorConf: r.conf, observedAt: iso(r.obs) },
    });
    const key = `${slot.pred.timeVarying ? 'tv' : 'fixed'}:${outcome.action}`;
    this.actions[key] = (this.actions[key] ?? 0) + 1;
    this.answers.delete(r.slot);
    this.opened = outcome.conflicts.filter((c) => c.kind === 'dispute' && c.status === 'open').length;
  }
  /**
   * Reads the slot's current beliefs (active or disputed) and answers with the most believed.
   * A time-varying slot's belief relaxes as time passes, so it is read again at each time asked,
   * as a user's recall would be (kept from the last write, its confidence would be that day's).
   */
  async refresh(slotId) {
    const slot = this.slots[slotId];
    const kept = this.answers.get(slotId);
    if (kept && (kept.at === this.clock.day || !slot.pred.timeVarying)) return;
    const claims = await this.memory.recall(slot.subject, { predicate: slot.predicate });
    let best;
    for (const c of claims) if (!best || c.confidence > best.confidence) best = c;
    this.answers.set(slotId, { at: this.clock.day, answer: best && { value: best.object, confidence: best.confidence, disputed: best.status === 'disputed' } });
  }
  answer(slotId) { return this.answers.get(slotId)?.answer; }
  /**
   * The service idles between batches of reports: background work (the automatic calibration, SPEC §4)
   * finishes, deterministically, before the next query; a new calibration changes every slot's belief.
   */
  async settle() {
    const version = this.version;
    await this.memory.idle();
    this.version = (await this.memory.calibration())?.version;
    if (this.version !== version) this.answers.clear();
  }
  /** A memory that recalibrates itself as history accumulates (`memory.calibrate()`, SPEC §4). */
  async tick(day) {
    if (!this.calibrateEveryDays || day - this.calibratedOn < this.calibrateEveryDays) return;
    this.calibratedOn = day;
    const started = Date.now();
    const record = await this.memory.calibrate();
    this.calibrations.push({ day, ms: Date.now() - started, record });
    this.answers.clear();
  }
}

/** How often the calibrated row recalibrates (days of simulated time). */
export const CALIBRATE_EVERY_DAYS = 90;

/** Expected calibration error over 10 equal-width bins, and the Brier score. */
export function calibration(pairs) {
  if (!pairs.length) return { ece: NaN, brier: NaN };
  const bins = Array.from({ length: 10 }, () => ({ n: 0, conf: 0, hits: 0 }));
  let brier = 0;
  for (const [conf, hit] of pairs) {
    const b = bins[Math.min(9, Math.floor(conf * 10))];
    b.n++; b.conf += conf; b.hits += hit;
    brier += (conf - hit) ** 2;
  }
  const ece = bins.reduce((s, b) => s + (b.n ? Math.abs(b.hits - b.conf) : 0), 0) / pairs.length;
  return { ece, brier: brier / pairs.length, bins };
}

/** The value a time-varying slot held before its current one (a method answering it lags a change). */
function previousTruth(slot, day) {
  const i = slot.segments.findLastIndex((seg) => seg.from <= day);
  return i > 0 ? slot.segments[i - 1].value : undefined;
}

/**
 * credence configured with what the generator knows: each time-varying
 * predicate's half-life set to the half-life of "the value has not changed"
 * under its change rate, ln2 · meanDwell · (K−1)/K. A diagnostic row, not the default.
 */
export function fittedConfig(params) {
  return {
    predicates: params.predicates.filter((p) => p.timeVarying).map((p) => ({
      name: p.name, cardinality: 'single', timeVarying: true,
      halfLifeDays: Math.LN2 * p.meanDwellDays * (p.domain.length - 1) / p.domain.length,
    })),
  };
}

/** Windows tried for each windowed baseline; the report keeps, per predicate, the best in hindsight. */
export const WINDOWS = { majority: [3, 5, 9, 15, Infinity], trust: [3, 5, 9, 15, Infinity], recency: [15, 30, 60, 120, 240, 480, 960] };

function baselines(world) {
  return [
    new LastWriteWins(),
    new LatestObservationWins(),
    new ConfidenceGated(),
    ...WINDOWS.majority.map((w) => new MajorityVote(w)),
    ...WINDOWS.trust.map((w) => new TrustWeightedVote(w)),
    ...WINDOWS.recency.map((h) => new RecencyTrustVote(h)),
    new BayesFilter(world),
  ];
}

/** The ceiling's confidence at or above which one value is "plainly right". */
export const PLAIN = 0.9;

export async function runSimulation(params, seed, { proposal = false } = {}) {
  const world = generate(params, seed);
  const clock = { day: 0 };
  // The default config calibrates by itself (SPEC §4); the uncalibrated row beside it.
  const credence = new Credence(world, clock);
  const uncalibrated = new Credence(world, clock, { calibrate: false }, 'credence, calibrate: false');
  const fitted = new Credence(world, clock, fittedConfig(params), 'credence, half-life fitted');
  const calibrated = new Credence(world, clock, {}, 'credence, calibrate()', { calibrateEveryDays: CALIBRATE_EVERY_DAYS });
  const methods = [credence, uncalibrated, fitted, calibrated, ...baselines(world), ...(proposal ? PROTOTYPES.map(([name, options]) => new ProposedFilter(world, name, options)) : [])];
  const ceiling = methods.find((m) => m instanceof BayesFilter);
  const score = methods.map((m) => ({ name: m.name, family: m.family, hits: 0, n: 0, stale: 0, by: {}, pairs: [], rightBefore: 0, falseReplacements: 0 }));
  const seen = new Set();
  const before = methods.map(() => new Map()); // each method's answer for a slot after its last write
  let disputed = 0;
  let disputes = 0;
  let falseDisputes = 0;
  let next = 0;
  const started = Date.now();
  const answerOf = async (m, slotId, day) => {
    if (m.refresh) await m.refresh(slotId);
    return m.answer(slotId, day)?.value;
  };
  for (const day of world.queries) {
    for (; next < world.reports.length && world.reports[next].delivered <= day; next++) {
      const r = world.reports[next];
      clock.day = r.delivered;
      const slot = world.slots[r.slot];
      const truth = truthAt(slot, r.delivered);
      for (const [i, m] of methods.entries()) {
        const was = before[i].get(r.slot);
        await m.observe(r);
        const now = await answerOf(m, r.slot, r.delivered);
        before[i].set(r.slot, now);
        // A false replacement: a right current answer replaced by a wrong one.
        if (was === truth) {
          score[i].rightBefore++;
          if (now !== truth) score[i].falseReplacements++;
        }
      }
      if (credence.opened) {
        disputes += credence.opened;
        // A false dispute: opened while the evidence plainly favoured one value.
        if ((ceiling.answer(r.slot, r.delivered)?.confidence ?? 0) >= PLAIN) falseDisputes += credence.opened;
      }
      seen.add(r.slot);
    }
    clock.day = day;
    for (const m of methods) await m.settle?.();
    await calibrated.tick(day);
    for (const slotId of seen) {
      const slot = world.slots[slotId];
      const truth = truthAt(slot, day);
      await credence.refresh(slotId);
      await uncalibrated.refresh(slotId);
      await fitted.refresh(slotId);
      await calibrated.refresh(slotId);
      if (credence.answer(slotId)?.disputed) disputed++;
      methods.forEach((m, i) => {
        const a = m.answer(slotId, day);
        const hit = a?.value === truth ? 1 : 0;
        const s = score[i];
        s.hits += hit; s.n++;
        if (!hit && a && slot.pred.timeVarying && a.value === previousTruth(slot, day)) s.stale++;
        const by = (s.by[slot.predicate] ??= { hits: 0, n: 0, pairs: [] });
        by.hits += hit; by.n++;
        if (a?.confidence !== undefined) {
          s.pairs.push([a.confidence, hit]);
          by.pairs.push([a.confidence, hit]);
        }
      });
    }
  }
  const rows = score.map((s) => {
    const { ece, brier, bins } = calibration(s.pairs);
    const by = Object.fromEntries(Object.entries(s.by).map(([k, v]) => [k, v.hits / v.n]));
    const eceBy = Object.fromEntries(Object.entries(s.by).map(([k, v]) => [k, calibration(v.pairs).ece]));
    return {
      name: s.name, family: s.family, accuracy: s.hits / s.n, by, eceBy, ece, brier, n: s.n, staleRate: s.stale / s.n, bins,
      falseReplacementRate: s.rightBefore ? s.falseReplacements / s.rightBefore : NaN,
      perPredicate: s.by,
    };
  });
  return {
    seed,
    rows: withBestWindows(rows),
    allRows: rows,
    slots: world.slots.length,
    reports: world.reports.length,
    late: world.reports.filter((r) => r.delivered > r.obs).length,
    reportAccuracy: world.reports.filter((r) => r.correct).length / world.reports.length,
    disputedRate: disputed / score[0].n,
    disputes,
    falseDisputes,
    falseDisputeRate: falseDisputes / world.reports.length,
    disputeRate: disputes / world.reports.length,
    actions: credence.actions,
    calibration: calibrationReport(params, calibrated.calibrations),
    seconds: (Date.now() - started) / 1000,
  };
}

/**
 * Collapses each windowed family to its strongest form, chosen in hindsight:
 * for every predicate the window with the best accuracy on it, so credence is
 * held against the best-tuned version of each baseline.
 */
function withBestWindows(rows) {
  const out = [];
  const done = new Set();
  for (const row of rows) {
    if (!row.family) { out.push(row); continue; }
    if (done.has(row.family)) continue;
    done.add(row.family);
    const members = rows.filter((r) => r.family === row.family);
    const preds = Object.keys(row.perPredicate);
    const pick = Object.fromEntries(preds.map((p) => [p, members.reduce((a, b) => (b.by[p] > a.by[p] ? b : a))]));
    let hits = 0; let n = 0; const pairs = [];
    for (const p of preds) {
      const v = pick[p].perPredicate[p];
      hits += v.hits; n += v.n; pairs.push(...v.pairs);
    }
    const { ece, brier } = calibration(pairs);
    const windows = preds.map((p) => `${p} ${pick[p].name.slice(row.family.length + 2, -1)}`).join(', ');
    out.push({
      name: `${row.family}, best window`, family: row.family, windows, accuracy: hits / n, ece, brier, n,
      by: Object.fromEntries(preds.map((p) => [p, pick[p].by[p]])),
      eceBy: Object.fromEntries(preds.map((p) => [p, pick[p].eceBy[p]])),
      falseReplacementRate: members.reduce((a, b) => (b.accuracy > a.accuracy ? b : a)).falseReplacementRate,
    });
  }
  return out;
}

/** Spearman rank correlation (average ranks for ties). */
export function spearman(xs, ys) {
  const rank = (v) => {
    const order = v.map((x, i) => [x, i]).sort((a, b) => a[0] - b[0]);
    const r = new Array(v.length);
    for (let i = 0; i < order.length;) {
      let j = i;
      while (j + 1 < order.length && order[j + 1][0] === order[i][0]) j++;
      for (let k = i; k <= j; k++) r[order[k][1]] = (i + j) / 2;
      i = j + 1;
    }
    return r;
  };
  const [a, b] = [rank(xs), rank(ys)];
  const mean = (v) => v.reduce((s, x) => s + x, 0) / v.length;
  const [ma, mb] = [mean(a), mean(b)];
  let num = 0; let da = 0; let db = 0;
  for (let i = 0; i < a.length; i++) { num += (a[i] - ma) * (b[i] - mb); da += (a[i] - ma) ** 2; db += (b[i] - mb) ** 2; }
  return num / Math.sqrt(da * db);
}

/**
 * The last calibration against the generator's truth: each source's estimated
 * reliability vs its true one (Spearman), each time-varying predicate's
 * half-life vs the generator's ln2 · meanDwell · (K−1)/K (ratio).
 */
function calibrationReport(params, calibrations) {
  const last = calibrations.at(-1);
  if (!last) return undefined;
  const { record } = last;
  const truth = params.sources.map((s) => s.reliability);
  const estimated = params.sources.map((s) => record.sources.find((e) => e.sourceId === s.id)?.reliability ?? NaN);
  const halfLives = params.predicates.filter((p) => p.timeVarying).map((p) => {
    const e = record.predicates.find((x) => x.predicate === p.name);
    const generator = Math.LN2 * p.meanDwellDays * (p.domain.length - 1) / p.domain.length;
    return { predicate: p.name, estimated: e?.halfLifeDays, generator, ratio: e ? e.halfLifeDays / generator : NaN };
  });
  return {
    version: record.version,
    calibrations: calibrations.length,
    lastMs: last.ms,
    spearman: spearman(truth, estimated),
    sources: params.sources.map((s, i) => ({ id: s.id, truth: truth[i], estimated: estimated[i] })),
    halfLives,
  };
}
