//! `MemoryStore`'s v2 indexes: conflicts by (status, openedAt, id) and slots
//! with unreviewed entries by key, updated in the same step as the slot.

use std::collections::BTreeMap;
use std::ops::Bound;

use foldhash::HashMap;

use crate::model::{Chunked, ConflictQuery, ConflictStatus, DirtyQuery, IndexedConflict, Slot, SlotRef};
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
}

impl MemoryIndex {
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
