#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used)]
//! `calibrate()` (SPEC §4) on the native engine: it learns which source to
//! trust and how fast a predicate changes, stores a versioned record that
//! survives reopening, and a memory never calibrated behaves as before.

mod common;

use std::rc::Rc;

use common::*;
use credence::calibrate::{CalibrateOptions, Calibration};
use credence::engine::{Engine, Hooks};
use credence::hooks::SequentialIds;
use credence::model::{Candidate, Provenance};
use credence::store::Store;
use credence::{EngineConfig, RecallOptions, WriteOptions};

const PLACES: [&str; 6] = ["Paris", "Oslo", "Lima", "Rome", "Kyiv", "Quito"];

/// A deterministic LCG: the world is the same on every run.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// 20 subjects whose `located_in` moves every ~80 days, reported every 8 days
/// for two years by "good" (right 95% of the time) and "poor" (right 50%),
/// both stating trust 0.8.
fn world(h: &Harness) {
    let mut rng = Lcg(7);
    for s in 0..20 {
        let subject = format!("p{s}");
        let mut truth = s % PLACES.len();
        for step in 0..90 {
            let day = step * 8;
            if rng.next() < 8.0 / 80.0 {
                truth = (truth + 1 + (rng.next() * 5.0) as usize) % PLACES.len();
            }
            let (source, reliability) = if step % 2 == 0 { ("good", 0.95) } else { ("poor", 0.5) };
            let value = if rng.next() < reliability { truth } else { (truth + 1 + (rng.next() * 5.0) as usize) % PLACES.len() };
            let observed = credence::time::Timestamp::from_millis((day as i64 + 20_454) * 86_400_000).to_iso();
            let c = Candidate {
                subject: Some(subject.clone()),
                predicate: "located_in".into(),
                object: PLACES[value].into(),
                provenance: Some(Provenance { source_id: source.into(), source_trust: Some(0.8), observed_at: Some(observed), ..Default::default() }),
                ..Default::default()
            };
            run(h.engine.remember(&c, &WriteOptions::default())).unwrap();
        }
    }
    h.clock.0.set((20_454 + 730) * 86_400_000);
}

fn calibrated() -> Harness {
    let h = harness(EngineConfig::default());
    world(&h);
    h
}

fn reopen(h: &Harness) -> Engine {
    let config = EngineConfig::default();
    Engine::new(h.store.clone(), &config, Hooks { clock: h.clock.clone(), ids: Some(Rc::new(SequentialIds::new())), merge: None, judge: None }).unwrap()
}

fn recall_confidence(engine: &Engine, subject: &str) -> f64 {
    let opts = RecallOptions { predicate: Some("located_in".into()), ..Default::default() };
    run(engine.recall(Some(subject), &opts)).unwrap().iter().map(|c| c.confidence).fold(0.0, f64::max)
}

#[test]
fn it_learns_which_source_to_trust_and_how_fast_places_change() {
    let h = calibrated();
    let record = run(h.engine.calibrate(&CalibrateOptions::default())).unwrap();
    assert_eq!(record.version, 1);
    let source = |id: &str| record.sources.iter().find(|s| s.source_id == id).unwrap().clone();
    let (good, poor) = (source("good"), source("poor"));
    assert!(good.reliability > 0.88 && poor.reliability < 0.68, "{good:?} {poor:?} {:?}", record.predicates);
    assert_eq!((good.observations, poor.observations), (900, 900));
    assert!(good.used && (good.stated_trust - 0.8).abs() < 1e-12);
    let place = &record.predicates[0];
    assert_eq!(place.predicate, "located_in");
    assert_eq!(place.configured_half_life_days, 365.0);
    // Moves every ~80 days to another of 6 places: a resample half-life near ln2·80·5/6 ≈ 46.
    assert!(place.half_life_days > 25.0 && place.half_life_days < 90.0, "{place:?}");
    // No place is a more specific form of another: nothing to learn about forms.
    assert!(record.forms.is_empty(), "{:?}", record.forms);
}

#[test]
fn never_calibrated_memory_reports_no_calibration() {
    let h = calibrated();
    assert_eq!(run(h.engine.calibration()).unwrap(), None);
    let claim = run(h.engine.recall(Some("p0"), &RecallOptions::default())).unwrap().remove(0);
    assert_eq!(run(h.engine.why(&claim.id)).unwrap().calibration_version, None);
}

#[test]
fn reads_use_the_calibration_and_why_names_its_version() {
    let h = calibrated();
    let before: Vec<f64> = (0..20).map(|s| recall_confidence(&h.engine, &format!("p{s}"))).collect();
    run(h.engine.calibrate(&CalibrateOptions::default())).unwrap();
    let after: Vec<f64> = (0..20).map(|s| recall_confidence(&h.engine, &format!("p{s}"))).collect();
    assert_ne!(before, after);
    let claim = run(h.engine.recall(Some("p0"), &RecallOptions::default())).unwrap().remove(0);
    assert_eq!(run(h.engine.why(&claim.id)).unwrap().calibration_version, Some(1));
    // The record is not a subject of memory.
    assert!(run(h.engine.subjects()).unwrap().iter().all(|s| s.starts_with('p')));
}

#[test]
fn the_record_survives_reopening_and_the_next_calibration_is_the_next_version() {
    let h = calibrated();
    let first = run(h.engine.calibrate(&CalibrateOptions::default())).unwrap();
    let reopened = reopen(&h);
    assert_eq!(run(reopened.calibration()).unwrap(), Some(first.clone()));
    assert_eq!(recall_confidence(&reopened, "p3"), recall_confidence(&h.engine, "p3"));
    let second = run(reopened.calibrate(&CalibrateOptions::default())).unwrap();
    assert_eq!(second.version, 2);
    // The first calibration brought the slots in line with its posterior
    // (SPEC §4: statuses, hence history periods, may move), so the second
    // reads nearly, not exactly, the same evidence.
    let close = |a: f64, b: f64| (a / b - 1.0).abs() < 0.02;
    for (x, y) in second.sources.iter().zip(&first.sources) {
        assert!(x.source_id == y.source_id && close(x.reliability, y.reliability), "{x:?} vs {y:?}");
    }
    for (x, y) in second.predicates.iter().zip(&first.predicates) {
        assert!(close(x.half_life_days, y.half_life_days), "{x:?} vs {y:?}");
    }
}

#[test]
fn the_same_store_gives_the_same_calibration() {
    let a = run(calibrated().engine.calibrate(&CalibrateOptions::default())).unwrap();
    let b = run(calibrated().engine.calibrate(&CalibrateOptions::default())).unwrap();
    assert_eq!(a, b);
}

#[test]
fn two_calibrations_leave_one_current_record_and_a_lost_race_retries_on_top() {
    let h = calibrated();
    let other = reopen(&h);
    assert_eq!(run(other.calibration()).unwrap(), None);
    run(h.engine.calibrate(&CalibrateOptions::default())).unwrap();
    h.store.lose_races.set(1);
    let second = run(other.calibrate(&CalibrateOptions { sources: Some(vec!["good".into()]), ..Default::default() })).unwrap();
    assert_eq!(second.version, 2);
    // Carried over from version 1: the source this run did not estimate.
    assert!(second.sources.iter().any(|s| s.source_id == "poor"));
    let slot = run(h.store.load_slot(&credence::model::SlotRef::new(credence::engine::CALIBRATION_SUBJECT, credence::engine::CALIBRATION_PREDICATE))).unwrap();
    let active: Vec<_> = slot.claims.iter().filter(|c| c.status.is_current()).collect();
    assert_eq!((slot.claims.len(), active.len()), (2, 1));
    assert!(run(h.engine.check_invariants()).unwrap().is_empty());
}

#[test]
fn sparse_evidence_keeps_stated_trust_and_configured_half_life() {
    let h = harness(EngineConfig::default());
    h.write(from(cand("located_in", "Paris"), "a", 0.7));
    h.write(from(cand("located_in", "Oslo"), "b", 0.9));
    let record = run(h.engine.calibrate(&CalibrateOptions::default())).unwrap();
    assert!(record.sources.iter().all(|s| !s.used));
    assert!(!record.predicates[0].used);
    // Nothing in force moved: belief is what it was.
    assert_eq!(h.current("located_in"), vec![("Oslo".to_string(), "active".to_string())]);
}

#[test]
fn a_report_delivered_twice_counts_once() {
    let h = calibrated();
    run(h.engine.calibrate(&CalibrateOptions::default())).unwrap();
    // A calibration realigns the slots (SPEC §4); the next one reads them as they now stand.
    let once = run(h.engine.calibrate(&CalibrateOptions::default())).unwrap();
    // Every report of p0 delivered again (same source, value and observedAt).
    let claims = run(h.engine.recall(Some("p0"), &RecallOptions { predicate: Some("located_in".into()), include_history: true, ..Default::default() })).unwrap();
    for c in &claims {
        for p in &c.provenance {
            let again = Candidate { subject: Some("p0".into()), predicate: "located_in".into(), object: c.object.clone(), provenance: Some(p.clone()), ..Default::default() };
            run(h.engine.remember(&again, &WriteOptions::default())).unwrap();
        }
    }
    let twice = run(h.engine.calibrate(&CalibrateOptions::default())).unwrap();
    let counts = |r: &credence::calibrate::Calibration| (r.predicates[0].observations, r.sources.iter().map(|s| s.observations).collect::<Vec<_>>());
    assert_eq!(counts(&twice), counts(&once), "a re-delivery is not a second observation");
    // A re-delivered report may land on another claim of its value (history
    // or current), which can move a period's end, so the estimates are
    // compared closely, not bit for bit.
    for (x, y) in twice.sources.iter().zip(&once.sources) {
        assert!((x.reliability - y.reliability).abs() < 0.02, "{x:?} vs {y:?}");
    }
}

#[test]
fn log_entries_name_the_calibration_their_belief_change_used() {
    let h = calibrated();
    let write = |object: &str| {
        let c = Candidate { subject: Some("p0".into()), ..from(cand("located_in", object), "good", 0.8) };
        h.clock.advance_days(1.0);
        run(h.engine.remember(&c, &WriteOptions::default())).unwrap()
    };
    let before = write("Porto");
    run(h.engine.calibrate(&CalibrateOptions::default())).unwrap();
    let after = write("Lisbon");
    let version_of = |id: &str| {
        let why = run(h.engine.why(id)).unwrap();
        // The entry of the write that stored it: the first to name it.
        why.log.iter().find(|e| e.claim_ids.iter().any(|c| c == id)).map(|e| e.calibration_version)
    };
    assert_eq!(version_of(&before.claim.id), Some(None), "written before any calibration");
    assert_eq!(version_of(&after.claim.id), Some(Some(1)), "written with calibration 1 in force");
}

/// Counts the turns a calibration gives the host; on turn `write_on`, a
/// second writer on the same store remembers `report` (work that lands
/// while a background calibration waits for its next turn).
struct HostTurns {
    turns: std::cell::Cell<usize>,
    /// Turns asked for before any work, which a host always gives.
    starts: std::cell::Cell<usize>,
    write_on: usize,
    other: Option<(Engine, Candidate)>,
}

#[async_trait::async_trait(?Send)]
impl credence::hooks::Pause for HostTurns {
    async fn turn(&self, starting: bool) {
        self.turns.set(self.turns.get() + 1);
        if starting {
            assert_eq!(self.turns.get(), 1, "only the first turn starts the work");
            self.starts.set(self.starts.get() + 1);
        }
        if let (true, Some((engine, report))) = (self.turns.get() == self.write_on, &self.other) {
            engine.remember(report, &WriteOptions::default()).await.unwrap();
        }
    }
}

/// A harness whose engine gives turns to `pause`.
fn giving_turns(config: serde_json::Value, pause: impl FnOnce(&Harness) -> Rc<HostTurns>) -> (Harness, Rc<HostTurns>) {
    let config: EngineConfig = serde_json::from_value(config).unwrap();
    let h = harness(config.clone());
    let pause = pause(&h);
    let hooks = Hooks { clock: h.clock.clone(), ids: Some(Rc::new(SequentialIds::new())), merge: None, judge: None };
    let engine = Engine::new(h.store.clone(), &config, hooks).unwrap().with_pause(pause.clone());
    (Harness { engine, clock: h.clock.clone(), store: h.store.clone() }, pause)
}

#[test]
fn a_background_calibration_gives_the_host_turns_and_keeps_a_write_made_during_one() {
    let late = Candidate {
        subject: Some("p3".into()),
        predicate: "located_in".into(),
        object: "Quito".into(),
        provenance: Some(Provenance { source_id: "late".into(), observed_at: Some("2028-01-01T00:00:00Z".into()), ..Default::default() }),
        ..Default::default()
    };
    let (h, pause) = giving_turns(serde_json::json!({}), |h| Rc::new(HostTurns { turns: Default::default(), starts: Default::default(), write_on: 30, other: Some((reopen(h), late.clone())) }));
    world(&h);
    assert!(h.engine.calibration_due());
    let record = run(h.engine.calibrate_if_due()).unwrap().expect("an automatic calibration was due");
    // A turn before any work, then a chance of one per slot read, per estimator step and per slot brought in line.
    assert_eq!(pause.starts.get(), 1);
    assert!(pause.turns.get() >= 1 + 20 + 20, "{} turns", pause.turns.get());
    // The turns change nothing the calibration finds: the same history calibrated in one go.
    let plain = calibrated();
    let same = run(plain.engine.calibrate(&CalibrateOptions::default())).unwrap();
    assert_eq!(record.predicates, same.predicates);
    let good = |c: &credence::calibrate::Calibration| c.sources.iter().find(|s| s.source_id == "good").unwrap().reliability;
    assert_eq!(good(&record), good(&same));
    // The write made during a turn is kept, and its slot holds.
    let slot = run(h.store.load_slot(&credence::model::SlotRef::new("p3", "located_in"))).unwrap();
    assert!(slot.claims.iter().any(|c| c.object == "Quito" && c.provenance.iter().any(|p| p.source_id == "late")));
    credence::invariants::check_loaded(&slot, &credence::model::SlotRef::new("p3", "located_in")).unwrap();
}

#[test]
fn an_inline_calibration_gives_no_turns() {
    let (h, pause) = giving_turns(serde_json::json!({ "calibrate": "inline" }), |_| Rc::new(HostTurns { turns: Default::default(), starts: Default::default(), write_on: 0, other: None }));
    world(&h);
    assert!(run(h.engine.calibration()).unwrap().is_some_and(|c| c.version >= 1));
    assert_eq!(pause.turns.get(), 0);
}

/// 40 subjects moving every ~240 days among 6 places, each reported every
/// 10 days for ~3 years by one of five sources right 95% … 45% of the time
/// (stating it honestly): the shape of the eval's simulated main regime.
fn noisy_world(h: &Harness) {
    let mut rng = Lcg(8);
    let reliability = [0.95, 0.85, 0.75, 0.6, 0.45];
    let other = |rng: &mut Lcg, v: usize| (v + 1 + (rng.next() * 5.0) as usize) % PLACES.len();
    for s in 0..40 {
        let mut truth = s % PLACES.len();
        for step in 0..100 {
            if rng.next() < 10.0 / 240.0 {
                truth = other(&mut rng, truth);
            }
            let source = (rng.next() * 5.0) as usize;
            let value = if rng.next() < reliability[source] { truth } else { other(&mut rng, truth) };
            let observed = credence::time::Timestamp::from_millis((step * 10 + 20_454) * 86_400_000).to_iso();
            let c = Candidate {
                subject: Some(format!("p{s}")),
                predicate: "located_in".into(),
                object: PLACES[value].into(),
                provenance: Some(Provenance { source_id: format!("s{source}"), source_trust: Some(reliability[source]), observed_at: Some(observed), ..Default::default() }),
                ..Default::default()
            };
            run(h.engine.remember(&c, &WriteOptions::default())).unwrap();
        }
    }
}

#[test]
fn a_sighting_after_its_value_was_superseded_is_evidence_of_its_own_time() {
    // A wrong report supersedes the right value; the next sighting of the
    // right value is attached to the claim it superseded. Read at the end
    // memory gave that claim, every such sighting looked old: the world
    // seemed to change twice as often as it did (half-life 53–69 d against
    // 139) and the poorest source seemed right 0.60 of the time (0.45).
    let h = harness(EngineConfig { calibrate: Some(credence::config::CalibrateSetting::Flag(false)), ..EngineConfig::default() });
    noisy_world(&h);
    let record = run(h.engine.calibrate(&CalibrateOptions::default())).unwrap();
    let truth = std::f64::consts::LN_2 * 240.0 * 5.0 / 6.0;
    let half_life = record.predicates[0].half_life_days;
    assert!(half_life > 0.7 * truth && half_life < 1.3 * truth, "{half_life} against {truth}");
    let poorest = record.sources.iter().find(|s| s.source_id == "s4").unwrap();
    assert!((poorest.reliability - 0.45).abs() < 0.08, "{poorest:?}");
}

/// 60 books, each listed by 12 stores (stating 0.8) with its authors. In one
/// book of three, three of the stores (another three from one such book to
/// the next) list a form that says more than the cover ("Ann Smith Jones" for
/// "Ann Smith": a catalogue's duplicated or extra name); the other nine list
/// the cover. In one book of five, one store lists another author.
fn embellishing_world(h: &Harness) {
    for book in 0..60 {
        let general = format!("author{book} smith");
        let j = book / 3 % 12;
        let more = [j, (j + 1) % 12, (j + 3) % 12];
        for store in 0..12 {
            let object = if book % 3 == 0 && more.contains(&store) {
                format!("{general} jones")
            } else if book % 5 == 1 && store == book % 12 {
                format!("author{} brown", book + store)
            } else {
                general.clone()
            };
            let mut c = from(cand("book_authors", &object), &format!("store{store}"), 0.8);
            c.subject = Some(format!("book{book}"));
            run(h.engine.remember(&c, &WriteOptions::default())).unwrap();
        }
    }
}

#[test]
fn calibration_learns_that_sources_say_more_than_the_truth_and_the_fuller_form_no_longer_wins() {
    // Uncalibrated, a report of the fuller form is a plain miss for the
    // shorter one, while each short report lends the fuller form half its
    // weight: two fuller reports outweigh six short ones. Sources that are
    // right everywhere else often say more than the truth here, and
    // calibration learns how often (ε).
    let config: EngineConfig = serde_json::from_value(serde_json::json!({
        "calibrate": false,
        "predicates": [{ "name": "book_authors", "cardinality": "single", "timeVarying": false }],
    }))
    .unwrap();
    let h = harness(config);
    embellishing_world(&h);
    let current = |book: usize| {
        let opts = RecallOptions { predicate: Some("book_authors".into()), ..Default::default() };
        let claims = run(h.engine.recall(Some(&format!("book{book}")), &opts)).unwrap();
        claims.into_iter().filter(|c| c.status.is_current()).max_by(|a, b| a.confidence.total_cmp(&b.confidence)).unwrap().object
    };
    assert_eq!(current(3), "author3 smith jones", "uncalibrated, the fuller form wins");
    let record = run(h.engine.calibrate(&CalibrateOptions::default())).unwrap();
    let forms = record.forms.iter().find(|f| f.predicate == "book_authors").unwrap();
    assert!(forms.used && forms.embellished > 0.15 && forms.embellished < 0.4, "{forms:?}");
    assert!((forms.refined_support - 0.5).abs() < 0.1, "no source gave less than the truth: {forms:?}");
    for book in (0..60).step_by(3) {
        assert_eq!(current(book), format!("author{book} smith"), "{forms:?}");
    }
}

/// 60 books, one instant: "zeta" right 90% of the time, "alpha" and "mid"
/// copying zeta 80% of the time (else right 60%), "beta" right 70%, "gamma"
/// 50%. Named so the order sources are first met differs from their names'.
fn copied_world(reverse: bool) -> Calibration {
    copied_world_named(reverse, str::to_string).0
}

/// `copied_world` with each source called `name(source)`: the calibration
/// and each book's current confidence after it.
fn copied_world_named(reverse: bool, name: impl Fn(&str) -> String) -> (Calibration, Vec<f64>) {
    let h = harness(EngineConfig { calibrate: Some(credence::config::CalibrateSetting::Flag(false)), ..EngineConfig::default() });
    let mut rng = Lcg(11);
    let mut reports = Vec::new();
    for book in 0..60 {
        let truth = book % 4;
        let mut wrong = |rng: &mut Lcg| (truth + 1 + (rng.next() * 3.0) as usize) % 4;
        let answer = |rng: &mut Lcg, right: f64, wrong: &mut dyn FnMut(&mut Lcg) -> usize| if rng.next() < right { truth } else { wrong(rng) };
        let zeta = answer(&mut rng, 0.9, &mut wrong);
        let copy = |rng: &mut Lcg, wrong: &mut dyn FnMut(&mut Lcg) -> usize| if rng.next() < 0.8 { zeta } else { answer(rng, 0.6, wrong) };
        let alpha = copy(&mut rng, &mut wrong);
        let mid = copy(&mut rng, &mut wrong);
        let beta = answer(&mut rng, 0.7, &mut wrong);
        let gamma = answer(&mut rng, 0.5, &mut wrong);
        for (source, value) in [("zeta", zeta), ("alpha", alpha), ("mid", mid), ("beta", beta), ("gamma", gamma)] {
            reports.push((format!("book{book}"), source, PLACES[value]));
        }
    }
    if reverse {
        reports.reverse();
    }
    for (subject, source, value) in reports {
        let c = Candidate { subject: Some(subject), ..observed(from(cand("born_in", value), &name(source), 0.8), "2025-03-01T00:00:00Z") };
        run(h.engine.remember(&c, &WriteOptions::default())).unwrap();
    }
    let calibration = run(h.engine.calibrate(&CalibrateOptions::default())).unwrap();
    let opts = RecallOptions { predicate: Some("born_in".into()), ..Default::default() };
    let confidence = |book: usize| run(h.engine.recall(Some(&format!("book{book}")), &opts)).unwrap().iter().map(|c| c.confidence).fold(0.0, f64::max);
    let confidences = (0..60).map(confidence).collect();
    (calibration, confidences)
}

#[test]
fn which_of_two_copies_at_one_instant_counts_in_full_is_not_decided_by_their_names() {
    // The copies (alpha, mid) and their original (zeta) report at one instant:
    // the one first by name counted in full and the others were discounted
    // against it, so renaming a source moved every belief.
    let (plain, plain_books) = copied_world_named(false, str::to_string);
    let renamed = |s: &str| match s { "zeta" => "a-zeta".to_string(), "alpha" => "z-alpha".to_string(), other => other.to_string() };
    let (other, other_books) = copied_world_named(false, renamed);
    assert!(!plain.dependencies.is_empty(), "the copiers are found: {:?}", plain.dependencies);
    let reliability = |c: &Calibration, id: &str| c.sources.iter().find(|s| s.source_id == id).map(|s| s.reliability).unwrap();
    for source in ["zeta", "alpha", "mid", "beta", "gamma"] {
        let (a, b) = (reliability(&plain, source), reliability(&other, &renamed(source)));
        assert!((a - b).abs() < 1e-9, "{source}: {a} vs {b}");
    }
    for (book, (a, b)) in plain_books.iter().zip(&other_books).enumerate() {
        assert!(*a > 0.0 && (a - b).abs() < 1e-9, "book{book}: {a} vs {b}");
    }
}

#[test]
fn the_same_reports_written_in_another_order_give_the_same_calibration() {
    // Sources were numbered as first met, and the numbers ordered whose
    // agreeing report a likely copy was discounted against.
    let (forward, reverse) = (copied_world(false), copied_world(true));
    assert!(!forward.dependencies.is_empty(), "the copiers are found: {:?}", forward.dependencies);
    let sources = |c: &Calibration| c.sources.iter().map(|s| (s.source_id.clone(), s.reliability, s.agreed)).collect::<Vec<_>>();
    let (a, b) = (sources(&forward), sources(&reverse));
    assert_eq!(a.iter().map(|s| &s.0).collect::<Vec<_>>(), b.iter().map(|s| &s.0).collect::<Vec<_>>());
    for (x, y) in a.iter().zip(&b) {
        assert!((x.1 - y.1).abs() < 1e-9 && (x.2 - y.2).abs() < 1e-6, "{a:?}\n{b:?}");
    }
    let pairs = |c: &Calibration| c.dependencies.iter().map(|d| (d.sources.clone(), d.probability)).collect::<Vec<_>>();
    let (p, q) = (pairs(&forward), pairs(&reverse));
    assert_eq!(p.len(), q.len(), "{p:?}\n{q:?}");
    for (x, y) in p.iter().zip(&q) {
        assert!(x.0 == y.0 && (x.1 - y.1).abs() < 1e-9, "{p:?}\n{q:?}");
    }
}
