//! `MemoryStore`'s v2 indexes: conflicts by (status, openedAt, id) and slots
//! with unreviewed entries by key, updated in the same step as the slot.

use std::collections::BTreeMap;
use std::ops::Bound;

use foldhash::HashMap;

use crate::entities::EntityKeyRow;
use crate::model::{Chunked, ConflictQuery, ConflictStatus, DirtyQuery, EntityIndex, IndexedConflict, Slot, SlotRef};
use crate::time::Timestamp;

type ConflictKey = (u8, Timestamp, String);

fn rank(status: ConflictStatus) -> u8 {
    match status {
        ConflictStatus::Open => 0,
        ConflictStatus::Settled => 1,
        ConflictStatus::ResolvedByEvidence => 2,
        ConflictStatus::Moot => 3,
    }
}

#[derive(Default)]
pub struct MemoryIndex {
    conflicts: BTreeMap<ConflictKey, (ConflictStatus, SlotRef)>,
    conflict_keys: HashMap<String, ConflictKey>,
    dirty: BTreeMap<String, SlotRef>,
    /// type → key → the entities filed under it, with the name it came from
    /// (by type first, so a look-up asks by `&str` without building keys).
    entity_keys: HashMap<String, HashMap<String, Vec<(String, String)>>>,
    /// Entity id → its rows, so the next commit of its slot replaces them.
    entity_rows: HashMap<String, EntityIndex>,
}

impl MemoryIndex {
    /// Replaces an entity's key rows with those of its slot as committed.
    pub fn apply_entity(&mut self, entity: EntityIndex) {
        if let Some(old) = self.entity_rows.remove(&entity.id) {
            if let Some(of_type) = self.entity_keys.get_mut(&old.entity_type) {
                for k in &old.keys {
                    if let Some(rows) = of_type.get_mut(&k.key) {
                        rows.retain(|(id, _)| *id != old.id);
                        if rows.is_empty() {
                            of_type.remove(&k.key);
                        }
                    }
                }
            }
        }
        let of_type = self.entity_keys.entry(entity.entity_type.clone()).or_default();
        for k in &entity.keys {
            let row = (entity.id.clone(), k.name.clone());
            match of_type.get_mut(&k.key) {
                Some(rows) => rows.push(row),
                None => {
                    of_type.insert(k.key.clone(), vec![row]);
                }
            }
        }
        self.entity_rows.insert(entity.id.clone(), entity);
    }

    /// `Store::find_entities` from the rows.
    pub fn entities(&self, entity_type: &str, keys: &[String]) -> Vec<EntityKeyRow> {
        let Some(of_type) = self.entity_keys.get(entity_type) else { return Vec::new() };
        let mut out = Vec::new();
        for key in keys {
            let Some(rows) = of_type.get(key) else { continue };
            out.extend(rows.iter().map(|(entity, name)| EntityKeyRow { key: key.clone(), entity: entity.clone(), name: name.clone() }));
        }
        out
    }

    /// Indexes a committed slot: its conflicts (upsert by id) and whether it
    /// has unreviewed entries. Rows are read straight from the slot (no
    /// `SlotIndex` built: a registry slot holds many conflicts). `before` is
    /// the slot this commit replaced: conflicts never leave a slot nor change
    /// place in it, so one it held unchanged at the same place is indexed already.
    pub fn apply_slot(&mut self, slot_ref: &SlotRef, slot: &Slot, before: Option<&Slot>) {
        // Whole chunks shared with `before` hold the same records: not looked at.
        let from = before.map_or(0, |b| Chunked::shared_prefix(&b.conflicts, &slot.conflicts));
        let held = before.map(|b| &b.conflicts);
        for (i, c) in slot.conflicts.iter_from(from).enumerate().map(|(i, c)| (i + from, c)) {
            let (id, status, opened_at) = (c.id.as_str(), c.status, c.opened_at);
            // The same shared record (nothing written through it), or an equal row.
            if held.and_then(|h| h.get(i)).is_some_and(|old| crate::model::Shared::same(old, c) || (old.id == id && old.status == status && old.opened_at == opened_at)) {
                continue;
            }
            // A commit lists every conflict of its slot; most did not change.
            let unchanged = self.conflict_keys.get(id).is_some_and(|old| {
                old.0 == rank(status) && old.1 == opened_at && self.conflicts.get(old).is_some_and(|(_, r)| r.key == slot_ref.key)
            });
            if unchanged {
                continue;
            }
            let key = (rank(status), opened_at, id.to_string());
            if let Some(old) = self.conflict_keys.insert(id.to_string(), key.clone()) {
                self.conflicts.remove(&old);
            }
            self.conflicts.insert(key, (status, slot_ref.clone()));
        }
        // The dirty set changes only when the slot's unreviewed flag does
        // (most commits keep it): no ordered-map walk per commit then.
        let unreviewed = |s: &Slot| s.claims.len() > s.reviewed;
        if before.is_some_and(|b| unreviewed(b) == unreviewed(slot)) {
            return;
        }
        if unreviewed(slot) {
            self.dirty.insert(slot_ref.key.clone(), slot_ref.clone());
        } else {
            self.dirty.remove(&slot_ref.key);
        }
    }

    pub fn conflicts(&self, query: &ConflictQuery) -> Vec<IndexedConflict> {
        let r = rank(query.status);
        let start = match &query.after {
            Some(after) => Bound::Excluded((r, after.opened_at, after.id.clone())),
            None => Bound::Included((r, Timestamp::from_millis(i64::MIN), String::new())),
        };
        self.conflicts
            .range((start, Bound::Unbounded))
            .take_while(|((rk, _, _), _)| *rk == r)
            .take(query.limit as usize)
            .map(|((_, opened_at, id), (status, slot_ref))| IndexedConflict {
                id: id.clone(),
                status: *status,
                opened_at: *opened_at,
                slot_ref: slot_ref.clone(),
            })
            .collect()
    }

    pub fn dirty(&self, query: &DirtyQuery) -> Vec<SlotRef> {
        let start = match &query.after {
            Some(after) => Bound::Excluded(after.clone()),
            None => Bound::Unbounded,
        };
        self.dirty.range((start, Bound::Unbounded)).take(query.limit as usize).map(|(_, r)| r.clone()).collect()
    }
}
