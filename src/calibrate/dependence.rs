//! Dependence between sources (SPEC §4), after Dong, Berti-Equille &
//! Srivastava's AccuCopy (PVLDB 2009): two sources that agree more than
//! their reliabilities explain — above all on values the consensus holds
//! false — are likely one copying the other, and an agreeing report of a
//! source likely copied adds little evidence.
//!
//! Per pair, over the slots both answered (each source's last report there):
//! `kt` agreements on a value held true, `kf` on one held false (weighted by
//! the smoothed agreement), `kd` disagreements. Independent sources of
//! reliabilities `a`, `b` agree on the truth with `Pt = a·b`, on a given
//! false value with `Pf = (1−a)(1−b)/n` and disagree with `Pd = 1 − Pt − Pf`;
//! a copier copies with rate `c` and otherwise answers independently. The
//! posterior of dependence has prior `α`.

use std::collections::HashMap;

use super::smoother::{SlotFit, SlotSummary};

/// The copy rate `c` and prior `α` of AccuCopy's published runs.
pub const COPY_RATE: f64 = 0.8;
const COPY_PRIOR: f64 = 0.2;
/// Fewer shared slots than this say nothing either way.
pub const MIN_SHARED: usize = 3;
/// Pairs less likely dependent than this are not kept (their discount is negligible).
pub const KEPT_FROM: f64 = 0.2;

#[derive(Debug, Clone, PartialEq)]
pub struct PairFit {
    pub a: usize,
    pub b: usize,
    pub probability: f64,
    pub shared: usize,
    /// Expected agreements on a false value.
    pub same_false: f64,
}

#[derive(Default, Clone, Copy)]
struct Evidence {
    /// ln P(answers | independent), ln P(answers | one copies the other) for each direction.
    independent: f64,
    copies: [f64; 2],
    same_false: f64,
    shared: usize,
}

/// Each source's answer in a slot: its last report (value, agreement).
fn answers(slot: &SlotSummary, fit: &SlotFit) -> Vec<(usize, usize, f64)> {
    let mut last: HashMap<usize, usize> = HashMap::new();
    for (i, o) in slot.observations.iter().enumerate() {
        last.insert(o.source, i);
    }
    let mut out: Vec<(usize, usize, f64)> = last.into_iter().map(|(s, i)| (s, slot.observations[i].value, fit.agreement[i])).collect();
    out.sort_by_key(|a| a.0);
    out
}

fn ln_sum(a: f64, b: f64) -> f64 {
    let m = a.max(b);
    m + ((a - m).exp() + (b - m).exp()).ln()
}

/// The pairs of sources likely dependent, given every slot's fit, the
/// reliabilities and each slot's number of false values `n` (its prior's).
pub fn dependence(slots: &[SlotSummary], fits: &[SlotFit], reliability: &[f64], false_values: impl Fn(&SlotSummary) -> f64) -> Vec<PairFit> {
    let mut evidence: HashMap<(usize, usize), Evidence> = HashMap::new();
    for (slot, fit) in slots.iter().zip(fits) {
        let n = false_values(slot).max(1.0);
        let answers = answers(slot, fit);
        for (i, &(a, va, ta)) in answers.iter().enumerate() {
            for &(b, vb, _) in &answers[i + 1..] {
                let (ra, rb) = (reliability[a].clamp(0.01, 0.99), reliability[b].clamp(0.01, 0.99));
                let pt = ra * rb;
                let pf = (1.0 - ra) * (1.0 - rb) / n;
                let pd = (1.0 - pt - pf).max(1e-9);
                // Agreement weighted by whether the shared value is true.
                let (same_true, same_false, different) = if va == vb { (ta, 1.0 - ta, 0.0) } else { (0.0, 0.0, 1.0) };
                let copied = |r: f64| {
                    same_true * (r * COPY_RATE + pt * (1.0 - COPY_RATE)).ln()
                        + same_false * ((1.0 - r) * COPY_RATE + pf * (1.0 - COPY_RATE)).ln()
                        + different * (pd * (1.0 - COPY_RATE)).ln()
                };
                let e = evidence.entry((a, b)).or_default();
                e.independent += same_true * pt.ln() + same_false * pf.ln() + different * pd.ln();
                e.copies[0] += copied(ra);
                e.copies[1] += copied(rb);
                e.same_false += same_false;
                e.shared += 1;
            }
        }
    }
    let mut out: Vec<PairFit> = evidence
        .into_iter()
        .filter(|(_, e)| e.shared >= MIN_SHARED)
        .filter_map(|((a, b), e)| {
            // One copies the other; which one, the evidence does not say.
            let dependent = ln_sum(e.copies[0], e.copies[1]) - std::f64::consts::LN_2;
            let log_odds = COPY_PRIOR.ln() + dependent - (1.0 - COPY_PRIOR).ln() - e.independent;
            let probability = 1.0 / (1.0 + (-log_odds).exp());
            (probability >= KEPT_FROM).then_some(PairFit { a, b, probability, shared: e.shared, same_false: e.same_false })
        })
        .collect();
    out.sort_by_key(|x| (x.a, x.b));
    out
}

/// The discount of a report agreeing with reports of the sources before it:
/// `Π (1 − c·P(dependent))` over those sources (AccuCopy's vote count).
pub fn discount(before: impl Iterator<Item = f64>) -> f64 {
    before.map(|p| 1.0 - COPY_RATE * p).product()
}

#[cfg(test)]
mod tests {
    use super::super::smoother::SlotObservation;
    use super::*;

    fn slot(answers: &[(usize, usize)]) -> SlotSummary {
        let observations = answers.iter().map(|&(source, value)| SlotObservation { value, source, day: 0.0, stated_trust: 0.8, extractor: 1.0 }).collect();
        SlotSummary { predicate: None, fixed_half_life: None, values: 3, observations, prior: None, forms: None }
    }

    #[test]
    fn a_source_sharing_anothers_false_values_is_found_dependent_independent_ones_are_not() {
        // Value 0 is true everywhere; sources 0–2 are independent (each wrong in its own slots);
        // source 3 copies source 2, mistakes included.
        let mut slots = Vec::new();
        let mut fits = Vec::new();
        for i in 0..30 {
            let wrong = |s: usize| usize::from(i % 5 == s);
            let two = if i % 5 == 2 { 1 } else { 0 };
            let answers = [(0, wrong(0)), (1, wrong(1) * 2), (2, two), (3, two)];
            let s = slot(&answers);
            let agreement = s.observations.iter().map(|o| if o.value == 0 { 0.95 } else { 0.05 }).collect();
            fits.push(SlotFit { agreement, unchanged: Vec::new(), expected_changes: 0.0, exposure_days: 0.0, log_likelihood: 0.0, forms: Vec::new() });
            slots.push(s);
        }
        let pairs = dependence(&slots, &fits, &[0.8, 0.8, 0.8, 0.8], |_| 4.0);
        let p = |a, b| pairs.iter().find(|f| (f.a, f.b) == (a, b)).map_or(0.0, |f| f.probability);
        assert!(p(2, 3) > 0.9, "{pairs:?}");
        assert!(p(0, 1) < 0.2 && p(0, 2) < 0.2, "{pairs:?}");
    }

    #[test]
    fn a_copy_adds_less_than_an_independent_report() {
        assert!((discount([0.0].into_iter()) - 1.0).abs() < 1e-12);
        assert!(discount([1.0].into_iter()) < 0.25);
    }
}
