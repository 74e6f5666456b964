use serde::{Deserialize, Serialize};

use crate::time::Timestamp;

/// What caused a state change: a write, a settlement, an undo, a review.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct LogCause {
    /// `remember`, `settle`, `undo`, `review`, `import`.
    pub op: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strategy: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
}

/// One state change of one slot: the structured answer to "why".
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct LogEntry {
    /// The slot version this change produced.
    pub version: u64,
    #[cfg_attr(target_arch = "wasm32", tsify(type = "string"))]
    pub at: Timestamp,
    /// The rule that fired, e.g. `supersede`, `confirm`, `dispute_opened`.
    pub rule: String,
    pub claim_ids: Vec<String>,
    /// Belief of the first claim before and after, where belief changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence_before: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence_after: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conflict_id: Option<String>,
    pub cause: LogCause,
    /// One human-readable sentence.
    pub note: String,
    /// The calibration (`calibrate()`) version in force when the change was
    /// made, so the beliefs it set used it; absent when none was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calibration_version: Option<u64>,
}
