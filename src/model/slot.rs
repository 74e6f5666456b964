use serde::{Deserialize, Serialize};

use super::chunked::{key_hash, Keyed, KEYS};
use super::{Action, Chunked, Claim, ConflictRecord, LogEntry};
use crate::time::Timestamp;

/// Joins subject and predicate in a slot's key, and opens the reserved
/// subjects (entities, calibration, archives): text from a caller
/// may not hold it (`model::reserved::no_key_separator`).
pub const KEY_SEPARATOR: char = '\u{1f}';

/// Names one (subject, predicate) slot. `key` is what stores index by.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct SlotRef {
    pub key: String,
    pub subject: String,
    pub predicate: String,
}

impl SlotRef {
    pub fn new(subject: &str, predicate: &str) -> Self {
        SlotRef {
            key: format!("{subject}{KEY_SEPARATOR}{predicate}"),
            subject: subject.to_string(),
            predicate: predicate.to_string(),
        }
    }
}

/// An idempotency record: candidate id → what that write did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct WriteRecord {
    pub id: String,
    pub claim_id: String,
    pub action: Action,
}

/// Everything stored for one slot. `version` 0 means the slot is empty.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct Slot {
    pub version: u64,
    /// Oldest first; never shrinks.
    // Shared with the slot's other versions until changed (a write copies
    // only the claims it changes); serialized as plain claims.
    #[serde(default)]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Claim[]"))]
    pub claims: Chunked<Claim>,
    // Shared with the slot's other versions until changed, like `claims`.
    #[serde(default)]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "ConflictRecord[]"))]
    pub conflicts: Chunked<ConflictRecord>,
    #[serde(default)]
    pub writes: Vec<WriteRecord>,
    /// How many claims (oldest first) the review pass has looked at.
    #[serde(default)]
    pub reviewed: usize,
    /// Only in an entity slot (subject `ENTITY_SUBJECT`): its one entity; in a
    /// registry written before entities had slots of their own, every entity of a type.
    #[serde(default, skip_serializing_if = "Chunked::is_empty")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Entity[]"))]
    pub entities: Chunked<crate::entities::Entity>,
    /// Only in a merges slot (`MERGES_SUBJECT`): a merge record keeps every claim it changed.
    #[serde(default, skip_serializing_if = "Chunked::is_empty")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "EntityMerge[]"))]
    pub merges: Chunked<crate::entities::EntityMerge>,
    /// Retractions of this slot's claims, oldest first (kept after undo).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub retractions: Vec<super::RetractionRecord>,
    /// Claims erased for privacy: their ids stay (history is consistent), their text is gone.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub erasures: Vec<super::Tombstone>,
    /// Archive chunks (oldest first) holding observations moved out of this
    /// slot's claims, by chunk id (see `crate::archive`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub archive: Vec<String>,
    /// In a slot: how many of its oldest claims, dead long ago, moved whole to
    /// claim chunks of its archive (`crate::archive::dead_prefix`). In a claim
    /// chunk: the position its first claim had in the slot's full history.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub archived_claims: u64,
    /// In a slot: the latest time a claim moved to its claim chunks holds for
    /// (its end, else its start). A write that speaks for an earlier time is
    /// matched against the full history, so a report of an archived period
    /// corroborates that claim instead of copying it (SPEC §3 confirm).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "string"))]
    pub archived_until: Option<crate::time::Timestamp>,
}

/// The hash a value's tokens are looked up by.
fn value_hash(tokens: &[String]) -> u64 {
    key_hash(tokens)
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Slot {
    /// Copies of the current claims, for readers that outlive the slot or change it.
    pub fn current_claims(&self) -> Vec<Claim> {
        self.claims.iter().filter(|c| c.status.is_current()).map(|c| Claim::clone(c)).collect()
    }
    /// From the end: what a write or an entity's new question looks up was
    /// most often added last (ids are unique, so the order changes no answer).
    pub fn claim(&self, id: &str) -> Option<&Claim> {
        self.claim_position(id).map(|i| &*self.claims[i])
    }
    pub fn claim_position(&self, id: &str) -> Option<usize> {
        self.claims.rposition_keyed(0, key_hash(id), |c| c.id == id)
    }
    /// The claim saying `object` of `subject` (an entity slot's name claims).
    pub fn claim_of(&self, subject: &str, object: &str) -> Option<&Claim> {
        let i = self.claims.position_keyed(1, key_hash((subject, object)), |c| c.subject == subject && c.object == object)?;
        Some(&self.claims[i])
    }
    /// The positions of the claims that may say `c`'s value (the same
    /// tokens, or the same object entity), in slot order: a superset of
    /// those `strategy::same_value` holds for, found by hash instead of by
    /// comparing every claim (a multi-valued slot holds thousands, issue #43).
    pub fn value_candidates(&self, c: &Claim) -> Vec<usize> {
        let mut at = self.claims.positions_keyed(2, value_hash(&crate::normalize::tokens_of(&c.object)));
        if let Some(entity) = c.object_entity.as_deref() {
            at.extend(self.claims.positions_keyed(3, key_hash(entity)));
            at.sort_unstable();
            at.dedup();
        }
        at
    }
    /// The positions of the claims whose value `c` may refine (their tokens
    /// begin `c`'s, and `c` says more: `normalize::is_refinement`), in slot
    /// order; a superset the caller still checks.
    pub fn general_candidates(&self, c: &Claim) -> Vec<usize> {
        let tokens = crate::normalize::tokens_of(&c.object);
        let mut at: Vec<usize> = (1..tokens.len()).flat_map(|k| self.claims.positions_keyed(2, value_hash(&tokens[..k]))).collect();
        at.sort_unstable();
        at.dedup();
        at
    }
    pub fn claim_mut(&mut self, id: &str) -> Option<&mut Claim> {
        let i = self.claim_position(id)?;
        self.claims.get_mut(i).map(|c| &mut **c)
    }
    pub fn tombstone(&self, claim_id: &str) -> Option<&super::Tombstone> {
        self.erasures.iter().find(|t| t.claim_id == claim_id)
    }
    pub fn conflict(&self, id: &str) -> Option<&ConflictRecord> {
        self.conflict_position(id).map(|i| &*self.conflicts[i])
    }
    pub fn conflict_position(&self, id: &str) -> Option<usize> {
        self.conflicts.rposition_keyed(0, key_hash(id), |c| c.id == id)
    }
    pub fn conflict_mut(&mut self, id: &str) -> Option<&mut ConflictRecord> {
        let i = self.conflict_position(id)?;
        self.conflicts.get_mut(i).map(|c| &mut **c)
    }

    /// `[from, to)` of a claim's validity; an open end is the end of time. A
    /// superseded claim without a stated end holds until its successor starts.
    pub fn validity(&self, c: &Claim) -> (Timestamp, Timestamp) {
        let from = c.effective_from();
        let to = c.valid_to.or_else(|| {
            let next = c.superseded_by.as_deref().and_then(|id| self.claim(id))?;
            (c.status == super::Status::Superseded).then(|| next.effective_from().max(from))
        });
        (from, to.unwrap_or(Timestamp(i64::MAX)))
    }
}

/// An atomic change to one slot: the store applies it only if the slot is
/// still at `expectedVersion`. `slot` is the complete new state (stores that
/// keep one document per slot write it whole); `changedClaims`/`changedConflicts`
/// name what differs (stores that keep rows upsert just those); `log` is appended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct SlotCommit {
    #[serde(rename = "ref")]
    pub slot_ref: SlotRef,
    pub expected_version: u64,
    pub slot: Slot,
    pub changed_claims: Vec<String>,
    pub changed_conflicts: Vec<String>,
    pub log: Vec<LogEntry>,
    /// Index rows kept in the same atomic step (store interface v2). The
    /// engine leaves them empty; a store that keeps them derives them with
    /// `SlotIndex::of(&commit.slot_ref, &commit.slot)` (the JS bridge does, for `ClaimStore`s).
    #[serde(default)]
    pub index: super::SlotIndex,
}

impl Keyed for Claim {
    fn key_hashes(&self) -> [u64; KEYS] {
        let entity = self.object_entity.as_deref().map_or(0, key_hash);
        [key_hash(self.id.as_str()), key_hash((self.subject.as_str(), self.object.as_str())), value_hash(&crate::normalize::tokens_of(&self.object)), entity]
    }
    fn flag(&self) -> bool {
        self.status.is_current()
    }
}

impl Keyed for ConflictRecord {
    fn key_hashes(&self) -> [u64; KEYS] {
        [key_hash(self.id.as_str()), 0, 0, 0]
    }
    fn flag(&self) -> bool {
        self.status == super::ConflictStatus::Open
    }
}
