#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used)]
//! Random sequences of writes, settlements and undos (proptest prints a
//! replayable seed on failure). Invariants: nothing is ever deleted, every
//! acknowledged write stays visible, confidence stays in (0,1), every claim is
//! explained by `why`, undo restores exactly, and replay is deterministic.
mod common;

use std::collections::BTreeMap;

use common::*;
use credence::model::{Claim, Conflict, ConflictStatus};
use credence::{EngineConfig, RecallOptions};
use proptest::prelude::*;

const SUBJECTS: [&str; 2] = ["ana", "bo"];
const PREDICATES: [&str; 6] = ["located_in", "born_on", "allergic_to", "preferences.theme", "experience.log", "workflow.deploy"];
const OBJECTS: [&str; 5] = ["Oslo", "oslo ", "Oslo, Norway", "Rome", "Lima"];
const SOURCES: [(&str, f64); 4] = [("a", 0.9), ("b", 0.8), ("c", 0.6), ("d", 0.3)];
const STRATEGIES: [Option<&str>; 6] = [None, None, Some("ask_user"), Some("append"), Some("replace"), Some("confidence_gated")];

#[derive(Debug, Clone)]
enum Op {
    Write { s: usize, p: usize, o: usize, src: usize, strat: usize, valid_back: Option<u8> },
    Settle { pick: usize, how: usize },
    Undo { pick: usize },
    Wait { days: u16 },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0..2usize, 0..6usize, 0..5usize, 0..4usize, 0..6usize, proptest::option::of(0..3u8))
            .prop_map(|(s, p, o, src, strat, valid_back)| Op::Write { s, p, o, src, strat, valid_back }),
        2 => (0..8usize, 0..3usize).prop_map(|(pick, how)| Op::Settle { pick, how }),
        1 => (0..8usize).prop_map(|pick| Op::Undo { pick }),
        1 => (1..400u16).prop_map(|days| Op::Wait { days }),
    ]
}

fn everything(h: &Harness) -> (Vec<Claim>, Vec<Conflict>) {
    let mut claims = Vec::new();
    for s in SUBJECTS {
        let opts = RecallOptions { include_history: true, ..Default::default() };
        claims.extend(run(h.engine.recall(Some(s), &opts)).unwrap());
    }
    (claims, run(h.engine.conflicts(None)).unwrap())
}

fn apply(h: &Harness, op: &Op, acknowledged: &mut Vec<String>) {
    match op {
        Op::Write { s, p, o, src, strat, valid_back } => {
            let mut c = from(cand(PREDICATES[*p], OBJECTS[*o]), SOURCES[*src].0, SOURCES[*src].1);
            c.subject = Some(SUBJECTS[*s].into());
            if let Some(years) = valid_back {
                c.valid_from = Some(format!("{}-01-01", 2025 - *years as i32));
            }
            let opts = match STRATEGIES[*strat] { Some(st) => with_strategy(st), None => Default::default() };
            let out = h.write_with(c, opts).expect("valid writes succeed");
            if out.action.as_str() != "skipped" && out.action.as_str() != "rejected" {
                acknowledged.push(out.claim.id.clone());
            }
        }
        Op::Settle { pick, how } => {
            let all = run(h.engine.conflicts(None)).unwrap();
            if all.is_empty() { return; }
            let c = &all[pick % all.len()];
            if matches!(c.status, ConflictStatus::Settled | ConflictStatus::Moot) {
                let e = run(h.engine.settle(&c.id, "keep_both", Some("prop"))).unwrap_err();
                assert_eq!(e.code, credence::ErrorCode::ConflictAlreadySettled);
                return;
            }
            let before = everything(h).0;
            let how = ["keep_newer", "keep_earlier", "keep_both"][*how];
            match run(h.engine.settle(&c.id, how, Some("prop"))) {
                // A dispute evidence resolved is moot once a third value has won.
                Err(e) if c.status == ConflictStatus::ResolvedByEvidence => {
                    assert_eq!(e.code, credence::ErrorCode::ConflictAlreadySettled);
                    return;
                }
                other => { other.unwrap(); }
            }
            run(h.engine.undo(&c.id)).unwrap();
            // A conflict the settlement opened (a clash it asked about) stays on
            // record as moot after the undo; it is noted on its claims.
            let (after, conflicts) = everything(h);
            let moot: Vec<String> = conflicts.iter().filter(|c| c.status == ConflictStatus::Moot).map(|c| c.id.clone()).collect();
            let strip = |claims: Vec<Claim>| -> Vec<Claim> {
                claims.into_iter().map(|mut c| { c.conflict_ids.retain(|id| !moot.contains(id)); c }).collect()
            };
            assert_eq!(strip(after), strip(before), "settle then undo restores every claim exactly");
            run(h.engine.settle(&c.id, how, Some("prop"))).unwrap();
        }
        Op::Undo { pick } => {
            let settled = run(h.engine.conflicts(Some(ConflictStatus::Settled))).unwrap();
            if settled.is_empty() { return; }
            let before = everything(h);
            if let Err(e) = run(h.engine.undo(&settled[pick % settled.len()].id)) {
                assert_eq!(e.code, credence::ErrorCode::UndoStale, "{e:?}");
                assert_eq!(everything(h), before, "a refused undo writes nothing");
            }
        }
        Op::Wait { days } => h.clock.advance_days(*days as f64),
    }
}

fn check_invariants(h: &Harness, seen: &mut BTreeMap<String, String>, acknowledged: &[String]) {
    let (claims, conflicts) = everything(h);
    for c in &claims {
        assert!(c.confidence > 0.0 && c.confidence < 1.0 && c.log_odds.is_finite(), "{c:?}");
        assert_eq!(seen.get(&c.id).map(|o| o.as_str()).unwrap_or(&c.object), c.object, "what a claim says never changes");
        seen.insert(c.id.clone(), c.object.clone());
    }
    for id in seen.keys() {
        assert!(claims.iter().any(|c| &c.id == id), "claim {id} disappeared");
    }
    for id in acknowledged {
        assert!(claims.iter().any(|c| &c.id == id), "acknowledged write {id} not visible");
    }
    let mut pairs: Vec<(String, String)> = conflicts.iter().map(|c| {
        let (a, b) = (c.earlier.id.clone(), c.newer.id.clone());
        if a < b { (a, b) } else { (b, a) }
    }).collect();
    let n = pairs.len();
    pairs.sort();
    pairs.dedup();
    assert_eq!(pairs.len(), n, "a pair is noted at most once");
}

fn run_ops(ops: &[Op]) -> (Vec<Claim>, Vec<Conflict>) {
    let h = harness(EngineConfig::default());
    let mut seen = BTreeMap::new();
    let mut acknowledged = Vec::new();
    for op in ops {
        apply(&h, op, &mut acknowledged);
        check_invariants(&h, &mut seen, &acknowledged);
    }
    for c in everything(&h).0 {
        let why = run(h.engine.why(&c.id)).unwrap();
        assert!(why.log.iter().any(|e| e.claim_ids.contains(&c.id)), "claim {} unexplained", c.id);
    }
    everything(&h)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_histories_keep_every_invariant(ops in proptest::collection::vec(op(), 1..60)) {
        let first = run_ops(&ops);
        let second = run_ops(&ops);
        prop_assert_eq!(first, second, "same writes, same clock → same memory");
    }
}
