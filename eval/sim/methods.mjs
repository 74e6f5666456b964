// Baselines and the Bayes-filter ceiling. Each method keeps per-slot state,
// `observe(report)` takes reports in delivery order, and `answer(slot, day)`
// returns { value, confidence } (confidence undefined when the method has none).

/** Last write wins: the most recently delivered report. */
export class LastWriteWins {
  name = 'last-write-wins';
  state = new Map();
  observe(r) { this.state.set(r.slot, r); }
  answer(slot) {
    const r = this.state.get(slot);
    return r && { value: r.value, confidence: r.quality };
  }
}

/** Latest observation wins: the report with the latest observedAt (late reports cannot displace newer ones). */
export class LatestObservationWins {
  name = 'latest-observation-wins';
  state = new Map();
  observe(r) {
    const cur = this.state.get(r.slot);
    if (!cur || r.obs >= cur.obs) this.state.set(r.slot, r);
  }
  answer(slot) {
    const r = this.state.get(slot);
    return r && { value: r.value, confidence: r.quality };
  }
}

/** Majority vote over reports (all, or the last `window` delivered); ties go to the latest. */
export class MajorityVote {
  constructor(window = Infinity) {
    this.window = window;
    this.family = 'majority vote';
    this.name = window === Infinity ? 'majority vote (all)' : `majority vote (last ${window})`;
    this.state = new Map();
  }
  observe(r) {
    const list = this.state.get(r.slot) ?? [];
    list.push(r);
    if (list.length > this.window) list.shift();
    this.state.set(r.slot, list);
  }
  answer(slot) {
    const list = this.state.get(slot);
    if (!list) return undefined;
    const votes = new Map();
    list.forEach((r, i) => {
      const v = votes.get(r.value) ?? { n: 0, last: -1 };
      votes.set(r.value, { n: v.n + 1, last: i });
    });
    let best;
    for (const [value, v] of votes) if (!best || v.n > best.n || (v.n === best.n && v.last > best.last)) best = { value, ...v };
    return { value: best.value, confidence: best.n / list.length };
  }
}

/**
 * Confidence-gated (SPEC §5, as Memoir does): a report replaces the held
 * value only if its stated confidence (trust × extractorConf) is at least
 * the held one's; otherwise it is skipped.
 */
export class ConfidenceGated {
  name = 'confidence-gated';
  state = new Map();
  observe(r) {
    const cur = this.state.get(r.slot);
    if (!cur || r.quality >= cur.quality) this.state.set(r.slot, r);
  }
  answer(slot) {
    const r = this.state.get(slot);
    return r && { value: r.value, confidence: r.quality };
  }
}

/**
 * The ceiling: an exact forward filter over the generator's own model. It
 * knows the domain, the change rate of each predicate, that a report is right
 * with probability reliability × extractorConf (the true reliability, even
 * where the stated trust is not) and otherwise uniform over the wrong values; it places late reports at their observation time and ignores
 * re-deliveries of an observation it has already seen.
 */
export class BayesFilter {
  name = 'Bayes filter (ceiling)';
  constructor(world) {
    this.slots = world.slots;
    this.reports = new Map();
    this.cache = new Map();
    this.seen = new Set();
  }
  observe(r) {
    if (this.seen.has(r.obsId)) return; // it knows a re-delivered observation carries no new information
    this.seen.add(r.obsId);
    const list = this.reports.get(r.slot) ?? [];
    list.push(r);
    this.reports.set(r.slot, list);
    this.cache.delete(r.slot);
  }
  /** P(x_t | x_0) of the generator: stay or jump uniformly to one of the K−1 others at rate 1/meanDwell. */
  static propagate(p, dt, pred) {
    if (!pred.timeVarying || dt <= 0) return p;
    const k = p.length;
    const stay = Math.exp((-(k / (k - 1)) * dt) / pred.meanDwellDays);
    return p.map((x) => stay * x + (1 - stay) / k);
  }
  posteriorAtLastReport(slot) {
    let cached = this.cache.get(slot);
    if (cached) return cached;
    const { pred } = this.slots[slot];
    const k = pred.domain.length;
    const list = [...this.reports.get(slot)].sort((a, b) => a.obs - b.obs);
    let p = new Array(k).fill(1 / k);
    let t = 0;
    for (const r of list) {
      p = BayesFilter.propagate(p, r.obs - t, pred);
      t = r.obs;
      const hit = pred.domain.indexOf(r.value);
      p = p.map((x, i) => x * (i === hit ? r.trueQuality : (1 - r.trueQuality) / (k - 1)));
      const z = p.reduce((a, b) => a + b, 0);
      p = p.map((x) => x / z);
    }
    cached = { p, t };
    this.cache.set(slot, cached);
    return cached;
  }
  answer(slot, day) {
    if (!this.reports.has(slot)) return undefined;
    const { p: last, t } = this.posteriorAtLastReport(slot);
    const p = BayesFilter.propagate(last, day - t, this.slots[slot].pred);
    let best = 0;
    for (let i = 1; i < p.length; i++) if (p[i] > p[best]) best = i;
    return { value: this.slots[slot].pred.domain[best], confidence: p[best] };
  }
}

/**
 * Trust-weighted vote over a slot's last `window` reports (by observation
 * time): each report adds its stated trust × extractorConf to its value.
 */
export class TrustWeightedVote {
  constructor(window = Infinity) {
    this.window = window;
    this.family = 'trust-weighted vote';
    this.name = `${this.family} (${window === Infinity ? 'all' : `last ${window}`})`;
    this.state = new Map();
  }
  observe(r) {
    const list = this.state.get(r.slot) ?? [];
    list.push(r);
    list.sort((a, b) => a.obs - b.obs);
    if (list.length > this.window) list.shift();
    this.state.set(r.slot, list);
  }
  answer(slot) {
    const list = this.state.get(slot);
    return list && weightedAnswer(list.map((r) => [r.value, r.quality, r.obs]));
  }
}

/**
 * Recency-weighted trust vote: each report adds trust × extractorConf ×
 * 2^(−age/halfLife) to its value, age measured from its observation to the
 * time asked (late reports land where they belong).
 */
export class RecencyTrustVote {
  constructor(halfLifeDays) {
    this.halfLife = halfLifeDays;
    this.family = 'recency-weighted trust vote';
    this.name = `${this.family} (h ${halfLifeDays} d)`;
    this.state = new Map();
  }
  observe(r) {
    const list = this.state.get(r.slot) ?? [];
    list.push(r);
    this.state.set(r.slot, list);
  }
  answer(slot, day) {
    const list = this.state.get(slot);
    return list && weightedAnswer(list.map((r) => [r.value, r.quality * 0.5 ** (Math.max(0, day - r.obs) / this.halfLife), r.obs]));
  }
}

/** The value with the most weight (ties to the latest observed); confidence = its share. */
function weightedAnswer(votes) {
  const by = new Map();
  let total = 0;
  for (const [value, w, obs] of votes) {
    const v = by.get(value) ?? { w: 0, last: -Infinity };
    by.set(value, { w: v.w + w, last: Math.max(v.last, obs) });
    total += w;
  }
  let best;
  for (const [value, v] of by) if (!best || v.w > best.w || (v.w === best.w && v.last > best.last)) best = { value, ...v };
  return best && { value: best.value, confidence: total > 0 ? best.w / total : 1 / by.size };
}
