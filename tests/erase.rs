#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used)]
//! Privacy erasure (SPEC §7): the text leaves the slot, the conflicts that
//! quote it and the log; a tombstone remains and `why` shows it.
mod common;

use std::rc::Rc;

use common::*;
use credence::engine::{EraseOptions, EraseTarget};
use credence::model::{Provenance, SlotRef, Status};
use credence::store::{MemoryStore, Store};
use credence::{EngineConfig, ErrorCode};

const SECRET: &str = "12 Quiet Lane";

fn dump(store: &MemoryStore, subject: &str) -> String {
    let mut out = String::new();
    for r in run(store.list_slots(Some(subject))).unwrap() {
        out += &serde_json::to_string(&run(store.load_slot(&r)).unwrap()).unwrap();
        out += &serde_json::to_string(&run(store.read_log(&r)).unwrap()).unwrap();
    }
    out
}

fn opts() -> EraseOptions {
    EraseOptions { reason: format!("asked to forget {SECRET}"), by: "dpo".into() }
}

#[test]
fn erasing_a_predicate_removes_its_text_everywhere_and_leaves_tombstones() {
    let mem = Rc::new(MemoryStore::new());
    let h = harness_with(EngineConfig::default(), None, None, Rc::new(FlakyStore::new(mem.clone())));
    let mut c = cand("home_address", SECRET);
    c.provenance = Some(Provenance { source_id: "crm-export-7".into(), ..Default::default() });
    let first = h.write(c).claim;
    h.write(cand("home_address", "7 Loud Street"));
    h.write(cand("likes", "tea"));
    assert!(dump(&mem, "user").contains(SECRET));

    let target = EraseTarget { subject: "user".into(), predicate: Some("home_address".into()), claim_id: None };
    let done = run(h.engine.erase(&target, &opts())).unwrap();
    assert_eq!(done.tombstones.len(), 2);
    assert_eq!(done.tombstones[0].reason, "asked to forget [erased]", "the reason is scrubbed too");
    let bytes = dump(&mem, "user");
    for gone in [SECRET, "7 Loud Street", "crm-export-7"] {
        assert!(!bytes.contains(gone), "{gone} survived: {bytes}");
    }
    assert!(bytes.contains("tea"), "other slots keep their text");
    assert_eq!(h.current("home_address"), vec![], "recall no longer sees it");
    assert!(h.all("home_address").is_empty());
    let why = run(h.engine.why(&first.id)).unwrap();
    let t = why.tombstone.unwrap();
    assert_eq!((t.claim_id.as_str(), t.by.as_str(), t.predicate.as_str()), (first.id.as_str(), "dpo", "home_address"));
    assert_eq!(why.claim.object, "");
    assert_eq!(why.claim.status, Status::Superseded, "history keeps its shape");
    assert!(why.log.iter().any(|e| e.rule == "erase"));
    // Erasing again changes nothing and reports nothing new.
    let again = run(h.engine.erase(&target, &opts())).unwrap();
    assert!(again.tombstones.is_empty());
    assert_eq!(dump(&mem, "user"), bytes);
    // A later write to the slot starts afresh.
    h.write(cand("home_address", "3 New Road"));
    assert_eq!(h.current("home_address"), vec![("3 New Road".into(), "active".into())]);
}

#[test]
fn erasing_one_claim_scrubs_the_dependent_flag_that_quotes_it_in_another_slot() {
    let mem = Rc::new(MemoryStore::new());
    let h = harness_with(EngineConfig::default(), None, None, Rc::new(FlakyStore::new(mem.clone())));
    h.write(cand("works_at", "Hooli Secret Lab"));
    h.write(cand("work_location", "Building 9"));
    let moved = h.write(cand("works_at", "Globex"));
    let flag = moved.conflicts[0].clone();
    assert!(flag.reason.contains("Hooli Secret Lab"));
    let old_job = moved.affected[0].id.clone();
    let target = EraseTarget { subject: "user".into(), predicate: None, claim_id: Some(old_job.clone()) };
    let done = run(h.engine.erase(&target, &EraseOptions { reason: "gdpr".into(), by: "dpo".into() })).unwrap();
    assert_eq!(done.tombstones.len(), 1);
    assert!(done.slots >= 2, "the flag's slot was rewritten too");
    let bytes = dump(&mem, "user");
    assert!(!bytes.contains("Hooli Secret Lab"), "{bytes}");
    assert!(bytes.contains("Globex") && bytes.contains("Building 9"));
    let conflicts = run(h.engine.conflicts(None)).unwrap();
    assert!(conflicts[0].reason.contains("[erased]"));
}

#[test]
fn refusals_name_the_field_and_write_nothing() {
    let mem = Rc::new(MemoryStore::new());
    let h = harness_with(EngineConfig::default(), None, None, Rc::new(FlakyStore::new(mem.clone())));
    h.write(cand("home_address", SECRET));
    let before = dump(&mem, "user");
    let all = EraseTarget { subject: "user".into(), ..Default::default() };
    for (target, options, field) in [
        (all.clone(), EraseOptions { reason: " ".into(), by: "dpo".into() }, "reason"),
        (all.clone(), EraseOptions { reason: "x".into(), by: "".into() }, "by"),
        (EraseTarget { subject: " ".into(), ..Default::default() }, opts(), "subject"),
    ] {
        let e = run(h.engine.erase(&target, &options)).unwrap_err();
        assert_eq!((e.code, e.field.as_deref()), (ErrorCode::InvalidInput, Some(field)));
    }
    let missing = EraseTarget { subject: "user".into(), predicate: None, claim_id: Some("cl_nope".into()) };
    assert_eq!(run(h.engine.erase(&missing, &opts())).unwrap_err().code, ErrorCode::ClaimNotFound);
    assert_eq!(dump(&mem, "user"), before);
}

/// A store from before erasure existed: no `erase_slot`.
struct OldStore(MemoryStore);

#[async_trait::async_trait(?Send)]
impl Store for OldStore {
    async fn load_slot(&self, r: &SlotRef) -> credence::Result<credence::model::Slot> { self.0.load_slot(r).await }
    async fn commit_slot(&self, c: &credence::model::SlotCommit) -> credence::Result<bool> { self.0.commit_slot(c).await }
    async fn find_claim(&self, id: &str) -> credence::Result<Option<SlotRef>> { self.0.find_claim(id).await }
    async fn find_conflict(&self, id: &str) -> credence::Result<Option<SlotRef>> { self.0.find_conflict(id).await }
    async fn list_slots(&self, s: Option<&str>) -> credence::Result<Vec<SlotRef>> { self.0.list_slots(s).await }
    async fn read_log(&self, r: &SlotRef) -> credence::Result<Vec<credence::model::LogEntry>> { self.0.read_log(r).await }
}

#[test]
fn a_store_that_cannot_rewrite_its_log_refuses_instead_of_pretending() {
    let h = harness_with(EngineConfig::default(), None, None, Rc::new(FlakyStore::new(Rc::new(OldStore(MemoryStore::new())))));
    h.write(cand("home_address", SECRET));
    let e = run(h.engine.erase(&EraseTarget { subject: "user".into(), ..Default::default() }, &opts())).unwrap_err();
    assert_eq!(e.code, ErrorCode::StoreFailed);
    assert_eq!(h.current("home_address"), vec![(SECRET.into(), "active".into())]);
}

/// Erasing a working-memory slot whose replaced entries moved to archive
/// chunks rewrites each chunk with an ordinary commit (a chunk's log names
/// no text) and the slot itself once with `erase_slot`: a store whose
/// `erase_slot` rewrites a whole log (OkfStore's log.md) was called once per
/// chunk, 100,000 archived entries in over 20 minutes (issue #43).
#[test]
fn an_archived_history_is_erased_with_one_log_rewrite() {
    let mem = Rc::new(MemoryStore::new());
    let flaky = Rc::new(FlakyStore::new(mem.clone()));
    let h = harness_with(EngineConfig::default(), None, None, flaky.clone());
    for i in 0..400 {
        h.write_with(cand("context.current.task", &format!("{SECRET} task {i}")), with_strategy("replace")).unwrap();
    }
    let chunks = run(mem.list_slots(None)).unwrap().len();
    assert!(chunks > 3, "the replaced entries reached archive chunks ({chunks} slots)");
    let target = EraseTarget { subject: "user".into(), predicate: Some("context.current.task".into()), claim_id: None };
    let done = run(h.engine.erase(&target, &EraseOptions { reason: "asked to forget the tasks".into(), by: "dpo".into() })).unwrap();
    assert_eq!(done.tombstones.len(), 400);
    assert!(done.slots > 3, "every chunk was rewritten ({} slots)", done.slots);
    assert_eq!(flaky.erase_slots.get(), 1, "one erase_slot, for the slot itself");
    let mut bytes = dump(&mem, "user");
    for r in run(mem.list_slots(None)).unwrap() {
        bytes += &serde_json::to_string(&run(mem.load_slot(&r)).unwrap()).unwrap();
        bytes += &serde_json::to_string(&run(mem.read_log(&r)).unwrap()).unwrap();
    }
    let at = bytes.find(SECRET).map(|i| &bytes[i.saturating_sub(400)..(i + 100).min(bytes.len())]);
    assert!(at.is_none(), "no text survives in the slot, the chunks or their logs: {at:?}");
    assert!(h.all("context.current.task").is_empty());
}
