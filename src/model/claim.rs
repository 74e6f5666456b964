use serde::{Deserialize, Serialize};

use super::{Provenance, Shared};
use crate::time::Timestamp;

/// Lifecycle of a stored claim. Claims are never deleted; only this changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub enum Status {
    Active,
    Disputed,
    Superseded,
    Outweighed,
    Retired,
    /// Withdrawn by a person: no longer holds, with no replacement (`retract`).
    Retracted,
}

impl Status {
    /// Statuses a reader sees as current belief.
    pub fn is_current(self) -> bool {
        matches!(self, Status::Active | Status::Disputed)
    }
    /// Statuses that still compete for a slot (an outweighed claim can revive).
    pub fn is_live(self) -> bool {
        matches!(self, Status::Active | Status::Disputed | Status::Outweighed)
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Active => "active",
            Status::Disputed => "disputed",
            Status::Superseded => "superseded",
            Status::Outweighed => "outweighed",
            Status::Retired => "retired",
            Status::Retracted => "retracted",
        }
    }
}

/// How a candidate relates to a claim already in its slot (SPEC §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub enum Relation {
    Confirm,
    Refine,
    Independent,
    Supersede,
    Contradict,
}

/// What a claim is (SPEC §5): a value the relation engine and the filter
/// weigh, or a free-text entry of a log-like slot, written by `append`,
/// `merge_on_read` or an import. Entries sharing a slot with values are never
/// weighed as rival values. A record written before claims knew their kind
/// reads as a value (the checker also reads an entry's kind from the log).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub enum ClaimKind {
    #[default]
    Value,
    Append,
    MergeOnRead,
    Import,
}

impl ClaimKind {
    pub fn is_value(&self) -> bool {
        *self == ClaimKind::Value
    }
    /// A free-text entry (append, merge_on_read, import).
    pub fn is_entry(self) -> bool {
        !self.is_value()
    }
    pub fn as_str(self) -> &'static str {
        match self {
            ClaimKind::Value => "value",
            ClaimKind::Append => "append",
            ClaimKind::MergeOnRead => "merge_on_read",
            ClaimKind::Import => "import",
        }
    }
}

/// An immutable stored fact with its current belief.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct Claim {
    pub id: String,
    pub subject: String,
    pub predicate: String,
    pub object: String,
    pub status: Status,
    /// Current belief, 0..1 (the logistic of `logOdds`).
    pub confidence: f64,
    pub log_odds: f64,
    /// The confidence the writer stated (default 1.0), used by `confidence_gated` and blobs.
    pub stated_confidence: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "string"))]
    pub valid_from: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "string"))]
    pub valid_to: Option<Timestamp>,
    /// The end its reports stated, kept while a successor ends the claim
    /// earlier (`validTo` is then the successor's start): should the claim
    /// hold again (its successor withdrawn, or outweighed by late evidence),
    /// it holds until this, not forever.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "string"))]
    pub stated_valid_to: Option<Timestamp>,
    #[cfg_attr(target_arch = "wasm32", tsify(type = "string"))]
    pub recorded_at: Timestamp,
    /// The observations that support the claim, oldest first: every one, or,
    /// on a claim observed very often, the ones belief counts and the latest
    /// (the rest are in the slot's archive; `why` returns them all).
    /// Shared between the claim's versions until an observation is added: a
    /// write re-reads every live claim's belief, and copying each claim for
    /// that would copy its whole provenance.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Provenance[]"))]
    pub provenance: Shared<Vec<Provenance>>,
    /// How many older observations of this claim moved to the archive.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub archived_observations: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub superseded_by: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supersedes: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conflict_ids: Vec<String>,
    /// The entity the object names, when the predicate has an `objectType`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object_entity: Option<String>,
    /// A value (omitted) or a free-text entry's kind.
    #[serde(default, skip_serializing_if = "ClaimKind::is_value")]
    pub kind: ClaimKind,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl Claim {
    /// Every observation the claim has had: those held here and those archived.
    pub fn observation_count(&self) -> usize {
        self.provenance.len() + self.archived_observations as usize
    }

    /// When the claim starts to hold: its stated valid time, else when it was first observed.
    pub fn effective_from(&self) -> Timestamp {
        self.valid_from.unwrap_or_else(|| self.first_observed())
    }

    pub fn first_observed(&self) -> Timestamp {
        self.provenance.iter().filter_map(|p| p.observed()).min()
            .unwrap_or(self.recorded_at)
    }

    /// The end its reports stated, if any: `validTo` unless a successor cut it
    /// short (memory's end for it, not what was said of it).
    pub fn stated_end(&self) -> Option<Timestamp> {
        if self.superseded_by.is_some() { self.stated_valid_to } else { self.valid_to }
    }

    /// Makes this claim history of `successor`, which begins at `from`: it
    /// ends there, or earlier if a stated `validTo` already ended it (history
    /// never outlives what was said of it; stretched, it could overlap an
    /// earlier claim of its value).
    pub fn end_as_history(&mut self, successor: &str, from: Option<Timestamp>) {
        self.status = Status::Superseded;
        if let (Some(end), Some(from)) = (self.valid_to, from) {
            if from < end && self.stated_valid_to.is_none() {
                self.stated_valid_to = Some(end);
            }
        }
        self.valid_to = match (self.valid_to, from) {
            (Some(end), Some(from)) => Some(end.min(from)),
            (end, from) => from.or(end),
        };
        self.superseded_by = Some(successor.to_string());
    }

    /// History that holds again (its successor is gone or lost to it):
    /// `status` from now on, until the end its reports stated, if any.
    pub fn hold_again(&mut self, status: Status) {
        self.status = status;
        self.valid_to = self.stated_valid_to.take();
        self.superseded_by = None;
    }

    /// A `validTo` put back as it was (an undo): a stated end no later than
    /// it is no longer cut short.
    pub fn restore_valid_to(&mut self, valid_to: Option<Timestamp>) {
        self.valid_to = valid_to;
        if self.stated_end_uncut() {
            self.stated_valid_to = None;
        }
    }

    /// A kept stated end that nothing cuts short any more (`validTo` reaches
    /// it, or is open): never left standing (an invariant).
    pub fn stated_end_uncut(&self) -> bool {
        self.stated_valid_to.is_some_and(|stated| self.valid_to.is_none_or(|end| end >= stated))
    }

    pub fn note_conflict(&mut self, conflict_id: &str) {
        if !self.conflict_ids.iter().any(|c| c == conflict_id) {
            self.conflict_ids.push(conflict_id.to_string());
        }
    }
}
