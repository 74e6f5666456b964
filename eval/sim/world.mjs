// The simulated world: facts that change over time (or never), and sources of
// known reliability that report them with noise, sometimes late. Everything is
// drawn from one seeded PRNG, so a seed replays the same world exactly.
import { mulberry32 } from '../../js-tests/lib/mulberry32.mjs';

export { mulberry32 };

export const DAY_MS = 86_400_000;
export const EPOCH = Date.parse('2023-01-01T00:00:00.000Z');
export const iso = (day) => new Date(EPOCH + Math.round(day * DAY_MS)).toISOString();


/** The generator's knobs (EVAL.md explains each). */
export const DEFAULTS = {
  subjects: 150,
  horizonDays: 1095,
  queryEveryDays: 14,
  predicates: [
    // Built-in predicates, so credence runs with its shipped specs and defaults.
    { name: 'located_in', timeVarying: true, meanDwellDays: 240, domain: ['Paris', 'Berlin', 'Lisbon', 'Oslo', 'Rome', 'Vienna'] },
    { name: 'works_at', timeVarying: true, meanDwellDays: 480, domain: ['Initech', 'Globex', 'Hooli', 'Umbrella', 'Stark', 'Wayne'] },
    { name: 'born_in', timeVarying: false, domain: ['Lyon', 'Nice', 'Metz', 'Lille', 'Brest', 'Dijon'] },
  ],
  // Reliability r: the probability a report (before extraction noise) is the truth.
  sources: [
    { id: 'src-a', reliability: 0.95 },
    { id: 'src-b', reliability: 0.85 },
    { id: 'src-c', reliability: 0.75 },
    { id: 'src-d', reliability: 0.6 },
    { id: 'src-e', reliability: 0.45 },
  ],
  meanReportGapDays: 21,
  // Each report passes an extractor of confidence c ~ U[lo, hi]; it is right
  // with probability r·c, and both r (sourceTrust) and c (extractorConf) are stated honestly.
  extractorConf: [0.6, 1.0],
  lateProbability: 0.2,
  lateDelayDays: [5, 120],
  // A delivered report is sometimes delivered again (re-ingestion without an
  // idempotency key): same source, same observation. Off in the main regime.
  duplicateProbability: 0,
  duplicateDelayDays: [1, 60],
  // A stale report repeats the value its source last reported for the slot
  // instead of looking again. Off in the main regime.
  staleProbability: 0,
  // { by, from }: source `by` copies the value `from` last reported for the
  // slot (stating its own trust), a correlated source. Off in the main regime.
  copies: null,
  // Trust every source states, whatever its reliability (null: honest). The
  // ceiling still knows the true reliabilities.
  statedTrust: null,
};

const exponential = (rand, mean) => -mean * Math.log(1 - rand());
const pick = (rand, xs) => xs[Math.floor(rand() * xs.length)];
const between = (rand, [lo, hi]) => lo + (hi - lo) * rand();

/** Value of a slot at `day` from its change points. */
export function truthAt(slot, day) {
  let value = slot.segments[0].value;
  for (const s of slot.segments) {
    if (s.from > day) break;
    value = s.value;
  }
  return value;
}

/**
 * Draws the world: per slot a truth timeline and a stream of reports, each
 * with an observation time (when the source saw the world, stated honestly as
 * observedAt) and a delivery time (when memory receives it).
 */
export function generate(params, seed) {
  // Separate streams, so a regime that changes only delivery (late reports,
  // re-deliveries) sees the same truths and the same reports.
  const rand = mulberry32(seed);
  const post = mulberry32(seed ^ 0x5eed5eed);
  // Staleness and copying draw from a third stream: those regimes keep the same truths.
  const habit = mulberry32(seed ^ 0x57a1e57a);
  const slots = [];
  const reports = [];
  for (let s = 0; s < params.subjects; s++) {
    for (const pred of params.predicates) {
      const slot = { id: slots.length, subject: `person-${s}`, predicate: pred.name, pred, segments: [] };
      let value = pick(rand, pred.domain);
      slot.segments.push({ from: 0, value });
      if (pred.timeVarying) {
        for (let day = exponential(rand, pred.meanDwellDays); day < params.horizonDays; day += exponential(rand, pred.meanDwellDays)) {
          value = pick(rand, pred.domain.filter((v) => v !== value));
          slot.segments.push({ from: day, value });
        }
      }
      slots.push(slot);
      const lastSaid = new Map(); // source → the value it last reported for this slot
      for (let obs = exponential(rand, params.meanReportGapDays); obs < params.horizonDays; obs += exponential(rand, params.meanReportGapDays)) {
        const source = pick(rand, params.sources);
        const conf = Math.round(between(rand, params.extractorConf) * 100) / 100;
        const trueQuality = source.reliability * conf;
        const truth = truthAt(slot, obs);
        let value = rand() < trueQuality ? truth : pick(rand, pred.domain.filter((v) => v !== truth));
        const stale = params.staleProbability && habit() < params.staleProbability && lastSaid.has(source.id);
        if (stale) value = lastSaid.get(source.id);
        if (params.copies?.by === source.id && lastSaid.has(params.copies.from)) value = lastSaid.get(params.copies.from);
        lastSaid.set(source.id, value);
        const trust = params.statedTrust ?? source.reliability;
        const quality = trust * conf;
        const late = post() < params.lateProbability;
        const delivered = late ? obs + between(post, params.lateDelayDays) : obs;
        if (delivered >= params.horizonDays) continue;
        const report = { obsId: reports.length, slot: slot.id, obs, delivered, source: source.id, trust, conf, quality, trueQuality, value, correct: value === truth };
        reports.push(report);
        if (params.duplicateProbability && post() < params.duplicateProbability) {
          const again = delivered + between(post, params.duplicateDelayDays);
          if (again < params.horizonDays) reports.push({ ...report, delivered: again, duplicate: true });
        }
      }
    }
  }
  reports.sort((a, b) => a.delivered - b.delivered || a.slot - b.slot);
  reports.forEach((r, i) => { r.seq = i; });
  const queries = [];
  for (let day = params.queryEveryDays; day <= params.horizonDays; day += params.queryEveryDays) queries.push(day);
  return { slots, reports, queries };
}
