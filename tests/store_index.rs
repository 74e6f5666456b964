#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used)]
//! Store interface v2 (SPEC §8): conflicts, review and recall answer from
//! indexes, loading only the slots in the answer; a v1 store still works by scanning.
mod common;

use std::cell::Cell;
use std::rc::Rc;

use async_trait::async_trait;
use common::*;
use credence::engine::RecallOptions;
use credence::hooks::{Judge, PairRef, PairVerdict};
use credence::model::{Claim, ConflictQuery, ConflictStatus, DirtyQuery, LogEntry, Slot, SlotCommit, SlotRef};
use credence::store::{MemoryStore, Store};
use credence::{EngineConfig, Result};

/// Counts what the engine asks of the store.
struct Counting {
    inner: MemoryStore,
    loads: Cell<u32>,
    full_listings: Cell<u32>,
    v1: bool,
}

impl Counting {
    fn new(v1: bool) -> Rc<Self> {
        Rc::new(Counting { inner: MemoryStore::new(), loads: Cell::new(0), full_listings: Cell::new(0), v1 })
    }
    fn reset(&self) {
        self.loads.set(0);
        self.full_listings.set(0);
    }
}

#[async_trait(?Send)]
impl Store for Counting {
    async fn load_slot(&self, slot: &SlotRef) -> Result<Slot> {
        self.loads.set(self.loads.get() + 1);
        self.inner.load_slot(slot).await
    }
    async fn commit_slot(&self, commit: &SlotCommit) -> Result<bool> {
        self.inner.commit_slot(commit).await
    }
    async fn find_claim(&self, id: &str) -> Result<Option<SlotRef>> {
        self.inner.find_claim(id).await
    }
    async fn find_conflict(&self, id: &str) -> Result<Option<SlotRef>> {
        self.inner.find_conflict(id).await
    }
    async fn find_write(&self, id: &str) -> Result<Option<SlotRef>> {
        self.inner.find_write(id).await
    }
    async fn list_slots(&self, subject: Option<&str>) -> Result<Vec<SlotRef>> {
        if subject.is_none() {
            self.full_listings.set(self.full_listings.get() + 1);
        }
        self.inner.list_slots(subject).await
    }
    async fn read_log(&self, slot: &SlotRef) -> Result<Vec<LogEntry>> {
        self.inner.read_log(slot).await
    }
    async fn list_conflicts(&self, query: &ConflictQuery) -> Result<Vec<credence::model::IndexedConflict>> {
        if self.v1 {
            return credence::store_scan::conflicts_by_scan(self, query).await;
        }
        self.inner.list_conflicts(query).await
    }
    async fn dirty_slots(&self, query: &DirtyQuery) -> Result<Vec<SlotRef>> {
        if self.v1 {
            return credence::store_scan::dirty_by_scan(self, query).await;
        }
        self.inner.dirty_slots(query).await
    }
}

struct NoPairs;

#[async_trait(?Send)]
impl Judge for NoPairs {
    async fn find_pairs(&self, _: &[Claim]) -> Result<Vec<PairRef>> {
        Ok(Vec::new())
    }
    async fn confirm_pair(&self, _: &Claim, _: &Claim) -> Result<PairVerdict> {
        Ok(PairVerdict { same_thing: false, newer_invalidates_earlier: false, reason: String::new() })
    }
}

fn subject_cand(subject: &str, predicate: &str, object: &str) -> credence::model::Candidate {
    let mut c = cand(predicate, object);
    c.subject = Some(subject.into());
    c
}

/// 200 subjects × 2 slots, and `asks` ask_user conflicts spread over the first subjects.
fn filled(store: Rc<Counting>, asks: usize) -> Harness {
    let h = harness_with(EngineConfig::default(), None, None, Rc::new(FlakyStore::new(store)));
    for i in 0..200 {
        h.write(subject_cand(&format!("s{i:03}"), "located_in", "Paris"));
        h.write(subject_cand(&format!("s{i:03}"), "likes", "tea"));
    }
    for i in 0..asks {
        let subject = format!("s{:03}", i % 200);
        h.write_with(subject_cand(&subject, "located_in", &format!("City {i}")), with_strategy("ask_user")).unwrap();
    }
    h
}

#[test]
fn conflicts_load_only_the_slots_that_hold_them() {
    let store = Counting::new(false);
    let h = filled(store.clone(), 3);
    store.reset();
    let open = run(h.engine.conflicts(Some(ConflictStatus::Open))).unwrap();
    assert_eq!(open.len(), 3);
    assert!(open.windows(2).all(|w| w[0].opened_at <= w[1].opened_at), "oldest first");
    assert_eq!(store.loads.get(), 3, "one load per slot holding a listed conflict");
    assert_eq!(store.full_listings.get(), 0);
}

#[test]
fn conflicts_page_through_more_than_one_store_page_open_first() {
    let store = Counting::new(false);
    let h = filled(store.clone(), 620);
    let first = run(h.engine.conflicts(None)).unwrap();
    let c = &first[0];
    run(h.engine.settle(&c.id, "keep_both", Some("ana"))).unwrap();
    let all = run(h.engine.conflicts(None)).unwrap();
    assert_eq!(all.len(), first.len());
    assert!(all.len() > 600, "more than one page: {}", all.len());
    assert_eq!(all.last().unwrap().id, c.id, "the settled one comes after every open one");
    let open = run(h.engine.conflicts(Some(ConflictStatus::Open))).unwrap();
    assert_eq!(open.len(), all.len() - 1);
    let mut ids: Vec<&String> = open.iter().map(|c| &c.id).collect();
    ids.dedup();
    assert_eq!(ids.len(), open.len(), "no conflict listed twice across pages");
}

#[test]
fn review_with_nothing_new_loads_no_slot() {
    let store = Counting::new(false);
    let h = filled(store.clone(), 0);
    let first = run(h.engine.review(Some(&NoPairs), 10_000)).unwrap();
    assert_eq!(first.slots_left, 0);
    store.reset();
    let again = run(h.engine.review(Some(&NoPairs), 10_000)).unwrap();
    assert_eq!(again.calls, 0);
    assert_eq!(store.loads.get(), 0, "no slot has unreviewed entries");
    h.write(subject_cand("s007", "likes", "coffee"));
    store.reset();
    let third = run(h.engine.review(Some(&NoPairs), 10_000)).unwrap();
    assert_eq!(third.calls, 1, "the one slot with a new entry is judged");
    assert_eq!(store.loads.get(), 2, "loaded to judge and to mark reviewed");
}

#[test]
fn entity_slots_are_never_listed_for_review() {
    let store = Counting::new(false);
    let h = filled(store.clone(), 0);
    for (i, org) in ["Acme", "Acme Bank", "Globex", "Glebex"].iter().enumerate() {
        h.write(subject_cand(&format!("p{i}"), "works_at", org));
    }
    let entities = run(store.inner.list_slots(Some(credence::model::ENTITY_SUBJECT))).unwrap();
    assert_eq!(entities.len(), 4, "the writes recorded entity names");
    let mut names = 0;
    for r in &entities {
        names += run(store.inner.load_slot(r)).unwrap().claims.len();
    }
    assert!(names > 0, "near matches asked same_entity questions, whose names are claims");
    let dirty = run(store.inner.dirty_slots(&DirtyQuery { after: None, limit: 10_000 })).unwrap();
    assert!(dirty.iter().all(|r| !credence::engine::is_reserved_subject(&r.subject)), "{dirty:?}");
    assert_eq!(dirty.len(), 4 + 400, "every written slot but the entities'");
    // The open same_entity questions are judged (NoPairs says "different"), then a pass with
    // nothing new loads nothing, the registry included.
    let first = run(h.engine.review(Some(&NoPairs), 10_000)).unwrap();
    assert!(first.conflicts.iter().any(|c| c.kind == credence::model::ConflictKind::SameEntity), "{:?}", first.conflicts);
    store.reset();
    let again = run(h.engine.review(Some(&NoPairs), 10_000)).unwrap();
    assert_eq!((again.calls, store.loads.get()), (0, 0));
}

#[test]
fn recall_of_a_subject_loads_only_its_slots() {
    let store = Counting::new(false);
    let h = filled(store.clone(), 0);
    store.reset();
    let claims = run(h.engine.recall(Some("s042"), &RecallOptions::default())).unwrap();
    let mut objects: Vec<String> = claims.into_iter().map(|c| c.object).collect();
    objects.sort();
    assert_eq!(objects, vec!["Paris".to_string(), "tea".to_string()]);
    assert_eq!(store.loads.get(), 2);
    assert_eq!(store.full_listings.get(), 0);
}

#[test]
fn a_v1_store_answers_the_same_by_scanning() {
    let (v1, v2) = (Counting::new(true), Counting::new(false));
    let (h1, h2) = (filled(v1.clone(), 40), filled(v2.clone(), 40));
    let listed = |h: &Harness| run(h.engine.conflicts(None)).unwrap().into_iter().map(|c| (c.id, c.status)).collect::<Vec<_>>();
    assert_eq!(listed(&h1), listed(&h2));
    v1.reset();
    run(h1.engine.conflicts(None)).unwrap();
    assert!(v1.full_listings.get() > 0, "the v1 adapter scans");
    let r1 = run(h1.engine.review(Some(&NoPairs), 10_000)).unwrap();
    let r2 = run(h2.engine.review(Some(&NoPairs), 10_000)).unwrap();
    assert_eq!((r1.calls, r1.slots_left), (r2.calls, r2.slots_left));
}

/// The write path's by-value commit (no copy of the slot in MemoryStore)
/// keeps the compare-and-swap of `commit_slot`: a stale commit comes back
/// untouched and writes nothing; a fresh one is what readers then share.
#[test]
fn commit_by_value_keeps_compare_and_swap() {
    let store = MemoryStore::new();
    let slot_ref = SlotRef::new("u1", "likes");
    let commit = |expected_version: u64, log_text: &str| SlotCommit {
        slot_ref: slot_ref.clone(),
        expected_version,
        slot: Slot { version: expected_version + 1, ..Default::default() },
        changed_claims: Vec::new(),
        changed_conflicts: Vec::new(),
        log: vec![LogEntry {
            version: expected_version + 1,
            at: credence::time::Timestamp(0),
            rule: log_text.into(),
            claim_ids: Vec::new(),
            confidence_before: None,
            confidence_after: None,
            conflict_id: None,
            cause: Default::default(),
            note: String::new(),
            calibration_version: None,
        }],
        index: Default::default(),
    };
    let first = run(store.commit_slot_owned(commit(0, "first"))).unwrap();
    let shared = first.expect("version 0 matches an empty slot");
    assert_eq!(shared.version, 1);

    let stale = run(store.commit_slot_owned(commit(0, "stale"))).unwrap();
    let back = stale.expect_err("the slot is at version 1 now");
    assert_eq!((back.expected_version, back.log[0].rule.as_str()), (0, "stale"));

    assert_eq!(run(store.read_slot(&slot_ref)).unwrap().version, 1);
    assert!(Rc::ptr_eq(&shared, &run(store.read_slot(&slot_ref)).unwrap()), "readers share the committed slot");
    let log = run(store.read_log(&slot_ref)).unwrap();
    assert_eq!(log.iter().map(|e| e.rule.as_str()).collect::<Vec<_>>(), ["first"]);
}
