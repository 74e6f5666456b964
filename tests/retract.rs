#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used)]
//! `retract` and its undo (SPEC §6, §7): a fact withdrawn with no replacement,
//! restored exactly, and refused with UNDO_STALE once the slot moved on.
mod common;

use common::*;
use credence::engine::{RetractOptions, Undone};
use credence::model::Status;
use credence::{EngineConfig, ErrorCode, RecallOptions};

fn opts(reason: &str) -> RetractOptions {
    RetractOptions { reason: Some(reason.into()), by: Some("ana".into()), at: None }
}

#[test]
fn retract_ends_validity_logs_it_and_undo_restores_exactly() {
    let h = harness(EngineConfig::default());
    let job = h.write(cand("works_at", "Acme")).claim;
    h.clock.advance_days(1.0);
    let before = h.all("works_at");
    let r = run(h.engine.retract(&job.id, &opts("left, no new job yet"))).unwrap();
    assert_eq!(r.claim.status, Status::Retracted);
    assert_eq!(r.claim.valid_to, Some(r.at));
    assert_eq!((r.by.as_str(), r.reason.as_deref(), r.undone), ("ana", Some("left, no new job yet"), false));
    assert!(h.current("works_at").is_empty(), "no longer current, nothing replaces it");
    let why = run(h.engine.why(&job.id)).unwrap();
    let logged = why.log.iter().find(|e| e.rule == "retract").unwrap();
    assert_eq!(logged.cause.by.as_deref(), Some("ana"));
    assert!(logged.note.contains("left, no new job yet"), "{}", logged.note);
    // As of a moment before the retraction the fact still held.
    let then = RecallOptions { predicate: Some("works_at".into()), at: Some(job.recorded_at.to_iso()), ..Default::default() };
    assert_eq!(run(h.engine.recall(None, &then)).unwrap().len(), 1);

    let undone = match run(h.engine.undo_any(&r.id)).unwrap() {
        Undone::Retraction(u) => u,
        other => panic!("expected a retraction, got {other:?}"),
    };
    assert!(undone.undone);
    assert_eq!(h.all("works_at"), before, "undo restores status and validity exactly");
    let again = run(h.engine.undo_any(&r.id)).unwrap_err();
    assert_eq!(again.code, ErrorCode::UndoStale, "{}", again.message);
}

#[test]
fn a_later_value_makes_the_undo_stale_and_nothing_is_written() {
    let h = harness(EngineConfig::default());
    let job = h.write(cand("works_at", "Acme")).claim;
    let r = run(h.engine.retract(&job.id, &opts("left"))).unwrap();
    let next = h.write(cand("works_at", "Globex")).claim;
    assert_eq!(h.current("works_at"), vec![("Globex".into(), "active".into())]);
    let before = h.all("works_at");
    let err = run(h.engine.undo_any(&r.id)).unwrap_err();
    assert_eq!(err.code, ErrorCode::UndoStale);
    assert!(err.message.contains(&next.id) && err.message.contains("Globex"), "names the later change: {}", err.message);
    assert_eq!(h.all("works_at"), before, "nothing written");
}

#[test]
fn re_asserting_a_retracted_value_is_a_new_fact() {
    let h = harness(EngineConfig::default());
    let first = h.write(cand("located_in", "Lisbon")).claim;
    run(h.engine.retract(&first.id, &RetractOptions::default())).unwrap();
    let again = h.write(cand("located_in", "Lisbon"));
    assert_ne!(again.claim.id, first.id);
    assert_eq!(h.current("located_in"), vec![("Lisbon".into(), "active".into())]);
    let all = h.all("located_in");
    let old = all.iter().find(|c| c.id == first.id).unwrap();
    assert!(old.valid_to.unwrap() <= again.claim.effective_from(), "the two validity intervals do not overlap");
}

#[test]
fn refusals_name_the_claim_or_field_and_write_nothing() {
    let h = harness(EngineConfig::default());
    let a = h.write(cand("located_in", "NYC")).claim;
    h.write(cand("located_in", "SF"));
    let missing = run(h.engine.retract("cl_nope", &RetractOptions::default())).unwrap_err();
    assert_eq!((missing.code, missing.field.as_deref()), (ErrorCode::ClaimNotFound, Some("claimId")));
    let superseded = run(h.engine.retract(&a.id, &RetractOptions::default())).unwrap_err();
    assert_eq!(superseded.code, ErrorCode::ClaimNotLive);
    assert!(superseded.message.contains("superseded"), "{}", superseded.message);
    let sf = h.current("located_in");
    let sf_id = h.all("located_in").into_iter().find(|c| c.object == "SF").unwrap().id;
    let future = RetractOptions { at: Some("2999-01-01".into()), ..Default::default() };
    let err = run(h.engine.retract(&sf_id, &future)).unwrap_err();
    assert_eq!((err.code, err.field.as_deref()), (ErrorCode::InvalidTime, Some("at")));
    let early = RetractOptions { at: Some("1990-01-01".into()), ..Default::default() };
    assert_eq!(run(h.engine.retract(&sf_id, &early)).unwrap_err().code, ErrorCode::InvalidTime);
    assert_eq!(h.current("located_in"), sf, "nothing written by a refused retraction");
    let unknown = run(h.engine.undo_any("rt:1:cl_nope")).unwrap_err();
    assert_eq!(unknown.code, ErrorCode::ConflictNotFound);
}

#[test]
fn a_stated_past_end_is_kept_and_retracting_twice_is_refused() {
    let h = harness(EngineConfig::default());
    let id = h.write(cand("located_in", "Porto")).claim.id;
    h.clock.advance_days(10.0);
    let at = RetractOptions { at: Some("2026-01-05".into()), ..Default::default() };
    let r = run(h.engine.retract(&id, &at)).unwrap();
    assert_eq!(r.claim.valid_to.unwrap().to_iso(), "2026-01-05T00:00:00.000Z");
    let twice = run(h.engine.retract(&id, &RetractOptions::default())).unwrap_err();
    assert_eq!(twice.code, ErrorCode::ClaimNotLive);
    assert!(twice.message.contains("retracted"));
    run(h.engine.undo_any(&r.id)).unwrap();
    let r2 = run(h.engine.retract(&id, &RetractOptions::default())).unwrap();
    assert_ne!(r2.id, r.id, "a second retraction has its own id");
}

#[test]
fn retracting_one_side_of_a_dispute_closes_it_and_undo_reopens_it() {
    let h = harness(EngineConfig::default());
    h.write(from(cand("born_on", "1990-01-01"), "a", 0.8));
    let disputed = h.write(from(cand("born_on", "1991-02-02"), "b", 0.8));
    let conflict = disputed.conflicts[0].id.clone();
    let before = h.all("born_on");
    let r = run(h.engine.retract(&disputed.claim.id, &opts("typo"))).unwrap();
    assert_eq!(h.current("born_on"), vec![("1990-01-01".into(), "active".into())], "the rival stands alone");
    let closed = run(h.engine.conflicts(None)).unwrap();
    assert_eq!(closed[0].status, credence::model::ConflictStatus::Moot);
    assert_eq!(run(h.engine.settle(&conflict, "keep_newer", None)).unwrap_err().code, ErrorCode::ConflictAlreadySettled);
    run(h.engine.undo_any(&r.id)).unwrap();
    let after: Vec<_> = h.all("born_on").into_iter().map(|c| (c.id, c.status)).collect();
    assert_eq!(after, before.into_iter().map(|c| (c.id, c.status)).collect::<Vec<_>>());
    assert_eq!(run(h.engine.conflicts(None)).unwrap()[0].status, credence::model::ConflictStatus::Open);
}

/// SPEC is silent on a retracted value written again for a time its retracted
/// claim covers; our rule: evidence never overrides a person's retraction.
#[test]
fn a_retracted_value_restated_for_its_period_starts_after_the_retraction_or_is_history() {
    let h = harness(EngineConfig::default());
    let mut first = cand("works_at", "Acme");
    first.valid_from = Some("2025-01-01".into());
    let job = h.write(first).claim;
    h.clock.advance_days(10.0);
    let r = run(h.engine.retract(&job.id, &opts("left"))).unwrap();
    h.clock.advance_days(1.0);

    // Stated for a period inside the retracted one: recorded on the retracted claim, which stays retracted.
    let mut inside = from(cand("works_at", "ACME"), "b", 0.8);
    inside.valid_from = Some("2025-03-01".into());
    inside.valid_to = Some("2025-06-01".into());
    let o = h.write(inside);
    assert_eq!((o.action.as_str(), o.claim.id.as_str(), o.claim.status), ("historical", job.id.as_str(), Status::Retracted));
    assert_eq!(o.claim.provenance.len(), 2, "the observation is kept");
    assert!(run(h.engine.why(&job.id)).unwrap().log.iter().any(|e| e.rule == "confirm_retracted"));

    // Open-ended from before the retraction: a new claim that starts where the retraction ended the old one.
    let mut again = from(cand("works_at", "Acme"), "c", 0.8);
    again.valid_from = Some("2024-06-01".into());
    let o = h.write(again);
    assert_ne!(o.claim.id, job.id);
    assert_eq!(o.claim.valid_from, Some(r.at));
    assert_eq!(h.current("works_at"), vec![("Acme".to_string(), "active".to_string())]);
    assert!(run(h.engine.check_invariants()).unwrap().is_empty());
    // Restoring the retracted claim now would overlap the new one.
    assert_eq!(run(h.engine.undo_any(&r.id)).unwrap_err().code, ErrorCode::UndoStale);
}

#[test]
fn earlier_evidence_never_moves_a_claim_into_a_retraction_of_its_value() {
    let h = harness(EngineConfig::default());
    let first = h.write(cand("timezone", "Oslo")).claim;
    h.clock.advance_days(3.0);
    let r = run(h.engine.retract(&first.id, &opts("moved away"))).unwrap();
    h.clock.advance_days(5.0);
    let again = h.write(cand("timezone", "Oslo")).claim;
    assert_ne!(again.id, first.id, "a new fact after the retraction");
    // Corroborated by an observation made while the retracted claim still held.
    let mut late = from(cand("timezone", "Oslo"), "c", 0.7);
    late.provenance.as_mut().unwrap().observed_at = Some(first.recorded_at.to_iso());
    let o = h.write(late);
    assert_eq!((o.action.as_str(), o.claim.id.as_str()), ("confirmed", again.id.as_str()));
    assert_eq!(o.claim.provenance.len(), 2, "the observation is kept");
    assert_eq!(o.claim.valid_from, Some(r.at), "the start moves back only to where the retraction ended");
    assert!(run(h.engine.check_invariants()).unwrap().is_empty());
}

fn scheduled(predicate: &str, object: &str, from: &str) -> credence::model::Candidate {
    let mut c = cand(predicate, object);
    c.valid_from = Some(from.into());
    c
}

fn check_invariants(h: &Harness) {
    let violations = run(h.engine.check_invariants()).unwrap();
    assert!(violations.is_empty(), "{violations:?}");
}

#[test]
fn a_scheduled_change_withdrawn_before_it_begins_never_holds_and_undo_brings_it_back() {
    let h = harness(EngineConfig::default());
    let paris = h.write(cand("located_in", "Paris")).claim;
    let berlin = h.write(scheduled("located_in", "Berlin", "2026-06-01")).claim;
    let before = h.all("located_in");
    let r = run(h.engine.retract(&berlin.id, &opts("the move fell through"))).unwrap();
    assert_eq!(r.claim.status, Status::Retracted);
    assert_eq!(r.claim.valid_to, Some(berlin.effective_from()), "an empty period: it never holds");
    let all = h.all("located_in");
    let kept = all.iter().find(|c| c.id == paris.id).unwrap();
    assert_eq!((kept.status, kept.valid_to, kept.superseded_by.as_deref()), (Status::Active, None, None), "Paris holds on");
    let later = RecallOptions { predicate: Some("located_in".into()), at: Some("2026-07-01".into()), ..Default::default() };
    let objects: Vec<String> = run(h.engine.recall(None, &later)).unwrap().into_iter().map(|c| c.object).collect();
    assert_eq!(objects, vec!["Paris".to_string()], "no Berlin after its planned start");
    let why = run(h.engine.why(&berlin.id)).unwrap();
    let logged = why.log.iter().find(|e| e.rule == "retract").unwrap();
    assert!(logged.note.contains("before it began") && logged.note.contains("Paris"), "{}", logged.note);
    check_invariants(&h);
    h.clock.advance_days(200.0);
    assert_eq!(h.current("located_in"), vec![("Paris".into(), "active".into())], "still Paris once the date passed");

    run(h.engine.undo_any(&r.id)).unwrap();
    let restored = h.all("located_in");
    let strip = |cs: &[credence::model::Claim]| cs.iter().map(|c| (c.id.clone(), c.status, c.valid_to, c.superseded_by.clone())).collect::<Vec<_>>();
    assert_eq!(strip(&restored), strip(&before), "undo puts the schedule back exactly");
    assert_eq!(h.current("located_in"), vec![("Berlin".into(), "active".into())]);
    check_invariants(&h);
}

#[test]
fn a_withdrawal_is_stale_to_undo_once_the_held_value_was_ended_again() {
    let h = harness(EngineConfig::default());
    h.write(cand("located_in", "Paris"));
    let berlin = h.write(scheduled("located_in", "Berlin", "2026-06-01")).claim;
    let r = run(h.engine.retract(&berlin.id, &RetractOptions::default())).unwrap();
    h.write(cand("located_in", "Rome"));
    let before = h.all("located_in");
    let err = run(h.engine.undo_any(&r.id)).unwrap_err();
    assert_eq!(err.code, ErrorCode::UndoStale, "{}", err.message);
    assert_eq!(h.all("located_in"), before, "nothing written");
    check_invariants(&h);
}

#[test]
fn a_scheduled_claim_can_be_retracted_but_not_at_a_time_before_a_past_start() {
    let h = harness(EngineConfig::default());
    let lisbon = h.write(scheduled("located_in", "Lisbon", "2025-06-01")).claim;
    let early = RetractOptions { at: Some("2025-01-01".into()), ..Default::default() };
    let err = run(h.engine.retract(&lisbon.id, &early)).unwrap_err();
    assert_eq!((err.code, err.field.as_deref()), (ErrorCode::InvalidTime, Some("at")), "it had begun: a stop before its start says nothing");
    // Scheduled with nothing before it: withdrawn, the slot simply holds nothing.
    let dog = h.write(scheduled("owns_pet", "Rex", "2026-09-01")).claim;
    run(h.engine.retract(&dog.id, &early)).unwrap();
    assert!(h.current("owns_pet").is_empty());
    check_invariants(&h);
}

/// A value stated to end was cut short by a scheduled change; withdrawing the
/// change lets it hold on until the end its report stated, not forever, and
/// undo cuts it short again.
#[test]
fn a_withdrawal_gives_the_held_value_back_its_stated_end() {
    let h = harness(EngineConfig::default());
    let mut oslo = cand("located_in", "Oslo");
    oslo.valid_to = Some("2026-12-01".into());
    let oslo = h.write(oslo).claim;
    let rome = h.write(scheduled("located_in", "Rome", "2026-06-01")).claim;
    let cut = h.all("located_in").into_iter().find(|c| c.id == oslo.id).unwrap();
    assert_eq!(cut.valid_to, Some(rome.effective_from()), "the schedule ends Oslo at its start");
    assert_eq!(cut.stated_valid_to, oslo.valid_to, "the stated end is kept beside it");
    check_invariants(&h);

    let r = run(h.engine.retract(&rome.id, &RetractOptions::default())).unwrap();
    let held = h.all("located_in").into_iter().find(|c| c.id == oslo.id).unwrap();
    assert_eq!((held.status, held.valid_to, held.stated_valid_to), (Status::Active, oslo.valid_to, None), "Oslo holds until December, as stated");
    let at = |t: &str| -> Vec<String> {
        let o = RecallOptions { predicate: Some("located_in".into()), at: Some(t.into()), ..Default::default() };
        run(h.engine.recall(None, &o)).unwrap().into_iter().map(|c| c.object).collect()
    };
    assert_eq!(at("2026-09-01"), vec!["Oslo".to_string()]);
    assert!(at("2027-01-01").is_empty(), "nothing holds past Oslo's stated end");
    check_invariants(&h);

    run(h.engine.undo_any(&r.id)).unwrap();
    let again = h.all("located_in").into_iter().find(|c| c.id == oslo.id).unwrap();
    assert_eq!((again.status, again.valid_to, again.stated_valid_to), (Status::Superseded, Some(rome.effective_from()), oslo.valid_to));
    assert_eq!(at("2026-09-01"), vec!["Rome".to_string()]);
    check_invariants(&h);
}
