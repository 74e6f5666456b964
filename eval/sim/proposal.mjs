// A JavaScript prototype of the belief rule proposed in EVAL.md — NOT credence.
// It uses only what credence knows (prior 0.2, each predicate's shipped
// half-life, trust × extractorConf, observedAt, "a source counts once per
// value") but reads the half-life as a change hazard in a forward filter over
// the slot's observations in observedAt order, instead of as a decay of each
// observation's weight towards now. Shown with `npm run eval -- --proposal`.

const PRIOR = 0.2;
const HALF_LIFE = { located_in: 365, works_at: 730 }; // credence's built-in specs (src/predicates.rs)

export class ProposedFilter {
  name = 'proposed rule (JS prototype)';
  constructor(world) {
    this.slots = world.slots;
    // slot → Map(source|value → report): a source counts once per value — its
    // latest report on a time-varying predicate, its strongest on a fixed one.
    this.latest = new Map();
    this.cache = new Map();
  }
  observe(r) {
    const bySource = this.latest.get(r.slot) ?? new Map();
    const key = `${r.source}\u0000${r.value}`;
    const prev = bySource.get(key);
    const fixed = !this.slots[r.slot].pred.timeVarying;
    if (!prev || (fixed ? r.quality > prev.quality : r.obs >= prev.obs)) bySource.set(key, r);
    this.latest.set(r.slot, bySource);
    this.cache.delete(r.slot);
  }
  answer(slotId, day) {
    const bySource = this.latest.get(slotId);
    if (!bySource) return undefined;
    const halfLife = this.slots[slotId].pred.timeVarying ? HALF_LIFE[this.slots[slotId].predicate] ?? 365 : undefined;
    let state = this.cache.get(slotId);
    if (!state) {
      state = filter([...bySource.values()].sort((a, b) => a.obs - b.obs), halfLife);
      this.cache.set(slotId, state);
    }
    const p = propagate(state, day - state.t, halfLife);
    let best;
    for (const [value, prob] of p.seen) if (!best || prob > best.confidence) best = { value, confidence: prob };
    return best;
  }
}

/**
 * Hypotheses: every value seen so far, plus "something not seen yet" standing
 * for max(1/prior − n, 1) values. A report of quality q says its value with
 * probability q and each other value with (1 − q)/(K − 1). Between reports the
 * state relaxes toward uniform: stay = 2^(−Δ/halfLife).
 */
function filter(reports, halfLife) {
  const units = 1 / PRIOR;
  let state = { seen: new Map(), other: 1, t: reports.length ? reports[0].obs : 0 };
  for (const r of reports) {
    state = propagate(state, r.obs - state.t, halfLife);
    state.t = r.obs;
    const { seen } = state;
    if (!seen.has(r.value)) {
      const unseen = Math.max(units - seen.size, 1);
      const share = state.other / (unseen > 1 ? unseen : 2);
      seen.set(r.value, share);
      state.other -= share;
    }
    const k = seen.size + Math.max(units - seen.size, 1);
    const miss = (1 - r.quality) / (k - 1);
    for (const [v, p] of seen) seen.set(v, p * (v === r.value ? r.quality : miss));
    state.other *= miss;
    const z = [...seen.values()].reduce((a, b) => a + b, state.other);
    for (const [v, p] of seen) seen.set(v, p / z);
    state.other /= z;
  }
  return state;
}

function propagate(state, dt, halfLife) {
  if (!halfLife || dt <= 0) return { seen: new Map(state.seen), other: state.other, t: state.t };
  const unseen = Math.max(1 / PRIOR - state.seen.size, 1);
  const k = state.seen.size + unseen;
  const stay = 0.5 ** (dt / halfLife);
  const seen = new Map([...state.seen].map(([v, p]) => [v, stay * p + (1 - stay) / k]));
  return { seen, other: stay * state.other + ((1 - stay) * unseen) / k, t: state.t };
}
