#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used)]
//! Statuses follow the slot posterior after every write (SPEC §3 with §4).
mod common;

use common::*;
use credence::model::{Action, ConflictStatus, Status};
use credence::{Engine, EngineConfig, ErrorCode, Hooks};

#[test]
fn a_third_value_the_evidence_lifts_past_a_disputed_pair_becomes_current() {
    let h = harness(EngineConfig::default());
    h.write(from(cand("born_in", "Lyon"), "crm", 0.8));
    assert_eq!(h.write(from(cand("born_in", "Nice"), "chat", 0.8)).action, Action::Disputed);
    assert_eq!(h.write(from(cand("born_in", "Metz"), "forum", 0.5)).action, Action::Outweighed);
    h.write(from(cand("born_in", "Metz"), "passport", 0.95));
    h.write(from(cand("born_in", "Metz"), "registry", 0.95));
    assert_eq!(h.current("born_in"), vec![("Metz".into(), "active".into())]);
    for loser in ["Lyon", "Nice"] {
        let c = h.all("born_in").into_iter().find(|c| c.object == loser).unwrap();
        assert_eq!(c.status, Status::Outweighed, "{loser}");
    }
    let conflicts = run(h.engine.conflicts(None)).unwrap();
    assert_eq!(conflicts.len(), 1);
    assert_eq!(conflicts[0].status, ConflictStatus::ResolvedByEvidence);
}

#[test]
fn the_current_claim_is_the_best_believed_one_after_every_write() {
    let h = harness(EngineConfig::default());
    let writes = [("Oslo", "a", 0.9), ("Rome", "b", 0.4), ("Rome", "c", 0.6), ("Oslo", "d", 0.7), ("Rome", "e", 0.9), ("Rome", "f", 0.9)];
    for (city, source, trust) in writes {
        h.write(from(cand("located_in", city), source, trust));
        let all = h.all("located_in");
        let best = all.iter().filter(|c| c.status.is_live()).max_by(|a, b| a.confidence.total_cmp(&b.confidence)).unwrap();
        let current: Vec<_> = all.iter().filter(|c| c.status.is_current()).collect();
        assert!(current.iter().any(|c| c.id == best.id), "after {city} from {source}: best {:?} is {:?}", best.object, best.status);
    }
    assert_eq!(h.current("located_in")[0].0, "Rome");
}

#[test]
fn outweigh_margin_is_still_validated_but_no_longer_changes_a_decision() {
    let bad = EngineConfig { outweigh_margin: Some(-1.0), ..Default::default() };
    let hooks = Hooks { clock: TestClock::at("2026-01-01T00:00:00Z"), ids: None, merge: None, judge: None };
    let err = Engine::new(std::rc::Rc::new(credence::MemoryStore::new()), &bad, hooks).err().unwrap();
    assert_eq!((err.code, err.field.as_deref()), (ErrorCode::InvalidInput, Some("outweighMargin")));
    let run_with = |margin: Option<f64>| {
        let h = harness(EngineConfig { outweigh_margin: margin, ..Default::default() });
        h.write(from(cand("located_in", "Paris"), "a", 0.9));
        h.write(from(cand("located_in", "Rome"), "b", 0.3)).action
    };
    assert_eq!(run_with(Some(10.0)), run_with(None));
    assert_eq!(run_with(None), Action::Outweighed);
}

#[test]
fn a_write_whose_observation_is_the_latest_extends_the_filter_instead_of_recomputing_it() {
    let h = harness(EngineConfig::default());
    let cities = ["Oslo", "Rome", "Lima", "Kyiv"];
    let mut per_write = Vec::new();
    for i in 0..40 {
        let before = credence::belief::filter_steps();
        h.write(from(cand("located_in", cities[(i / 5) % 4]), &format!("s{i}"), 0.6 + (i % 4) as f64 * 0.1));
        per_write.push(credence::belief::filter_steps() - before);
    }
    // 40 observations in the slot by the end; a pass from scratch would take as many steps.
    assert!(per_write[10..].iter().all(|n| *n <= 2), "{per_write:?}");
    assert_eq!(h.current("located_in")[0].0, "Kyiv");
}
