use serde::{Deserialize, Serialize};

use super::{Claim, Status};
use crate::time::Timestamp;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub enum ConflictKind {
    Dispute,
    AskUser,
    Review,
    MergeProposal,
    /// Two entity names that look alike (SPEC §9): are they one entity?
    SameEntity,
    /// A fact that hangs on another (`dependsOn`) whose value changed or was retracted.
    Dependent,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub enum ConflictStatus {
    Open,
    Settled,
    ResolvedByEvidence,
    /// Closed by itself: one of its claims left the live set, so the question is gone.
    Moot,
}

impl ConflictStatus {
    /// Settled by a person or closed as moot: nothing left to settle.
    pub fn is_closed(self) -> bool {
        matches!(self, ConflictStatus::Settled | ConflictStatus::Moot)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub enum Settlement {
    KeepNewer,
    KeepEarlier,
    KeepBoth,
    /// `same_entity`: the two names are one entity (merge, undoable).
    Same,
    /// `same_entity`: two entities; never asked again.
    Different,
}

impl Settlement {
    pub fn as_str(self) -> &'static str {
        match self {
            Settlement::KeepNewer => "keep_newer",
            Settlement::KeepEarlier => "keep_earlier",
            Settlement::KeepBoth => "keep_both",
            Settlement::Same => "same",
            Settlement::Different => "different",
        }
    }
}

/// One claim a settlement changed (status, and belief once rivals left the
/// slot), so `undo` can put it back exactly.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct StatusChange {
    pub claim_id: String,
    pub before: Status,
    pub after: Status,
    pub log_odds_before: f64,
    pub log_odds_after: f64,
}

/// A conflict as stored with its slot: claims by id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct ConflictRecord {
    pub id: String,
    pub kind: ConflictKind,
    pub earlier_id: String,
    pub newer_id: String,
    pub reason: String,
    pub status: ConflictStatus,
    #[cfg_attr(target_arch = "wasm32", tsify(type = "string"))]
    pub opened_at: Timestamp,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "string"))]
    pub settled_at: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settled_by: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settlement: Option<Settlement>,
    /// What the settlement changed (empty while open).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changes: Vec<StatusChange>,
    /// The status the settlement replaced (open, or resolved by evidence): what `undo` restores.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settled_from: Option<ConflictStatus>,
    /// Open conflicts this settlement made moot: `undo` reopens them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mooted: Vec<String>,
    /// Conflicts this settlement opened (the kept claim clashed with a value
    /// that became current since): `undo` closes them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub opened: Vec<String>,
    /// Conflicts resolved by evidence that this settlement reopened for the
    /// same reason: `undo` puts them back as resolved.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reopened: Vec<String>,
    /// Conflicts closed as moot that this settlement reopened because it made
    /// their pair current together again: `undo` closes them as moot again.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reopened_moot: Vec<String>,
    /// For a merge proposal: the consolidated text waiting for approval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proposed: Option<String>,
    /// For a `dependent` conflict: the changed fact, which lives in another
    /// slot, as it was when the flag was raised.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changed: Option<Box<Claim>>,
    /// For a `dependent` conflict settled keep_newer: the retraction it made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retraction: Option<String>,
}

impl ConflictRecord {
    pub fn names_pair(&self, a: &str, b: &str) -> bool {
        (self.earlier_id == a && self.newer_id == b) || (self.earlier_id == b && self.newer_id == a)
    }

    /// Names `to` wherever it named `from` (a conflict follows its claim to a refinement, and back).
    pub fn rename_claim(&mut self, from: &str, to: &str) {
        for side in [&mut self.earlier_id, &mut self.newer_id] {
            if side == from {
                *side = to.to_string();
            }
        }
    }

    /// The claims of this conflict that live in its own slot. A `dependent`
    /// conflict's newer side is the changed fact of another slot (kept as
    /// `changed`), so only its earlier side can leave this slot's live set.
    pub fn local_claim_ids(&self) -> impl Iterator<Item = &String> {
        // No Vec: the moot check runs this over every open conflict per commit.
        let n = if self.kind == ConflictKind::Dependent { 1 } else { 2 };
        [&self.earlier_id, &self.newer_id].into_iter().take(n)
    }
}

/// A conflict as a caller sees it (SPEC §6): both claims in full.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct Conflict {
    pub id: String,
    pub kind: ConflictKind,
    pub subject: String,
    pub predicate: String,
    pub earlier: Claim,
    pub newer: Claim,
    pub reason: String,
    pub status: ConflictStatus,
    #[cfg_attr(target_arch = "wasm32", tsify(type = "string"))]
    pub opened_at: Timestamp,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "string"))]
    pub settled_at: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settled_by: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settlement: Option<Settlement>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proposed: Option<String>,
}
