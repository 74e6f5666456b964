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

use super::estimate::{Estimates, Estimator, EstimatorInput};

/// The second start's half-lives are the configured ones divided by this.
const SHORT_START: f64 = 8.0;

/// The starts, run one after another on one `Estimator`, resumable between
/// slots like it.
pub struct Search<'a> {
    em: Estimator<'a>,
    /// Starts still to run after the current one.
    later: Option<Vec<f64>>,
    best: Option<Estimates>,
    done: bool,
}

impl<'a> Search<'a> {
    pub fn new(input: &'a EstimatorInput) -> Self {
        let configured = &input.configured_half_lives;
        // Without a time-varying predicate every start is the same loop.
        let later = (!configured.is_empty()).then(|| configured.iter().map(|h| h / SHORT_START).collect());
        Search { em: Estimator::new(input), later, best: None, done: false }
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
        let found = match self.later.take() {
            Some(start) => self.em.restart(start),
            None => {
                self.done = true;
                self.em.take_estimates()
            }
        };
        // Ties keep the earlier start (the configured half-lives).
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
pub fn search(input: &EstimatorInput) -> Estimates {
    Search::new(input).finish()
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
            slots.push(SlotSummary { predicate: Some(0), fixed_half_life: None, values: 2, observations, prior: Some(0.5) });
        }
        EstimatorInput { slots, configured_half_lives: vec![365.0], sources: 6, prior: 0.2, min_observations: 20.0 }
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
            assert_eq!(search(&input), likelier, "closing {closing}");
        }
    }

    #[test]
    fn a_history_without_a_time_varying_predicate_runs_one_start() {
        let mut input = listings(5);
        input.configured_half_lives.clear();
        input.slots.iter_mut().for_each(|s| s.predicate = None);
        assert!(Search::new(&input).later.is_none());
        assert_eq!(search(&input), run(Estimator::new(&input)));
    }

    #[test]
    fn a_search_run_a_few_slots_at_a_time_ends_where_one_run_in_one_go_does() {
        let input = listings(5);
        let mut em = Search::new(&input);
        while !em.is_done() {
            em.step(7);
        }
        assert_eq!(em.finish(), search(&input));
    }
}
