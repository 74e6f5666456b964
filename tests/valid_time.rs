#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used)]
//! Valid time on read, history that is never duplicated, and refinement of a
//! disputed claim (SPEC §3, §6).
mod common;

use common::*;
use credence::model::{Action, Claim, ConflictStatus, Status};
use credence::{EngineConfig, RecallOptions};

fn valid(mut c: credence::model::Candidate, from: &str) -> credence::model::Candidate {
    c.valid_from = Some(from.into());
    c
}

fn at(h: &Harness, predicate: &str, when: &str) -> Vec<Claim> {
    let opts = RecallOptions { predicate: Some(predicate.into()), at: Some(when.into()), ..Default::default() };
    run(h.engine.recall(None, &opts)).unwrap()
}

fn objects(claims: &[Claim]) -> Vec<&str> {
    claims.iter().map(|c| c.object.as_str()).collect()
}

#[test]
fn re_asserting_history_corroborates_it_instead_of_copying_it() {
    let h = harness(EngineConfig::default());
    let rutte = h.write(from(valid(cand("prime_minister", "Rutte"), "2020-01-01"), "news", 0.8));
    h.write(from(valid(cand("prime_minister", "Schoof"), "2024-07-02"), "news", 0.8));
    for source in ["wiki", "archive", "almanac"] {
        let again = h.write(from(valid(cand("prime_minister", "Rutte"), "2020-01-01"), source, 0.8));
        assert_eq!(again.action, Action::Confirmed, "{again:?}");
        assert_eq!(again.claim.id, rutte.claim.id);
    }
    assert_eq!(objects(&at(&h, "prime_minister", "2022-01-01")), vec!["Rutte"]);
    assert_eq!(h.all("prime_minister").iter().filter(|c| c.object == "Rutte").count(), 1, "no second copy of the history");
    assert_eq!(h.current("prime_minister"), vec![("Schoof".into(), "active".into())]);
    let history = h.all("prime_minister").into_iter().find(|c| c.object == "Rutte").unwrap();
    assert_eq!(history.provenance.len(), 4);
}

#[test]
fn a_future_valid_from_is_a_scheduled_change() {
    let h = harness(EngineConfig::default());
    h.write(from(cand("located_in", "Paris"), "a", 0.8));
    let moving = h.write(from(valid(cand("located_in", "Berlin"), "2026-06-01"), "a", 0.8));
    assert_eq!(moving.action, Action::Superseded);
    let paris = h.all("located_in").into_iter().find(|c| c.object == "Paris").unwrap();
    assert_eq!(paris.valid_to, Some(moving.claim.effective_from()), "the current claim ends when the change starts");
    assert_eq!(objects(&run(h.engine.recall(None, &RecallOptions { predicate: Some("located_in".into()), ..Default::default() })).unwrap()), vec!["Paris"]);
    assert_eq!(objects(&at(&h, "located_in", "2026-07-01")), vec!["Berlin"]);
    h.clock.advance_days(200.0);
    assert_eq!(h.current("located_in"), vec![("Berlin".into(), "active".into())]);
}

#[test]
fn a_stated_valid_to_ends_a_claim_without_replacement() {
    let h = harness(EngineConfig::default());
    let mut visa = from(cand("holds_visa", "H-1B"), "hr", 0.9);
    visa.valid_to = Some("2026-03-01".into());
    h.write(visa);
    assert_eq!(h.current("holds_visa").len(), 1);
    assert_eq!(objects(&at(&h, "holds_visa", "2026-02-01")), vec!["H-1B"]);
    h.clock.advance_days(90.0);
    assert!(h.current("holds_visa").is_empty(), "expired on its stated validTo");
    assert!(at(&h, "holds_visa", "2026-04-01").is_empty());
}

#[test]
fn belief_at_a_past_moment_counts_only_what_was_observed_by_then() {
    let h = harness(EngineConfig::default());
    // Each report observed when its period began (SPEC §4: evidence at its observedAt).
    h.write(observed(from(valid(cand("located_in", "Oslo"), "2025-01-01"), "a", 0.9), "2025-01-01"));
    h.write(observed(from(valid(cand("located_in", "Oslo"), "2025-12-01"), "b", 0.9), "2025-12-01"));
    let early = at(&h, "located_in", "2025-02-01");
    let late = at(&h, "located_in", "2025-12-02");
    assert!(late[0].confidence > early[0].confidence + 0.05, "{} vs {}", late[0].confidence, early[0].confidence);
    // Reading never writes: the stored belief is unchanged by the reads.
    let stored = h.all("located_in")[0].confidence;
    at(&h, "located_in", "2025-02-01");
    assert_eq!(h.all("located_in")[0].confidence, stored);
}

#[test]
fn refining_a_disputed_claim_moves_the_dispute_to_the_refined_claim() {
    let h = harness(EngineConfig::default());
    h.write(from(cand("born_in", "Springfield"), "crm", 0.8));
    let rival = h.write(from(cand("born_in", "Shelbyville"), "chat", 0.8));
    assert_eq!(rival.action, Action::Disputed);
    let refined = h.write(from(cand("born_in", "Springfield, Illinois"), "crm", 0.8));
    assert_eq!(refined.action, Action::Refined);
    assert_eq!(refined.claim.status, Status::Disputed);
    let open = run(h.engine.conflicts(Some(ConflictStatus::Open))).unwrap();
    assert_eq!(open.len(), 1);
    let ids = [open[0].earlier.id.as_str(), open[0].newer.id.as_str()];
    assert!(ids.contains(&refined.claim.id.as_str()), "the dispute names the refined claim: {ids:?}");
    assert!(refined.claim.conflict_ids.contains(&open[0].id));
    // Later evidence still resolves it.
    h.write(from(cand("born_in", "Shelbyville"), "passport", 0.95));
    h.write(from(cand("born_in", "Shelbyville"), "registry", 0.95));
    let closed = run(h.engine.conflicts(None)).unwrap();
    assert_eq!(closed[0].status, ConflictStatus::ResolvedByEvidence);
    assert_eq!(h.current("born_in"), vec![("Shelbyville".into(), "active".into())]);
}

#[test]
fn late_evidence_can_give_the_slot_back_to_the_value_a_weak_report_replaced() {
    let h = harness(EngineConfig::default());
    let obs = |object: &str, source: &str, trust: f64, when: &str| {
        let mut c = from(cand("located_in", object), source, trust);
        c.provenance.as_mut().unwrap().observed_at = Some(when.into());
        c
    };
    h.write(obs("Lisbon", "a", 0.9, "2025-12-01"));
    let moved = h.write(obs("Rome", "b", 0.9, "2025-12-20"));
    assert_eq!(moved.action, Action::Superseded);
    // Three late reports, observed before and after the claimed move, say Lisbon still.
    h.write(obs("Lisbon", "c", 0.9, "2025-12-10"));
    h.write(obs("Lisbon", "d", 0.9, "2025-12-25"));
    h.write(obs("Lisbon", "e", 0.9, "2025-12-28"));
    assert_eq!(h.current("located_in")[0].0, "Lisbon");
    assert_eq!(h.current("located_in").len(), 1);
}

/// "Rome" was superseded by "oslo", which a back-dated "Oslo, Norway" then
/// refined: the refinement carries an observation from before "oslo" began,
/// so it starts inside Rome's period. An as-of read there shows one value
/// (the refinement, which stands for the claim that ended Rome), not both.
#[test]
fn an_as_of_read_follows_a_successor_that_was_refined() {
    let h = harness(EngineConfig::default());
    let observed = |object: &str, day: &str| observed(from(cand("located_in", object), "a", 0.9), &format!("2026-01-{day}"));
    h.clock.advance_days(30.0);
    h.write(observed("Oslo, Norway", "01"));
    h.write(observed("Rome", "11"));
    h.write(observed("oslo", "21"));
    // Source a's latest answer is "oslo" (the 21st): its back-dated
    // "Oslo, Norway" no longer counts (SPEC §4), so it waits, outweighed.
    let refined = h.write(observed("Oslo, Norway", "16"));
    assert_eq!(refined.action, Action::Outweighed);
    assert_eq!(objects(&at(&h, "located_in", "2026-01-12")), vec!["Rome"]);
    assert_eq!(at(&h, "located_in", "2026-01-18").len(), 1, "one value at a time");
    assert!(run(h.engine.check_invariants()).unwrap().is_empty());
}

/// A value stated from 2024 after an older one was retracted only later (its
/// interval reaches the retraction): an as-of read inside both intervals
/// shows the value that started later, never both (the wide model's as-of
/// check, 38 of 40 seeds before).
#[test]
fn an_as_of_read_prefers_the_value_stated_after_a_retracted_one_began() {
    let h = harness(EngineConfig::default());
    let cet = h.write(from(valid(cand("located_in", "Berlin"), "2023-01-01"), "a", 0.9)).claim;
    let opts = credence::engine::RetractOptions::default();
    run(h.engine.retract(&cet.id, &opts)).unwrap();
    h.write(from(valid(cand("located_in", "Oslo"), "2024-01-01"), "a", 0.9));
    assert_eq!(objects(&at(&h, "located_in", "2023-06-01")), vec!["Berlin"]);
    assert_eq!(objects(&at(&h, "located_in", "2025-01-01")), vec!["Oslo"], "one value at a time");
    let all = RecallOptions { predicate: Some("located_in".into()), include_history: true, ..Default::default() };
    assert_eq!(run(h.engine.recall(None, &all)).unwrap().len(), 2, "both claims are kept");
}

/// Claims a merge replaced keep no `validTo` of their own; once the merged
/// claim is retracted, an as-of read after it shows neither of them again
/// (wide model seed 1007).
#[test]
fn claims_a_retracted_merge_replaced_stay_replaced_on_read() {
    let store = std::rc::Rc::new(FlakyStore::new(std::rc::Rc::new(credence::store::MemoryStore::new())));
    let h = harness_with(EngineConfig::default(), Some(joining_merge()), None, store);
    h.write(from(valid(cand("works_at", "Acme"), "2023-06-01"), "a", 0.8));
    h.write(from(valid(cand("works_at", "Initech"), "2023-06-01"), "a", 0.8));
    let merged = h.write_with(from(cand("works_at", "Acme"), "b", 0.8), with_strategy("llm_merge")).unwrap();
    assert_eq!(merged.action, Action::Merged);
    run(h.engine.retract(&merged.claim.id, &credence::engine::RetractOptions::default())).unwrap();
    h.clock.advance_days(1.0);
    let now = credence::time::Timestamp::from_millis(h.clock.0.get()).to_iso();
    assert_eq!(objects(&at(&h, "works_at", &now)), Vec::<&str>::new(), "what the merge replaced does not come back");
    assert_eq!(objects(&at(&h, "works_at", "2023-07-01")).len(), 1, "the merged claim held then");
}

/// Five heads of government from one source, written in time order and
/// newest first: either way the last two are too close to call after five
/// values (a new value starts with little prior), so both end disputed — a
/// late report of the earlier one no longer silently takes the slot back
/// from the later one (which left the later one outweighed). One source
/// changing its answer counts for its latest answer (SPEC §4): Sunak
/// follows Truss without a dispute, in either order.
#[test]
fn late_history_reads_as_time_order_does() {
    let terms = [("Brown", "2007-06-27"), ("Cameron", "2010-05-11"), ("May", "2016-07-13"), ("Truss", "2022-09-06"), ("Sunak", "2022-10-25")];
    let statuses = |order: &[usize]| {
        let h = harness(EngineConfig::default());
        for &i in order {
            h.write(from(valid(cand("head_of_government", terms[i].0), terms[i].1), "news", 0.8));
        }
        let mut all: Vec<(String, Status)> = h.all("head_of_government").into_iter().map(|c| (c.object, c.status)).collect();
        all.sort_by(|a, b| a.0.cmp(&b.0));
        all
    };
    let in_time_order = statuses(&[0, 1, 2, 3, 4]);
    let newest_first = statuses(&[4, 2, 1, 0, 3]);
    assert_eq!(in_time_order, newest_first);
    let active: Vec<&str> = newest_first.iter().filter(|(_, s)| *s == Status::Active).map(|(o, _)| o.as_str()).collect();
    assert_eq!(active, vec!["Sunak"]);
    assert!(newest_first.iter().all(|(o, s)| o == "Sunak" || *s == Status::Superseded), "{newest_first:?}");
}

/// History recorded newest first: each earlier report that lands inside a
/// history claim's period ends that claim where it begins, so the stored
/// timeline has no overlaps (May ended at Sunak's start before Truss arrived).
#[test]
fn history_recorded_inside_history_ends_it_where_it_begins() {
    let h = harness(EngineConfig::default());
    h.write(from(valid(cand("head_of_government", "Sunak"), "2022-10-25"), "news", 0.9));
    h.write(from(valid(cand("head_of_government", "May"), "2016-07-13"), "news", 0.9));
    let truss = h.write(from(valid(cand("head_of_government", "Truss"), "2022-09-06"), "news", 0.9));
    let all = h.all("head_of_government");
    let may = all.iter().find(|c| c.object == "May").unwrap();
    assert_eq!(may.valid_to.map(|t| t.to_iso()).as_deref(), Some("2022-09-06T00:00:00.000Z"));
    assert_eq!(may.superseded_by.as_deref(), Some(truss.claim.id.as_str()));
    assert!(truss.affected.iter().any(|c| c.id == may.id), "the outcome reports the change");
    assert_eq!(objects(&at(&h, "head_of_government", "2020-01-01")), vec!["May"]);
}

/// A weak report of a change loses to the value then current (outweighed);
/// the slot moves on; a strong report later corroborates the change: weighed
/// at its start, it now beats the history covering it, so it becomes that
/// period's history instead of staying outweighed for good.
#[test]
fn a_corroborated_report_of_the_past_becomes_the_history_it_fell_inside() {
    let h = harness(EngineConfig::default());
    // Each report made when its period began (SPEC §4: a report made today
    // that Casey holds since 2012 would be evidence that Casey holds today).
    let hog = |name: &str, day: &str, source: &str, trust: f64| observed(from(valid(cand("head_of_government", name), day), source, trust), day);
    h.write(hog("Casey", "2012-03-20", "s0", 0.9));
    h.write(hog("Casey", "2012-03-20", "s1", 0.7));
    let blake = h.write(hog("Blake", "2012-05-06", "s3", 0.7));
    assert_eq!(blake.action, Action::Outweighed);
    h.write(hog("Gray", "2012-12-31", "s3", 0.8));
    assert_eq!(objects(&at(&h, "head_of_government", "2012-09-01")), vec!["Casey"]);
    let again = h.write(hog("Blake", "2012-05-06", "s2", 0.95));
    assert_eq!(again.claim.status, Status::Superseded, "history now");
    assert_eq!(again.claim.valid_to.map(|t| t.to_iso()).as_deref(), Some("2012-12-31T00:00:00.000Z"));
    assert_eq!(objects(&at(&h, "head_of_government", "2012-09-01")), vec!["Blake"]);
    assert_eq!(objects(&at(&h, "head_of_government", "2012-04-01")), vec!["Casey"]);
    assert_eq!(objects(&at(&h, "head_of_government", "2013-06-01")), vec!["Gray"]);
}

/// A claim whose stated validTo has passed is no rival for a value that
/// begins after it: a weak report of what came next still becomes current
/// (it was outweighed by the ended claim, and nothing was current after it).
#[test]
fn a_value_beginning_after_a_stated_end_follows_it_without_a_contest() {
    let h = harness(EngineConfig::default());
    let mut noel = from(valid(cand("head_of_government", "Noel"), "2007-08-12"), "s2", 0.95);
    noel.valid_to = Some("2007-10-30".into());
    let noel = h.write(noel).claim;
    let lane = h.write(from(valid(cand("head_of_government", "Lane"), "2007-10-30"), "s2", 0.7));
    assert_eq!(lane.action, Action::Added);
    assert_eq!(lane.claim.status, Status::Active);
    let now = credence::time::Timestamp::from_millis(h.clock.0.get()).to_iso();
    assert_eq!(objects(&at(&h, "head_of_government", &now)), vec!["Lane"]);
    let ended = run(h.engine.why(&noel.id)).unwrap().claim;
    assert_eq!(ended.valid_to.map(|t| t.to_iso()).as_deref(), Some("2007-10-30T00:00:00.000Z"), "its stated end stands");
    h.write(from(valid(cand("head_of_government", "Noel"), "2007-08-12"), "s1", 0.9));
    let now = credence::time::Timestamp::from_millis(h.clock.0.get()).to_iso();
    assert_eq!(objects(&at(&h, "head_of_government", &now)), vec!["Lane"], "more evidence for the ended claim does not revive it");
    assert_eq!(objects(&at(&h, "head_of_government", "2007-09-01")), vec!["Noel"]);
    let v = run(h.engine.check_invariants()).unwrap();
    assert!(v.is_empty(), "{v:?}");
}

/// History reported with its own end is never revived by evidence: the
/// report itself says the value ended (newest first, with stated ends, the
/// last two prime ministers of five were disputed and the earlier one's
/// stated end was cleared).
#[test]
fn history_that_ends_as_stated_is_not_reverted_to() {
    let terms = [("Brown", "2007-06-27"), ("Cameron", "2010-05-11"), ("May", "2016-07-13"), ("Truss", "2022-09-06"), ("Sunak", "2022-10-25")];
    let h = harness(EngineConfig::default());
    for i in [4, 2, 1, 0, 3] {
        let mut c = from(valid(cand("head_of_government", terms[i].0), terms[i].1), "news", 0.8);
        c.valid_to = terms.get(i + 1).map(|t| t.1.to_string());
        h.write(c);
    }
    let all = h.all("head_of_government");
    let status = |name: &str| all.iter().find(|c| c.object == name).map(|c| (c.status, c.valid_to.map(|t| t.to_iso())));
    assert_eq!(status("Sunak"), Some((Status::Active, None)));
    assert_eq!(status("Truss"), Some((Status::Superseded, Some("2022-10-25T00:00:00.000Z".into()))));
    assert_eq!(objects(&at(&h, "head_of_government", "2023-08-30")), vec!["Sunak"]);
}

/// A later report of a running value that states when it ended ends the
/// claim, as it would had that report come first (a knowledge base's later
/// snapshot adds the end time of a term).
#[test]
fn a_corroborating_report_with_a_stated_end_ends_a_running_claim() {
    let h = harness(EngineConfig::default());
    h.write(from(valid(cand("position_held", "Chair"), "2019-01-01"), "snapshot-1", 0.9));
    let mut ended = from(valid(cand("position_held", "Chair"), "2019-01-01"), "snapshot-2", 0.9);
    ended.valid_to = Some("2023-06-01".into());
    let o = h.write(ended);
    assert_eq!(o.action, Action::Confirmed);
    assert_eq!(o.claim.valid_to.map(|t| t.to_iso()).as_deref(), Some("2023-06-01T00:00:00.000Z"));
    let now = credence::time::Timestamp::from_millis(h.clock.0.get()).to_iso();
    assert!(at(&h, "position_held", &now).is_empty(), "it no longer holds");
    assert_eq!(objects(&at(&h, "position_held", "2021-01-01")), vec!["Chair"]);
    // Time order gives the same claim: the end stated first.
    let h2 = harness(EngineConfig::default());
    let mut first = from(valid(cand("position_held", "Chair"), "2019-01-01"), "snapshot-2", 0.9);
    first.valid_to = Some("2023-06-01".into());
    h2.write(first);
    h2.write(from(valid(cand("position_held", "Chair"), "2019-01-01"), "snapshot-1", 0.9));
    assert_eq!(h2.all("position_held")[0].valid_to, o.claim.valid_to);
}

/// A weak report of the next value loses to the running one; a later report
/// states that the running one ended when the next began: the waiting value
/// has no rival left and becomes current (nothing was current after the end).
#[test]
fn a_waiting_value_becomes_current_once_the_claim_it_lost_to_ends_as_stated() {
    let h = harness(EngineConfig::default());
    h.write(from(valid(cand("position_held", "Harper"), "2025-05-22"), "s1", 0.95));
    h.write(from(valid(cand("position_held", "Harper"), "2025-05-22"), "s2", 0.9));
    let lane = h.write(from(valid(cand("position_held", "Lane"), "2025-11-10"), "s0", 0.6));
    assert_eq!(lane.action, Action::Outweighed);
    let mut ended = from(valid(cand("position_held", "Harper"), "2025-05-22"), "s0", 0.95);
    ended.valid_to = Some("2025-11-10".into());
    let o = h.write(ended);
    assert!(o.affected.iter().any(|c| c.id == lane.claim.id && c.status == Status::Active), "{:?}", o.affected);
    let now = credence::time::Timestamp::from_millis(h.clock.0.get()).to_iso();
    assert_eq!(objects(&at(&h, "position_held", &now)), vec!["Lane"]);
    assert_eq!(objects(&at(&h, "position_held", "2025-08-01")), vec!["Harper"]);
    let v = run(h.engine.check_invariants()).unwrap();
    assert!(v.is_empty(), "{v:?}");
}

#[test]
fn a_value_that_comes_back_reads_the_same_in_every_arrival_order() {
    // Wikidata-style reports: X since 2001, Y since 2010, X again since 2016.
    let reports = [("X", "2001-01-01"), ("Y", "2010-01-01"), ("X", "2016-01-01")];
    let orders = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]];
    for order in orders {
        let h = harness(EngineConfig::default());
        for i in order {
            let (value, from_) = reports[i];
            h.write(from(valid(cand("elo_rating", value), from_), "wikidata", 0.9));
        }
        for (when, want) in [("2005-07-01", "X"), ("2012-07-01", "Y"), ("2018-07-01", "X")] {
            assert_eq!(objects(&at(&h, "elo_rating", when)), vec![want], "order {order:?} at {when}: {:?}", h.all("elo_rating"));
        }
        assert_eq!(h.current("elo_rating"), vec![("X".into(), "active".into())], "order {order:?}");
        assert!(run(h.engine.check_invariants()).unwrap().is_empty(), "order {order:?}");
    }
}

#[test]
fn a_report_of_the_current_value_from_an_earlier_start_covers_that_period_too() {
    for order in [[0, 1], [1, 0]] {
        let h = harness(EngineConfig::default());
        let reports = [("2345", "2001-01-01"), ("2345", "2016-01-01")];
        for i in order {
            h.write(from(valid(cand("elo_rating", reports[i].0), reports[i].1), "wikidata", 0.9));
        }
        for when in ["2005-07-01", "2018-07-01"] {
            assert_eq!(objects(&at(&h, "elo_rating", when)), vec!["2345"], "order {order:?} at {when}");
        }
        assert!(run(h.engine.check_invariants()).unwrap().is_empty(), "order {order:?}");
    }
}

#[test]
fn one_value_reported_with_many_starts_reads_from_the_earliest_in_every_order() {
    let starts = ["2001-01-01", "2004-01-01", "2009-01-01"];
    for order in [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]] {
        let h = harness(EngineConfig::default());
        for i in order {
            h.write(from(valid(cand("elo_rating", "2345"), starts[i]), "wikidata", 0.9));
        }
        for when in ["2002-07-01", "2005-07-01", "2010-07-01"] {
            assert_eq!(objects(&at(&h, "elo_rating", when)), vec!["2345"], "order {order:?} at {when}: {:?}", h.all("elo_rating"));
        }
        assert_eq!(h.current("elo_rating"), vec![("2345".into(), "active".into())], "order {order:?}");
        assert!(run(h.engine.check_invariants()).unwrap().is_empty(), "order {order:?}");
    }
}

#[test]
fn a_first_report_of_a_general_value_meets_history_of_its_specific_form() {
    // "Oslo, Norway" is history (2023 until CET, since retracted); "oslo" from 2024 is that history's value in
    // a less specific form: it confirms the history, so a later "Oslo, Norway" never overlaps it.
    let h = harness(EngineConfig::default());
    let cet = h.write(from(cand("timezone", "CET"), "c", 0.6));
    h.clock.advance_days(0.5);
    let history = h.write(from(valid(cand("timezone", "Oslo, Norway"), "2023-06-01"), "d", 0.3));
    assert_eq!(history.action, Action::Historical);
    h.clock.advance_days(1.0);
    run(h.engine.retract(&cet.claim.id, &Default::default())).unwrap();
    // A less specific form is a report of its own value (SPEC §3 refine): it
    // no longer confirms the specific history; nothing may overlap either way.
    let general = h.write(from(valid(cand("timezone", "oslo"), "2024-06-01"), "a", 0.9));
    assert_ne!(general.claim.id, history.claim.id, "{general:?}");
    h.write(from(cand("timezone", "Oslo, Norway"), "b", 0.8));
    assert!(run(h.engine.check_invariants()).unwrap().is_empty(), "{:?}", h.all("timezone"));
}

#[test]
fn values_that_alternate_with_repeated_starts_read_the_same_in_every_arrival_order() {
    // Yearly statements as Wikidata gives them: each value stated again with
    // later starts (X 2001, Y 2002, X 2003, X 2005, Y 2006). A report stated
    // between two starts of one value's claim splits it, wherever that claim
    // stands (current or history) when the report arrives.
    let reports = [("2372", "2001-01-01"), ("2360", "2002-01-01"), ("2372", "2003-01-01"), ("2372", "2005-01-01"), ("2360", "2006-01-01")];
    let reads = [("2001-07-01", "2372"), ("2002-07-01", "2360"), ("2003-07-01", "2372"), ("2005-07-01", "2372"), ("2006-07-01", "2360")];
    let orders = all_orders(reports.len());
    assert_eq!(orders.len(), 120);
    for order in orders {
        let h = harness(EngineConfig::default());
        for &i in &order {
            let (value, from_) = reports[i];
            h.write(from(valid(cand("elo_rating", value), from_), "wikidata", 0.9));
        }
        for (when, want) in reads {
            assert_eq!(objects(&at(&h, "elo_rating", when)), vec![want], "order {order:?} at {when}: {:?}", h.all("elo_rating"));
        }
        assert_eq!(h.current("elo_rating"), vec![("2360".into(), "active".into())], "order {order:?}");
        assert!(run(h.engine.check_invariants()).unwrap().is_empty(), "order {order:?}");
    }
}

/// History of "Oslo, Norway" (2023-06 until a stated end), a scheduled
/// "Lima", and a general "Oslo" from 2025-05 that `strategy` stores.
fn oslo_history_then_general(strategy: &str) -> (Harness, Claim, credence::model::Outcome) {
    let h = harness(EngineConfig::default());
    let mut norway = valid(from(cand("located_in", "Oslo, Norway"), "d", 0.3), "2023-06-01");
    norway.valid_to = Some("2026-01-25".into());
    let norway = h.write(norway).claim;
    h.write(valid(from(cand("located_in", "Lima"), "d", 0.3), "2026-02-05"));
    let oslo = h.write_with(valid(from(cand("located_in", "Oslo"), "c", 0.6), "2025-05-18"), with_strategy(strategy)).unwrap();
    (h, norway, oslo)
}

#[test]
fn a_general_value_asked_about_confirms_history_of_its_specific_form() {
    // Wide model seed 1648511668: ask_user stored "Oslo" from 2025-05 beside
    // history of "Oslo, Norway" covering that time, as a new value.
    // Since SPEC §3's refine revision "Oslo" is its own value; source d's
    // later answer (Lima) ends the weight of its "Oslo, Norway", so the
    // more trusted "Oslo" takes 2025-05 on as history before Lima. What the
    // seed found must still hold: never two values for one time.
    let (h, norway, oslo) = oslo_history_then_general("ask_user");
    assert_ne!(oslo.claim.id, norway.id, "{oslo:?}");
    assert!(oslo.conflicts.is_empty());
    assert_eq!(objects(&at(&h, "located_in", "2025-06-01")), vec!["Oslo"]);
    assert!(run(h.engine.check_invariants()).unwrap().is_empty());
}

#[test]
fn a_refinement_never_carries_its_general_claims_start_over_history_of_its_value() {
    // The same seed: "Oslo, Norway" refined an appended "Oslo" from 2025-05 and
    // took that start, over history of "Oslo, Norway" until 2026-01-25.
    let (h, norway, oslo) = oslo_history_then_general("append");
    assert_eq!(oslo.action, Action::Appended, "{oslo:?}");
    h.clock.advance_days(84.0);
    // Since claims know their kind (issue #43) the appended "Oslo" is a
    // free-text entry: a value neither refines nor weighs against it, so the
    // write is related to the slot's values alone, and never reaches over
    // the history of its own value either.
    let written = h.write(from(cand("located_in", "Oslo, Norway"), "c", 0.6));
    assert_ne!(written.action, Action::Refined, "{written:?}");
    assert!(written.claim.effective_from() >= norway.valid_to.unwrap(), "it starts after that history ends: {written:?}");
    assert!(run(h.engine.check_invariants()).unwrap().is_empty());
    let then = at(&h, "located_in", "2025-08-01");
    assert!(matches!(objects(&then)[..], ["Oslo" | "Oslo, Norway"]), "one value then: {:?}", objects(&then));
}

fn ends(mut c: credence::model::Candidate, to: &str) -> credence::model::Candidate {
    c.valid_to = Some(to.into());
    c
}

#[test]
fn a_report_of_now_is_not_folded_into_a_period_of_its_value_that_ended() {
    // Audit: "Oslo" 2025-01..2025-06, then "Oslo" (now) was confirmed into the
    // ended claim and recall of now answered nothing.
    for predicate in ["located_in", "likes"] {
        let h = harness(EngineConfig::default());
        let ended = h.write(ends(valid(cand(predicate, "Oslo"), "2025-01-01"), "2025-06-01")).claim;
        let now = h.write(cand(predicate, "Oslo"));
        assert_ne!(now.claim.id, ended.id, "{predicate}: {now:?}");
        assert_eq!(h.current(predicate), vec![("Oslo".to_string(), "active".to_string())], "{predicate}");
        assert_eq!(objects(&at(&h, predicate, "2025-03-01")), vec!["Oslo"], "{predicate}");
        assert!(run(h.engine.check_invariants()).unwrap().is_empty());
    }
}

#[test]
fn a_report_of_now_moves_a_scheduled_claim_of_its_value_to_now() {
    for predicate in ["located_in", "likes"] {
        let h = harness(EngineConfig::default());
        let scheduled = h.write(valid(cand(predicate, "Oslo"), "2026-06-01")).claim;
        let now = h.write(cand(predicate, "Oslo"));
        assert_eq!((now.action, &now.claim.id), (Action::Confirmed, &scheduled.id), "{predicate}");
        assert_eq!(h.current(predicate), vec![("Oslo".to_string(), "active".to_string())], "{predicate}: holds now");
        assert!(run(h.engine.check_invariants()).unwrap().is_empty());
    }
}

#[test]
fn an_earlier_stint_of_a_value_is_history_of_its_own_not_a_new_end_for_the_current_one() {
    // Audit: "Acme since 2016", then "Acme 2001 to 2005" moved the claim back
    // to 2001 and ended it in 2005: memory no longer said Acme now.
    let h = harness(EngineConfig::default());
    let since = h.write(valid(cand("works_at", "Acme"), "2016-01-01")).claim;
    let stint = h.write(ends(valid(cand("works_at", "Acme"), "2001-01-01"), "2005-12-31"));
    assert_ne!(stint.claim.id, since.id, "{stint:?}");
    assert_eq!(h.current("works_at"), vec![("Acme".to_string(), "active".to_string())]);
    assert_eq!(objects(&at(&h, "works_at", "2003-01-01")), vec!["Acme"]);
    assert!(at(&h, "works_at", "2010-01-01").is_empty(), "nothing was said of 2006-2015");
    assert_eq!(objects(&at(&h, "works_at", "2020-01-01")), vec!["Acme"]);
    assert!(run(h.engine.check_invariants()).unwrap().is_empty());
}

#[test]
fn corroborating_a_retracted_claim_never_stretches_its_period_over_another_of_its_value() {
    // Audit: Tea from 2025-10 retracted, Tea (no start) retracted, then "tea"
    // 2026-02-20..03-23 moved the second claim's start back over the first.
    for predicate in ["likes", "located_in"] {
        let h = harness(EngineConfig::default());
        let first = h.write(valid(cand(predicate, "Tea"), "2025-10-06")).claim;
        run(h.engine.retract(&first.id, &credence::engine::RetractOptions::default())).unwrap();
        h.clock.advance_days(30.0);
        let second = h.write(cand(predicate, "Tea")).claim;
        h.clock.advance_days(30.0);
        run(h.engine.retract(&second.id, &credence::engine::RetractOptions::default())).unwrap();
        h.clock.advance_days(30.0);
        // The first held until 2026-01-02, the second from 2026-02-02 (its first observation).
        h.write(ends(valid(cand(predicate, "tea"), "2025-12-20"), "2026-02-20"));
        assert!(run(h.engine.check_invariants()).unwrap().is_empty(), "{predicate}");
    }
}

/// Late evidence that the earlier value still holds gives it back its
/// stated end: it holds until then, not forever.
#[test]
fn a_value_reverted_to_keeps_its_stated_end() {
    let h = harness(EngineConfig::default());
    let mut oslo = from(cand("located_in", "Oslo"), "a", 0.6);
    oslo.valid_to = Some("2026-12-01".into());
    let oslo = h.write(oslo).claim;
    h.clock.advance_days(30.0);
    h.write(from(cand("located_in", "Rome"), "b", 0.6));
    let cut = h.all("located_in").into_iter().find(|c| c.id == oslo.id).unwrap();
    assert_eq!((cut.status, cut.stated_valid_to), (Status::Superseded, oslo.valid_to));
    for source in ["c", "d", "e"] {
        // Late reports, observed before Rome's report was.
        let mut again = observed(from(cand("located_in", "Oslo"), source, 0.9), "2026-01-20T00:00:00Z");
        again.valid_to = Some("2026-12-01".into());
        h.write(again);
    }
    let all = h.all("located_in");
    let held = all.iter().find(|c| c.id == oslo.id).unwrap();
    assert!(held.status.is_current(), "{all:#?}");
    let log = run(h.engine.why(&oslo.id)).unwrap().log;
    assert!(log.iter().any(|e| e.rule == "supersede_reverted"), "{log:#?}");
    assert_eq!((held.valid_to, held.stated_valid_to), (oslo.valid_to, None), "held again until its stated end");
    assert_eq!(objects(&at(&h, "located_in", "2026-06-01")), vec!["Oslo"]);
    assert!(!objects(&at(&h, "located_in", "2027-06-01")).contains(&"Oslo"), "Oslo ended as stated");
    let v = run(h.engine.check_invariants()).unwrap();
    assert!(v.is_empty(), "{v:?}");
}

