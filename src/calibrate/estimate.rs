//! The estimator: an EM loop over slot summaries (Dawid–Skene style). Each
//! round smooths every slot with the current reliabilities and half-lives,
//! then re-estimates
//! - a source's reliability `r` from the model `P(report right) = r × extractorConf`:
//!   `r = (Σ agreement + m·r₀) / (Σ extractorConf + m)`, with `r₀` its mean
//!   stated trust and `m` pseudo-observations, so a source seen little stays
//!   near what it states;
//! - a predicate's change rate from the expected change events per exposure
//!   time, with a Gamma prior worth `m / 10` events at the configured rate,
//!   so a predicate seen little stays near its configured half-life.
//!
//! Deterministic: rounds until no estimate moves by more than 0.1% (at most
//! `MAX_ROUNDS`), every second one leaping ahead along the way the two
//! before it went (`accelerate`), inputs in the order given, no randomness.

use foldhash::HashMap;

use super::accelerate::{Extrapolation, Point};
use super::dependence::{dependence, discounts, PairFit};
use super::forms::{FormReading, FormsFit};
use super::smoother::{fit_slot_in, Buffers, SlotFit, SlotSummary, SourceRuns};

/// Most rounds of the EM loop. A half-life far from the configured one
/// (a world changing twice as fast) takes tens of rounds to reach.
pub const MAX_ROUNDS: usize = 60;
/// The loop stops once no estimate moves by more than this, relatively.
const CONVERGED: f64 = 1e-3;

/// Bounds on an estimated reliability (the filter clamps qualities the same way).
const RELIABILITY_RANGE: (f64, f64) = (0.01, 0.99);

#[derive(Debug, Clone, PartialEq)]
pub struct EstimatorInput {
    pub slots: Vec<SlotSummary>,
    /// Configured half-life (days) of each estimated predicate, by index.
    pub configured_half_lives: Vec<f64>,
    /// Number of sources (indices of `SlotObservation::source`).
    pub sources: usize,
    pub prior: f64,
    /// Prior strength, in observations.
    pub min_observations: f64,
    /// Predicates whose forms are estimated (indices of `SlotForms::group`).
    pub form_groups: usize,
    /// The uncalibrated filter's `δ` (`belief::REFINED_SUPPORT`): the forms' prior.
    pub refined_support: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SourceFit {
    pub reliability: f64,
    pub stated_trust: f64,
    pub observations: usize,
    /// Expected number of its reports that were right (Σ agreement).
    pub agreed: f64,
    /// Its repeat weight `ρ`: 0 until learned.
    pub repeat_weight: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PredicateFit {
    pub half_life_days: f64,
    pub expected_changes: f64,
    pub exposure_days: f64,
    pub slots: usize,
    pub observations: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Estimates {
    pub sources: Vec<SourceFit>,
    pub predicates: Vec<PredicateFit>,
    /// Pairs of sources likely dependent (one copying the other).
    pub dependence: Vec<PairFit>,
    /// Per predicate whose forms are estimated: how its sources report forms of the truth.
    pub forms: Vec<FormsFit>,
    /// `ln P(reports)` under the estimates' last round (`SlotFit::log_likelihood`).
    pub log_likelihood: f64,
    /// EM rounds the loop took.
    pub rounds: usize,
}

fn quality(reliability: f64, extractor: f64) -> f64 {
    (reliability * extractor).clamp(0.01, 0.99)
}

/// Runs the EM loop to its end in one go.
pub fn estimate(input: &EstimatorInput) -> Estimates {
    let mut em = Estimator::new(input);
    while !em.is_done() {
        em.step(usize::MAX);
    }
    em.finish()
}

/// Where an earlier calibration left the estimates, by predicate and source index.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Start {
    pub half_lives: Vec<Option<f64>>,
    pub reliability: Vec<Option<f64>>,
    pub rho: Vec<Option<f64>>,
    /// Pairs of sources it found dependent.
    pub pairs: Vec<PairFit>,
}

/// What one round gathers over the slots, before it re-estimates.
#[derive(Default)]
struct Round {
    next_slot: usize,
    agreed: Vec<f64>,
    weight: Vec<f64>,
    count: Vec<usize>,
    changes: Vec<f64>,
    exposure: Vec<f64>,
    slot_count: Vec<usize>,
    obs_count: Vec<usize>,
    fresh: Vec<(f64, f64)>,
    fits: Vec<SlotFit>,
    forms: Vec<FormReading>,
    log_likelihood: f64,
    dependent: HashMap<(usize, usize), f64>,
}

impl Round {
    fn new(input: &EstimatorInput, pairs: &[PairFit]) -> Self {
        let (s, p) = (input.sources, input.configured_half_lives.len());
        Round {
            next_slot: 0,
            agreed: vec![0.0; s],
            weight: vec![0.0; s],
            count: vec![0; s],
            changes: vec![0.0; p],
            exposure: vec![0.0; p],
            slot_count: vec![0; p],
            obs_count: vec![0; p],
            fresh: vec![(0.0, 0.0); s],
            fits: Vec::with_capacity(input.slots.len()),
            forms: vec![FormReading::default(); input.form_groups],
            log_likelihood: 0.0,
            dependent: pairs.iter().map(|p| ((p.a, p.b), p.probability)).collect(),
        }
    }
}

/// The EM loop, resumable between slots: a caller that must not hold the
/// thread for long (background calibration) runs it a few slots at a time.
pub struct Estimator<'a> {
    input: &'a EstimatorInput,
    /// Per slot, its sources' runs of reports.
    runs: Vec<SourceRuns>,
    m: f64,
    prior_reliability: Vec<f64>,
    /// `None` in round 0, which uses each report's own stated trust:
    /// calibration starts from today's filter.
    reliability: Option<Vec<f64>>,
    /// Repeat weights start where the uncalibrated filter stands: a source counts once per value.
    rho: Vec<f64>,
    pairs: Vec<PairFit>,
    half_lives: Vec<f64>,
    sources: Vec<SourceFit>,
    predicates: Vec<PredicateFit>,
    forms: Vec<FormsFit>,
    round: Round,
    rounds: usize,
    log_likelihood: f64,
    done: bool,
    extrapolation: Extrapolation,
    buffers: Buffers,
}

impl<'a> Estimator<'a> {
    pub fn new(input: &'a EstimatorInput) -> Self {
        Self::starting_at(input, input.configured_half_lives.clone())
    }

    /// The loop started from these half-lives (by predicate) instead of the configured ones.
    pub fn starting_at(input: &'a EstimatorInput, half_lives: Vec<f64>) -> Self {
        let mut stated = vec![(0.0, 0usize); input.sources];
        for o in input.slots.iter().flat_map(|s| &s.observations) {
            stated[o.source].0 += o.stated_trust;
            stated[o.source].1 += 1;
        }
        Estimator {
            input,
            runs: input.slots.iter().map(SourceRuns::of).collect(),
            m: input.min_observations.max(1.0),
            prior_reliability: stated.iter().map(|(sum, n)| if *n > 0 { sum / *n as f64 } else { 0.8 }).collect(),
            reliability: None,
            rho: vec![0.0; input.sources],
            pairs: Vec::new(),
            half_lives,
            sources: Vec::new(),
            predicates: Vec::new(),
            forms: Vec::new(),
            round: Round::new(input, &[]),
            rounds: 0,
            log_likelihood: f64::NEG_INFINITY,
            done: false,
            extrapolation: Extrapolation::default(),
            buffers: Buffers::default(),
        }
    }

    /// The loop started from an earlier calibration's estimates (by predicate
    /// and by source; `None` where it had none: the configured half-life,
    /// the stated trust, `ρ = 0`), which it reaches again in a few rounds
    /// when the new history says much what the old one did.
    pub fn warm(input: &'a EstimatorInput, start: &Start) -> Self {
        let mut em = Self::starting_at(input, start.half_lives.iter().zip(&input.configured_half_lives).map(|(h, c)| h.unwrap_or(*c)).collect());
        em.reliability = Some(start.reliability.iter().zip(&em.prior_reliability).map(|(r, p)| r.unwrap_or(*p)).collect());
        em.rho = start.rho.iter().map(|r| r.unwrap_or(0.0)).collect();
        em.pairs = start.pairs.clone();
        em.round = Round::new(input, &em.pairs);
        em
    }

    pub fn is_done(&self) -> bool {
        self.done
    }

    /// The half-lives (by predicate) of the last round.
    pub fn half_lives(&self) -> &[f64] {
        &self.half_lives
    }

    /// Smooths up to `slots` more slots of the current round; the round's
    /// last slot also re-estimates, and ends the loop once it converged.
    pub fn step(&mut self, slots: usize) {
        if self.done {
            return;
        }
        let input = self.input;
        let end = input.slots.len().min(self.round.next_slot.saturating_add(slots));
        for i in self.round.next_slot..end {
            self.absorb(i);
        }
        self.round.next_slot = end;
        if end == input.slots.len() {
            self.end_round();
        }
    }

    pub fn finish(mut self) -> Estimates {
        self.take_estimates()
    }

    /// The estimates so far, and the loop begun again from `half_lives`
    /// (by predicate). What does not depend on the start — each slot's runs
    /// of reports, the stated priors — is kept, not worked out again.
    pub fn restart(&mut self, half_lives: Vec<f64>) -> Estimates {
        let found = self.take_estimates();
        self.reliability = None;
        self.rho = vec![0.0; self.input.sources];
        self.half_lives = half_lives;
        self.round = Round::new(self.input, &[]);
        self.rounds = 0;
        self.log_likelihood = f64::NEG_INFINITY;
        self.done = false;
        self.extrapolation.reset();
        found
    }

    /// The estimates so far, leaving the loop's state as it is.
    pub fn take_estimates(&mut self) -> Estimates {
        Estimates {
            sources: std::mem::take(&mut self.sources),
            predicates: std::mem::take(&mut self.predicates),
            dependence: std::mem::take(&mut self.pairs),
            forms: std::mem::take(&mut self.forms),
            log_likelihood: self.log_likelihood,
            rounds: self.rounds,
        }
    }

    fn absorb(&mut self, index: usize) {
        let (slot, runs) = (&self.input.slots[index], &self.runs[index]);
        let r = &mut self.round;
        let q: Vec<f64> = slot
            .observations
            .iter()
            .map(|o| quality(self.reliability.as_ref().map_or(o.stated_trust, |r| r[o.source]), o.extractor))
            .collect();
        let half_life = slot.predicate.map(|p| self.half_lives[p]).or(slot.fixed_half_life);
        let repeats = runs.repeat_weights(slot, &self.rho);
        let w: Vec<f64> = repeats.iter().zip(copy_discounts(slot, &r.dependent)).map(|(r, c)| r * c).collect();
        let prior = slot.prior.unwrap_or(self.input.prior);
        let fit = fit_slot_in(&mut self.buffers, slot, &q, &w, half_life, prior);
        // A repeat weighs in a source's record as it weighs in the filter
        // (a copy still tells how often its source is right).
        for ((o, a), w) in slot.observations.iter().zip(&fit.agreement).zip(&repeats) {
            r.agreed[o.source] += w * a;
            r.weight[o.source] += w * o.extractor;
            r.count[o.source] += 1;
        }
        if half_life.is_some() {
            freshness(slot, runs, &fit, &mut r.fresh);
        }
        if let Some(forms) = &slot.forms {
            for (reading, w) in fit.forms.iter().zip(&repeats) {
                r.forms[forms.group].add(reading, *w);
            }
        }
        if let Some(p) = slot.predicate {
            r.changes[p] += fit.expected_changes;
            r.exposure[p] += fit.exposure_days;
            r.slot_count[p] += 1;
            r.obs_count[p] += slot.observations.len();
        }
        r.log_likelihood += fit.log_likelihood;
        r.fits.push(fit);
    }

    fn end_round(&mut self) {
        let input = self.input;
        let m = self.m;
        // Taken whole (an empty default left behind allocates nothing).
        let round = std::mem::take(&mut self.round);
        let input_point = self.reliability.as_ref().map(|r| point(&self.half_lives, r, &self.rho));
        let next: Vec<f64> = (0..input.sources)
            .map(|s| ((round.agreed[s] + m * self.prior_reliability[s]) / (round.weight[s] + m)).clamp(RELIABILITY_RANGE.0, RELIABILITY_RANGE.1))
            .collect();
        let next_rho: Vec<f64> = (0..input.sources).map(|s| repeat_weight(round.fresh[s], next[s])).collect();
        let prior_events = m / 10.0;
        let mut moved: f64 = 0.0;
        for (p, h) in self.half_lives.iter_mut().enumerate() {
            let configured_rate = std::f64::consts::LN_2 / input.configured_half_lives[p];
            let rate = (round.changes[p] + prior_events) / (round.exposure[p] + prior_events / configured_rate);
            let next_h = std::f64::consts::LN_2 / rate;
            moved = moved.max((next_h / *h - 1.0).abs());
            *h = next_h;
        }
        if let Some(r) = &self.reliability {
            moved = moved.max(r.iter().zip(&next).map(|(a, b)| (b / a - 1.0).abs()).fold(0.0, f64::max));
            moved = moved.max(self.rho.iter().zip(&next_rho).map(|(a, b)| (b - a).abs()).fold(0.0, f64::max));
        } else {
            moved = f64::INFINITY;
        }
        self.rho = next_rho;
        self.pairs = dependence(&input.slots, &round.fits, &next, |slot| (1.0 / slot.prior.unwrap_or(input.prior) - 1.0).max(1.0));
        self.sources = (0..input.sources)
            .map(|s| SourceFit {
                reliability: next[s],
                stated_trust: self.prior_reliability[s],
                observations: round.count[s],
                agreed: round.agreed[s],
                repeat_weight: self.rho[s],
            })
            .collect();
        self.predicates = self
            .half_lives
            .iter()
            .enumerate()
            .map(|(p, h)| PredicateFit {
                half_life_days: *h,
                expected_changes: round.changes[p],
                exposure_days: round.exposure[p],
                slots: round.slot_count[p],
                observations: round.obs_count[p],
            })
            .collect();
        self.forms = round.forms.iter().map(|counts| FormsFit::of(*counts, m, input.refined_support)).collect();
        self.reliability = Some(next);
        self.log_likelihood = round.log_likelihood;
        self.rounds += 1;
        let done = moved <= CONVERGED || self.rounds >= MAX_ROUNDS;
        // A round that ends the loop is a plain one: the estimates are EM's fixed point.
        match input_point {
            Some(from) if !done => {
                let to = point(&self.half_lives, self.reliability.as_deref().unwrap_or_default(), &self.rho);
                if let Some(leap) = self.extrapolation.after_round(from, &to) {
                    self.set_point(&leap);
                }
            }
            _ => self.extrapolation.reset(),
        }
        self.done = done;
        if !self.done {
            self.round = Round::new(input, &self.pairs);
        }
    }

    /// Starts the next round from `p` (`point`'s coordinates), each estimate kept in its range.
    fn set_point(&mut self, p: &[f64]) {
        let (h, rest) = p.split_at(self.half_lives.len());
        let (r, rho) = rest.split_at(self.rho.len());
        self.half_lives = h.iter().map(|x| x.exp()).collect();
        self.reliability = Some(r.iter().map(|x| x.clamp(RELIABILITY_RANGE.0, RELIABILITY_RANGE.1)).collect());
        self.rho = rho.iter().map(|x| x.clamp(0.0, 1.0)).collect();
    }
}

/// The estimates as one point, for `Extrapolation`: log half-lives (a creep
/// of a half-life is steady in its log), then reliabilities and repeat weights.
fn point(half_lives: &[f64], reliability: &[f64], rho: &[f64]) -> Point {
    half_lives.iter().map(|h| h.ln()).chain(reliability.iter().copied()).chain(rho.iter().copied()).collect()
}

/// Per observation, the discount of agreeing with sources that reported its
/// value before it or at its instant and that it likely copies (`discounts`).
fn copy_discounts(slot: &SlotSummary, dependent: &HashMap<(usize, usize), f64>) -> Vec<f64> {
    if dependent.is_empty() {
        return vec![1.0; slot.observations.len()];
    }
    let reports: Vec<(f64, usize, usize)> = slot.observations.iter().map(|o| (o.day, o.value, o.source)).collect();
    discounts(&reports, |a, b| dependent.get(&((*a).min(*b), (*a).max(*b))).copied().unwrap_or(0.0))
}

/// Pseudo-changes of the world behind a repeat weight's prior of 0 (the
/// uncalibrated filter's "a source counts once per value").
const RHO_PRIOR_CHANGES: f64 = 2.0;

/// A source's repeat weight `ρ` from `(Σ changed·right, Σ changed)` over
/// pairs of its consecutive reports in a slot: after the world changed
/// between them, a source that looks afresh reports the new value as often
/// as it is right at all (`ρ` near 1); one that repeats its last answer
/// seldom does (`ρ` near 0).
fn repeat_weight((right_after_change, changes): (f64, f64), reliability: f64) -> f64 {
    (right_after_change / (reliability * (changes + RHO_PRIOR_CHANGES))).clamp(0.0, 1.0)
}

/// Adds a slot's evidence on each source's freshness: for each pair of a
/// source's consecutive reports, the probability that the world changed
/// between them (from the smoothed gaps) and, weighted by it, whether the
/// later report was right.
fn freshness(slot: &SlotSummary, runs: &SourceRuns, fit: &SlotFit, fresh: &mut [(f64, f64)]) {
    // Running sum of ln "unchanged" from the first observation, to read any span's product.
    let mut kept = Vec::with_capacity(fit.unchanged.len());
    let mut running = 0.0f64;
    for u in &fit.unchanged {
        running += u.max(1e-300).ln();
        kept.push(running);
    }
    for (j, (o, previous)) in slot.observations.iter().zip(&runs.previous).enumerate() {
        if let Some(i) = *previous {
            let changed = (1.0 - (kept[j] - kept[i]).exp()).clamp(0.0, 1.0);
            fresh[o.source].0 += changed * fit.agreement[j];
            fresh[o.source].1 += changed;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::smoother::SlotObservation;
    use super::*;

    /// A small deterministic world: `slots` slots whose value changes every
    /// `dwell` days; source 0 always right, source 1 right every other report,
    /// both stating 0.8.
    fn world(slots: usize, dwell: f64, days: usize) -> EstimatorInput {
        let mut out = Vec::new();
        for s in 0..slots {
            let mut observations = Vec::new();
            for d in (0..days).step_by(5) {
                let day = d as f64 + s as f64;
                let truth = (day / dwell) as usize % 4;
                let (source, value) = if (d / 5) % 2 == 0 { (0, truth) } else { (1, if (d / 10) % 2 == 0 { truth } else { (truth + 1 + s % 3) % 4 }) };
                observations.push(SlotObservation { value, source, day, stated_trust: 0.8, extractor: 1.0 });
            }
            out.push(SlotSummary { predicate: Some(0), fixed_half_life: None, values: 4, observations, prior: None, forms: None });
        }
        EstimatorInput { slots: out, configured_half_lives: vec![365.0], sources: 2, prior: 0.2, min_observations: 20.0, form_groups: 0, refined_support: 0.5 }
    }

    #[test]
    fn the_reliable_source_is_trusted_more_than_the_unreliable_one() {
        let e = estimate(&world(20, 100.0, 600));
        assert!(e.sources[0].reliability > 0.9, "{:?}", e.sources);
        assert!(e.sources[1].reliability < 0.75, "{:?}", e.sources);
        assert_eq!(e.sources[0].observations + e.sources[1].observations, 20 * 120);
    }

    #[test]
    fn the_half_life_moves_from_the_configured_value_toward_the_world() {
        let e = estimate(&world(20, 100.0, 600));
        let h = e.predicates[0].half_life_days;
        // Changes every 100 days to one of 3 other values: about ln2·100·3/4 ≈ 52 as a resample half-life.
        assert!(h > 25.0 && h < 120.0, "{h}");
    }

    #[test]
    fn the_loop_runs_to_convergence_from_a_configured_half_life_far_off() {
        // A weak prior (0.1 changes), so where the loop starts is all that differs.
        let weak = |configured: f64| EstimatorInput { min_observations: 1.0, configured_half_lives: vec![configured], ..world(20, 100.0, 600) };
        let near = estimate(&weak(60.0)).predicates[0].half_life_days;
        let far = weak(5_000.0);
        let h = estimate(&far).predicates[0].half_life_days;
        assert!((h / near - 1.0).abs() < 0.1, "{h} vs {near}");
    }

    /// The bench's workload (`bench/sections/autocalibrate.mjs`): 400 people
    /// written in turn by five sources an hour apart, everyone moving every
    /// 100 days, one report in seven a place off.
    fn hourly_moves(reports: usize) -> EstimatorInput {
        let mut slots: Vec<SlotSummary> = (0..400)
            .map(|_| SlotSummary { predicate: Some(0), fixed_half_life: None, values: 6, observations: Vec::new(), prior: None, forms: None })
            .collect();
        for i in 0..reports {
            let value = (i / 2400 + usize::from(i % 7 == 0) + i % 400) % 6;
            slots[i % 400].observations.push(SlotObservation { value, source: i % 5, day: i as f64 / 24.0, stated_trust: 0.8, extractor: 1.0 });
        }
        EstimatorInput { slots, configured_half_lives: vec![365.0], sources: 5, prior: 0.2, min_observations: 20.0, form_groups: 0, refined_support: 0.5 }
    }

    #[test]
    fn leaps_reach_plain_em_s_fixed_point_in_fewer_rounds() {
        for input in [hourly_moves(1_500), world(20, 30.0, 600), world(5, 50.0, 600)] {
            let leaping = estimate(&input);
            let mut em = Estimator::new(&input);
            em.extrapolation = Extrapolation::never();
            while !em.is_done() {
                em.step(usize::MAX);
            }
            let plain = em.finish();
            let (a, b) = (leaping.predicates[0].half_life_days, plain.predicates[0].half_life_days);
            assert!((a / b - 1.0).abs() < 0.02, "{a} vs {b}");
            for (x, y) in leaping.sources.iter().zip(&plain.sources) {
                assert!((x.reliability - y.reliability).abs() < 0.01, "{x:?} vs {y:?}");
            }
            assert!(leaping.rounds <= plain.rounds, "{} rounds against {}", leaping.rounds, plain.rounds);
        }
        let creep = hourly_moves(1_500);
        let mut em = Estimator::new(&creep);
        em.extrapolation = Extrapolation::never();
        while !em.is_done() {
            em.step(usize::MAX);
        }
        let (leaping, plain) = (estimate(&creep).rounds, em.finish().rounds);
        assert!(leaping * 3 <= plain * 2, "a steady creep: {leaping} rounds against {plain}");
    }

    #[test]
    fn little_evidence_stays_near_the_prior() {
        let mut input = world(1, 100.0, 30);
        input.min_observations = 50.0;
        let e = estimate(&input);
        assert!((e.sources[0].reliability - 0.8).abs() < 0.1, "{:?}", e.sources);
        assert!(e.predicates[0].half_life_days > 200.0, "{:?}", e.predicates);
    }

    #[test]
    fn estimates_run_a_few_slots_at_a_time_are_the_ones_run_in_one_go() {
        let input = world(7, 80.0, 400);
        let mut em = Estimator::new(&input);
        let mut steps = 0;
        while !em.is_done() {
            em.step(3);
            steps += 1;
        }
        assert!(steps > 3, "{steps}");
        assert_eq!(em.finish(), estimate(&input));
    }

    #[test]
    fn the_same_input_gives_the_same_estimates() {
        assert_eq!(estimate(&world(5, 50.0, 300)), estimate(&world(5, 50.0, 300)));
    }
}
