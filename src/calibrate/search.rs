//! The estimator from more than one start, keeping the likeliest fixed point.
//!
//! EM finds a fixed point near where it starts, and on real data there can
//! be more than one. From a long half-life, sources that report a change
//! look wrong (the world "never changes"), which makes changes look like
//! errors, which keeps the half-life long: sites that stopped updating then
//! outrank the ones that did. From a short one, reports of different values
//! at different times are changes first, and sources are judged by what they
//! say at the same time. Each start runs to convergence and the one under
//! which the reports are likeliest (`Estimates::log_likelihood`) is kept, so
//! the choice is the data's, not the start's. Measured on the restaurant data
//! (eval): a `calibrate()` after the automatic ones went from 65% right to
//! 50% with the configured start alone, as the statuses the last one set led
//! the next to the other fixed point; with both starts it gives 66%.
//!
//! A calibration after an earlier one starts from that one's estimates
//! instead of the configured half-lives: the history has grown by a quarter
//! at most (the automatic schedule), so the loop is near its fixed point
//! from the first round and ends in a few. The short start still runs
//! after a first start that ended on the long side: from the earlier
//! estimates alone, a history written in reverse order stayed at the
//! "nothing closes" point (restaurant 46.7% right against 65.2%). After one
//! that ended on the short side it would only lead where that one is.
//! A repeated calibration of the bench workload: 47 → 17 ms natively.

use super::estimate::{Estimates, Estimator, EstimatorInput, Start};

/// The second start's half-lives are the configured ones divided by this.
const SHORT_START: f64 = 8.0;

/// The starts, run one after another on one `Estimator`, resumable between
/// slots like it.
pub struct Search<'a> {
    em: Estimator<'a>,
    /// Starts still to run after the current one.
    later: Option<Vec<f64>>,
    best: Option<Estimates>,
    /// Starts run to their end so far.
    starts: usize,
    done: bool,
}

impl<'a> Search<'a> {
    /// The first start is `earlier` (a previous calibration's estimates)
    /// when given, else the configured half-lives.
    pub fn new(input: &'a EstimatorInput, earlier: Option<&Start>) -> Self {
        let configured = &input.configured_half_lives;
        // Without a time-varying predicate every start is the same loop.
        let later = (!configured.is_empty()).then(|| configured.iter().map(|h| h / SHORT_START).collect());
        let em = earlier.map_or_else(|| Estimator::new(input), |start| Estimator::warm(input, start));
        Search { em, later, best: None, starts: 0, done: false }
    }

    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Runs up to `slots` slots of the current start (`Estimator::step`).
    pub fn step(&mut self, slots: usize) {
        if self.done {
            return;
        }
        self.em.step(slots);
        if !self.em.is_done() {
            return;
        }
        // The short start is there to leave the long-half-life fixed point;
        // after a first start that ended on the short side (at most √8 times
        // the short start, the middle of the two) it would only lead there.
        let half_lives = self.em.half_lives();
        let later = self.later.take().filter(|short| half_lives.iter().zip(short).any(|(h, s)| *h > s * SHORT_START.sqrt()));
        self.starts += 1;
        let found = match later {
            Some(start) => self.em.restart(start),
            None => {
                self.done = true;
                self.em.take_estimates()
            }
        };
        // Ties keep the earlier start (the earlier estimates, else the configured half-lives).
        if self.best.as_ref().is_none_or(|b| found.log_likelihood > b.log_likelihood) {
            self.best = Some(found);
        }
    }

    pub fn finish(mut self) -> Estimates {
        while !self.done {
            self.step(usize::MAX);
        }
        // Set by the last step, which ended the search.
        self.best.unwrap_or_else(|| self.em.finish())
    }
}

/// Runs every start to its end in one go.
pub fn search(input: &EstimatorInput, earlier: Option<&Start>) -> Estimates {
    Search::new(input, earlier).finish()
}

#[cfg(test)]
mod tests {
    use super::super::smoother::{SlotObservation, SlotSummary};
    use super::*;

    /// Listings crawled weekly for eight weeks: `closing` of every 10 places
    /// close in week 1..6; two sites report it from then on, four others
    /// each keep two thirds of the places listed as open (value 0).
    fn listings(closing: usize) -> EstimatorInput {
        let mut slots = Vec::new();
        for place in 0..60 {
            let closes = (place % 10 < closing).then_some(1 + place % 6);
            let mut observations = Vec::new();
            for week in 0..8 {
                let day = week as f64 * 7.0;
                let truth = usize::from(closes.is_some_and(|w| week >= w));
                for source in 0..6 {
                    let stale = source >= 2 && (place + source) % 3 != 0;
                    let value = if stale { 0 } else { truth };
                    observations.push(SlotObservation { value, source, day, stated_trust: 0.8, extractor: 1.0 });
                }
            }
            slots.push(SlotSummary { predicate: Some(0), fixed_half_life: None, values: 2, observations, prior: Some(0.5), forms: None });
        }
        EstimatorInput { slots, configured_half_lives: vec![365.0], sources: 6, prior: 0.2, min_observations: 20.0, form_groups: 0, refined_support: 0.5 }
    }

    fn run(mut em: Estimator) -> Estimates {
        while !em.is_done() {
            em.step(usize::MAX);
        }
        em.finish()
    }

    #[test]
    fn the_start_under_which_the_reports_are_likelier_is_kept() {
        for closing in [3, 5, 7] {
            let input = listings(closing);
            let configured = run(Estimator::new(&input));
            let short = run(Estimator::starting_at(&input, vec![365.0 / SHORT_START]));
            assert_ne!(configured.log_likelihood, short.log_likelihood, "the starts end apart");
            let likelier = if short.log_likelihood > configured.log_likelihood { short } else { configured };
            assert_eq!(search(&input, None), likelier, "closing {closing}");
        }
    }

    /// A calibration's estimates as the next one's start.
    fn start_of(e: &Estimates) -> Start {
        Start {
            half_lives: e.predicates.iter().map(|p| Some(p.half_life_days)).collect(),
            reliability: e.sources.iter().map(|s| Some(s.reliability)).collect(),
            rho: e.sources.iter().map(|s| Some(s.repeat_weight)).collect(),
            pairs: e.dependence.clone(),
        }
    }

    #[test]
    fn a_warm_start_reaches_the_same_fixed_point_in_fewer_rounds() {
        let input = listings(5);
        let cold = run(Estimator::starting_at(&input, vec![365.0 / SHORT_START]));
        let warm = run(Estimator::warm(&input, &start_of(&cold)));
        assert!(warm.rounds < cold.rounds, "{} rounds warm, {} cold", warm.rounds, cold.rounds);
        let (h, h0) = (warm.predicates[0].half_life_days, cold.predicates[0].half_life_days);
        assert!((h / h0 - 1.0).abs() < 0.02, "{h} vs {h0}");
        for (a, b) in warm.sources.iter().zip(&cold.sources) {
            assert!((a.reliability - b.reliability).abs() < 0.01, "{a:?} vs {b:?}");
        }
    }

    #[test]
    fn a_warm_start_at_the_configured_starts_point_still_finds_the_likelier_short_one() {
        // What a calibration after one that ended at the "nothing closes"
        // point meets: its estimates are the first start, the short start the second.
        let mut met = 0;
        for closing in 1..=7 {
            let input = listings(closing);
            let configured = run(Estimator::new(&input));
            let short = run(Estimator::starting_at(&input, vec![365.0 / SHORT_START]));
            if short.log_likelihood <= configured.log_likelihood {
                continue;
            }
            met += 1;
            assert_eq!(search(&input, Some(&start_of(&configured))), short, "closing {closing}");
        }
        assert!(met > 0, "no world where the short start is likelier");
    }

    #[test]
    fn a_first_start_that_ends_on_the_short_side_is_the_only_one() {
        // Places that move every 100 days among 4, reported every 5 days by
        // a source always right and one right every other report: the
        // configured start (365 d) ends near 50 d (estimate.rs's world).
        let slots = (0..20)
            .map(|place| {
                let observations = (0..600)
                    .step_by(5)
                    .map(|d| {
                        let day = (d + place) as f64;
                        let truth = (day / 100.0) as usize % 4;
                        let (source, value) = if (d / 5) % 2 == 0 { (0, truth) } else { (1, if (d / 10) % 2 == 0 { truth } else { (truth + 1 + place % 3) % 4 }) };
                        SlotObservation { value, source, day, stated_trust: 0.8, extractor: 1.0 }
                    })
                    .collect();
                SlotSummary { predicate: Some(0), fixed_half_life: None, values: 4, observations, prior: None, forms: None }
            })
            .collect();
        let input = EstimatorInput { slots, configured_half_lives: vec![365.0], sources: 2, prior: 0.2, min_observations: 20.0, form_groups: 0, refined_support: 0.5 };
        let mut em = Search::new(&input, None);
        while !em.is_done() {
            em.step(usize::MAX);
        }
        assert_eq!(em.starts, 1);
        let found = em.finish();
        assert!(found.predicates[0].half_life_days < 365.0 / SHORT_START.sqrt(), "{:?}", found.predicates);
        assert_eq!(found, run(Estimator::new(&input)));
        let listed = listings(5);
        let mut long = Search::new(&listed, None);
        while !long.is_done() {
            long.step(usize::MAX);
        }
        assert_eq!(long.starts, 2, "a first start on the long side is followed by the short one");
    }

    #[test]
    fn a_history_without_a_time_varying_predicate_runs_one_start() {
        let mut input = listings(5);
        input.configured_half_lives.clear();
        input.slots.iter_mut().for_each(|s| s.predicate = None);
        assert!(Search::new(&input, None).later.is_none());
        assert_eq!(search(&input, None), run(Estimator::new(&input)));
    }

    #[test]
    fn a_search_run_a_few_slots_at_a_time_ends_where_one_run_in_one_go_does() {
        let input = listings(5);
        let mut em = Search::new(&input, None);
        while !em.is_done() {
            em.step(7);
        }
        assert_eq!(em.finish(), search(&input, None));
    }
}
