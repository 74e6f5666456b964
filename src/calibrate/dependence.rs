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

use std::collections::{HashMap, HashSet};
use std::hash::Hash;

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

/// Per report, AccuCopy's discount for agreeing with reports of sources it
/// likely copies (`dependence`), reports given in time order as `(instant,
/// value, source)`. Every source that reported the value at an earlier instant
/// is before it (`discount`). Of its own instant's reporters of the value,
/// each is as likely before it as after: the discount is averaged over every
/// order of them (`same_instant_discount`), so neither a source's name nor the
/// write order decides which of a same-instant group counts in full, and the
/// group keeps what one order gives it on average (a pair of certain copies:
/// 0.6 each, where one order gives 1 and 0.2).
pub fn discounts<T: PartialEq + Copy, S: Eq + Hash + Clone>(reports: &[(T, usize, S)], dependence: impl Fn(&S, &S) -> f64) -> Vec<f64> {
    let mut out = Vec::with_capacity(reports.len());
    // Per value, the distinct sources that reported it at earlier instants
    // (in the order met, and as a set: a hot slot holds thousands of reports).
    let mut before: HashMap<usize, (Vec<S>, HashSet<S>)> = HashMap::new();
    let mut start = 0;
    while start < reports.len() {
        let at = reports[start].0;
        let end = start + reports[start..].iter().take_while(|r| r.0 == at).count();
        let group = &reports[start..end];
        // This instant's distinct reporters of each value that had not reported it before.
        let mut fresh: HashMap<usize, (Vec<&S>, HashSet<&S>)> = HashMap::new();
        for (_, value, source) in group {
            let known = before.get(value).is_some_and(|(_, seen)| seen.contains(source));
            let (list, seen) = fresh.entry(*value).or_default();
            if !known && seen.insert(source) {
                list.push(source);
            }
        }
        for (_, value, source) in group {
            let earlier = before.get(value).map_or(&[][..], |(list, _)| list.as_slice());
            let prior = discount(earlier.iter().filter(|s| *s != source).map(|s| dependence(source, s)));
            let same = fresh.get(value).map_or_else(Vec::new, |(list, _)| list.iter().filter(|s| **s != source).map(|s| dependence(source, s)).collect());
            out.push(prior * same_instant_discount(same));
        }
        for (value, (list, _)) in fresh {
            let (sources, seen) = before.entry(value).or_default();
            for s in list {
                if seen.insert(s.clone()) {
                    sources.push(s.clone());
                }
            }
        }
        start = end;
    }
    out
}

/// `Π (1 − c·P)` over the reports of one instant that come before this one,
/// averaged over every order of them and it: with `n` of them, `k` are
/// before it for each `k` in `0..=n` alike, and any `k` of them alike.
/// `means[k]`, the mean product over `k`-subsets, is built one report at a
/// time (positive terms only, so no cancellation), over the probabilities in
/// sorted order: the same bits in any write order.
fn same_instant_discount(mut dependence: Vec<f64>) -> f64 {
    dependence.retain(|p| *p > 0.0);
    if dependence.is_empty() {
        return 1.0;
    }
    dependence.sort_by(f64::total_cmp);
    let mut means = vec![1.0];
    for (seen, p) in dependence.iter().enumerate() {
        let m = (seen + 1) as f64;
        let factor = 1.0 - COPY_RATE * p;
        let mut next = vec![0.0; means.len() + 1];
        for (k, slot) in next.iter_mut().enumerate() {
            let without = if k < means.len() { (m - k as f64) / m * means[k] } else { 0.0 };
            let with = if k > 0 { k as f64 / m * factor * means[k - 1] } else { 0.0 };
            *slot = without + with;
        }
        means = next;
    }
    means.iter().sum::<f64>() / means.len() as f64
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
    fn a_same_instant_group_shares_its_discount_whatever_the_order() {
        // Two certain copies at one instant: 0.6 each (the mean of 1 and 0.2), in either order.
        let pair = [(0, 7, 'a'), (0, 7, 'b')];
        let d = discounts(&pair, |_, _| 1.0);
        assert!((d[0] - 0.6).abs() < 1e-12 && d[0] == d[1], "{d:?}");
        // Three, pairwise dependence 0.5: every report alike, to the bit, in every order;
        // their total is what one order gives (1 + 0.6 + 0.36).
        let p = |a: &char, b: &char| if a == b { 0.0 } else { 0.5 };
        let forward = discounts(&[(0, 1, 'a'), (0, 1, 'b'), (0, 1, 'c')], p);
        let reverse = discounts(&[(0, 1, 'c'), (0, 1, 'b'), (0, 1, 'a')], p);
        assert_eq!(forward[0].to_bits(), reverse[2].to_bits());
        assert!(forward.iter().all(|d| d.to_bits() == forward[0].to_bits()), "{forward:?}");
        assert!((forward.iter().sum::<f64>() - 1.96).abs() < 1e-12, "{forward:?}");
        // A report of a later instant agrees with all of them: discounted by each in full.
        let later = discounts(&[(0, 1, 'a'), (0, 1, 'b'), (1, 1, 'c')], p);
        assert!((later[2] - 0.36).abs() < 1e-12, "{later:?}");
        // Another value, or an independent source, costs nothing.
        let apart = discounts(&[(0, 1, 'a'), (0, 2, 'b')], p);
        assert_eq!(apart, vec![1.0, 1.0]);
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
