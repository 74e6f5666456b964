#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used)]
//! The five relations, valid time, belief rules and disputes (SPEC §3–§4).
mod common;

use common::*;
use credence::model::{Action, Candidate, ConflictStatus, Relation, Status};
use credence::{EngineConfig, ErrorCode, RecallOptions, WriteOptions};

#[test]
fn a_move_supersedes_and_keeps_the_old_city_as_history() {
    let h = harness(EngineConfig::default());
    let nyc = h.write(cand("located_in", "NYC"));
    let sf = h.write(cand("lives in", "San Francisco"));
    assert_eq!(sf.action, Action::Superseded);
    assert_eq!(sf.relation, Some(Relation::Supersede));
    assert_eq!(sf.claim.supersedes.as_deref(), Some(nyc.claim.id.as_str()));
    let old = &sf.affected[0];
    assert_eq!((old.object.as_str(), old.status), ("NYC", Status::Superseded));
    assert_eq!(old.valid_to, Some(sf.claim.effective_from()));
    assert_eq!(old.superseded_by.as_deref(), Some(sf.claim.id.as_str()));
    assert_eq!(h.current("located_in"), vec![("San Francisco".into(), "active".into())]);
    assert_eq!(h.all("located_in").len(), 2, "nothing is deleted");
}

#[test]
fn the_same_value_confirms_whatever_its_spelling() {
    let h = harness(EngineConfig::default());
    let a = h.write(from(cand("located_in", "New York"), "chat", 0.8));
    let b = h.write(from(cand("located_in", "  new   YORK."), "email", 0.8));
    assert_eq!(b.action, Action::Confirmed);
    assert_eq!(b.claim.id, a.claim.id);
    assert_eq!(b.claim.object, "New York", "stored text never changes");
    assert_eq!(b.claim.provenance.len(), 2);
    assert!(b.claim.confidence > a.claim.confidence + 0.1, "a second source raises belief");
}

#[test]
fn a_repeat_from_the_same_source_adds_nothing() {
    let h = harness(EngineConfig::default());
    let a = h.write(from(cand("likes", "tea"), "chat", 0.8));
    let b = h.write(from(cand("likes", "tea"), "chat", 0.8));
    assert_eq!(b.action, Action::Confirmed);
    assert!((b.claim.confidence - a.claim.confidence).abs() < 1e-9);
    assert!((a.claim.confidence - 0.8).abs() < 1e-9, "one observation gives trust × extractor");
}

#[test]
fn a_more_specific_value_refines_on_its_own_evidence() {
    let h = harness(EngineConfig::default());
    let general = h.write(from(cand("located_in", "San Francisco"), "a", 0.8));
    let specific = h.write(from(cand("located_in", "San Francisco, CA"), "b", 0.8));
    assert_eq!(specific.action, Action::Refined);
    assert_eq!(specific.relation, Some(Relation::Refine));
    // Its own observation only: the general report supports it discounted in the filter (SPEC §3).
    assert_eq!(specific.claim.provenance.len(), 1);
    assert!(specific.claim.confidence > general.claim.confidence);
    assert_eq!(specific.affected[0].status, Status::Superseded);
    // A later report of the general form is a report of its own value: it
    // supports the specific one only discounted, so one more source saying
    // "san francisco" does not outweigh "San Francisco, CA" (0.8 + 0.425·0.425 vs 0.8·0.8).
    let again = h.write(from(cand("located_in", "san francisco"), "c", 0.8));
    assert_eq!((again.action, again.relation), (Action::Outweighed, Some(Relation::Refine)));
    assert_eq!(h.current("located_in"), vec![("San Francisco, CA".into(), "active".into())]);
    assert!(run(h.engine.check_invariants()).unwrap().is_empty());
}

#[test]
fn one_source_never_captures_many_sources_evidence_by_refining() {
    // SPEC §3: twenty stores' "Sudkamp" stay current against one store's "Sudkamp University".
    let h = harness(EngineConfig::default());
    for i in 0..20 {
        h.write(from(cand("author", "Sudkamp"), &format!("store{i}"), 0.8));
    }
    let one = h.write(from(cand("author", "Sudkamp University"), "store20", 0.5));
    assert_eq!((one.action, one.relation), (Action::Outweighed, Some(Relation::Refine)));
    assert_eq!(h.current("author"), vec![("Sudkamp".into(), "active".into())]);
    assert!(one.claim.confidence < 0.01, "{}", one.claim.confidence);
    // A weak guess never flattens a confident fact: a 0.3 "Paris, Texas" beside a user's 0.9 "Paris".
    let h = harness(EngineConfig::default());
    h.write(from(cand("located_in", "Paris"), "user", 0.9));
    let guess = h.write(from(cand("located_in", "Paris, Texas"), "guess", 0.3));
    assert_eq!(guess.action, Action::Outweighed);
    assert_eq!(h.current("located_in"), vec![("Paris".into(), "active".into())]);
    // Its own evidence carries it: a second, trusted source of the specific form refines.
    let carried = h.write(from(cand("located_in", "Paris, Texas"), "registry", 0.9));
    assert_eq!(carried.action, Action::Confirmed);
    assert_eq!(h.current("located_in"), vec![("Paris, Texas".into(), "active".into())]);
    let log = run(h.engine.why(&carried.claim.id)).unwrap().log;
    assert!(log.iter().any(|e| e.rule == "refine"), "{log:?}");
    assert!(run(h.engine.check_invariants()).unwrap().is_empty());
}

#[test]
fn multi_valued_facts_coexist() {
    let h = harness(EngineConfig::default());
    h.write(cand("allergic_to", "peanuts"));
    let o = h.write(cand("allergy", "shellfish"));
    assert_eq!((o.action, o.relation), (Action::Added, Some(Relation::Independent)));
    assert_eq!(h.current("allergic_to").len(), 2);
}

#[test]
fn an_older_valid_time_is_recorded_as_history() {
    let h = harness(EngineConfig::default());
    let mut sf = cand("located_in", "San Francisco");
    sf.valid_from = Some("2025-06-01".into());
    h.write(sf);
    let mut nyc = cand("located_in", "NYC");
    nyc.valid_from = Some("2020-01-01".into());
    let o = h.write(nyc);
    assert_eq!(o.action, Action::Historical);
    assert_eq!(o.claim.status, Status::Superseded);
    assert_eq!(o.claim.valid_to.map(|t| t.to_iso()), Some("2025-06-01T00:00:00.000Z".into()));
    assert_eq!(h.current("located_in"), vec![("San Francisco".into(), "active".into())]);
    let then = RecallOptions { predicate: Some("located_in".into()), at: Some("2021-03-01".into()), ..Default::default() };
    let past = run(h.engine.recall(None, &then)).unwrap();
    assert_eq!(past.iter().map(|c| c.object.as_str()).collect::<Vec<_>>(), vec!["NYC"]);
}

#[test]
fn a_weak_guess_never_flattens_a_confident_fact_but_can_revive() {
    let h = harness(EngineConfig::default());
    h.write(from(cand("works_at", "Acme"), "hr", 0.99));
    let mut guess = from(cand("works_at", "Globex"), "extractor", 0.8);
    guess.confidence = Some(0.2);
    let o = h.write(guess);
    assert_eq!((o.action, o.claim.status), (Action::Outweighed, Status::Outweighed));
    assert_eq!(h.current("works_at"), vec![("Acme".into(), "active".into())]);
    // Corroboration from independent, trusted sources revives it as the newer truth.
    h.write(from(cand("works_at", "Globex"), "linkedin", 0.9));
    let revived = h.write(from(cand("works_at", "Globex"), "payroll", 0.95));
    assert_eq!(h.current("works_at"), vec![("Globex".into(), "active".into())], "{revived:?}");
    let acme = h.all("works_at").into_iter().find(|c| c.object == "Acme").unwrap();
    assert_eq!(acme.status, Status::Superseded);
}

#[test]
fn a_birthday_dispute_waits_then_a_third_source_breaks_the_tie() {
    let h = harness(EngineConfig::default());
    let a = h.write(from(cand("born_on", "1990-03-04"), "crm", 0.8));
    let b = h.write(from(cand("birthday", "1990-04-03"), "chat", 0.8));
    assert_eq!((b.action, b.relation), (Action::Disputed, Some(Relation::Contradict)));
    assert_eq!(b.conflicts.len(), 1);
    assert_eq!(b.conflicts[0].earlier.id, a.claim.id);
    let both = h.current("born_on");
    assert!(both.iter().all(|(_, s)| s == "disputed"), "{both:?}");
    let open = run(h.engine.conflicts(Some(ConflictStatus::Open))).unwrap();
    assert_eq!(open.len(), 1);
    let c = h.write(from(cand("born_on", "1990-03-04"), "passport", 0.8));
    assert_eq!(c.action, Action::Confirmed);
    assert_eq!(h.current("born_on"), vec![("1990-03-04".into(), "active".into())]);
    let loser = h.all("born_on").into_iter().find(|c| c.object == "1990-04-03").unwrap();
    assert_eq!(loser.status, Status::Outweighed);
    let resolved = run(h.engine.conflicts(None)).unwrap();
    assert_eq!(resolved[0].status, ConflictStatus::ResolvedByEvidence);
}

#[test]
fn losing_a_contradiction_lowers_belief() {
    let h = harness(EngineConfig::default());
    let weak = h.write(from(cand("born_on", "1990-01-01"), "rumour", 0.6));
    let strong = h.write(from(cand("born_on", "1991-01-01"), "registry", 0.99));
    assert_eq!((strong.action, strong.relation), (Action::Added, Some(Relation::Contradict)));
    let loser = &strong.affected[0];
    assert_eq!(loser.status, Status::Outweighed);
    assert!(loser.confidence < weak.claim.confidence);
    let weak_now = h.write(from(cand("born_on", "1989-01-01"), "guess", 0.3));
    assert_eq!(weak_now.action, Action::Outweighed);
}

#[test]
fn belief_decays_toward_the_prior_on_time_varying_predicates_only() {
    let h = harness(EngineConfig::default());
    let fresh = h.write(from(cand("located_in", "Oslo"), "a", 0.9));
    let fixed = h.write(from(cand("born_in", "Bergen"), "a", 0.9));
    h.clock.advance_days(730.0);
    let later_tv = h.write(from(cand("located_in", "Oslo"), "a", 0.9));
    let later_fixed = h.write(from(cand("born_in", "Bergen"), "a", 0.9));
    // The same source re-observing refreshes the age: belief back where it was.
    assert!((later_tv.claim.confidence - fresh.claim.confidence).abs() < 1e-6);
    assert!((later_fixed.claim.confidence - fixed.claim.confidence).abs() < 1e-9);
    // Without a refresh, a two-year-old observation has decayed by two half-lives.
    h.write(from(cand("likes", "x"), "a", 0.9));
    let mut old = from(cand("timezone", "CET"), "a", 0.9);
    old.provenance.as_mut().unwrap().observed_at = Some("2020-01-01".into());
    let o = h.write(old);
    assert!(o.claim.confidence < 0.3, "{}", o.claim.confidence);
}

#[test]
fn idempotent_writes_change_memory_once() {
    let h = harness(EngineConfig::default());
    let mut c = cand("likes", "tea");
    c.id = Some("msg-17#fact-2".into());
    let a = h.write(c.clone());
    let b = h.write(c);
    assert!(b.replayed);
    assert_eq!((b.claim.id.clone(), b.slot_version), (a.claim.id.clone(), a.slot_version));
    assert_eq!(h.all("likes").len(), 1);
}

#[test]
fn every_write_is_explained_by_why() {
    let h = harness(EngineConfig::default());
    h.write(cand("located_in", "NYC"));
    let sf = h.write(cand("located_in", "SF"));
    let why = run(h.engine.why(&sf.claim.id)).unwrap();
    assert_eq!(why.lineage.iter().map(|c| c.object.as_str()).collect::<Vec<_>>(), vec!["NYC", "SF"]);
    let rules: Vec<&str> = why.log.iter().map(|e| e.rule.as_str()).collect();
    assert_eq!(rules, vec!["add", "supersede"]);
    assert_eq!(why.log[1].cause.op, "remember");
    assert_eq!(why.log[1].cause.object.as_deref(), Some("SF"));
    let e = run(h.engine.why("cl_nope")).unwrap_err();
    assert_eq!(e.code, ErrorCode::ClaimNotFound);
}

#[test]
fn bad_input_is_refused_before_anything_is_written() {
    let h = harness(EngineConfig::default());
    for (c, field) in [
        (cand("", "x"), "predicate"),
        (cand("likes", " "), "object"),
        ({ let mut c = cand("likes", "x"); c.confidence = Some(1.5); c }, "confidence"),
        ({ let mut c = cand("likes", "x"); c.valid_from = Some("soon".into()); c }, "validFrom"),
        (from(cand("likes", "x"), "s", -0.1), "provenance.sourceTrust"),
    ] {
        let e = h.write_with(c, WriteOptions::default()).unwrap_err();
        assert_eq!(e.field.as_deref(), Some(field), "{e:?}");
    }
    let e = h.write_with(cand("likes", "x"), with_strategy("yolo")).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidStrategy);
    assert!(h.all("likes").is_empty());
}

#[test]
fn a_failing_store_leaves_memory_exactly_as_it_was() {
    let h = harness(EngineConfig::default());
    h.write(cand("located_in", "NYC"));
    let slot = credence::model::SlotRef::new("user", "located_in");
    let stored = || run(h.store.inner.load_slot(&slot)).unwrap();
    let before = stored();
    *h.store.fail.borrow_mut() = Some("commit");
    let e = h.write_with(cand("located_in", "SF"), WriteOptions::default()).unwrap_err();
    assert_eq!(e.code, ErrorCode::StoreFailed);
    *h.store.fail.borrow_mut() = None;
    assert_eq!(stored(), before);
    assert_eq!(h.write(cand("located_in", "SF")).action, Action::Superseded, "succeeds when retried");
}

#[test]
fn lost_races_are_retried_then_reported() {
    let h = harness(EngineConfig { retries: Some(2), ..Default::default() });
    h.store.lose_races.set(2);
    let o = h.write(cand("likes", "tea"));
    assert_eq!(o.attempts, 3);
    h.store.lose_races.set(3);
    let e = h.write_with(cand("likes", "jam"), WriteOptions::default()).unwrap_err();
    assert_eq!(e.code, ErrorCode::Concurrency);
    let stale = h.write_with(cand("likes", "jam"), WriteOptions { strategy: None, expected_version: Some(0) }).unwrap_err();
    assert_eq!((stale.code, stale.field.as_deref()), (ErrorCode::Concurrency, Some("expectedVersion")));
}

#[test]
fn a_same_instant_tie_is_a_dispute_in_any_order_and_stated_equal_times_contradict() {
    // SPEC §3: reports of one instant are weighed together, never "last writer wins".
    let at = |value: &str| {
        observed(from(cand("located_in", value), "agent", 0.8), "2025-03-01T00:00:00Z")
    };
    let state = |first: &str, second: &str| {
        let h = harness(EngineConfig::default());
        h.write(at(first));
        let o = run(h.engine.remember(&at(second), &WriteOptions::default())).unwrap();
        assert_eq!((o.action, o.relation), (Action::Disputed, Some(Relation::Contradict)));
        let mut current = h.current("located_in");
        current.sort();
        current
    };
    assert_eq!(state("NYC", "SF"), state("SF", "NYC"));
    // Writes that state no time are made at the write: the later one is the
    // later report even on a clock that has not moved.
    let h = harness(EngineConfig::default());
    let same_ms = |c: Candidate| run(h.engine.remember(&c, &WriteOptions::default())).unwrap();
    same_ms(cand("located_in", "NYC"));
    assert_eq!(same_ms(cand("located_in", "SF")).action, Action::Superseded);
    let h = harness(EngineConfig::default());
    let mut a = cand("works_at", "Acme");
    a.valid_from = Some("2025-01-01".into());
    h.write(a);
    let mut b = cand("works_at", "Globex");
    b.valid_from = Some("2025-01-01".into());
    assert_eq!(h.write(b).relation, Some(Relation::Contradict));
}

#[test]
fn a_tie_of_three_values_reached_by_corroboration_is_one_dispute_in_every_order() {
    // Two sources for each of three values, one instant: whichever value's
    // second report comes last, it reaches the other two and joins their
    // dispute (it used to stay outweighed beside them, so the state named
    // the two values written first).
    let reports = [("NYC", "a"), ("NYC", "b"), ("SF", "c"), ("SF", "d"), ("LA", "e"), ("LA", "f")];
    for predicate in ["located_in", "born_on"] {
        let mut states = std::collections::BTreeSet::new();
        for order in all_orders(reports.len()) {
            let h = harness(EngineConfig::default());
            for i in order {
                let (value, source) = reports[i];
                h.write(observed(from(cand(predicate, value), source, 0.8), "2025-03-01T00:00:00Z"));
            }
            let mut state: Vec<(String, Status)> = h.all(predicate).into_iter().map(|c| (c.object, c.status)).collect();
            state.sort_by(|a, b| a.0.cmp(&b.0));
            assert!(run(h.engine.check_invariants()).unwrap().is_empty(), "{predicate}: {state:?}");
            states.insert(format!("{state:?}"));
        }
        assert_eq!(states.len(), 1, "{predicate}: {states:?}");
        let only = states.into_iter().next().unwrap();
        assert_eq!(only.matches("Disputed").count(), 3, "{predicate}: {only}");
    }
}

#[test]
fn values_reported_equally_at_one_instant_get_equal_confidence_in_any_write_order() {
    // More values than the prior expects (1/prior = 5): one by one, a value
    // first written later used to take a smaller share of "not seen yet".
    for values in [3usize, 5, 7] {
        let names = &["Oslo", "Rome", "Lima", "Kyiv", "Accra", "Quito", "Hanoi"][..values];
        let reports: Vec<(usize, String)> = (0..2 * values).map(|i| (i % values, format!("s{i}"))).collect();
        let forward: Vec<usize> = (0..reports.len()).collect();
        let backward: Vec<usize> = forward.iter().rev().copied().collect();
        let interleaved: Vec<usize> = (0..reports.len()).map(|i| (i * 11 + 3) % reports.len()).collect();
        let mut seen: Option<Vec<(String, f64)>> = None;
        for order in [forward, backward, interleaved] {
            let h = harness(EngineConfig::default());
            for i in order {
                let (value, source) = &reports[i];
                h.write(observed(from(cand("located_in", names[*value]), source, 0.8), "2025-03-01T00:00:00Z"));
            }
            let mut state: Vec<(String, f64)> = h.all("located_in").into_iter().map(|c| (c.object, c.confidence)).collect();
            state.sort_by(|a, b| a.0.cmp(&b.0));
            assert_eq!(state.len(), values, "{state:?}");
            let first = state[0].1;
            assert!(state.iter().all(|(_, c)| (c - first).abs() < 1e-9), "{values} values: {state:?}");
            if let Some(before) = &seen {
                assert!(before.iter().zip(&state).all(|(a, b)| (a.1 - b.1).abs() < 1e-9), "{values} values: {before:?} vs {state:?}");
            }
            seen = Some(state);
        }
    }
}

#[test]
fn remember_many_writes_each_slot_once_with_the_same_decisions() {
    let batch = harness(EngineConfig::default());
    let single = harness(EngineConfig::default());
    let writes = vec![
        cand("located_in", "NYC"),
        cand("allergic_to", "peanuts"),
        from(cand("located_in", "nyc"), "other", 0.8),
        cand("allergic_to", "shellfish"),
        { let mut c = cand("likes", "tea"); c.id = Some("k1".into()); c },
        { let mut c = cand("likes", "tea"); c.id = Some("k1".into()); c },
    ];
    let outs = run(batch.engine.remember_many(&writes, &WriteOptions::default())).unwrap();
    let actions: Vec<&str> = outs.iter().map(|o| o.action.as_str()).collect();
    assert_eq!(actions, vec!["added", "added", "confirmed", "added", "added", "added"]);
    assert!(outs[5].replayed);
    assert_eq!(outs[0].slot_version, 1, "one commit for the located_in slot");
    for w in &writes {
        run(single.engine.remember(w, &WriteOptions::default())).unwrap();
    }
    let objects = |h: &Harness, p: &str| h.current(p);
    for p in ["located_in", "allergic_to", "likes"] {
        assert_eq!(objects(&batch, p), objects(&single, p), "{p}");
    }
    let bad = vec![cand("likes", "x"), cand("", "y")];
    let e = run(batch.engine.remember_many(&bad, &WriteOptions::default())).unwrap_err();
    assert_eq!(e.field.as_deref(), Some("candidates[1].predicate"));
    assert_eq!(batch.current("likes").len(), 1, "nothing of a refused batch is written");
}
