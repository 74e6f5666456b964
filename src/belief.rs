//! Belief as log-odds (SPEC §4). Pure functions of a claim's observations, the
//! slot's competing claims and the clock.
//!
//! Model (documented with a worked example in the README): a value is true
//! with prior probability `p0` (default 0.2, i.e. about five plausible
//! values). An observation from a source of trust `t` through an extractor of
//! confidence `c` is right with probability `q = clamp(t·c, 0.01, 0.99)`; it
//! supports its value with weight `w = max(0, logit(q) − logit(p0))`, halved
//! every `halfLifeDays` of age on time-varying predicates. A source counts once
//! (its strongest observation): repeats from one source add nothing beyond
//! refreshing its age. A claim's support is `S = Σ_sources w`. Alone,
//! `logOdds = logit(p0) + S`, so one observation gives confidence `q`. Claims
//! competing for a single-valued slot share probability mass:
//! `P(i) = e^{S_i} / (Σ_j e^{S_j} + max(1/p0 − n, 0))` — a claim loses belief
//! when a rival gains support, which is how a lost contradiction lowers it.

use std::collections::BTreeMap;

use crate::model::{Claim, Provenance};
use crate::time::Timestamp;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BeliefParams {
    pub prior: f64,
    /// Half-life for time-varying predicates without their own (`None`: no decay).
    pub half_life_days: Option<f64>,
}

impl Default for BeliefParams {
    fn default() -> Self {
        BeliefParams { prior: 0.2, half_life_days: Some(365.0) }
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

pub fn observation_quality(p: &Provenance) -> f64 {
    (p.trust() * p.extractor()).clamp(0.01, 0.99)
}

/// Support one observation lends at `now`.
fn weight(p: &Provenance, params: &BeliefParams, decay_half_life: Option<f64>, now: Timestamp) -> f64 {
    let w = (logit(observation_quality(p)) - logit(params.prior)).max(0.0);
    match (decay_half_life, p.observed_at.as_deref().and_then(|t| Timestamp::parse(t, "observedAt").ok())) {
        (Some(h), Some(at)) => {
            let age = at.days_until(now).max(0.0);
            w * 0.5f64.powf(age / h)
        }
        _ => w,
    }
}

/// A claim's support `S`: the strongest observation of each distinct source.
pub fn support(claim: &Claim, params: &BeliefParams, decay_half_life: Option<f64>, now: Timestamp) -> f64 {
    let mut best: BTreeMap<&str, f64> = BTreeMap::new();
    for p in &claim.provenance {
        let w = weight(p, params, decay_half_life, now);
        let e = best.entry(p.source_id.as_str()).or_insert(0.0);
        if w > *e {
            *e = w;
        }
    }
    best.values().sum()
}

/// Log-odds of a claim standing alone.
pub fn alone(support: f64, params: &BeliefParams) -> f64 {
    (logit(params.prior) + support).clamp(-MAX_LOG_ODDS, MAX_LOG_ODDS)
}

/// Log-odds of each of `supports` when they compete for one value.
pub fn competing(supports: &[f64], params: &BeliefParams) -> Vec<f64> {
    if supports.len() <= 1 {
        return supports.iter().map(|s| alone(*s, params)).collect();
    }
    let rest = (1.0 / params.prior - supports.len() as f64).max(0.0);
    let max = supports.iter().cloned().fold(f64::MIN, f64::max);
    // Work relative to the largest support to keep exp() finite.
    let total: f64 = supports.iter().map(|s| (s - max).exp()).sum::<f64>() + rest * (-max).exp();
    supports
        .iter()
        .map(|s| {
            let mine = (s - max).exp();
            let others = total - mine;
            if others <= 0.0 {
                MAX_LOG_ODDS
            } else {
                ((s - max) - others.ln()).clamp(-MAX_LOG_ODDS, MAX_LOG_ODDS)
            }
        })
        .collect()
}

pub fn set_belief(claim: &mut Claim, log_odds: f64) {
    claim.log_odds = log_odds;
    claim.confidence = logistic(log_odds);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Status;

    fn claim(obs: &[(&str, f64, &str)]) -> Claim {
        Claim {
            id: "c".into(),
            subject: "user".into(),
            predicate: "p".into(),
            object: "o".into(),
            status: Status::Active,
            confidence: 0.5,
            log_odds: 0.0,
            stated_confidence: 1.0,
            valid_from: None,
            valid_to: None,
            recorded_at: Timestamp(0),
            provenance: obs
                .iter()
                .map(|(s, t, at)| Provenance {
                    source_id: s.to_string(),
                    source_trust: Some(*t),
                    extractor_conf: Some(1.0),
                    observed_at: Some(at.to_string()),
                })
                .collect(),
            superseded_by: None,
            supersedes: None,
            conflict_ids: vec![],
            object_entity: None,
        }
    }

    const NOW: &str = "2026-01-01";

    fn now() -> Timestamp {
        Timestamp::parse(NOW, "now").unwrap()
    }

    #[test]
    fn one_observation_gives_its_quality() {
        let p = BeliefParams::default();
        let s = support(&claim(&[("a", 0.8, NOW)]), &p, None, now());
        assert!((logistic(alone(s, &p)) - 0.8).abs() < 1e-9);
    }

    #[test]
    fn corroboration_raises_repeats_do_not() {
        let p = BeliefParams::default();
        let one = support(&claim(&[("a", 0.8, NOW)]), &p, None, now());
        let repeat = support(&claim(&[("a", 0.8, NOW), ("a", 0.8, NOW)]), &p, None, now());
        let two = support(&claim(&[("a", 0.8, NOW), ("b", 0.8, NOW)]), &p, None, now());
        assert_eq!(one, repeat);
        assert!(alone(two, &p) > alone(one, &p) + 1.0);
    }

    #[test]
    fn decays_toward_the_prior_with_age() {
        let p = BeliefParams::default();
        let fresh = support(&claim(&[("a", 0.9, NOW)]), &p, Some(365.0), now());
        let old = support(&claim(&[("a", 0.9, "2025-01-01")]), &p, Some(365.0), now());
        assert!((old - fresh / 2.0).abs() < 1e-9);
        let ancient = support(&claim(&[("a", 0.9, "1900-01-01")]), &p, Some(365.0), now());
        assert!((logistic(alone(ancient, &p)) - p.prior).abs() < 1e-6);
    }

    #[test]
    fn competition_splits_belief_and_stays_in_range() {
        let p = BeliefParams::default();
        let tied = competing(&[2.77, 2.77], &p);
        assert!((tied[0] - tied[1]).abs() < 1e-12);
        assert!(logistic(tied[0]) < 0.5);
        let won = competing(&[5.55, 2.77], &p);
        assert!(won[0] > tied[0] && won[1] < tied[1]);
        let extreme = competing(&[1e6, 0.0, 0.0], &p);
        for l in extreme {
            let c = logistic(l);
            assert!(c > 0.0 && c < 1.0);
        }
    }
}
