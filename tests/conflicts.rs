#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used)]
//! Conflicts that wait for a person: settle, undo, noted once, the review
//! pass and merge proposals (SPEC §6).
mod common;

use std::cell::Cell;
use std::rc::Rc;

use common::*;
use credence::hooks::{MergeResult, PairRef, PairVerdict};
use credence::model::{Claim, ConflictKind, ConflictStatus, Status};
use credence::store::{MemoryStore, Store};
use credence::{EngineConfig, Error, ErrorCode};

fn asked(h: &Harness) -> String {
    h.write(cand("preferences.theme", "dark"));
    let o = h.write_with(cand("preferences.theme", "light"), with_strategy("ask_user")).unwrap();
    o.conflicts[0].id.clone()
}

fn statuses(h: &Harness) -> Vec<(String, Status)> {
    h.all("preferences.theme").into_iter().map(|c| (c.object, c.status)).collect()
}

#[test]
fn keep_newer_retires_the_earlier_and_undo_restores_it() {
    let h = harness(EngineConfig::default());
    let id = asked(&h);
    let before = h.all("preferences.theme");
    let settled = run(h.engine.settle(&id, "keep_newer", Some("ana"))).unwrap();
    assert_eq!(settled.status, ConflictStatus::Settled);
    assert_eq!(settled.settled_by.as_deref(), Some("ana"));
    assert!(settled.settled_at.is_some());
    assert_eq!(h.current("preferences.theme"), vec![("light".into(), "active".into())]);
    assert_eq!(statuses(&h)[0], ("dark".into(), Status::Retired));
    let light = h.all("preferences.theme").into_iter().find(|c| c.object == "light").unwrap();
    assert!((light.confidence - 0.8).abs() < 1e-9, "its rival gone, the kept claim stands alone: {}", light.confidence);
    let reopened = run(h.engine.undo(&id)).unwrap();
    assert_eq!(reopened.status, ConflictStatus::Open);
    assert_eq!(reopened.settled_by, None);
    assert_eq!(h.all("preferences.theme"), before, "undo restores exactly");
}

#[test]
fn keep_earlier_and_keep_both() {
    let h = harness(EngineConfig::default());
    let id = asked(&h);
    run(h.engine.settle(&id, "Keep_Earlier", None)).unwrap();
    assert_eq!(h.current("preferences.theme"), vec![("dark".into(), "active".into())]);
    run(h.engine.undo(&id)).unwrap();
    let both = run(h.engine.settle(&id, "keep_both", None)).unwrap();
    assert_eq!(both.settlement.map(|s| s.as_str()), Some("keep_both"));
    assert_eq!(h.current("preferences.theme").len(), 2);
    assert!(run(h.engine.conflicts(Some(ConflictStatus::Open))).unwrap().is_empty(), "dismissed for good");
}

#[test]
fn refusals_name_what_is_wrong() {
    let h = harness(EngineConfig::default());
    let id = asked(&h);
    assert_eq!(run(h.engine.settle("cf_missing", "keep_newer", None)).unwrap_err().code, ErrorCode::ConflictNotFound);
    let bad = run(h.engine.settle(&id, "keep_all", None)).unwrap_err();
    assert_eq!(bad.code, ErrorCode::InvalidSettlement);
    assert!(bad.message.contains("keep_all"));
    run(h.engine.settle(&id, "keep_newer", None)).unwrap();
    assert_eq!(run(h.engine.settle(&id, "keep_earlier", None)).unwrap_err().code, ErrorCode::ConflictAlreadySettled);
    assert_eq!(run(h.engine.undo("cf_missing")).unwrap_err().code, ErrorCode::ConflictNotFound);
    run(h.engine.undo(&id)).unwrap();
    assert_eq!(run(h.engine.undo(&id)).unwrap_err().code, ErrorCode::ConflictNotSettled);
}

#[test]
fn a_pair_is_never_noted_twice() {
    let h = harness(EngineConfig::default());
    let id = asked(&h);
    run(h.engine.settle(&id, "keep_both", None)).unwrap();
    let again = h.write_with(cand("preferences.theme", "light"), with_strategy("ask_user")).unwrap();
    assert!(again.conflicts.is_empty());
    assert_eq!(run(h.engine.conflicts(None)).unwrap().len(), 1);
}

#[test]
fn conflicts_are_visible_from_a_second_engine_on_the_same_store_open_first() {
    let shared: Rc<dyn Store> = Rc::new(MemoryStore::new());
    let one = harness_with(EngineConfig::default(), None, None, Rc::new(FlakyStore::new(shared.clone())));
    let two = harness_with(EngineConfig::default(), None, None, Rc::new(FlakyStore::new(shared)));
    let first = asked(&one);
    one.write(cand("timezone", "CET"));
    let second = one.write_with(cand("timezone", "PST"), with_strategy("ask_user")).unwrap().conflicts[0].id.clone();
    run(one.engine.settle(&first, "keep_newer", None)).unwrap();
    let seen = run(two.engine.conflicts(None)).unwrap();
    assert_eq!(seen.iter().map(|c| (c.id.clone(), c.status)).collect::<Vec<_>>(), vec![(second, ConflictStatus::Open), (first, ConflictStatus::Settled)]);
    assert_eq!(seen[0].earlier.object, "CET");
    assert_eq!(seen[0].newer.object, "PST");
}

#[test]
fn evidence_never_overrides_a_users_settlement() {
    let h = harness(EngineConfig::default());
    h.write(from(cand("born_on", "1990-03-04"), "crm", 0.8));
    let d = h.write(from(cand("born_on", "1990-04-03"), "chat", 0.8));
    let id = d.conflicts[0].id.clone();
    run(h.engine.settle(&id, "keep_newer", Some("user"))).unwrap();
    for src in ["passport", "registry", "bank"] {
        h.write(from(cand("born_on", "1990-03-04"), src, 0.95));
    }
    let now = h.current("born_on");
    assert_eq!(now, vec![("1990-04-03".into(), "active".into())], "the person's choice stands");
}

fn pair_judge(calls: Rc<Cell<u32>>, fail_confirm_after: u32) -> ScriptedJudge {
    let _ = calls;
    ScriptedJudge {
        pairs: Box::new(|claims: &[Claim]| {
            let mut pairs = Vec::new();
            for (i, e) in claims.iter().enumerate() {
                for n in &claims[i + 1..] {
                    pairs.push(PairRef { earlier: e.id.clone(), newer: n.id.clone() });
                }
            }
            pairs.push(PairRef { earlier: "cl_unknown".into(), newer: claims[0].id.clone() });
            if claims.len() > 1 {
                pairs.push(PairRef { earlier: claims[1].id.clone(), newer: claims[0].id.clone() });
            }
            Ok(pairs)
        }),
        verdict: Box::new(move |e: &Claim, n: &Claim| {
            if fail_confirm_after == 0 {
                return Err(Error::new(ErrorCode::HookFailed, "judge down"));
            }
            let real = e.object.contains("vegetarian") && n.object.contains("eats fish");
            Ok(PairVerdict { same_thing: real, newer_invalidates_earlier: real, reason: "diet changed".into() })
        }),
        calls: Cell::new(0),
    }
}

fn notes(h: &Harness) {
    for t in ["is vegetarian", "likes hiking", "eats fish now", "has a cat", "plays chess"] {
        h.write_with(cand("experience.facts", t), with_strategy("append")).unwrap();
    }
}

#[test]
fn the_review_pass_confirms_at_most_three_pairs_per_slot_and_ignores_invalid_ones() {
    let h = harness(EngineConfig::default());
    notes(&h);
    let judge = pair_judge(Rc::new(Cell::new(0)), 1);
    let r = run(h.engine.review(Some(&judge), 160)).unwrap();
    assert_eq!(r.pairs_named, 10, "5 entries → 10 valid pairs; the unknown and reversed ones are ignored");
    assert_eq!(r.calls, 1 + 3);
    assert_eq!(judge.calls.get(), r.calls);
    assert_eq!(r.pairs_confirmed, 1);
    assert_eq!(r.conflicts.len(), 1);
    assert_eq!(r.conflicts[0].kind, ConflictKind::Review);
    assert_eq!(r.conflicts[0].reason, "diet changed");
    assert_eq!(r.conflicts[0].newer.conflict_ids, vec![r.conflicts[0].id.clone()]);
    assert_eq!(r.slots_left, 0);
    let again = run(h.engine.review(Some(&judge), 160)).unwrap();
    assert_eq!(again.calls, 0, "nothing new to review");
}

#[test]
fn the_review_pass_ends_on_budget_or_a_throwing_judge_and_resumes() {
    let h = harness(EngineConfig::default());
    notes(&h);
    h.write_with(cand("experience.other", "a"), with_strategy("append")).unwrap();
    h.write_with(cand("experience.other", "b"), with_strategy("append")).unwrap();
    let judge = pair_judge(Rc::new(Cell::new(0)), 1);
    let r = run(h.engine.review(Some(&judge), 2)).unwrap();
    assert_eq!(r.calls, 2);
    assert_eq!(r.slots_left, 2);
    assert_eq!(r.stopped.as_deref(), Some("budget"));
    let broken = pair_judge(Rc::new(Cell::new(0)), 0);
    let r = run(h.engine.review(Some(&broken), 160)).unwrap();
    assert_eq!(r.calls, 2, "findPairs then the first confirmPair, which throws");
    assert_eq!(r.stopped.as_deref(), Some("judge down"));
    assert_eq!(r.slots_left, 2);
    let r = run(h.engine.review(Some(&judge), 160)).unwrap();
    assert_eq!(r.slots_left, 0);
    assert_eq!(r.pairs_confirmed, 1);
    assert_eq!(run(h.engine.conflicts(None)).unwrap().len(), 1);
    let none = run(h.engine.review(None, 10)).unwrap_err();
    assert_eq!(none.code, ErrorCode::JudgeMissing);
}

#[test]
fn a_rewrite_contradicting_approved_content_waits_as_a_merge_proposal() {
    let flag = Rc::new(Cell::new(false));
    let f = flag.clone();
    let hook = Rc::new(FnMerge(Box::new(move |entries: &[Claim], incoming: &Claim| {
        let mut parts: Vec<&str> = entries.iter().map(|c| c.object.as_str()).collect();
        parts.push(&incoming.object);
        Ok(MergeResult { content: parts.join("; "), contradicts: f.get(), reason: Some("drops the approved step".into()) })
    })));
    let h = harness_with(EngineConfig::default(), Some(hook), None, Rc::new(FlakyStore::new(Rc::new(MemoryStore::new()))));
    h.write(cand("workflow.ship", "run tests"));
    let asked = h.write_with(cand("workflow.ship", "run tests twice"), with_strategy("ask_user")).unwrap();
    run(h.engine.settle(&asked.conflicts[0].id, "keep_earlier", Some("lead"))).unwrap();
    flag.set(true);
    let o = h.write(cand("workflow.ship", "skip tests"));
    assert_eq!(o.conflicts.len(), 1);
    assert_eq!(o.conflicts[0].kind, ConflictKind::MergeProposal);
    assert_eq!(h.current("workflow.ship"), vec![("run tests".into(), "active".into())], "not applied yet");
    run(h.engine.settle(&o.conflicts[0].id, "keep_newer", None)).unwrap();
    assert_eq!(h.current("workflow.ship"), vec![("run tests; skip tests".into(), "active".into())]);
    let approved = h.all("workflow.ship").into_iter().find(|c| c.object == "run tests").unwrap();
    assert_eq!(approved.status, Status::Retired);
}

#[test]
fn undo_restores_a_resolved_by_evidence_status() {
    let h = harness(EngineConfig::default());
    h.write(from(cand("born_on", "1990-03-04"), "crm", 0.8));
    let d = h.write(from(cand("born_on", "1990-04-03"), "chat", 0.8));
    h.write(from(cand("born_on", "1990-03-04"), "passport", 0.8));
    let id = d.conflicts[0].id.clone();
    assert_eq!(run(h.engine.conflicts(None)).unwrap()[0].status, ConflictStatus::ResolvedByEvidence);
    let before = h.all("born_on");
    run(h.engine.settle(&id, "keep_newer", Some("ana"))).unwrap();
    assert_eq!(h.current("born_on"), vec![("1990-04-03".into(), "active".into())], "a person may overrule evidence");
    let undone = run(h.engine.undo(&id)).unwrap();
    assert_eq!(undone.status, ConflictStatus::ResolvedByEvidence);
    assert_eq!(h.all("born_on"), before);
}
