use serde::{Deserialize, Serialize};

use crate::time::Timestamp;

/// What a privacy erasure leaves of a claim (SPEC §7): which claim, when, by
/// whom and why — never what it said.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct Tombstone {
    pub claim_id: String,
    pub subject: String,
    pub predicate: String,
    #[cfg_attr(target_arch = "wasm32", tsify(type = "string"))]
    pub erased_at: Timestamp,
    pub by: String,
    pub reason: String,
}

/// The text an erased claim is left with.
pub const ERASED: &str = "[erased]";
