#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used)]
//! `importBlob` into an occupied slot (SPEC §5, issue #43): each active entry
//! is a write like any other, reconciled by the slot's strategy and §3 —
//! never a second current value in a single-valued slot, never a duplicate
//! in a multi-valued one — and a blob this memory exported is still a no-op.
mod common;

use common::*;
use credence::model::{ClaimKind, Status};
use credence::EngineConfig;
use serde_json::json;

const NOW: &str = "2026-06-01T00:00:00.000Z";

fn epoch(iso: &str) -> f64 {
    credence::time::Timestamp::parse(iso, "t").unwrap().epoch_seconds()
}

fn blob(key: &str, entries: &[(&str, f64, &str)]) -> serde_json::Value {
    let entries: Vec<_> = entries.iter().map(|(c, conf, at)| json!({ "content": c, "confidence": conf, "timestamp": epoch(at), "status": "active" })).collect();
    json!({ "key": key, "content": "", "confidence": 1.0, "timestamp": 0, "schema_version": 2, "entries": entries })
}

fn at_now() -> Harness {
    let h = harness(EngineConfig::default());
    h.clock.0.set(credence::time::Timestamp::parse(NOW, "now").unwrap().millis());
    h
}

fn no_violations(h: &Harness) {
    let v = run(h.engine.check_invariants()).unwrap();
    assert!(v.is_empty(), "{v:?}");
}

/// A caller's write, observed at `at`.
fn seen(predicate: &str, object: &str, at: &str) -> credence::model::Candidate {
    observed(from(cand(predicate, object), "caller", 0.8), at)
}

fn current(h: &Harness, predicate: &str) -> Vec<String> {
    h.all(predicate).into_iter().filter(|c| c.status.is_current()).map(|c| c.object).collect()
}

fn observed_rome(h: &Harness) {
    h.write(seen("located_in", "Rome", "2026-05-01T00:00:00.000Z"));
}

#[test]
fn a_newer_value_imported_into_a_single_valued_slot_supersedes_it() {
    let h = at_now();
    observed_rome(&h);
    let out = run(h.engine.import_blob(&blob("located_in", &[("Paris", 1.0, "2026-05-20T00:00:00.000Z")]), None)).unwrap();
    assert_eq!(current(&h, "located_in"), vec!["Paris"], "one current value, not two");
    assert_eq!(out[0].action.as_str(), "superseded");
    let rome = h.all("located_in").into_iter().find(|c| c.object == "Rome").unwrap();
    assert_eq!(rome.status, Status::Superseded);
    no_violations(&h);
}

#[test]
fn an_older_value_imported_is_recorded_as_history() {
    let h = at_now();
    observed_rome(&h);
    let out = run(h.engine.import_blob(&blob("located_in", &[("Paris", 1.0, "2025-01-01T00:00:00.000Z")]), None)).unwrap();
    assert_eq!(current(&h, "located_in"), vec!["Rome"]);
    assert_eq!(out[0].action.as_str(), "historical");
    no_violations(&h);
}

#[test]
fn a_weak_imported_value_is_outweighed_or_disputed_never_current_beside_the_held_one() {
    let h = at_now();
    h.write(observed(from(cand("located_in", "Rome"), "crm", 0.95), "2026-05-01T00:00:00.000Z"));
    let out = run(h.engine.import_blob(&blob("located_in", &[("Paris", 0.2, "2026-05-20T00:00:00.000Z")]), None)).unwrap();
    assert_eq!(out[0].action.as_str(), "outweighed");
    assert_eq!(current(&h, "located_in"), vec!["Rome"]);
    no_violations(&h);
}

#[test]
fn a_held_value_imported_again_is_confirmed_not_copied() {
    let h = at_now();
    h.write(seen("likes", "coffee", "2026-05-01T00:00:00.000Z"));
    let out = run(h.engine.import_blob(&blob("likes", &[("coffee", 0.6, "2026-05-10T00:00:00.000Z"), ("tea", 0.9, "2026-05-11T00:00:00.000Z")]), None)).unwrap();
    let coffees: Vec<_> = h.all("likes").into_iter().filter(|c| c.object == "coffee").collect();
    assert_eq!(coffees.len(), 1, "one coffee claim: {coffees:?}");
    assert_eq!(coffees[0].provenance.len(), 2, "the import corroborates it");
    assert_eq!(out.iter().map(|o| o.action.as_str()).collect::<Vec<_>>(), ["confirmed", "added"]);
    let mut now = current(&h, "likes");
    now.sort();
    assert_eq!(now, ["coffee", "tea"]);
    no_violations(&h);
}

#[test]
fn a_scheduled_value_and_the_same_value_imported_do_not_overlap() {
    let h = at_now();
    let mut rome = cand("located_in", "Rome");
    rome.valid_from = Some("2026-07-01".into());
    h.write(cand("located_in", "Oslo"));
    h.write(rome);
    run(h.engine.import_blob(&blob("located_in", &[("Rome", 1.0, NOW)]), None)).unwrap();
    // Observed before Oslo began: history of its own period, never a
    // second Rome over the scheduled one (the checker's duplicate_value rule).
    let romes: Vec<_> = h.all("located_in").into_iter().filter(|c| c.object == "Rome" && c.status.is_current()).collect();
    assert_eq!(romes.len(), 1, "{romes:?}");
    no_violations(&h);
    // Imported once the scheduled change began: it corroborates that claim.
    h.clock.advance_days(40.0);
    let out = run(h.engine.import_blob(&blob("located_in", &[("Rome", 0.9, "2026-07-10T00:00:00.000Z")]), None)).unwrap();
    assert_eq!(out[0].action.as_str(), "confirmed");
    no_violations(&h);
}

#[test]
fn importing_the_same_blob_twice_changes_memory_once() {
    let h = at_now();
    observed_rome(&h);
    let b = blob("located_in", &[("Paris", 1.0, "2026-05-20T00:00:00.000Z"), ("Rome", 0.9, "2026-05-02T00:00:00.000Z")]);
    let first = run(h.engine.import_blob(&b, None)).unwrap();
    let before = h.all("located_in");
    let again = run(h.engine.import_blob(&b, None)).unwrap();
    assert_eq!(h.all("located_in"), before, "nothing written the second time");
    assert!(again.iter().all(|o| o.replayed), "{again:?}");
    assert_eq!(first.iter().map(|o| &o.claim.id).collect::<Vec<_>>(), again.iter().map(|o| &o.claim.id).collect::<Vec<_>>());
    no_violations(&h);
}

#[test]
fn a_blob_this_memory_exported_is_a_no_op_in_a_valued_slot() {
    let h = at_now();
    observed_rome(&h);
    h.clock.advance_days(2.0);
    h.write(cand("located_in", "Paris"));
    let own = serde_json::to_value(run(h.engine.blob("located_in", None)).unwrap()).unwrap();
    let before = h.all("located_in");
    let out = run(h.engine.import_blob(&own, None)).unwrap();
    assert_eq!(h.all("located_in"), before);
    assert!(out.iter().all(|o| o.replayed && o.action.as_str() == "confirmed"));
}

#[test]
fn history_entries_of_a_blob_are_not_written_into_an_occupied_slot() {
    let h = at_now();
    observed_rome(&h);
    let mut b = blob("located_in", &[("Lima", 1.0, "2026-01-01T00:00:00.000Z")]);
    b["entries"][0]["status"] = json!("superseded");
    let out = run(h.engine.import_blob(&b, None)).unwrap();
    assert_eq!(out[0].action.as_str(), "skipped");
    assert_eq!(h.all("located_in").len(), 1);
}

#[test]
fn into_an_empty_slot_a_blob_loads_as_it_is_as_import_entries() {
    let h = at_now();
    let out = run(h.engine.import_blob(&blob("notes", &[("a", 0.7, "2026-01-01T00:00:00.000Z"), ("b", 0.7, "2026-01-02T00:00:00.000Z")]), None)).unwrap();
    assert_eq!(out.iter().map(|o| o.action.as_str()).collect::<Vec<_>>(), ["added", "appended"]);
    assert!(h.all("notes").iter().all(|c| c.kind == ClaimKind::Import && c.status == Status::Active));
    no_violations(&h);
}

#[test]
fn an_import_into_a_working_memory_slot_replaces_it() {
    let h = at_now();
    h.write(cand("context.current.task", "write the report"));
    let out = run(h.engine.import_blob(&blob("context.current.task", &[("review the PR", 1.0, NOW)]), None)).unwrap();
    assert_eq!(out[0].action.as_str(), "replaced");
    assert_eq!(current(&h, "context.current.task"), vec!["review the PR"]);
}
