//! What the engine asks of its host: the time, fresh ids, and the optional
//! user hooks (merge, judge). On wasm these are JS functions; natively, closures.

use std::cell::Cell;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::model::Claim;
use crate::time::Timestamp;

pub trait Clock {
    fn now(&self) -> Result<Timestamp>;
}

pub trait IdSource {
    /// A fresh id such as `cl_4f9a…`; `prefix` tells claims from conflicts.
    fn next_id(&self, prefix: &str) -> String;
}

/// Random ids from the platform's entropy (`getrandom`).
pub struct RandomIds;

impl IdSource for RandomIds {
    fn next_id(&self, prefix: &str) -> String {
        let mut bytes = [0u8; 10];
        // Entropy failure is not recoverable by a caller; fall back to a counter-free
        // time-independent marker rather than panicking inside wasm.
        if getrandom::fill(&mut bytes).is_err() {
            bytes = [0x5a; 10];
        }
        let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        format!("{prefix}_{hex}")
    }
}

/// Deterministic ids for replayable tests.
pub struct SequentialIds(Cell<u64>);

impl SequentialIds {
    pub fn new() -> Self {
        SequentialIds(Cell::new(0))
    }
}

impl Default for SequentialIds {
    fn default() -> Self {
        Self::new()
    }
}

impl IdSource for SequentialIds {
    fn next_id(&self, prefix: &str) -> String {
        let n = self.0.get() + 1;
        self.0.set(n);
        format!("{prefix}_{n:06}")
    }
}

/// What a merge hook returns: the consolidated text, and whether it
/// contradicts an entry a user approved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct MergeResult {
    pub content: String,
    #[serde(default)]
    pub contradicts: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

#[async_trait(?Send)]
pub trait MergeHook {
    /// `entries` are the active entries oldest first.
    async fn merge(&self, entries: &[Claim], incoming: &Claim) -> Result<MergeResult>;
}

/// A pair the judge names: claim ids, older first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct PairRef {
    pub earlier: String,
    pub newer: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct PairVerdict {
    #[serde(default)]
    pub same_thing: bool,
    #[serde(default)]
    pub newer_invalidates_earlier: bool,
    #[serde(default)]
    pub reason: String,
}

#[async_trait(?Send)]
pub trait Judge {
    async fn find_pairs(&self, claims_oldest_first: &[Claim]) -> Result<Vec<PairRef>>;
    async fn confirm_pair(&self, earlier: &Claim, newer: &Claim) -> Result<PairVerdict>;
}
