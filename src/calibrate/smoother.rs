//! A forward–backward pass over one slot's observations under the forward
//! filter's own model (SPEC §4): the values seen plus an "unseen" remainder,
//! relaxation toward uniform between observations, and an observation of
//! quality `q` favouring its value by `q` against `(1 − q)/(K − 1)`.
//!
//! It answers the two questions calibration asks of a slot (the E-step of
//! EM): for each observation, the probability that its value held when it
//! was made, given all the slot's evidence (the consensus); and the expected
//! number of changes of the world between observations.

pub use super::forms::{FormReading, SlotForms};

/// One report in a slot, as the estimator sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct SlotObservation {
    /// Index of the value among the slot's values.
    pub value: usize,
    /// Index of the source among every source calibration looked at.
    pub source: usize,
    /// Days since an arbitrary origin (only differences matter).
    pub day: f64,
    pub stated_trust: f64,
    pub extractor: f64,
}

/// A slot reduced to what calibration needs: observations in time order.
#[derive(Debug, Clone, PartialEq)]
pub struct SlotSummary {
    /// Index of the predicate among the time-varying predicates estimated
    /// (`None`: the slot does not relax — a fixed predicate, or one not estimated).
    pub predicate: Option<usize>,
    /// The half-life the slot relaxes with when it is not estimated.
    pub fixed_half_life: Option<f64>,
    pub values: usize,
    pub observations: Vec<SlotObservation>,
    /// The slot's prior when its predicate's domain was learned (`None`: the configured one).
    pub prior: Option<f64>,
    /// Which of its values are more specific forms of others (`None`: none are).
    pub forms: Option<SlotForms>,
}

/// What one pass over a slot gives the estimator.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SlotFit {
    /// Per observation: probability its value held, given the slot's evidence.
    pub agreement: Vec<f64>,
    /// Per observation `t ≥ 1`: the probability that the value did not
    /// change since observation `t − 1`, given the slot's evidence (1 for
    /// the first, and on a slot that does not relax): for the repeat weights.
    pub unchanged: Vec<f64>,
    /// Expected number of change events (Poisson), over `exposure_days`.
    pub expected_changes: f64,
    pub exposure_days: f64,
    /// `ln P(reports)` under the filter's model, each report predicted from
    /// those before it: what tells two fixed points of the estimator apart.
    /// A report counted with a power `w < 1` is predicted by its likelihood
    /// raised to `w` normalized over the values it could have given, so
    /// estimates that weigh repeats differently are compared fairly.
    pub log_likelihood: f64,
    /// Per observation on a slot with forms (else empty): how it stood to
    /// the value that held (`forms::FormReading`).
    pub forms: Vec<FormReading>,
}

struct Hypotheses {
    /// Weight of each entry: 1 per seen value, the unseen count for the last.
    weight: Vec<f64>,
    k: f64,
}

impl Hypotheses {
    fn new(values: usize, prior: f64) -> Self {
        let unseen = (1.0 / prior - values as f64).max(1.0);
        let mut weight = vec![1.0; values];
        weight.push(unseen);
        Hypotheses { k: values as f64 + unseen, weight }
    }

    /// Masses carried forward over a gap with probability `stay` of no change event.
    fn predict_into(&self, mass: &[f64], stay: f64, out: &mut [f64]) {
        let total: f64 = mass.iter().sum();
        out.iter_mut().zip(mass.iter().zip(&self.weight)).for_each(|(o, (p, w))| *o = stay * p + (1.0 - stay) * w / self.k * total);
    }

    /// Per-value backward message carried back over a gap.
    fn retrodict_into(&self, message: &[f64], stay: f64, out: &mut [f64]) {
        let mix: f64 = message.iter().zip(&self.weight).map(|(m, w)| m * w).sum::<f64>() / self.k;
        out.iter_mut().zip(message).for_each(|(o, m)| *o = stay * m + (1.0 - stay) * mix);
    }
}

fn normalize(v: &mut [f64]) {
    let z: f64 = v.iter().sum();
    if z > 0.0 {
        v.iter_mut().for_each(|x| *x /= z);
    }
}

fn stay(gap_days: f64, half_life: Option<f64>) -> f64 {
    match half_life {
        Some(h) if h > 0.0 && gap_days > 0.0 => 0.5f64.powf(gap_days / h),
        _ => 1.0,
    }
}

/// A slot's observations as runs of each source's reports: what the repeat
/// weights and the freshness evidence read, the same in every EM round.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceRuns {
    /// Per observation, the index of the same source's previous report in the slot.
    pub previous: Vec<Option<usize>>,
    /// Per observation, whether the same source's next report gives the same value.
    pub repeated: Vec<bool>,
}

impl SourceRuns {
    pub fn of(slot: &SlotSummary) -> Self {
        let obs = &slot.observations;
        let mut previous = vec![None; obs.len()];
        let mut repeated = vec![false; obs.len()];
        let mut last: foldhash::HashMap<usize, usize> = foldhash::HashMap::default();
        for (j, o) in obs.iter().enumerate() {
            if let Some(i) = last.insert(o.source, j) {
                previous[j] = Some(i);
                repeated[i] = obs[i].value == o.value;
            }
        }
        SourceRuns { previous, repeated }
    }

    /// Per observation, the power its likelihood is raised to, mirroring the
    /// filter's counting offline: of a source's run of consecutive reports of
    /// one value in the slot, the last counts in full and the others with the
    /// source's repeat weight `rho[source]`.
    pub fn repeat_weights(&self, slot: &SlotSummary, rho: &[f64]) -> Vec<f64> {
        slot.observations.iter().zip(&self.repeated).map(|(o, r)| if *r { rho[o.source] } else { 1.0 }).collect()
    }
}

/// The working rows of `fit_slot`, kept from one slot to the next: a pass
/// runs once per slot and EM round, and its allocations stood out in a
/// calibration's profile.
#[derive(Debug, Default)]
pub struct Buffers {
    emissions: Vec<(usize, f64, f64)>,
    stays: Vec<f64>,
    before: Vec<f64>,
    after: Vec<f64>,
    behind: Vec<f64>,
    carried: Vec<f64>,
    held: Vec<f64>,
}

/// `fit_slot_in` with buffers of its own.
pub fn fit_slot(slot: &SlotSummary, quality: &[f64], weight: &[f64], half_life: Option<f64>, prior: f64) -> SlotFit {
    fit_slot_in(&mut Buffers::default(), slot, quality, weight, half_life, prior)
}

/// Fills `rows` with `len` copies of `value`, keeping its allocation.
fn refill(rows: &mut Vec<f64>, len: usize, value: f64) {
    rows.clear();
    rows.resize(len, value);
}

/// Smooths one slot with qualities `quality[i]` and likelihood powers
/// `weight[i]` for its observations and the given half-life (`None`: the
/// value never changes). Masses live in flat buffers, one row of
/// hypotheses per observation: this runs once per slot and EM round.
pub fn fit_slot_in(buffers: &mut Buffers, slot: &SlotSummary, quality: &[f64], weight: &[f64], half_life: Option<f64>, prior: f64) -> SlotFit {
    let Buffers { emissions, stays, before, after, behind, carried, held } = buffers;
    let obs = &slot.observations;
    let n = obs.len();
    if n == 0 {
        return SlotFit::default();
    }
    let hyp = Hypotheses::new(slot.values, prior);
    let k = hyp.weight.len();
    // Per observation: its value, the likelihood of that value and of each other one.
    // Powers are worked out once per (quality, weight) in a row: a slot's
    // reports come in runs of one source's, and `powf` stood out in a calibration's profile.
    let mut last_power = (f64::NAN, f64::NAN, 1.0, 1.0);
    emissions.clear();
    emissions.extend(obs
        .iter()
        .zip(quality)
        .zip(weight)
        .map(|((o, q), w)| {
            let miss = (1.0 - q) / (hyp.k - 1.0);
            match *w {
                1.0 => (o.value, *q, miss),
                0.0 => (o.value, 1.0, 1.0),
                w => {
                    if (last_power.0, last_power.1) != (*q, w) {
                        last_power = (*q, w, q.powf(w), miss.powf(w));
                    }
                    (o.value, last_power.2, last_power.3)
                }
            }
        }));
    let emissions = &*emissions;
    let e = |t: usize, i: usize| {
        let (value, hit, miss) = emissions[t];
        if i == value { hit } else { miss }
    };
    // Gaps repeat (weekly crawls, hourly writes): each new one is worked out once.
    let mut last_gap = (f64::NAN, 1.0);
    stays.clear();
    stays.extend((0..n)
        .map(|t| {
            let gap = if t == 0 { 0.0 } else { obs[t].day - obs[t - 1].day };
            if gap != last_gap.0 {
                last_gap = (gap, stay(gap, half_life));
            }
            last_gap.1
        }));
    // Forward: row t of `before` is the prediction just before observation t, of `after` includes it.
    refill(before, n * k, 0.0);
    refill(after, n * k, 0.0);
    // The predictions' running product, taken into the log only before it
    // underflows: one `ln` per slot rather than one per report.
    let (mut predicted_product, mut log_likelihood) = (1.0f64, 0.0f64);
    for t in 0..n {
        if t == 0 {
            before[..k].iter_mut().zip(&hyp.weight).for_each(|(p, w)| *p = w / hyp.k);
        } else {
            hyp.predict_into(&after[(t - 1) * k..t * k], stays[t], &mut before[t * k..(t + 1) * k]);
        }
        let row = &mut after[t * k..(t + 1) * k];
        row.iter_mut().zip(&before[t * k..(t + 1) * k]).enumerate().for_each(|(i, (a, p))| *a = p * e(t, i));
        let (_, hit, miss) = emissions[t];
        predicted_product *= (row.iter().sum::<f64>() / (hit + (hyp.k - 1.0) * miss)).max(1e-300);
        if predicted_product < 1e-200 {
            log_likelihood += predicted_product.ln();
            predicted_product = 1.0;
        }
        normalize(row);
    }
    // Backward: row t of `behind` is the likelihood of observations after t given the state at t.
    refill(behind, n * k, 1.0);
    refill(carried, k, 0.0);
    for t in (0..n - 1).rev() {
        let (row, next) = behind[t * k..].split_at_mut(k);
        carried.iter_mut().zip(&next[..k]).enumerate().for_each(|(i, (c, b))| *c = e(t + 1, i) * b);
        hyp.retrodict_into(carried, stays[t + 1], row);
        let scale = row.iter().cloned().fold(0.0, f64::max);
        if scale > 0.0 {
            row.iter_mut().for_each(|m| *m /= scale);
        }
    }
    let mut agreement = Vec::with_capacity(n);
    let mut readings = Vec::with_capacity(if slot.forms.is_some() { n } else { 0 });
    refill(held, k, 0.0);
    for t in 0..n {
        held.iter_mut().enumerate().for_each(|(i, h)| *h = before[t * k + i] * e(t, i) * behind[t * k + i]);
        normalize(held);
        agreement.push(held[obs[t].value]);
        if let Some(forms) = &slot.forms {
            readings.push(forms.reading(obs[t].value, held));
        }
    }
    log_likelihood += predicted_product.ln();
    let mut fit = SlotFit { agreement, unchanged: vec![1.0; n], expected_changes: 0.0, exposure_days: 0.0, log_likelihood, forms: readings };
    if let Some(h) = half_life {
        for t in 1..n {
            let gap = obs[t].day - obs[t - 1].day;
            if gap <= 0.0 {
                continue;
            }
            let s = stays[t];
            let (prev, row, back) = (&after[(t - 1) * k..t * k], &before[t * k..(t + 1) * k], &behind[t * k..(t + 1) * k]);
            let joint = |keep: f64| -> f64 { (0..k).map(|i| prev[i] * keep * e(t, i) * back[i]).sum() };
            let z: f64 = (0..k).map(|i| row[i] * e(t, i) * back[i]).sum();
            if z <= 0.0 {
                continue;
            }
            // The value the same at both ends: no event, or an event that drew it again.
            let same: f64 = (0..k).map(|i| prev[i] * (s + (1.0 - s) * hyp.weight[i] / hyp.k) * e(t, i) * back[i]).sum();
            fit.unchanged[t] = (same / z).clamp(0.0, 1.0);
            // At least one change event in the gap, then the Poisson count given at least one.
            let unchanged = joint(s) / z;
            let some_event = (1.0 - unchanged).clamp(0.0, 1.0);
            let rate = std::f64::consts::LN_2 / h;
            let per_event = if s < 1.0 { rate * gap / (1.0 - s) } else { 1.0 };
            fit.expected_changes += some_event * per_event;
            fit.exposure_days += gap;
        }
    }
    fit
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obs(value: usize, source: usize, day: f64) -> SlotObservation {
        SlotObservation { value, source, day, stated_trust: 0.8, extractor: 1.0 }
    }

    fn slot(observations: Vec<SlotObservation>, values: usize) -> SlotSummary {
        SlotSummary { predicate: Some(0), fixed_half_life: None, values, observations, prior: None, forms: None }
    }

    #[test]
    fn an_outlier_disagrees_with_the_consensus_the_majority_agrees() {
        let s = slot(vec![obs(0, 0, 0.0), obs(0, 1, 1.0), obs(1, 2, 2.0), obs(0, 3, 3.0)], 2);
        let fit = fit_slot(&s, &[0.8; 4], &[1.0; 4], None, 0.2);
        assert!(fit.agreement[0] > 0.9 && fit.agreement[3] > 0.9, "{:?}", fit.agreement);
        assert!(fit.agreement[2] < 0.1, "{:?}", fit.agreement);
    }

    #[test]
    fn a_lasting_new_value_counts_as_a_change_a_steady_slot_does_not() {
        let steady = slot((0..10).map(|i| obs(0, i % 3, i as f64 * 10.0)).collect(), 1);
        let moved = slot((0..10).map(|i| obs(usize::from(i >= 5), i % 3, i as f64 * 10.0)).collect(), 2);
        let a = fit_slot(&steady, &[0.9; 10], &[1.0; 10], Some(100.0), 0.2);
        let b = fit_slot(&moved, &[0.9; 10], &[1.0; 10], Some(100.0), 0.2);
        assert!(a.expected_changes < 0.3, "{}", a.expected_changes);
        assert!((b.expected_changes - 1.0).abs() < 0.4, "{}", b.expected_changes);
        assert_eq!(a.exposure_days, 90.0);
    }

    #[test]
    fn reports_the_model_expects_are_more_likely_than_ones_it_does_not() {
        // One value reported over and over is likelier under reliable sources
        // than under poor ones; a slot flipping weekly is likelier under a
        // short half-life than under a long one.
        let steady = slot((0..10).map(|i| obs(0, i % 3, i as f64 * 7.0)).collect(), 1);
        let reliable = fit_slot(&steady, &[0.9; 10], &[1.0; 10], Some(100.0), 0.5).log_likelihood;
        let poor = fit_slot(&steady, &[0.6; 10], &[1.0; 10], Some(100.0), 0.5).log_likelihood;
        assert!(reliable > poor && reliable < 0.0, "{reliable} vs {poor}");
        let flipping = slot((0..10).map(|i| obs(i / 2 % 2, i % 2, (i / 2) as f64 * 7.0)).collect(), 2);
        let fast = fit_slot(&flipping, &[0.9; 10], &[1.0; 10], Some(7.0), 0.5).log_likelihood;
        let slow = fit_slot(&flipping, &[0.9; 10], &[1.0; 10], Some(3650.0), 0.5).log_likelihood;
        assert!(fast > slow, "{fast} vs {slow}");
    }

    #[test]
    fn a_report_counted_with_no_weight_predicts_nothing() {
        // Weight 0: its likelihood is flat over the values it could give, so
        // it adds ln(1/K) whatever it says (K = 3: two values and one unseen), never a free 0.
        let s = slot(vec![obs(0, 0, 0.0), obs(1, 1, 0.0)], 2);
        let a = fit_slot(&s, &[0.9, 0.9], &[1.0, 0.0], None, 0.5).log_likelihood;
        let only_first = fit_slot(&slot(vec![obs(0, 0, 0.0)], 2), &[0.9], &[1.0], None, 0.5).log_likelihood;
        assert!((a - (only_first + (1.0f64 / 3.0).ln())).abs() < 1e-9, "{a} vs {only_first}");
    }

    #[test]
    fn buffers_kept_from_a_larger_slot_change_nothing() {
        let large = slot((0..30).map(|i| obs(i % 4, i % 5, i as f64 * 3.0)).collect(), 4);
        let small = slot(vec![obs(1, 0, 0.0), obs(0, 1, 2.0), obs(1, 2, 9.0)], 2);
        let mut buffers = Buffers::default();
        fit_slot_in(&mut buffers, &large, &[0.9; 30], &[1.0; 30], Some(10.0), 0.2);
        let reused = fit_slot_in(&mut buffers, &small, &[0.7, 0.8, 0.6], &[1.0, 0.5, 1.0], Some(10.0), 0.2);
        assert_eq!(reused, fit_slot(&small, &[0.7, 0.8, 0.6], &[1.0, 0.5, 1.0], Some(10.0), 0.2));
    }

    #[test]
    fn agreement_stays_a_probability() {
        let s = slot((0..30).map(|i| obs(i % 4, i % 5, i as f64 * 3.0)).collect(), 4);
        let fit = fit_slot(&s, &[0.99; 30], &[1.0; 30], Some(10.0), 0.2);
        assert!(fit.agreement.iter().all(|p| p.is_finite() && (0.0..=1.0).contains(p)));
    }
}
