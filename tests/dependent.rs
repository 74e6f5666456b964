#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used)]
//! Dependent facts (SPEC §7): a changed or retracted value flags the current
//! claims of the predicates that depend on it; a person or a later write
//! settles the flag.
mod common;

use common::*;
use credence::engine::{RetractOptions, Undone};
use credence::model::{ConflictKind, ConflictStatus, Status};
use credence::predicates::PredicateSpec;
use credence::{EngineConfig, ErrorCode};

fn job_and_office(h: &Harness) -> String {
    h.write(cand("works_at", "Acme"));
    h.write(cand("work_location", "Acme HQ, Boston")).claim.id
}

#[test]
fn a_new_employer_flags_the_work_location_with_the_change_as_the_newer_side() {
    let h = harness(EngineConfig::default());
    let office = job_and_office(&h);
    let moved = h.write(cand("works_at", "Globex"));
    assert_eq!(moved.conflicts.len(), 1, "the outcome reports the flag");
    let flag = &moved.conflicts[0];
    assert_eq!((flag.kind, flag.status), (ConflictKind::Dependent, ConflictStatus::Open));
    assert_eq!((flag.predicate.as_str(), flag.earlier.id.as_str()), ("work_location", office.as_str()));
    assert_eq!((flag.newer.object.as_str(), flag.newer.predicate.as_str()), ("Globex", "works_at"));
    assert!(flag.reason.contains("\"Acme\"") && flag.reason.contains("\"Globex\""), "{}", flag.reason);
    let listed = run(h.engine.conflicts(Some(ConflictStatus::Open))).unwrap();
    assert_eq!(listed.iter().map(|c| c.id.clone()).collect::<Vec<_>>(), vec![flag.id.clone()]);
    // Flagged, not changed: the location is still believed until someone decides.
    assert_eq!(h.current("work_location"), vec![("Acme HQ, Boston".into(), "active".into())]);
    // A second change does not ask the same question twice while it is open.
    assert!(h.write(cand("works_at", "Initech")).conflicts.is_empty());
}

#[test]
fn a_flag_settled_undone_and_settled_again_undoes_what_the_last_settlement_did() {
    // The undone keep_newer's retraction stayed on the flag, so undoing a later
    // keep_both tried to undo it again: UNDO_STALE (audit, 2026-12-03).
    let h = harness(EngineConfig::default());
    job_and_office(&h);
    let flag = h.write(cand("works_at", "Globex")).conflicts[0].id.clone();
    let before: Vec<_> = h.all("work_location").into_iter().map(|c| (c.id, c.status, c.valid_to)).collect();
    for settlement in ["keep_newer", "keep_both", "keep_earlier", "keep_newer", "keep_newer"] {
        run(h.engine.settle(&flag, settlement, Some("ana"))).unwrap();
        let undone = run(h.engine.undo(&flag)).unwrap_or_else(|e| panic!("undo of {settlement}: {}", e.message));
        assert_eq!(undone.status, ConflictStatus::Open, "{settlement}");
        let now: Vec<_> = h.all("work_location").into_iter().map(|c| (c.id, c.status, c.valid_to)).collect();
        assert_eq!(now, before, "after undoing {settlement}");
    }
}

#[test]
fn keep_newer_retracts_the_dependent_fact_and_undo_restores_it() {
    let h = harness(EngineConfig::default());
    let office = job_and_office(&h);
    let flag = h.write(cand("works_at", "Globex")).conflicts[0].id.clone();
    let before = h.all("work_location");
    let settled = run(h.engine.settle(&flag, "keep_newer", Some("ana"))).unwrap();
    assert_eq!(settled.earlier.status, Status::Retracted);
    assert!(settled.earlier.valid_to.is_some());
    assert_eq!(settled.newer.status, Status::Active, "the employer change itself is untouched");
    assert!(h.current("work_location").is_empty());
    assert_eq!(h.current("works_at"), vec![("Globex".into(), "active".into())]);
    let reopened = run(h.engine.undo(&flag)).unwrap();
    assert_eq!(reopened.status, ConflictStatus::Open);
    let after: Vec<_> = h.all("work_location").into_iter().map(|c| (c.id, c.status, c.valid_to)).collect();
    let expected: Vec<_> = before.into_iter().map(|c| (c.id, c.status, c.valid_to)).collect();
    assert_eq!(after, expected);
    assert_eq!(after[0].0, office);
}

#[test]
fn keep_earlier_says_it_still_holds() {
    let h = harness(EngineConfig::default());
    job_and_office(&h);
    let flag = h.write(cand("works_at", "Globex")).conflicts[0].id.clone();
    run(h.engine.settle(&flag, "keep_earlier", None)).unwrap();
    assert_eq!(h.current("work_location"), vec![("Acme HQ, Boston".into(), "active".into())]);
    assert_eq!(h.current("works_at"), vec![("Globex".into(), "active".into())]);
}

#[test]
fn retracting_the_employer_flags_too_and_undoing_it_withdraws_the_flag() {
    let h = harness(EngineConfig::default());
    let job = h.write(cand("works_at", "Acme")).claim.id;
    h.write(cand("job_title", "Engineer"));
    h.write(cand("manager", "Dana"));
    h.clock.advance_days(1.0);
    let r = run(h.engine.retract(&job, &RetractOptions { reason: Some("left".into()), ..Default::default() })).unwrap();
    let mut flagged: Vec<&str> = r.dependents.iter().map(|c| c.predicate.as_str()).collect();
    flagged.sort();
    assert_eq!(flagged, vec!["job_title", "manager"]);
    assert!(r.dependents[0].reason.contains("retracted"), "{}", r.dependents[0].reason);
    assert_eq!(r.dependents[0].newer.status, Status::Retracted);
    match run(h.engine.undo_any(&r.id)).unwrap() {
        Undone::Retraction(u) => assert!(u.undone),
        other => panic!("{other:?}"),
    }
    assert!(run(h.engine.conflicts(Some(ConflictStatus::Open))).unwrap().is_empty(), "the flags it raised are withdrawn");
    let moot = run(h.engine.conflicts(Some(ConflictStatus::Moot))).unwrap();
    assert_eq!(moot.len(), 2);
    let refused = run(h.engine.settle(&moot[0].id, "keep_newer", None)).unwrap_err();
    assert_eq!(refused.code, ErrorCode::ConflictAlreadySettled, "a closed flag is not settled");
}

#[test]
fn a_later_write_settles_the_flag() {
    let h = harness(EngineConfig::default());
    job_and_office(&h);
    let flag = h.write(cand("works_at", "Globex")).conflicts[0].id.clone();
    h.write(cand("work_location", "Acme HQ, Boston"));
    let all = run(h.engine.conflicts(None)).unwrap();
    assert_eq!(all.iter().find(|c| c.id == flag).unwrap().status, ConflictStatus::ResolvedByEvidence);

    let h = harness(EngineConfig::default());
    job_and_office(&h);
    let flag = h.write(cand("works_at", "Globex")).conflicts[0].id.clone();
    h.write(cand("work_location", "Globex Tower, Austin"));
    let all = run(h.engine.conflicts(None)).unwrap();
    assert_eq!(all.iter().find(|c| c.id == flag).unwrap().status, ConflictStatus::Moot);
}

#[test]
fn a_dependent_fact_written_with_the_change_is_not_flagged() {
    let h = harness(EngineConfig::default());
    job_and_office(&h);
    h.clock.advance_days(1.0);
    let out = run(h.engine.remember_many(&[cand("works_at", "Globex"), cand("work_location", "Globex Tower")], &Default::default())).unwrap();
    assert!(out.iter().all(|o| o.conflicts.is_empty()), "the new office came with the new job");
    assert_eq!(h.current("work_location"), vec![("Globex Tower".into(), "active".into())]);
}

#[test]
fn user_specs_add_and_override_dependencies() {
    let mut timezone = PredicateSpec::implicit("timezone");
    timezone.depends_on = vec!["lives in".into()];
    let mut office = PredicateSpec::implicit("work_location");
    office.depends_on = vec![];
    let h = harness(EngineConfig { predicates: vec![timezone, office], ..Default::default() });
    h.write(cand("located_in", "NYC"));
    h.write(cand("timezone", "EST"));
    h.write(cand("works_at", "Acme"));
    h.write(cand("work_location", "Boston"));
    let moved = h.write(cand("located_in", "SF"));
    assert_eq!(moved.conflicts.iter().map(|c| c.predicate.as_str()).collect::<Vec<_>>(), vec!["timezone"]);
    assert!(h.write(cand("works_at", "Globex")).conflicts.is_empty(), "work_location's built-in dependency was overridden");
    let mut bad = PredicateSpec::implicit("x");
    bad.depends_on = vec![" ".into()];
    let err = credence::engine::Engine::new(std::rc::Rc::new(credence::MemoryStore::new()), &EngineConfig { predicates: vec![bad], ..Default::default() }, credence::engine::Hooks { clock: h.clock.clone(), ids: None, merge: None, judge: None }).err().unwrap();
    assert_eq!((err.code, err.field.as_deref()), (ErrorCode::InvalidInput, Some("predicates[0].dependsOn[0]")));
}

#[test]
fn a_person_settling_the_employer_flags_what_hangs_on_it() {
    let h = harness(EngineConfig::default());
    h.write(cand("works_at", "Acme"));
    h.write(cand("manager", "Dana"));
    let asked = h.write_with(cand("works_at", "Globex"), with_strategy("ask_user")).unwrap();
    assert!(asked.conflicts.iter().all(|c| c.kind == ConflictKind::AskUser), "asking is not a change yet");
    h.clock.advance_days(1.0);
    run(h.engine.settle(&asked.conflicts[0].id, "keep_newer", Some("ana"))).unwrap();
    let open = run(h.engine.conflicts(Some(ConflictStatus::Open))).unwrap();
    assert_eq!(open.len(), 1);
    assert_eq!((open[0].kind, open[0].earlier.object.as_str(), open[0].newer.object.as_str()), (ConflictKind::Dependent, "Dana", "Globex"));
    assert!(open[0].reason.contains("from \"Acme\" to \"Globex\""), "{}", open[0].reason);
}

#[test]
fn a_fixed_clock_still_flags_what_was_written_before_the_change() {
    // Every write at one instant (a frozen `now`, or two writes in one millisecond).
    let h = harness(EngineConfig::default());
    let write = |c| run(h.engine.remember(&c, &Default::default())).unwrap();
    write(cand("works_at", "Acme"));
    let office = write(cand("work_location", "Acme HQ, Boston")).claim.id;
    // Same instant: weighed with Acme, not ordered after it (SPEC §3); a
    // better-trusted source wins outright, so the held value changes.
    let moved = write(from(cand("works_at", "Globex"), "hr", 0.95));
    assert_eq!(moved.conflicts.len(), 1, "the flag is raised whatever the clock says");
    assert_eq!(moved.conflicts[0].earlier.id, office);
}

#[test]
fn a_failing_flag_commit_reports_that_the_change_stands_and_its_dependents_went_unflagged() {
    // The flags are a second commit; a re-send replays and changes nothing, so
    // the error must say what stood and what was not done (audit, 2026-12-03).
    let h = harness(EngineConfig::default());
    job_and_office(&h);
    let store = h.store.clone();
    let cut = move || *store.fail.borrow_mut() = Some("commit");
    *h.store.before_commit.borrow_mut() = Some((credence::model::SlotRef::new("user", "works_at"), Box::new(cut)));
    let e = h.write_with(cand("works_at", "Globex"), credence::WriteOptions::default()).unwrap_err();
    *h.store.fail.borrow_mut() = None;
    assert_eq!(e.code, ErrorCode::StoreFailed);
    assert!(e.message.contains("the change to works_at itself was committed; the facts that depend on it were not flagged"), "{}", e.message);
    assert_eq!(h.current("works_at"), vec![("Globex".into(), "active".into())]);
}

#[test]
fn withdrawing_a_scheduled_change_withdraws_its_flags_and_undo_raises_them_again() {
    let h = harness(EngineConfig::default());
    job_and_office(&h);
    let mut next = cand("works_at", "Globex");
    next.valid_from = Some("2026-09-01".into());
    let moved = h.write(next);
    assert_eq!(moved.conflicts.len(), 1, "the scheduled change flags the location");
    let flag = moved.conflicts[0].id.clone();
    let r = run(h.engine.retract(&moved.claim.id, &RetractOptions::default())).unwrap();
    assert!(r.dependents.is_empty(), "nothing it depends on changed: Acme holds on");
    assert_eq!(h.current("works_at"), vec![("Acme".into(), "active".into())]);
    let flags = run(h.engine.conflicts(None)).unwrap();
    let withdrawn = flags.iter().find(|c| c.id == flag).unwrap();
    assert_eq!(withdrawn.status, ConflictStatus::Moot, "the question about the withdrawn change closed");
    run(h.engine.undo_any(&r.id)).unwrap();
    let open = run(h.engine.conflicts(Some(ConflictStatus::Open))).unwrap();
    assert_eq!(open.len(), 1, "the schedule is back, so is the question: {open:?}");
    assert_eq!(open[0].newer.id, moved.claim.id);
    assert!(run(h.engine.check_invariants()).unwrap().is_empty());
}
