#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used)]
//! Bounded slot records (SPEC §8): claims that left the live set long ago
//! move whole from a slot written by an entries strategy (replace, append,
//! merge_on_read), or from the history of a time-varying predicate, to claim
//! chunks of its archive. Outcomes, `recall({
//! includeHistory, at })`, `blob`, `why` and the checker answer exactly as
//! without the archive, erasure reaches the chunks, and the slot stays small.

mod common;

use std::rc::Rc;

use common::*;
use credence::engine::{EraseOptions, EraseTarget, RecallOptions};
use credence::model::{Claim, SlotRef};
use credence::store::{MemoryStore, Store};
use credence::{EngineConfig, WriteOptions};

fn pair(after: usize) -> (Harness, Harness) {
    let config = || EngineConfig { max_entries: Some(4), ..Default::default() };
    let a = harness_with(config(), Some(joining_merge()), None, Rc::new(FlakyStore::new(Rc::new(MemoryStore::new()))));
    let a = Harness { engine: a.engine.with_archive_claims_after(after), ..a };
    let b = harness_with(config(), Some(joining_merge()), None, Rc::new(FlakyStore::new(Rc::new(MemoryStore::new()))));
    let b = Harness { engine: b.engine.with_archive_claims_after(usize::MAX / 4), ..b };
    (a, b)
}

/// What a reader sees of a claim, ids aside (the archiving engine draws chunk ids too).
fn seen(c: &Claim) -> (String, &'static str, Option<String>, String, usize) {
    (c.object.clone(), c.status.as_str(), c.valid_to.map(|t| t.to_iso()), c.recorded_at.to_iso(), c.provenance.len())
}

fn history(h: &Harness, predicate: &str, at: Option<&str>) -> Vec<Claim> {
    let opts = RecallOptions { predicate: Some(predicate.into()), include_history: at.is_none(), at: at.map(str::to_string), ..Default::default() };
    run(h.engine.recall(None, &opts)).unwrap()
}

fn slot_bytes(h: &Harness, predicate: &str) -> usize {
    let r = SlotRef::new("user", &h.engine.settings().registry.resolve(predicate).name);
    serde_json::to_string(&run(h.store.load_slot(&r)).unwrap()).unwrap().len()
}

fn same_as_unarchived(predicate: &str, strategy: Option<&str>, writes: usize) {
    let (a, b) = pair(8);
    let options = WriteOptions { strategy: strategy.map(str::to_string), expected_version: None };
    for i in 0..writes {
        let c = cand(predicate, &format!("turn {i}: {}", ["plan", "edit", "test"][i % 3]));
        let (oa, ob) = (a.write_with(c.clone(), options.clone()).unwrap(), b.write_with(c, options.clone()).unwrap());
        assert_eq!((oa.action, oa.relation, seen(&oa.claim)), (ob.action, ob.relation, seen(&ob.claim)), "write {i}");
        assert_eq!(oa.affected.len(), ob.affected.len(), "write {i}");
    }
    let slot = run(a.store.load_slot(&SlotRef::new("user", &a.engine.settings().registry.resolve(predicate).name))).unwrap();
    assert!(slot.archived_claims as usize > writes / 2, "{predicate}: {} claims archived of {writes}", slot.archived_claims);
    assert!(slot.claims.len() < 30, "{predicate}: the slot keeps {} claims", slot.claims.len());
    let (ha, hb) = (history(&a, predicate, None), history(&b, predicate, None));
    assert_eq!(ha.len(), writes);
    assert_eq!(ha.iter().map(seen).collect::<Vec<_>>(), hb.iter().map(seen).collect::<Vec<_>>(), "includeHistory");
    for day in [3, 10, writes / 2, writes - 2] {
        let at = "2026-01-01T00:00:00Z".to_string();
        let t = credence::time::Timestamp::parse(&at, "at").unwrap().0 + day as i64 * 86_400_000 + 43_200_000;
        let at = credence::time::Timestamp::from_millis(t).to_iso();
        let (xa, xb) = (history(&a, predicate, Some(&at)), history(&b, predicate, Some(&at)));
        assert_eq!(xa.iter().map(seen).collect::<Vec<_>>(), xb.iter().map(seen).collect::<Vec<_>>(), "at {at}");
    }
    let (ba, bb) = (run(a.engine.blob(predicate, None)).unwrap(), run(b.engine.blob(predicate, None)).unwrap());
    assert_eq!(serde_json::to_value(&ba).unwrap(), serde_json::to_value(&bb).unwrap(), "blob");
    // why of an archived claim: the claim, its lineage and its log, as without the archive.
    for i in [0, 1, writes / 3] {
        let (wa, wb) = (run(a.engine.why(&ha[i].id)).unwrap(), run(b.engine.why(&hb[i].id)).unwrap());
        assert_eq!(seen(&wa.claim), seen(&wb.claim), "why {i}");
        assert_eq!(wa.lineage.iter().map(seen).collect::<Vec<_>>(), wb.lineage.iter().map(seen).collect::<Vec<_>>(), "lineage {i}");
        assert!(wa.log.len() >= wb.log.len(), "log {i}");
    }
    assert_eq!(run(a.engine.check_invariants()).unwrap(), vec![]);
    // An archived claim left the live set: retracting it is refused, nothing written.
    assert!(run(a.engine.retract(&ha[0].id, &Default::default())).is_err());
}

#[test]
fn replaced_working_memory_moves_to_the_archive() {
    same_as_unarchived("context.current.task", None, 300);
}

#[test]
fn capped_append_entries_move_to_the_archive() {
    same_as_unarchived("experience.diary", None, 300);
}

#[test]
fn entries_written_into_a_reconcile_slot_move_to_the_archive() {
    // Free-text entries are never weighed, corroborated or matched (SPEC §5): dead once superseded.
    same_as_unarchived("notes", Some("append"), 300);
}

#[test]
fn merge_on_read_entries_move_to_the_archive() {
    same_as_unarchived("experience.log", Some("merge_on_read"), 300);
}

#[test]
fn the_history_of_a_time_varying_slot_moves_to_the_archive() {
    // A value the world moved on from long ago: superseded, its source's later answers ended its weight.
    same_as_unarchived("located_in", None, 300);
}

#[test]
fn a_fixed_slot_keeps_its_history() {
    let (a, _) = pair(8);
    for i in 0..200 {
        a.write(cand("born_in", &format!("city {i}")));
    }
    let slot = run(a.store.load_slot(&SlotRef::new("user", "born_in"))).unwrap();
    assert_eq!(slot.archived_claims, 0, "a fixed predicate's belief never lets go of its evidence");
}

#[test]
fn a_report_of_an_archived_period_corroborates_the_archived_claim() {
    let (a, b) = pair(8);
    let day = |d: i64| credence::time::Timestamp::from_millis(credence::time::Timestamp::parse("2026-01-01T12:00:00Z", "t").unwrap().0 + d * 86_400_000).to_iso();
    for i in 0..200 {
        let c = observed(from(cand("located_in", &format!("city {i}")), "gps", 0.8), &day(i as i64 + 1));
        a.write(c.clone());
        b.write(c);
    }
    let before = run(a.store.load_slot(&SlotRef::new("user", "located_in"))).unwrap();
    assert!(before.archived_claims > 100, "{} archived", before.archived_claims);
    // A late report, by another source, of where the user was on day 6: that period's claim is archived.
    let late = observed(from(cand("located_in", "city 5"), "phone", 0.7), &day(6));
    let (oa, ob) = (a.write(late.clone()), b.write(late));
    assert_eq!((oa.action, oa.relation, seen(&oa.claim)), (ob.action, ob.relation, seen(&ob.claim)));
    assert_eq!(oa.claim.id, history(&a, "located_in", None)[5].id, "the archived claim of day 6 is corroborated, not copied");
    assert_eq!(history(&a, "located_in", None).len(), 200);
    assert_eq!(run(a.engine.check_invariants()).unwrap(), vec![]);
    // The next writes archive the history again.
    for i in 200..320 {
        a.write(observed(from(cand("located_in", &format!("city {i}")), "gps", 0.8), &day(i as i64 + 1)));
    }
    let after = run(a.store.load_slot(&SlotRef::new("user", "located_in"))).unwrap();
    assert!(after.claims.len() < 120, "the slot keeps {} claims", after.claims.len());
    assert_eq!(history(&a, "located_in", None).len(), 320);
    assert_eq!(run(a.engine.check_invariants()).unwrap(), vec![]);
}

#[test]
fn a_working_memory_slot_stays_small_at_the_default_threshold() {
    let h = harness(EngineConfig::default());
    let mut sizes = Vec::new();
    for i in 0..5_000 {
        h.write(cand("context.current.task", &format!("step {i}: refactor the parser and rerun the suite")));
        if i % 1_000 == 999 {
            sizes.push(slot_bytes(&h, "context.current.task"));
        }
    }
    let max = *sizes.iter().max().unwrap();
    assert!(max <= 64 * 1024, "slot record {max} bytes ({sizes:?})");
    assert_eq!(h.all("context.current.task").len(), 5_000);
    assert_eq!(run(h.engine.check_invariants()).unwrap(), vec![]);
}

#[test]
fn erasure_removes_archived_claims_text_from_every_chunk() {
    let store = Rc::new(MemoryStore::new());
    let h = harness_with(EngineConfig::default(), None, None, Rc::new(FlakyStore::new(store.clone())));
    let h = Harness { engine: h.engine.with_archive_claims_after(8), ..h };
    for i in 0..120 {
        h.write(cand("context.current.task", &format!("Secret task {i}")));
    }
    let everything = || store_text(&store);
    let first = h.all("context.current.task")[0].clone();
    assert!(run(store.find_claim(&first.id)).unwrap().is_some_and(|r| credence::archive::is_archive_subject(&r.subject)), "the oldest claim is archived");
    // One archived claim by id, then everything.
    let options = EraseOptions { reason: "asked".into(), by: "dpo".into() };
    let one = run(h.engine.erase(&EraseTarget { subject: "user".into(), predicate: None, claim_id: Some(first.id.clone()) }, &options)).unwrap();
    assert_eq!(one.tombstones.len(), 1);
    assert_eq!(one.tombstones[0].predicate, "context.current.task");
    assert!(!everything().contains("Secret task 0\""), "the erased archived claim's text is left");
    let w = run(h.engine.why(&first.id)).unwrap();
    assert!(w.claim.object.is_empty() && w.tombstone.is_some());
    assert!(!h.all("context.current.task").iter().any(|c| c.id == first.id), "recall shows no tombstone");
    let all = run(h.engine.erase(&EraseTarget { subject: "user".into(), predicate: None, claim_id: None }, &options)).unwrap();
    assert_eq!(all.tombstones.len(), 119);
    assert!(!everything().contains("Secret task"), "erased text left in the store");
    assert_eq!(run(h.engine.check_invariants()).unwrap(), vec![]);
}

#[test]
fn a_lost_race_after_the_chunk_loses_nothing() {
    let store = Rc::new(MemoryStore::new());
    let h = harness_with(EngineConfig::default(), None, None, Rc::new(FlakyStore::new(store.clone())));
    let h = Harness { engine: h.engine.with_archive_claims_after(8), ..h };
    // Another writer with ids of its own (two sequential sources would collide).
    let clock = TestClock::at("2026-01-01T00:00:00Z");
    let hooks = credence::engine::Hooks { clock, ids: Some(Rc::new(credence::hooks::RandomIds)), merge: None, judge: None };
    let other = Rc::new(credence::Engine::new(store.clone(), &EngineConfig::default(), hooks).unwrap());
    let slot = SlotRef::new("user", "context.current.task");
    for i in 0..60 {
        if i % 7 == 3 {
            // Another writer commits between this write's chunk and its slot
            // commit: the slot commit loses, the write retries (a second chunk).
            let o = other.clone();
            *h.store.before_commit.borrow_mut() = Some((slot.clone(), Box::new(move || {
                run(o.remember(&cand("context.current.task", &format!("racer {i}")), &WriteOptions::default())).unwrap();
            })));
        }
        h.write(cand("context.current.task", &format!("task {i}")));
    }
    let all = h.all("context.current.task");
    assert!(all.len() > 60, "{} claims: {:?}", all.len(), all.iter().map(|c| c.object.as_str()).collect::<Vec<_>>());
    let mut ids: Vec<&str> = all.iter().map(|c| c.id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), all.len(), "a claim shown twice");
    for c in &all {
        assert_eq!(run(h.engine.why(&c.id)).unwrap().claim.object, c.object);
    }
    assert!(run(h.store.load_slot(&slot)).unwrap().archived_claims > 0);
    assert_eq!(run(h.engine.check_invariants()).unwrap(), vec![]);
}
