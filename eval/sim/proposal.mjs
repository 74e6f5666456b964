// JavaScript prototypes of belief rules — NOT credence. `npm run eval -- --proposal`
// adds them as diagnostic rows. The first is the rule credence ships (SPEC §4:
// forward filter, a source counts once per value, shipped half-lives, stated
// trust); the engine and it agree to a few tenths of a point. The others each
// change one thing, to measure what that thing costs or buys (EVAL.md):
//   oracle        the generator's half-lives and the sources' true reliabilities
//                 (what a perfect calibrate() could give the shipped rule);
//   perObservation a source counts once per observation (source, value, observedAt)
//                 instead of once per value (a re-delivery still counts once);
//   onlineHazard  each slot learns its change rate from the changes its own filter
//                 has seen, a Gamma prior worth one change at the shipped rate;
//   abandon       (with perObservation: SPEC §4 today with ρ = 1) on a time-varying
//                 predicate a source's reports of values other than its latest
//                 answer no longer count (what the contract's counting costs).

const PRIOR = 0.2;
const HALF_LIFE = { located_in: 365, works_at: 730 }; // credence's built-in specs (src/predicates.rs)
const PRIOR_CHANGES = 1;

export const PROTOTYPES = [
  ['proposed rule (JS prototype)', {}],
  ['proposed: + oracle half-lives & reliabilities', { oracle: true }],
  ['proposed: once per observation', { perObservation: true }],
  ['proposed: once per observation + oracle', { perObservation: true, oracle: true }],
  ['proposed: online per-slot hazard', { onlineHazard: true }],
  ['proposed: per observation, abandoned answers dropped + oracle', { perObservation: true, abandon: true, oracle: true }],
];

export class ProposedFilter {
  constructor(world, name = PROTOTYPES[0][0], options = {}) {
    this.name = name;
    this.options = options;
    this.slots = world.slots;
    // slot → Map(key → report): which reports count (see `observe`).
    this.latest = new Map();
    this.cache = new Map();
  }
  observe(r) {
    const bySource = this.latest.get(r.slot) ?? new Map();
    const fixed = !this.slots[r.slot].pred.timeVarying;
    if (this.options.perObservation) {
      bySource.set(`${r.source}\u0000${r.value}\u0000${r.obs}`, r);
    } else {
      // A source counts once per value: its latest report on a time-varying predicate, its strongest on a fixed one.
      const key = `${r.source}\u0000${r.value}`;
      const prev = bySource.get(key);
      if (!prev || (fixed ? r.quality > prev.quality : r.obs >= prev.obs)) bySource.set(key, r);
    }
    this.latest.set(r.slot, bySource);
    this.cache.delete(r.slot);
  }
  halfLife(slot) {
    if (!slot.pred.timeVarying) return undefined;
    if (this.options.oracle) return Math.LN2 * slot.pred.meanDwellDays * (slot.pred.domain.length - 1) / slot.pred.domain.length;
    return HALF_LIFE[slot.predicate] ?? 365;
  }
  answer(slotId, day) {
    const bySource = this.latest.get(slotId);
    if (!bySource) return undefined;
    let state = this.cache.get(slotId);
    if (!state) {
      const quality = this.options.oracle ? (r) => r.trueQuality : (r) => r.quality;
      let reports = [...bySource.values()].sort((a, b) => a.obs - b.obs);
      if (this.options.abandon && this.slots[slotId].pred.timeVarying) reports = current(reports);
      state = filter(reports, this.halfLife(this.slots[slotId]), quality, this.options.onlineHazard);
      this.cache.set(slotId, state);
    }
    const p = propagate(state, day - state.t, state.halfLife);
    let best;
    for (const [value, prob] of p.seen) if (!best || prob > best.confidence) best = { value, confidence: prob };
    return best;
  }
}

/** The reports of each source's latest answer only (reports in observation order). */
function current(reports) {
  const latest = new Map();
  for (const r of reports) latest.set(r.source, r.value);
  return reports.filter((r) => latest.get(r.source) === r.value);
}

/**
 * Hypotheses: every value seen so far, plus "something not seen yet" standing
 * for max(1/prior − n, 1) values. A report of quality q says its value with
 * probability q and each other value with (1 − q)/(K − 1). Between reports the
 * state relaxes toward uniform: stay = 2^(−Δ/halfLife).
 */
function filter(reports, halfLife, quality, online) {
  const units = 1 / PRIOR;
  let state = { seen: new Map(), other: 1, t: reports.length ? reports[0].obs : 0, halfLife };
  let changes = 0;
  let exposure = 0;
  for (const r of reports) {
    const q = Math.min(0.99, Math.max(0.01, quality(r)));
    const dt = r.obs - state.t;
    if (online && halfLife && dt > 0) {
      // Forward only: the chance the state was redrawn in the gap, given this report.
      const stay = 0.5 ** (dt / state.halfLife);
      const known = state.seen.has(r.value);
      const unseen = Math.max(units - state.seen.size, 1);
      const k = state.seen.size + unseen;
      const miss = (1 - q) / (state.seen.size + (known ? 0 : 1) + Math.max(units - state.seen.size - (known ? 0 : 1), 1) - 1);
      let kept = known ? 0 : state.other * (q / unseen + miss * (unseen - 1) / unseen);
      let redrawn = known ? miss * unseen / k : (q + miss * (unseen - 1)) / k;
      for (const [v, p] of state.seen) {
        kept += p * (v === r.value ? q : miss);
        redrawn += (v === r.value ? q : miss) / k;
      }
      const jump = (1 - stay) * redrawn / ((1 - stay) * redrawn + stay * kept);
      const rate = Math.LN2 / state.halfLife;
      changes += jump * (stay < 1 ? rate * dt / (1 - stay) : 1);
      exposure += dt;
      state.halfLife = Math.LN2 / ((changes + PRIOR_CHANGES) / (exposure + PRIOR_CHANGES * halfLife / Math.LN2));
    }
    state = propagate(state, dt, state.halfLife);
    state.t = r.obs;
    const { seen } = state;
    if (!seen.has(r.value)) {
      const unseen = Math.max(units - seen.size, 1);
      const share = state.other / (unseen > 1 ? unseen : 2);
      seen.set(r.value, share);
      state.other -= share;
    }
    const k = seen.size + Math.max(units - seen.size, 1);
    const miss = (1 - q) / (k - 1);
    for (const [v, p] of seen) seen.set(v, p * (v === r.value ? q : miss));
    state.other *= miss;
    const z = [...seen.values()].reduce((a, b) => a + b, state.other);
    for (const [v, p] of seen) seen.set(v, p / z);
    state.other /= z;
  }
  return state;
}

function propagate(state, dt, halfLife) {
  if (!halfLife || dt <= 0) return { ...state, seen: new Map(state.seen) };
  const unseen = Math.max(1 / PRIOR - state.seen.size, 1);
  const k = state.seen.size + unseen;
  const stay = 0.5 ** (dt / halfLife);
  const seen = new Map([...state.seen].map(([v, p]) => [v, stay * p + (1 - stay) / k]));
  return { ...state, seen, other: stay * state.other + ((1 - stay) * unseen) / k };
}
