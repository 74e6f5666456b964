//! What a commit asks the store to index (SPEC §8, store interface v2). The
//! engine derives these rows from the slot; a store keeps them in the same
//! atomic commit as the slot and answers from them, so listing conflicts or
//! finding the slots a review pass must visit never scans every slot.

use serde::{Deserialize, Serialize};

use super::{ConflictStatus, Slot, SlotRef};
use crate::time::Timestamp;

/// One conflict as the index keeps it: enough to order and page without loading its slot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct ConflictEntry {
    pub id: String,
    pub status: ConflictStatus,
    #[cfg_attr(target_arch = "wasm32", tsify(type = "string"))]
    pub opened_at: Timestamp,
}

/// The index rows of one slot after a commit. Stores replace the slot's
/// previous rows with these (upsert by conflict id; conflicts never leave a slot).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct SlotIndex {
    /// Every conflict of the slot with its current status.
    #[serde(default)]
    pub conflicts: Vec<ConflictEntry>,
    /// The slot holds entries the review pass has not looked at yet.
    #[serde(default)]
    pub unreviewed: bool,
    /// Candidate ids (idempotency keys) this commit records in the slot. A
    /// store that answers `findWrite` indexes each to the slot, and refuses the
    /// whole commit (changing nothing, answering false, as for a moved version)
    /// when one is indexed to another slot: an id changes memory once (SPEC §8).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(target_arch = "wasm32", tsify(optional))]
    pub writes: Vec<String>,
    /// Candidate ids whose records this commit drops from the slot (expired
    /// into its archive, or an undone entity merge's): their rows naming this
    /// slot go, so the id may be written again.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(target_arch = "wasm32", tsify(optional))]
    pub dropped_writes: Vec<String>,
    /// Only in the commit of an entity slot: the keys its entity is filed
    /// under. A store replaces every key row of the entity with these, in
    /// the same atomic step, and answers `find_entities` from them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(optional))]
    pub entity: Option<EntityIndex>,
}

/// An entity's key rows (`entities::filed_under`), as a commit of its slot carries them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct EntityIndex {
    #[serde(rename = "type")]
    pub entity_type: String,
    pub id: String,
    pub keys: Vec<crate::entities::EntityKey>,
}

impl EntityIndex {
    /// The rows of the entity an entity slot holds (none, when it holds none: erased).
    pub fn of(slot_ref: &SlotRef, slot: &Slot) -> Option<EntityIndex> {
        if slot_ref.subject != super::ENTITY_SUBJECT {
            return None;
        }
        let entity_type = slot_ref.predicate.split_once(':').map_or("", |(t, _)| t).to_string();
        let keys = slot.entities.iter().flat_map(|e| crate::entities::filed_under(e, &entity_type)).collect();
        Some(EntityIndex { entity_type, id: slot_ref.predicate.clone(), keys })
    }
}

impl SlotIndex {
    pub fn of(slot_ref: &SlotRef, slot: &Slot) -> SlotIndex {
        SlotIndex {
            entity: EntityIndex::of(slot_ref, slot),
            conflicts: slot
                .conflicts
                .iter()
                .map(|c| ConflictEntry { id: c.id.clone(), status: c.status, opened_at: c.opened_at })
                .collect(),
            unreviewed: slot.claims.len() > slot.reviewed,
            writes: Vec::new(),
            dropped_writes: Vec::new(),
        }
    }
}

/// Where a page of conflicts ends: the next page starts after this (openedAt, id).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct ConflictCursor {
    #[cfg_attr(target_arch = "wasm32", tsify(type = "string"))]
    pub opened_at: Timestamp,
    pub id: String,
}

/// `listConflicts` input: one status, ordered by (openedAt, id), after `after`, at most `limit`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct ConflictQuery {
    pub status: ConflictStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<ConflictCursor>,
    pub limit: u32,
}

/// `listConflicts` output row: the conflict's index entry and the slot holding it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct IndexedConflict {
    pub id: String,
    pub status: ConflictStatus,
    #[cfg_attr(target_arch = "wasm32", tsify(type = "string"))]
    pub opened_at: Timestamp,
    #[serde(rename = "ref")]
    pub slot_ref: SlotRef,
}

impl IndexedConflict {
    pub fn cursor(&self) -> ConflictCursor {
        ConflictCursor { opened_at: self.opened_at, id: self.id.clone() }
    }
}

/// `dirtySlots` input: slots with unreviewed entries, by key, after `after`, at most `limit`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct DirtyQuery {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
    pub limit: u32,
}
