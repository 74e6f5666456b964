use serde::{Deserialize, Serialize};

use super::{Claim, Conflict, Relation};

/// What a write did (SPEC §7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub enum Action {
    Added,
    Confirmed,
    Superseded,
    Refined,
    Historical,
    Outweighed,
    Disputed,
    Appended,
    Replaced,
    Merged,
    Skipped,
    Rejected,
}

impl Action {
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Added => "added",
            Action::Confirmed => "confirmed",
            Action::Superseded => "superseded",
            Action::Refined => "refined",
            Action::Historical => "historical",
            Action::Outweighed => "outweighed",
            Action::Disputed => "disputed",
            Action::Appended => "appended",
            Action::Replaced => "replaced",
            Action::Merged => "merged",
            Action::Skipped => "skipped",
            Action::Rejected => "rejected",
        }
    }
}

/// Which level of the precedence chain chose the strategy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub enum StrategySource {
    Call,
    Config,
    Predicate,
    MemoryType,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct Outcome {
    pub action: Action,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relation: Option<Relation>,
    /// The strategy's name, e.g. `reconcile`.
    pub strategy: String,
    pub strategy_source: StrategySource,
    /// The stored candidate; for `confirmed` the corroborated claim as updated; for
    /// `skipped`/`rejected` the claim that would have been written (not stored).
    pub claim: Claim,
    /// Other claims this write changed (or, for `rejected`, the claims in the way).
    pub affected: Vec<Claim>,
    pub conflicts: Vec<Conflict>,
    pub slot_version: u64,
    pub attempts: u32,
    /// True when the candidate's `id` had been written before and nothing changed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub replayed: bool,
    /// How entity names in the candidate resolved (subjectType / objectType).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resolutions: Vec<crate::entities::Resolution>,
    /// The predicate spec the write used (SPEC §7).
    pub spec: SpecUsed,
}

impl Outcome {
    /// Whether the write changed memory: not a replay of an earlier write,
    /// nor skipped or rejected. Only such writes count toward the next
    /// automatic calibration (SPEC §4), or start it.
    pub fn stored(&self) -> bool {
        !self.replayed && !matches!(self.action, Action::Skipped | Action::Rejected)
    }
}

/// The spec a write used: its canonical predicate, whether it holds one value
/// or several, whether its value changes over time, and whether it was
/// `assumed` (never declared: built-in, configured or defined), in which case
/// it is single-valued and time-varying, so a new value supersedes the old.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct SpecUsed {
    pub name: String,
    pub cardinality: crate::predicates::Cardinality,
    pub time_varying: bool,
    pub assumed: bool,
}

impl Default for SpecUsed {
    fn default() -> Self {
        SpecUsed { name: String::new(), cardinality: crate::predicates::Cardinality::Single, time_varying: true, assumed: true }
    }
}
