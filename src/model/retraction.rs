use serde::{Deserialize, Serialize};

use super::{Claim, StatusChange};
use crate::time::Timestamp;

/// A person's withdrawal of a claim, stored with its slot: what it changed, so
/// `undo` can put it back exactly, and only while nothing moved on since.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct RetractionRecord {
    /// `rt:<n>:<claimId>`: the claim id inside lets any store find the slot.
    pub id: String,
    pub claim_id: String,
    /// The end of validity it set (the claim's new `validTo`).
    #[cfg_attr(target_arch = "wasm32", tsify(type = "string"))]
    pub at: Timestamp,
    #[cfg_attr(target_arch = "wasm32", tsify(type = "string"))]
    pub recorded_at: Timestamp,
    pub by: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "string"))]
    pub valid_to_before: Option<Timestamp>,
    /// Every status (and belief) the retraction changed, the claim's own first.
    pub changes: Vec<StatusChange>,
    /// The claims current right after it: a claim current now and not in this
    /// list arrived later, and undoing would put two values side by side.
    #[serde(default)]
    pub current_after: Vec<String>,
    /// Open conflicts about the claim that it closed (`moot`); undo reopens them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mooted: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "string"))]
    pub undone_at: Option<Timestamp>,
    /// A scheduled claim withdrawn before it began never ends the claims it
    /// would have superseded: those it let hold on (undo ends them again at
    /// `at`, its start, as superseded by it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub revived: Vec<String>,
}

impl RetractionRecord {
    /// What every retraction id begins with (`rt:<n>:<claimId>`).
    pub const ID_PREFIX: &'static str = "rt:";

    pub fn make_id(claim_id: &str, n: usize) -> String {
        format!("{}{n}:{claim_id}", Self::ID_PREFIX)
    }

    /// Whether it withdrew a scheduled claim before it began (an empty period).
    pub fn withdrew(&self, slot: &super::Slot) -> bool {
        slot.claim(&self.claim_id).is_some_and(|c| c.valid_from.is_some_and(|from| from > self.recorded_at && from == self.at))
    }

    /// The claim a retraction id names, if `id` is one.
    pub fn claim_of(id: &str) -> Option<&str> {
        let (n, claim_id) = id.strip_prefix(Self::ID_PREFIX)?.split_once(':')?;
        (n.parse::<u32>().is_ok() && !claim_id.is_empty()).then_some(claim_id)
    }
}

/// What `retract` returns and `undo` of a retraction id returns: the record
/// with the claim in full.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct Retraction {
    /// Pass it to `undo` to put the claim back.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "`rt:${string}`"))]
    pub id: String,
    pub claim: Claim,
    pub by: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[cfg_attr(target_arch = "wasm32", tsify(type = "string"))]
    pub at: Timestamp,
    #[cfg_attr(target_arch = "wasm32", tsify(type = "string"))]
    pub recorded_at: Timestamp,
    /// True once `undo` put the claim back.
    pub undone: bool,
    /// `dependent` conflicts the retraction opened on facts that hang on this one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dependents: Vec<super::Conflict>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_name_their_claim_even_with_colons_inside() {
        let id = RetractionRecord::make_id("cl:odd:id", 2);
        assert_eq!(RetractionRecord::claim_of(&id), Some("cl:odd:id"));
        assert_eq!(RetractionRecord::claim_of("cf_123"), None);
        assert_eq!(RetractionRecord::claim_of("rt:x:cl_1"), None);
        assert_eq!(RetractionRecord::claim_of("rt:1:"), None);
    }
}
