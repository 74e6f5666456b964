#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used)]
//! The eight strategies, their precedence, and the Memoir-compatible blob (SPEC §5).
mod common;

use std::collections::HashMap;
use std::rc::Rc;

use common::*;
use credence::model::{Action, Status, StrategySource};
use credence::predicates::{MemoryType, PredicateSpec};
use credence::store::MemoryStore;
use credence::{EngineConfig, Error, ErrorCode, RecallOptions, WriteOptions};

const ALL: [&str; 8] = ["reconcile", "append", "replace", "confidence_gated", "llm_merge", "merge_on_read", "reject", "ask_user"];

fn merging() -> Harness {
    harness_with(EngineConfig::default(), Some(joining_merge()), None, Rc::new(FlakyStore::new(Rc::new(MemoryStore::new()))))
}

#[test]
fn the_first_write_to_an_empty_slot_is_always_added() {
    for s in ALL {
        let h = merging();
        let o = h.write_with(cand("notes.x", "first"), with_strategy(s)).unwrap();
        assert_eq!(o.action, Action::Added, "{s}");
        assert_eq!(o.strategy, s);
        assert_eq!(o.strategy_source, StrategySource::Call);
    }
}

#[test]
fn every_strategy_on_an_occupied_slot() {
    let expect = [
        ("reconcile", Action::Superseded, 1),
        ("append", Action::Appended, 2),
        ("replace", Action::Replaced, 1),
        ("confidence_gated", Action::Replaced, 1),
        ("llm_merge", Action::Merged, 1),
        ("merge_on_read", Action::Appended, 2),
        ("reject", Action::Rejected, 1),
        ("ask_user", Action::Added, 2),
    ];
    for (s, action, active) in expect {
        let h = merging();
        h.write(cand("notes.x", "old"));
        let o = h.write_with(cand("notes.x", "new"), with_strategy(s)).unwrap();
        assert_eq!(o.action, action, "{s}");
        assert_eq!(h.current("notes.x").len(), active, "{s}: {:?}", h.current("notes.x"));
    }
}

#[test]
fn append_keeps_the_newest_entries_under_the_cap() {
    let h = harness(EngineConfig { max_entries: Some(3), ..Default::default() });
    for i in 1..=5 {
        let o = h.write_with(cand("experience.log", &format!("e{i}")), with_strategy("append")).unwrap();
        // `affected`: the entry the cap moved out of the active set, not every entry that stays.
        let left: Vec<&str> = o.affected.iter().map(|c| c.object.as_str()).collect();
        assert_eq!(left, if i > 3 { vec![format!("e{}", i - 3)] } else { vec![] }.iter().map(String::as_str).collect::<Vec<_>>(), "write e{i}");
    }
    h.write_with(cand("experience.log", "e6"), with_strategy("append")).unwrap();
    let now: Vec<String> = h.current("experience.log").into_iter().map(|(o, _)| o).collect();
    assert_eq!(now, vec!["e4", "e5", "e6"]);
    assert_eq!(h.all("experience.log").len(), 6, "capped entries leave the active set, not memory");
    let uncapped = harness(EngineConfig { max_entries: Some(0), ..Default::default() });
    for i in 0..60 {
        uncapped.write(cand("experience.log", &format!("e{i}")));
    }
    assert_eq!(uncapped.current("experience.log").len(), 60);
}

/// SPEC §4: confidence is belief at the time asked. A free-text entry of a
/// time-varying predicate is believed again at read, so a log nobody writes
/// still ages, and a write does not carry every other entry to now (that
/// made an uncapped log O(entries) per write, issue #43).
#[test]
fn a_log_entry_is_believed_at_the_time_asked() {
    let h = harness(EngineConfig { max_entries: Some(0), ..Default::default() });
    h.write_with(cand("experience.log", "first"), with_strategy("append")).unwrap();
    let conf = |h: &Harness| h.all("experience.log").iter().find(|c| c.object == "first").unwrap().confidence;
    let fresh = conf(&h);
    h.clock.advance_days(60.0);
    let aged = conf(&h);
    assert!(aged < fresh - 0.01, "an unwritten log ages at read: {fresh} -> {aged}");
    let o = h.write_with(cand("experience.log", "second"), with_strategy("append")).unwrap();
    assert!(o.affected.is_empty());
    let after_write = conf(&h);
    assert!((after_write - aged).abs() < 0.01, "a write moves the clock one day, not the belief: {aged} -> {after_write}");
    let second = h.all("experience.log").iter().find(|c| c.object == "second").unwrap().confidence;
    assert!(second > aged, "the fresh entry is believed more than the aged one: {second} vs {aged}");
}

#[test]
fn the_default_cap_is_fifty() {
    let h = harness(EngineConfig::default());
    for i in 0..55 {
        h.write(cand("experience.debugging", &format!("e{i}")));
    }
    assert_eq!(h.current("experience.debugging").len(), 50);
}

#[test]
fn confidence_gated_skips_weaker_writes_and_writes_nothing() {
    let h = harness(EngineConfig::default());
    let mut strong = cand("preferences.editor", "vim");
    strong.confidence = Some(0.9);
    h.write_with(strong, with_strategy("confidence_gated")).unwrap();
    let mut weak = cand("preferences.editor", "emacs");
    weak.confidence = Some(0.5);
    let o = h.write_with(weak, with_strategy("confidence_gated")).unwrap();
    assert_eq!(o.action, Action::Skipped);
    assert_eq!(o.slot_version, 1);
    assert_eq!(h.all("preferences.editor").len(), 1);
    let own = h.write_with(cand("preferences.editor", "helix"), with_strategy("confidence_gated")).unwrap();
    assert_eq!(own.action, Action::Replaced, "a caller's own write defaults to confidence 1.0");
}

#[test]
fn llm_merge_consolidates_into_one_active_entry() {
    let h = merging();
    h.write(cand("workflow.release", "tag"));
    h.write(cand("workflow.release", "build"));
    let o = h.write(cand("workflow.release", "publish"));
    assert_eq!(o.strategy, "llm_merge");
    assert_eq!(o.strategy_source, StrategySource::MemoryType);
    assert_eq!(h.current("workflow.release"), vec![("tag + build + publish".into(), "active".into())]);
    assert!(h.all("workflow.release").iter().filter(|c| c.status == Status::Superseded).count() == 2);
}

#[test]
fn llm_merge_without_a_hook_is_refused_and_procedural_falls_back_to_append() {
    let h = harness(EngineConfig::default());
    h.write(cand("workflow.release", "tag"));
    let e = h.write_with(cand("workflow.release", "build"), with_strategy("llm_merge")).unwrap_err();
    assert_eq!(e.code, ErrorCode::MergeHookMissing);
    assert_eq!(h.all("workflow.release").len(), 1);
    let o = h.write(cand("workflow.release", "build"));
    assert_eq!((o.action, o.strategy.as_str()), (Action::Appended, "append"));
}

#[test]
fn a_throwing_merge_hook_leaves_memory_unchanged() {
    let hook = Rc::new(FnMerge(Box::new(|_, _| Err(Error::new(ErrorCode::HookFailed, "model offline")))));
    let h = harness_with(EngineConfig::default(), Some(hook), None, Rc::new(FlakyStore::new(Rc::new(MemoryStore::new()))));
    h.write(cand("workflow.deploy", "ssh"));
    let before = h.all("workflow.deploy");
    let e = h.write_with(cand("workflow.deploy", "k8s"), WriteOptions::default()).unwrap_err();
    assert_eq!(e.code, ErrorCode::HookFailed);
    assert_eq!(h.all("workflow.deploy"), before);
}

#[test]
fn merge_on_read_consolidates_at_recall_and_falls_back_on_hook_errors() {
    let config = EngineConfig { strategy: Some("merge_on_read".into()), ..Default::default() };
    let h = harness_with(config.clone(), Some(joining_merge()), None, Rc::new(FlakyStore::new(Rc::new(MemoryStore::new()))));
    h.write(cand("notes.today", "a"));
    h.write(cand("notes.today", "b"));
    let opts = RecallOptions { predicate: Some("notes.today".into()), consolidate: true, ..Default::default() };
    let merged = run(h.engine.recall(None, &opts)).unwrap();
    assert_eq!(merged.iter().map(|c| c.object.as_str()).collect::<Vec<_>>(), vec!["a + b"]);
    let failing = Rc::new(FnMerge(Box::new(|_, _| Err(Error::new(ErrorCode::HookFailed, "down")))));
    let f = harness_with(config, Some(failing), None, Rc::new(FlakyStore::new(Rc::new(MemoryStore::new()))));
    f.write(cand("notes.today", "a"));
    f.write(cand("notes.today", "b"));
    let fallback = run(f.engine.recall(None, &opts)).unwrap();
    assert_eq!(fallback[0].object, "a\n\n[update] b");
}

#[test]
fn reject_writes_nothing_and_reports_existing_vs_incoming() {
    let h = harness(EngineConfig::default());
    h.write(cand("preferences.theme", "dark"));
    let o = h.write_with(cand("preferences.theme", "light"), with_strategy("reject")).unwrap();
    assert_eq!(o.action, Action::Rejected);
    assert_eq!(o.claim.object, "light");
    assert_eq!(o.affected.iter().map(|c| c.object.as_str()).collect::<Vec<_>>(), vec!["dark"]);
    assert_eq!(h.all("preferences.theme").len(), 1);
    let same = h.write_with(cand("preferences.theme", "Dark"), with_strategy("reject")).unwrap();
    assert_eq!(same.action, Action::Confirmed);
}

#[test]
fn ask_user_stores_the_newer_claim_and_opens_a_conflict() {
    let h = harness(EngineConfig::default());
    h.write(cand("preferences.theme", "dark"));
    let o = h.write_with(cand("preferences.theme", "light"), with_strategy("ask_user")).unwrap();
    assert_eq!(o.conflicts.len(), 1);
    assert_eq!(o.conflicts[0].kind, credence::model::ConflictKind::AskUser);
    assert_eq!(o.claim.conflict_ids, vec![o.conflicts[0].id.clone()]);
    assert_eq!(h.current("preferences.theme").len(), 2, "both stay visible until settled");
}

#[test]
fn precedence_is_call_then_config_then_predicate_then_memory_type() {
    let spec = PredicateSpec { strategy: Some("Replace".into()), ..PredicateSpec::implicit("notes.pinned") };
    let h = harness(EngineConfig { predicates: vec![spec.clone()], ..Default::default() });
    h.write(cand("notes.pinned", "a"));
    assert_eq!(h.write(cand("notes.pinned", "b")).strategy_source, StrategySource::Predicate);
    let first = h.write(cand("context.current.task", "x"));
    assert_eq!((first.action, first.strategy.as_str()), (Action::Added, "replace"));
    let second = h.write(cand("context.current.task", "y"));
    assert_eq!((second.action, second.strategy_source), (Action::Replaced, StrategySource::MemoryType));
    let c = harness(EngineConfig { predicates: vec![spec], strategy: Some("APPEND".into()), ..Default::default() });
    c.write(cand("notes.pinned", "a"));
    let o = c.write(cand("notes.pinned", "b"));
    assert_eq!((o.strategy.as_str(), o.strategy_source), ("append", StrategySource::Config));
    let call = c.write_with(cand("notes.pinned", "c"), with_strategy("ask_user")).unwrap();
    assert_eq!((call.strategy.as_str(), call.strategy_source), ("ask_user", StrategySource::Call));
}

#[test]
fn memoirs_own_table_gates_semantic_writes() {
    let table = HashMap::from([(MemoryType::Semantic, "confidence_gated".to_string())]);
    let h = harness(EngineConfig { memory_type_defaults: Some(table), ..Default::default() });
    let mut a = cand("preferences.food", "ramen");
    a.confidence = Some(0.9);
    h.write(a);
    let mut b = cand("preferences.food", "pizza");
    b.confidence = Some(0.4);
    let o = h.write(b);
    assert_eq!((o.action, o.strategy.as_str()), (Action::Skipped, "confidence_gated"));
}

#[test]
fn the_blob_projection_matches_the_legacy_append_byte_for_byte() {
    let h = harness(EngineConfig::default());
    let key = "experience.standup";
    assert_eq!(run(h.engine.blob(key, None)).unwrap().content, "");
    let texts = ["shipped the parser", "fixed flaky test\nin CI", "reviewed PR #12"];
    let mut legacy = String::new();
    for (i, t) in texts.iter().enumerate() {
        let mut c = cand(key, t);
        c.confidence = Some(0.5 + i as f64 * 0.1);
        h.write(c);
        legacy = if legacy.is_empty() { t.to_string() } else { format!("{legacy}\n\n[update] {t}") };
    }
    let blob = run(h.engine.blob(key, None)).unwrap();
    assert_eq!(blob.content, legacy);
    assert_eq!(blob.schema_version, 2);
    assert!((blob.confidence - 0.7).abs() < 1e-9);
    assert_eq!(blob.timestamp, blob.entries.iter().map(|e| e.timestamp).fold(0.0, f64::max));
    assert_eq!(blob.entries.len(), 3);
}

#[test]
fn an_imported_v1_blob_is_merged_against_by_later_writes() {
    let h = harness(EngineConfig::default());
    let v1 = serde_json::json!({ "key": "experience.notes", "content": "legacy text", "timestamp": 1700000000.0, "extra": 1 });
    let claims = run(h.engine.import_blob(&v1, None)).unwrap();
    assert_eq!(claims.len(), 1);
    assert_eq!(claims[0].claim.stated_confidence, 1.0);
    assert_eq!(claims[0].action.as_str(), "added");
    h.write(cand("experience.notes", "new text"));
    let blob = run(h.engine.blob("experience.notes", None)).unwrap();
    assert_eq!(blob.content, "legacy text\n\n[update] new text");
    assert_eq!(blob.entries[0].timestamp, 1700000000.0);
}

#[test]
fn entries_of_a_log_do_not_compete_for_belief() {
    let h = harness(EngineConfig::default());
    h.write(cand("experience.log", "a"));
    let b = h.write(cand("experience.log", "b"));
    assert!((b.claim.confidence - 0.8).abs() < 1e-9, "{}", b.claim.confidence);
    let r = h.write_with(cand("notes.x", "one"), with_strategy("replace")).unwrap();
    let r2 = h.write_with(cand("notes.x", "two"), with_strategy("replace")).unwrap();
    assert!((r2.claim.confidence - r.claim.confidence).abs() < 1e-9, "a replacement is believed like a first write");
}

/// Importing a blob of this memory back (a restore at start-up), or the same
/// blob twice, adds nothing: an entry the slot holds is not a new one.
#[test]
fn an_entry_the_slot_already_holds_is_not_imported_again() {
    let h = harness(EngineConfig::default());
    h.write(cand("experience.log", "a"));
    h.write(cand("experience.log", "b"));
    let own = serde_json::to_value(run(h.engine.blob("experience.log", None)).unwrap()).unwrap();
    let before = h.all("experience.log");
    let claims = run(h.engine.import_blob(&own, None)).unwrap();
    assert!(claims.iter().all(|o| o.replayed && o.action.as_str() == "confirmed"));
    assert_eq!(claims.iter().map(|o| &o.claim.id).collect::<Vec<_>>(), before.iter().map(|c| &c.id).collect::<Vec<_>>(), "the held claims come back");
    assert_eq!(h.all("experience.log"), before, "nothing written");

    let foreign = serde_json::json!({ "key": "experience.log", "content": "legacy", "timestamp": 1700000000.0 });
    let first = run(h.engine.import_blob(&foreign, None)).unwrap();
    let again = run(h.engine.import_blob(&foreign, None)).unwrap();
    assert_eq!(first[0].claim.id, again[0].claim.id);
    assert_eq!((first[0].action.as_str(), again[0].replayed), ("appended", true));
    assert_eq!(h.all("experience.log").len(), 3);
    // A blob holding one new entry beside the held ones adds just that one.
    let mut grown = serde_json::to_value(run(h.engine.blob("experience.log", None)).unwrap()).unwrap();
    let entries = grown["entries"].as_array_mut().unwrap();
    entries.push(serde_json::json!({ "content": "c", "confidence": 1.0, "timestamp": 1700000500.0, "status": "active" }));
    run(h.engine.import_blob(&grown, None)).unwrap();
    let objects: Vec<String> = h.all("experience.log").into_iter().map(|c| c.object).collect();
    assert_eq!(objects.len(), 4, "{objects:?}");
    assert_eq!(objects.iter().filter(|o| *o == "legacy").count(), 1);
}
