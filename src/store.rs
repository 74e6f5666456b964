//! The storage contract (SPEC §8) and the in-memory store.
//!
//! A store keeps slots. `load_slot` returns a slot's snapshot (version 0 when
//! empty). `commit_slot` applies a whole `SlotCommit` atomically if and only if
//! the slot is still at `expected_version`, returning `false` (and changing
//! nothing) when another writer got there first; the engine then reloads and
//! retries. Look-ups map claim and conflict ids to their slot.
//!
//! Interface v2 (SPEC §8): the store also answers the engine's listing
//! questions — a subject's slots, conflicts by status, slots with unreviewed
//! entries — from indexes kept in the same atomic commit (derived from the
//! committed slot: `SlotIndex::of`), so no API call scans every slot. A store written against v1 inherits the
//! scanning answers of `store_scan`: correct, but slower as the store grows.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::rc::Rc;

use async_trait::async_trait;
use foldhash::HashMap;

use crate::error::{Error, ErrorCode, Result};
use crate::model::{ConflictQuery, DirtyQuery, IndexedConflict, LogEntry, Slot, SlotCommit, SlotRef};
use crate::store_index::MemoryIndex;

#[async_trait(?Send)]
pub trait Store {
    async fn load_slot(&self, slot: &SlotRef) -> Result<Slot>;
    /// `Ok(false)`: the version moved on; nothing was written.
    async fn commit_slot(&self, commit: &SlotCommit) -> Result<bool>;
    /// `load_slot` for a reader that changes nothing: a store that keeps its
    /// slots in memory shares its copy instead of cloning a whole slot (an
    /// entity registry holds every entity of a type) on every look-up.
    async fn read_slot(&self, slot: &SlotRef) -> Result<Rc<Slot>> {
        self.load_slot(slot).await.map(Rc::new)
    }
    /// `commit_slot` taking the commit by value, for the write path: the
    /// committed slot comes back shared (`Ok(Ok)`), or the commit itself when
    /// the version moved on (`Ok(Err)`, nothing written). The in-memory store
    /// keeps the slot it is given rather than a copy of it.
    async fn commit_slot_owned(&self, commit: SlotCommit) -> Result<std::result::Result<Rc<Slot>, SlotCommit>> {
        if self.commit_slot(&commit).await? {
            Ok(Ok(Rc::new(commit.slot)))
        } else {
            Ok(Err(commit))
        }
    }
    /// `load_slot` for a write, which the store may answer from a snapshot it
    /// holds without asking its backend (PostgresStore: one round trip per
    /// write instead of two). `true` with the slot: it may be stale. The
    /// engine then relies on `commit_slot`'s version check, and reloads with
    /// `load_slot` before it answers anything without committing.
    async fn load_slot_to_write(&self, slot: &SlotRef) -> Result<(Slot, bool)> {
        self.load_slot(slot).await.map(|s| (s, false))
    }
    async fn find_claim(&self, claim_id: &str) -> Result<Option<SlotRef>>;
    async fn find_conflict(&self, conflict_id: &str) -> Result<Option<SlotRef>>;
    /// The slot a candidate id (idempotency key) was written to, from the
    /// index the store keeps of `commit.index.writes` (refusing a commit whose
    /// id is indexed to another slot). A store without that index answers
    /// `None`: its ids are then idempotent per slot only.
    async fn find_write(&self, write_id: &str) -> Result<Option<SlotRef>> {
        let _ = write_id;
        Ok(None)
    }
    /// Every slot, or a subject's slots, in key order. A subject's slots come
    /// from an index (the key starts with the subject), not a scan.
    async fn list_slots(&self, subject: Option<&str>) -> Result<Vec<SlotRef>>;
    /// A slot's log, oldest first.
    async fn read_log(&self, slot: &SlotRef) -> Result<Vec<LogEntry>>;
    /// Privacy erasure (SPEC §7): `commit_slot`, and in the same atomic step
    /// the slot's existing log replaced by `log` (the same entries, in order,
    /// scrubbed) before `commit.log` is appended.
    /// A store that cannot rewrite what it keeps refuses, so erasure never
    /// reports success while the text survives somewhere.
    async fn erase_slot(&self, commit: &SlotCommit, log: &[LogEntry]) -> Result<bool> {
        let _ = (commit, log);
        Err(Error::new(ErrorCode::StoreFailed, "this store cannot erase: it has no eraseSlot()"))
    }
    /// v2: conflicts with `query.status`, ordered by (openedAt, id), starting
    /// after `query.after`, at most `query.limit`.
    async fn list_conflicts(&self, query: &ConflictQuery) -> Result<Vec<IndexedConflict>> {
        crate::store_scan::conflicts_by_scan(self, query).await
    }
    /// The key rows (`entities::filed_under`) of entities of `entity_type`
    /// whose key is one of `keys`, any order, from rows the store keeps with
    /// each commit of an entity slot (`commit.index.entity`, replacing the
    /// entity's rows). A store without them answers by loading every entity slot.
    async fn find_entities(&self, entity_type: &str, keys: &[String]) -> Result<Vec<crate::entities::EntityKeyRow>> {
        crate::store_scan::entities_by_scan(self, entity_type, keys).await
    }
    /// v2: slots whose last commit said `index.unreviewed`, by key, after
    /// `query.after`, at most `query.limit`.
    async fn dirty_slots(&self, query: &DirtyQuery) -> Result<Vec<SlotRef>> {
        crate::store_scan::dirty_by_scan(self, query).await
    }
}

#[derive(Default)]
struct Inner {
    /// Shared with readers (`read_slot`); a commit replaces the `Rc`, never mutates through it.
    slots: HashMap<String, (SlotRef, Rc<Slot>)>,
    /// The keys of `slots` in order: a subject's slots are one key range.
    slot_keys: BTreeSet<String>,
    logs: HashMap<String, Vec<LogEntry>>,
    /// Id → slot; one shared `SlotRef` per commit, not a copy per id.
    claim_index: HashMap<String, Rc<SlotRef>>,
    conflict_index: HashMap<String, Rc<SlotRef>>,
    /// Candidate id → the slot it was written to.
    write_index: HashMap<String, Rc<SlotRef>>,
    index: MemoryIndex,
}

/// The embedded default store: everything in process memory.
#[derive(Default)]
pub struct MemoryStore {
    inner: RefCell<Inner>,
}

impl MemoryStore {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn claim_count(&self) -> usize {
        self.inner.borrow().claim_index.len()
    }

    /// `commit_slot`'s compare: the slot is still at the version the commit
    /// read, and no candidate id it records was written to another slot.
    fn accepts(&self, commit: &SlotCommit) -> bool {
        let inner = self.inner.borrow();
        let key = &commit.slot_ref.key;
        inner.slots.get(key).map(|(_, s)| s.version).unwrap_or(0) == commit.expected_version
            && !commit.index.writes.iter().any(|id| inner.write_index.get(id).is_some_and(|r| &r.key != key))
    }

    /// `commit_slot`'s swap, once the compare passed (nothing awaits in between).
    fn apply_commit(&self, commit: &SlotCommit, slot: Rc<Slot>, log: Vec<LogEntry>) {
        let mut inner = self.inner.borrow_mut();
        let here = Rc::new(commit.slot_ref.clone());
        for id in &commit.changed_claims {
            // A changed claim stays in its slot: most ids are indexed already.
            if inner.claim_index.get(id).is_none_or(|r| r.key != here.key) {
                inner.claim_index.insert(id.clone(), here.clone());
            }
        }
        for id in &commit.changed_conflicts {
            if inner.conflict_index.get(id).is_none_or(|r| r.key != here.key) {
                inner.conflict_index.insert(id.clone(), here.clone());
            }
        }
        for id in &commit.index.dropped_writes {
            if inner.write_index.get(id).is_some_and(|r| r.key == here.key) {
                inner.write_index.remove(id);
            }
        }
        for id in &commit.index.writes {
            inner.write_index.insert(id.clone(), here.clone());
        }
        let key = &commit.slot_ref.key;
        match inner.logs.get_mut(key) {
            Some(kept) => kept.extend(log),
            None => {
                inner.logs.insert(key.clone(), log);
            }
        }
        // Most commits replace a slot already held: swap its snapshot in place.
        let before = match inner.slots.get_mut(key) {
            Some((_, held)) => Some(std::mem::replace(held, slot.clone())),
            None => {
                inner.slot_keys.insert(key.clone());
                inner.slots.insert(key.clone(), (commit.slot_ref.clone(), slot.clone())).map(|(_, b)| b)
            }
        };
        // Derived from the slot itself: a commit built by hand (JS) may carry no index.
        inner.index.apply_slot(&commit.slot_ref, &slot, before.as_deref());
        if let Some(entity) = crate::model::EntityIndex::of(&commit.slot_ref, &slot) {
            inner.index.apply_entity(entity);
        }
    }
}

#[async_trait(?Send)]
impl Store for MemoryStore {
    async fn load_slot(&self, slot: &SlotRef) -> Result<Slot> {
        Ok(self.inner.borrow().slots.get(&slot.key).map(|(_, s)| Slot::clone(s)).unwrap_or_default())
    }

    async fn read_slot(&self, slot: &SlotRef) -> Result<Rc<Slot>> {
        Ok(self.inner.borrow().slots.get(&slot.key).map(|(_, s)| s.clone()).unwrap_or_default())
    }

    async fn commit_slot(&self, commit: &SlotCommit) -> Result<bool> {
        if !self.accepts(commit) {
            return Ok(false);
        }
        self.apply_commit(commit, Rc::new(commit.slot.clone()), commit.log.clone());
        Ok(true)
    }

    async fn commit_slot_owned(&self, mut commit: SlotCommit) -> Result<std::result::Result<Rc<Slot>, SlotCommit>> {
        if !self.accepts(&commit) {
            return Ok(Err(commit));
        }
        let log = std::mem::take(&mut commit.log);
        let slot = Rc::new(std::mem::take(&mut commit.slot));
        self.apply_commit(&commit, slot.clone(), log);
        Ok(Ok(slot))
    }

    async fn find_claim(&self, claim_id: &str) -> Result<Option<SlotRef>> {
        Ok(self.inner.borrow().claim_index.get(claim_id).map(|r| SlotRef::clone(r)))
    }

    async fn find_conflict(&self, conflict_id: &str) -> Result<Option<SlotRef>> {
        Ok(self.inner.borrow().conflict_index.get(conflict_id).map(|r| SlotRef::clone(r)))
    }

    async fn find_write(&self, write_id: &str) -> Result<Option<SlotRef>> {
        Ok(self.inner.borrow().write_index.get(write_id).map(|r| SlotRef::clone(r)))
    }

    async fn list_slots(&self, subject: Option<&str>) -> Result<Vec<SlotRef>> {
        let inner = self.inner.borrow();
        let Some(subject) = subject else {
            return Ok(inner.slot_keys.iter().filter_map(|k| inner.slots.get(k)).map(|(r, _)| r.clone()).collect());
        };
        // Keys are `subject \u{1f} predicate`: a subject's slots are one key range.
        let prefix = SlotRef::new(subject, "").key;
        Ok(inner
            .slot_keys
            .range(prefix.clone()..)
            .take_while(|k| k.starts_with(&prefix))
            .filter_map(|k| inner.slots.get(k))
            .filter(|(r, _)| r.subject == subject)
            .map(|(r, _)| r.clone())
            .collect())
    }

    async fn list_conflicts(&self, query: &ConflictQuery) -> Result<Vec<IndexedConflict>> {
        Ok(self.inner.borrow().index.conflicts(query))
    }

    async fn dirty_slots(&self, query: &DirtyQuery) -> Result<Vec<SlotRef>> {
        Ok(self.inner.borrow().index.dirty(query))
    }

    async fn find_entities(&self, entity_type: &str, keys: &[String]) -> Result<Vec<crate::entities::EntityKeyRow>> {
        Ok(self.inner.borrow().index.entities(entity_type, keys))
    }

    async fn read_log(&self, slot: &SlotRef) -> Result<Vec<LogEntry>> {
        Ok(self.inner.borrow().logs.get(&slot.key).cloned().unwrap_or_default())
    }

    async fn erase_slot(&self, commit: &SlotCommit, log: &[LogEntry]) -> Result<bool> {
        if !self.commit_slot(commit).await? {
            return Ok(false);
        }
        let mut inner = self.inner.borrow_mut();
        let mut all = log.to_vec();
        all.extend(commit.log.iter().cloned());
        inner.logs.insert(commit.slot_ref.key.clone(), all);
        Ok(true)
    }
}
