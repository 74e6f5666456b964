//! Belief as a forward filter over a slot's observations (SPEC §4). Pure and
//! deterministic: the same observations and the same clock give the same
//! numbers.
//!
//! Hypotheses are the values seen so far plus "a value not seen yet", which
//! stands for `max(1/prior − n, 1)` values. An observation of quality
//! `q = clamp(trust·extractor, 0.01, 0.99)` multiplies its value by `q` and
//! every other hypothesis by `(1 − q)/(K − 1)`, `K` the number of values the
//! hypotheses stand for. Between observations (and up to the time asked) a
//! time-varying predicate relaxes toward uniform with `stay = 2^(−Δ/halfLife)`:
//! the half-life is the predicate's change hazard, not a decay of evidence.
//! Per (source, value) one observation counts in full — the latest on a
//! time-varying predicate, the strongest on a fixed one — and every other
//! with the source's repeat weight `ρ` (its likelihood raised to `ρ`; `ρ = 0`
//! until `calibrate()` learns it). On a time-varying predicate a source's
//! latest answer ends the weight of its earlier answers of other values. A
//! report of a value supports each more specific form of it (a refinement)
//! only discounted, with likelihood `δ·q + (1 − δ)·miss`, and weighs for
//! each less specific form of it with `max(ε·q, miss)` (a source that says
//! more than the truth; `ε = 0`, a plain miss, until `calibrate()` learns
//! `δ` and `ε`). The README has a worked example.

use crate::model::Provenance;
use crate::time::Timestamp;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BeliefParams {
    pub prior: f64,
    /// Half-life for time-varying predicates without their own (`None`: never relax).
    pub half_life_days: Option<f64>,
    /// `δ`: how much a report of a value supports a more specific form of it.
    pub refined_support: f64,
    /// `ε`: how likely a report of a more specific form is when the value
    /// itself holds, relative to a right report (0: as likely as any miss).
    pub embellished: f64,
}

impl BeliefParams {
    /// The uncalibrated filter's parameters with this prior and half-life.
    pub const fn new(prior: f64, half_life_days: Option<f64>) -> Self {
        BeliefParams { prior, half_life_days, refined_support: REFINED_SUPPORT, embellished: 0.0 }
    }
}

impl Default for BeliefParams {
    fn default() -> Self {
        BeliefParams::new(0.2, Some(365.0))
    }
}

pub fn logit(p: f64) -> f64 {
    (p / (1.0 - p)).ln()
}

pub fn logistic(l: f64) -> f64 {
    1.0 / (1.0 + (-l).exp())
}

/// Keeps confidence strictly inside (0, 1) whatever the evidence.
pub const MAX_LOG_ODDS: f64 = 30.0;

pub fn to_log_odds(p: f64) -> f64 {
    logit(p).clamp(-MAX_LOG_ODDS, MAX_LOG_ODDS)
}

pub fn set_belief(claim: &mut crate::model::Claim, log_odds: f64) {
    claim.log_odds = log_odds;
    claim.confidence = logistic(log_odds);
}

pub fn observation_quality(p: &Provenance) -> f64 {
    (p.trust() * p.extractor()).clamp(0.01, 0.99)
}

/// The same with a calibrated reliability of the source in place of its stated trust.
pub fn calibrated_quality(p: &Provenance, reliability: Option<f64>) -> f64 {
    match reliability {
        Some(r) => (r * p.extractor()).clamp(0.01, 0.99),
        None => observation_quality(p),
    }
}

/// How much a report of a value supports a more specific form of it
/// (SPEC §3 refine) until `calibrate()` learns it: a source that knew the
/// longer form would often have said it, so a short report is even odds
/// between "the short form is the whole truth" and "a longer one is".
pub const REFINED_SUPPORT: f64 = 0.5;

/// One report of a value (an index into the slot's values).
#[derive(Debug, Clone, PartialEq)]
pub struct Observation {
    pub value: usize,
    /// The slot's values that are more specific forms of this one: the report supports them discounted.
    pub refined_by: Vec<usize>,
    /// The slot's values this one is a more specific form of: the report weighs for them with `max(ε·q, miss)`.
    pub refines: Vec<usize>,
    pub source: String,
    pub at: Timestamp,
    /// When its claim's value begins: of two answers a source gave at one
    /// time, the one that begins later is its latest.
    pub begins: Timestamp,
    pub quality: f64,
    /// The power its likelihood is raised to: 1 in full, the source's repeat weight `ρ` for a repeat.
    pub weight: f64,
}

/// The filter's state: the probability of each value seen (by index) and of
/// the "not seen yet" remainder, as of `at`.
#[derive(Debug, Clone, PartialEq)]
pub struct FilterState {
    seen: Vec<(usize, f64)>,
    other: f64,
    at: Option<Timestamp>,
    units: f64,
    half_life: Option<f64>,
    refined_support: f64,
    embellished: f64,
}

impl FilterState {
    /// `half_life`: `Some` for a time-varying predicate, `None` for a fixed one.
    pub fn new(params: &BeliefParams, half_life: Option<f64>) -> Self {
        FilterState {
            seen: Vec::new(),
            other: 1.0,
            at: None,
            units: 1.0 / params.prior,
            half_life,
            refined_support: params.refined_support,
            embellished: params.embellished,
        }
    }

    fn unseen(&self) -> f64 {
        (self.units - self.seen.len() as f64).max(1.0)
    }

    /// Moves the state forward to `to`, relaxing toward uniform.
    pub fn advance(&mut self, to: Timestamp) {
        if let (Some(from), Some(h)) = (self.at, self.half_life) {
            let dt = from.days_until(to);
            if dt > 0.0 && h > 0.0 {
                let stay = 0.5f64.powf(dt / h);
                let unseen = self.unseen();
                let k = self.seen.len() as f64 + unseen;
                for (_, p) in &mut self.seen {
                    *p = stay * *p + (1.0 - stay) / k;
                }
                self.other = stay * self.other + (1.0 - stay) * unseen / k;
            }
        }
        if self.at.is_none_or(|from| to > from) {
            self.at = Some(to);
        }
    }

    /// A value seen for the first time takes its share of "not seen yet".
    fn admit(&mut self, value: usize) {
        if !self.seen.iter().any(|(v, _)| *v == value) {
            let unseen = self.unseen();
            let share = self.other / if unseen > 1.0 { unseen } else { 2.0 };
            self.seen.push((value, share));
            self.other -= share;
        }
    }

    /// Takes reports made at one instant. Every value they name is admitted
    /// before any is weighed, sharing equally what admitting them one by one
    /// would give all together: reports of one instant are one piece of
    /// evidence, so the result cannot depend on the order they were written
    /// in (SPEC §3) — one by one, a value admitted later takes a smaller
    /// share and a larger `k` weighs the reports before it differently.
    pub fn observe_group(&mut self, group: &[Observation]) {
        let Some(first) = group.first() else { return };
        self.advance(first.at);
        let mut new: Vec<usize> = Vec::new();
        for o in group {
            let refines = if self.embellished > 0.0 { o.refines.as_slice() } else { &[] };
            for v in std::iter::once(&o.value).chain(&o.refined_by).chain(refines) {
                if !new.contains(v) && !self.seen.iter().any(|(s, _)| s == v) {
                    new.push(*v);
                }
            }
        }
        if new.len() > 1 {
            let before = self.other;
            for v in &new {
                self.admit(*v);
            }
            let share = (before - self.other) / new.len() as f64;
            for (v, p) in &mut self.seen {
                if new.contains(v) {
                    *p = share;
                }
            }
        }
        for o in group {
            self.observe(o);
        }
    }

    /// Takes one observation at (or after) the state's time.
    pub fn observe(&mut self, o: &Observation) {
        self.advance(o.at);
        self.admit(o.value);
        // The more specific forms are hypotheses from the first report of
        // their general form on, so they receive its discounted support.
        for v in &o.refined_by {
            self.admit(*v);
        }
        // A less specific form is one from the first report of a more
        // specific one on, once that report weighs for it more than for any wrong value.
        if self.embellished > 0.0 {
            for v in &o.refines {
                self.admit(*v);
            }
        }
        let k = self.seen.len() as f64 + self.unseen();
        let miss = (1.0 - o.quality) / (k - 1.0);
        let partial = self.refined_support * o.quality + (1.0 - self.refined_support) * miss;
        let embellished = (self.embellished * o.quality).max(miss);
        let w = o.weight;
        let (hit, partial, miss, embellished) =
            if w == 1.0 { (o.quality, partial, miss, embellished) } else { (o.quality.powf(w), partial.powf(w), miss.powf(w), embellished.powf(w)) };
        for (v, p) in &mut self.seen {
            *p *= if *v == o.value {
                hit
            } else if o.refined_by.contains(v) {
                partial
            } else if o.refines.contains(v) {
                embellished
            } else {
                miss
            };
        }
        self.other *= miss;
        let z: f64 = self.seen.iter().map(|(_, p)| p).sum::<f64>() + self.other;
        if z > 0.0 {
            for (_, p) in &mut self.seen {
                *p /= z;
            }
            self.other /= z;
        }
    }

    /// Probability of value `value` (0 when never observed).
    pub fn probability(&self, value: usize) -> f64 {
        self.seen.iter().find(|(v, _)| *v == value).map_or(0.0, |(_, p)| *p)
    }

    pub fn at(&self) -> Option<Timestamp> {
        self.at
    }
}

/// The observations that speak at `at`, weighted (SPEC §4), in time order:
/// - made up to `at`; a re-delivery (same source, value and time) is one;
/// - on a time-varying predicate, a source's observations of values other
///   than its latest answer no longer count (it changed its answer);
/// - per (source, value) the latest (time-varying) or strongest (fixed)
///   counts in full, each other with `repeat(source)` (dropped at 0).
pub fn counted(observations: Vec<Observation>, time_varying: bool, at: Timestamp, repeat: impl Fn(&str) -> f64) -> Vec<Observation> {
    let mut observations: Vec<Observation> = observations.into_iter().filter(|o| o.at <= at).collect();
    if observations.len() < 2 {
        return observations;
    }
    crate::sort::sort_by(&mut observations, |a, b| (a.value, &a.source, a.at, a.begins).cmp(&(b.value, &b.source, b.at, b.begins)).then(b.quality.total_cmp(&a.quality)));
    observations.dedup_by(|next, kept| next.value == kept.value && next.source == kept.source && next.at == kept.at);
    let mut latest: foldhash::HashMap<&str, (Timestamp, Timestamp)> = foldhash::HashMap::default();
    if time_varying {
        for o in &observations {
            let t = latest.entry(o.source.as_str()).or_insert((o.at, o.begins));
            *t = (*t).max((o.at, o.begins));
        }
    }
    let mut keep = vec![0.0; observations.len()];
    let mut start = 0;
    while start < observations.len() {
        let (value, source) = (observations[start].value, observations[start].source.as_str());
        let end = start + observations[start..].iter().take_while(|o| o.value == value && o.source == source).count();
        let run = &observations[start..end];
        // A source's current answers are the values it reported at its latest time.
        let last = &run[run.len() - 1];
        let abandoned = time_varying && latest.get(source) != Some(&(last.at, last.begins));
        if !abandoned {
            let primary = if time_varying {
                run.len() - 1
            } else {
                // The strongest, the earliest of equals.
                (0..run.len()).fold(0, |best, i| if run[i].quality > run[best].quality { i } else { best })
            };
            let rho = repeat(source).clamp(0.0, 1.0);
            for (i, w) in keep[start..end].iter_mut().enumerate() {
                *w = if i == primary { 1.0 } else { rho };
            }
        }
        start = end;
    }
    // A source that gave a more specific form itself already said what its
    // general report would lend that form: the same knowledge, counted once.
    let said: foldhash::HashSet<(usize, String)> =
        observations.iter().zip(&keep).filter(|(_, w)| **w > 0.0).map(|(o, _)| (o.value, o.source.clone())).collect();
    let mut out: Vec<Observation> = observations
        .into_iter()
        .zip(keep)
        .filter(|(_, w)| *w > 0.0)
        .map(|(mut o, w)| {
            o.weight = w;
            o.refined_by.retain(|v| !said.contains(&(*v, o.source.clone())));
            o
        })
        .collect();
    // (value, source, time) is unique among the kept: this order is total.
    crate::sort::sort_by(&mut out, |a, b| (a.at, a.value, &a.source).cmp(&(b.at, b.value, &b.source)).then(a.quality.total_cmp(&b.quality)));
    out
}

/// The posterior at `at` over the observations made up to then.
/// Observations in time order (as `counted` returns them) go through the
/// memo, so a write whose observation is the slot's latest costs one filter step.
pub fn posterior_at(observations: &[Observation], params: &BeliefParams, half_life: Option<f64>, at: Timestamp) -> FilterState {
    let mut state = if observations.windows(2).all(|w| w[0].at <= w[1].at) {
        let upto = observations.partition_point(|o| o.at <= at);
        memo::filtered(&observations[..upto], params, half_life)
    } else {
        let mut state = FilterState::new(params, half_life);
        let asked: Vec<Observation> = observations.iter().filter(|o| o.at <= at).cloned().collect();
        observe_by_instant(&mut state, &asked);
        state
    };
    state.advance(at);
    state
}

/// Runs of reports made at one instant go in together (`observe_group`).
fn observe_by_instant(state: &mut FilterState, observations: &[Observation]) {
    for group in observations.chunk_by(|a, b| a.at == b.at) {
        state.observe_group(group);
    }
}

/// The filter run incrementally: the states after recent observation
/// sequences are kept, so a sequence that extends a kept one by its latest
/// observation takes one step instead of a pass over the slot. Keyed by the
/// whole sequence (compared exactly, not hashed), so a hit gives the same
/// bits as a pass from scratch; the filter stays pure.
mod memo {
    use std::cell::RefCell;

    use super::{observe_by_instant, BeliefParams, FilterState, Observation};

    /// Slots a process writes to in turn; older states are dropped first.
    const CAPACITY: usize = 64;
    /// Shorter sequences are cheaper to filter than to look up and keep.
    const SHORTEST_KEPT: usize = 8;

    /// The parameters a kept state was filtered with, by their bits:
    /// prior, half-life, `δ`, `ε`.
    type Key = (u64, Option<u64>, u64, u64);

    fn key(params: &BeliefParams, half_life: Option<f64>) -> Key {
        (params.prior.to_bits(), half_life.map(f64::to_bits), params.refined_support.to_bits(), params.embellished.to_bits())
    }

    struct Kept {
        params: Key,
        observations: Vec<Observation>,
        state: FilterState,
    }

    thread_local! {
        static KEPT: RefCell<Vec<Kept>> = const { RefCell::new(Vec::new()) };
        static STEPS: RefCell<u64> = const { RefCell::new(0) };
    }

    fn find(kept: &[Kept], params: Key, observations: &[Observation]) -> Option<usize> {
        kept.iter().rposition(|k| k.params == params && k.observations == observations)
    }

    /// The state after `observations` (in time order), at the last one's time.
    /// A kept state is resumed only from before the last instant's reports:
    /// they go in as one group.
    pub fn filtered(observations: &[Observation], params: &BeliefParams, half_life: Option<f64>) -> FilterState {
        let params_key = key(params, half_life);
        if observations.len() < SHORTEST_KEPT {
            let mut state = FilterState::new(params, half_life);
            observe_by_instant(&mut state, observations);
            STEPS.with_borrow_mut(|n| *n += observations.len() as u64);
            return state;
        }
        KEPT.with_borrow_mut(|kept| {
            if let Some(i) = find(kept, params_key, observations) {
                return kept[i].state.clone();
            }
            let last_instant = observations.partition_point(|o| o.at < observations[observations.len() - 1].at);
            let (mut state, done) = match find(kept, params_key, &observations[..last_instant]) {
                Some(i) if last_instant > 0 => (kept[i].state.clone(), last_instant),
                _ => (FilterState::new(params, half_life), 0),
            };
            observe_by_instant(&mut state, &observations[done..]);
            STEPS.with_borrow_mut(|n| *n += (observations.len() - done) as u64);
            if kept.len() >= CAPACITY {
                kept.remove(0);
            }
            kept.push(Kept { params: params_key, observations: observations.to_vec(), state: state.clone() });
            state
        })
    }

    /// Filter steps taken on this thread so far (how tests see that a write was incremental).
    pub fn steps() -> u64 {
        STEPS.with_borrow(|n| *n)
    }
}

pub use memo::steps as filter_steps;

#[cfg(test)]
mod tests {
    use super::*;

    fn day(d: i64) -> Timestamp {
        Timestamp::from_millis(d * 86_400_000)
    }

    fn obs(value: usize, source: &str, at: i64, quality: f64) -> Observation {
        Observation { value, refined_by: Vec::new(), refines: Vec::new(), source: source.into(), at: day(at), begins: day(at), quality, weight: 1.0 }
    }

    const P: BeliefParams = BeliefParams::new(0.2, Some(365.0));

    #[test]
    fn one_observation_gives_its_quality() {
        let s = posterior_at(&[obs(0, "a", 0, 0.8)], &P, None, day(0));
        assert!((s.probability(0) - 0.8).abs() < 1e-12);
    }

    #[test]
    fn an_equally_trusted_newer_report_ties_the_older_one() {
        let s = posterior_at(&[obs(0, "a", 0, 0.8), obs(1, "b", 0, 0.8)], &P, Some(365.0), day(0));
        assert!((s.probability(0) - s.probability(1)).abs() < 1e-12);
        assert!(s.probability(0) < 0.5);
    }

    #[test]
    fn a_fuller_report_weighs_for_the_shorter_form_once_calibration_learned_how_often_sources_say_more() {
        // Value 0 "Ann Smith", value 1 "Ann Smith Jones" (a more specific form of 0).
        let short = |source: &str| Observation { refined_by: vec![1], ..obs(0, source, 0, 0.8) };
        let fuller = |source: &str| Observation { refines: vec![0], ..obs(1, source, 0, 0.8) };
        let reports = [short("a"), short("b"), short("c"), short("d"), fuller("e"), fuller("f")];
        let uncalibrated = posterior_at(&reports, &P, None, day(0));
        // Uncalibrated a fuller report is a plain miss for the shorter form: two outweigh four.
        assert!(uncalibrated.probability(1) > uncalibrated.probability(0));
        let learned = BeliefParams { embellished: 0.3, ..P };
        let calibrated = posterior_at(&reports, &learned, None, day(0));
        // Each fuller report now favours its form by 0.8 against 0.3·0.8, each short one by about 2.
        assert!(calibrated.probability(0) > calibrated.probability(1), "{calibrated:?}");
        let (s, f) = (calibrated.probability(0), calibrated.probability(1));
        let expected = (0.8f64 / (0.5 * 0.8 + 0.5 * 0.05)).powi(4) / (1.0f64 / 0.3).powi(2);
        assert!((s / f / expected - 1.0).abs() < 1e-9, "{s} / {f} against {expected}");
    }

    #[test]
    fn a_second_source_raises_belief_a_repeat_does_not() {
        let one = counted(vec![obs(0, "a", 0, 0.8)], true, day(1000), |_| 0.0);
        let repeat = counted(vec![obs(0, "a", 0, 0.8), obs(0, "a", 0, 0.8)], true, day(1000), |_| 0.0);
        let two = counted(vec![obs(0, "a", 0, 0.8), obs(0, "b", 0, 0.8)], true, day(1000), |_| 0.0);
        let p = |o: &[Observation]| posterior_at(o, &P, None, day(0)).probability(0);
        assert_eq!(p(&one), p(&repeat));
        assert!(p(&two) > p(&one) + 0.1);
    }

    #[test]
    fn time_varying_belief_relaxes_toward_uniform_fixed_does_not() {
        let o = [obs(0, "a", 0, 0.9)];
        let fresh = posterior_at(&o, &P, Some(365.0), day(0)).probability(0);
        let year = posterior_at(&o, &P, Some(365.0), day(365)).probability(0);
        assert!((year - (0.5 * fresh + 0.5 * 0.2)).abs() < 1e-12, "{year}");
        assert_eq!(posterior_at(&o, &P, None, day(3650)).probability(0), fresh);
    }

    #[test]
    fn observations_after_the_time_asked_are_ignored() {
        let o = [obs(0, "a", 0, 0.8), obs(1, "b", 10, 0.95)];
        let before = posterior_at(&o, &P, Some(365.0), day(5));
        assert_eq!(before.probability(1), 0.0);
        assert!(before.probability(0) > 0.7);
    }

    #[test]
    fn a_source_counts_once_per_value() {
        let tv = counted(vec![obs(0, "a", 0, 0.9), obs(0, "a", 5, 0.6)], true, day(1000), |_| 0.0);
        assert_eq!(tv, vec![obs(0, "a", 5, 0.6)]);
        let fixed = counted(vec![obs(0, "a", 0, 0.9), obs(0, "a", 5, 0.6)], false, day(1000), |_| 0.0);
        assert_eq!(fixed, vec![obs(0, "a", 0, 0.9)]);
    }

    fn scratch(o: &[Observation], at: Timestamp) -> FilterState {
        let mut state = FilterState::new(&P, Some(60.0));
        for x in o.iter().filter(|x| x.at <= at) {
            state.observe(x);
        }
        state.advance(at);
        state
    }

    #[test]
    fn a_latest_observation_takes_one_step_and_gives_the_same_bits() {
        let o: Vec<Observation> = (0..30).map(|i| obs(i % 4, ["a", "b", "c"][i % 3], 1000 + i as i64 * 7, 0.5 + (i % 5) as f64 * 0.1)).collect();
        posterior_at(&o[..29], &P, Some(60.0), day(1300));
        let before = filter_steps();
        let next = posterior_at(&o, &P, Some(60.0), day(1300));
        assert_eq!(filter_steps() - before, 1);
        assert_eq!(next, scratch(&o, day(1300)));
        // A late observation (not the latest) changes the sequence's middle: a full pass, same result as from scratch.
        let mut late = o.clone();
        late.insert(2, obs(5, "d", 1010, 0.9));
        let before = filter_steps();
        assert_eq!(posterior_at(&late, &P, Some(60.0), day(1300)), scratch(&late, day(1300)));
        assert_eq!(filter_steps() - before, 31);
        // Asked earlier than the latest observations: the prefix up to then.
        assert_eq!(posterior_at(&o, &P, Some(60.0), day(1050)), scratch(&o, day(1050)));
    }

    #[test]
    fn reports_of_one_instant_weigh_the_same_whichever_value_was_indexed_first() {
        // Seven values, two sources each, one instant: past 1/prior values,
        // one-by-one admission gave the values indexed last a smaller share.
        let reports = |index: &dyn Fn(usize) -> usize| -> Vec<Observation> {
            let mut o: Vec<Observation> = (0..14).map(|i| obs(index(i % 7), &format!("s{i}"), 100, 0.8)).collect();
            o.sort_by_key(|x| x.value);
            o
        };
        let forward = posterior_at(&reports(&|v| v), &P, None, day(100));
        let reversed = posterior_at(&reports(&|v| 6 - v), &P, None, day(100));
        for v in 0..7 {
            assert!((forward.probability(v) - forward.probability(0)).abs() < 1e-12);
            assert!((forward.probability(v) - reversed.probability(6 - v)).abs() < 1e-12);
        }
    }

    #[test]
    fn stays_a_distribution_and_in_range() {
        let o: Vec<Observation> = (0..40).map(|i| obs(i % 7, "s", i as i64 * 3, 0.99)).collect();
        let s = posterior_at(&o, &P, Some(30.0), day(200));
        let total: f64 = (0..7).map(|v| s.probability(v)).sum::<f64>() + s.other;
        assert!((total - 1.0).abs() < 1e-9);
        for v in 0..7 {
            let l = to_log_odds(s.probability(v));
            assert!(l.is_finite() && l.abs() <= MAX_LOG_ODDS);
        }
    }
}
