//! The calibration record: what `calibrate()` returns and stores, and the
//! shared cell through which the filter reads it.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct CalibrateOptions {
    /// Predicates whose half-life to estimate (default: every time-varying, single-valued one seen).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub predicates: Option<Vec<String>>,
    /// Sources whose reliability to estimate (default: every source seen).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sources: Option<Vec<String>>,
    /// Below this many observations an estimate is reported but not used;
    /// it is also the prior's weight (default 20).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_observations: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct PredicateEstimate {
    pub predicate: String,
    pub half_life_days: f64,
    pub configured_half_life_days: f64,
    /// Expected changes of value the slots' evidence implies.
    pub changes: f64,
    pub exposure_days: f64,
    pub slots: usize,
    pub observations: usize,
    /// False when too few observations: the configured half-life stays in force.
    pub used: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct SourceEstimate {
    pub source_id: String,
    pub reliability: f64,
    /// Mean trust the source stated: the estimate's prior.
    pub stated_trust: f64,
    pub observations: usize,
    /// Expected number of its reports that agreed with the consensus.
    pub agreed: f64,
    /// Its repeat weight `ρ` (SPEC §4): how much a repeated report of a value
    /// it already gave counts, from 0 (it repeats its last answer) to 1 (each
    /// report is a fresh look). Records before it was learned read 0.
    #[serde(default)]
    pub repeat_weight: f64,
    /// False when too few observations: the stated trust stays in force.
    pub used: bool,
}

/// A predicate whose slots never held more than a few values (a closed
/// domain such as open/closed): its filter's prior is `1 / values` instead
/// of the configured one, so a report's error is spread over the values it
/// could really be (SPEC §4's hypotheses; a source right less than half the
/// time on a two-valued predicate then counts against what it says).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct DomainEstimate {
    pub predicate: String,
    /// The most distinct values any of its slots held.
    pub values: usize,
    pub slots: usize,
    pub observations: usize,
}

/// How a predicate's sources report forms of the truth (SPEC §3 refine),
/// learned from the consensus: `refinedSupport` (`δ`) is how much a report of
/// a less specific form supports the more specific value (the uncalibrated
/// filter's 0.5), `embellished` (`ε`) how likely a report of a more specific
/// form is when the less specific value holds, relative to a right report
/// (uncalibrated: as likely as any wrong value).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct FormsEstimate {
    pub predicate: String,
    pub refined_support: f64,
    pub embellished: f64,
    /// Expected right reports of a value with another form in its slot: the evidence behind both.
    pub observations: f64,
    /// False when too little evidence: the uncalibrated weights stay in force.
    pub used: bool,
}

/// Two sources likely dependent (one copying the other): where they agree,
/// the later report counts with weight `1 − 0.8·probability` (SPEC §4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct SourceDependence {
    pub sources: [String; 2],
    pub probability: f64,
    /// Slots both sources answered.
    pub shared: usize,
    /// Expected agreements on a value the consensus holds false.
    pub agreed_false: f64,
}

/// A versioned calibration. Version `n` is the `n`-th calibration committed to the store.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct Calibration {
    pub version: u64,
    #[cfg_attr(target_arch = "wasm32", tsify(type = "string"))]
    pub calibrated_at: crate::time::Timestamp,
    pub min_observations: u32,
    pub predicates: Vec<PredicateEstimate>,
    pub sources: Vec<SourceEstimate>,
    /// Pairs of sources likely dependent. Records before it was learned read none.
    #[serde(default)]
    pub dependencies: Vec<SourceDependence>,
    /// Predicates found to take values from a small closed set.
    #[serde(default)]
    pub domains: Vec<DomainEstimate>,
    /// Predicates whose slots hold values in more and less specific forms.
    /// Records before it was learned read none.
    #[serde(default)]
    pub forms: Vec<FormsEstimate>,
}

/// A calibration with its look-ups.
#[derive(Debug)]
pub struct InForce {
    pub record: Calibration,
    half_lives: HashMap<String, f64>,
    reliabilities: HashMap<String, f64>,
    repeat_weights: HashMap<String, f64>,
    dependence: HashMap<(String, String), f64>,
    priors: HashMap<String, f64>,
    forms: HashMap<String, (f64, f64)>,
}

impl InForce {
    pub fn new(record: Calibration) -> Self {
        let half_lives = record.predicates.iter().filter(|p| p.used).map(|p| (p.predicate.clone(), p.half_life_days)).collect();
        let reliabilities = record.sources.iter().filter(|s| s.used).map(|s| (s.source_id.clone(), s.reliability)).collect();
        let repeat_weights = record.sources.iter().filter(|s| s.used).map(|s| (s.source_id.clone(), s.repeat_weight)).collect();
        let dependence = record.dependencies.iter().map(|d| (ordered(&d.sources[0], &d.sources[1]), d.probability)).collect();
        let priors = record.domains.iter().map(|d| (d.predicate.clone(), 1.0 / d.values.max(2) as f64)).collect();
        let forms = record.forms.iter().filter(|f| f.used).map(|f| (f.predicate.clone(), (f.refined_support, f.embellished))).collect();
        InForce { record, half_lives, reliabilities, repeat_weights, dependence, priors, forms }
    }

    pub fn half_life(&self, predicate: &str) -> Option<f64> {
        self.half_lives.get(predicate).copied()
    }

    pub fn reliability(&self, source_id: &str) -> Option<f64> {
        self.reliabilities.get(source_id).copied()
    }

    /// The prior of a predicate whose domain was learned.
    pub fn prior(&self, predicate: &str) -> Option<f64> {
        self.priors.get(predicate).copied()
    }

    /// A predicate's learned `(δ, ε)` (`FormsEstimate`).
    pub fn forms(&self, predicate: &str) -> Option<(f64, f64)> {
        self.forms.get(predicate).copied()
    }

    /// The probability that two sources are dependent (0 when not found so).
    pub fn dependence(&self, a: &str, b: &str) -> f64 {
        if self.dependence.is_empty() {
            return 0.0;
        }
        self.dependence.get(&ordered(a, b)).copied().unwrap_or(0.0)
    }

    pub fn has_dependence(&self) -> bool {
        !self.dependence.is_empty()
    }

    /// The weight of a source's repeated reports of one value (SPEC §4 `ρ`; 0 when not learned).
    pub fn repeat_weight(&self, source_id: &str) -> f64 {
        self.repeat_weights.get(source_id).copied().unwrap_or(0.0)
    }
}

fn ordered(a: &str, b: &str) -> (String, String) {
    if a <= b { (a.to_string(), b.to_string()) } else { (b.to_string(), a.to_string()) }
}

/// The calibration the engine's filter uses, shared by every clone of its
/// settings. `None` inside: never calibrated (today's stated trust and
/// configured half-lives, exactly).
#[derive(Debug, Clone, Default)]
pub struct ActiveCalibration {
    loaded: Rc<RefCell<Option<Option<Rc<InForce>>>>>,
}

impl ActiveCalibration {
    /// The calibration in force (`None` when never calibrated or not loaded yet).
    pub fn get(&self) -> Option<Rc<InForce>> {
        self.loaded.borrow().clone().flatten()
    }

    pub fn is_loaded(&self) -> bool {
        self.loaded.borrow().is_some()
    }

    pub fn set(&self, record: Option<Calibration>) {
        *self.loaded.borrow_mut() = Some(record.map(|r| Rc::new(InForce::new(r))));
    }
}
