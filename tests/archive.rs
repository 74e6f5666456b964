#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used)]
//! Bounded slot records (SPEC §8): a hot slot moves its claims' older
//! observations to an archive; belief, outcomes and `why` stay exactly what
//! they were without it, erasure reaches the archive, and the checker agrees.

mod common;

use std::rc::Rc;

use common::*;
use credence::engine::{EraseOptions, EraseTarget};
use credence::model::{Candidate, Provenance};
use credence::store::{MemoryStore, Store};
use credence::{EngineConfig, WriteOptions};

fn engine_pair(after: usize) -> (Harness, Harness) {
    let compacting = harness(EngineConfig::default());
    let compacting = Harness { engine: compacting.engine.with_archive_after(after), ..compacting };
    let plain = harness(EngineConfig::default());
    let plain = Harness { engine: plain.engine.with_archive_after(usize::MAX), ..plain };
    (compacting, plain)
}

/// A stream of reports with every field varying: sources, trust, extractor
/// confidence, late arrivals, a rival value now and then.
fn report(i: usize, predicate: &str) -> Candidate {
    let rival = i % 17 == 5;
    let late = i % 11 == 3;
    Candidate {
        predicate: predicate.into(),
        object: if rival { "Lyon".into() } else { "Paris".into() },
        provenance: Some(Provenance {
            source_id: format!("src{}", i % 7),
            source_trust: Some(0.5 + (i % 5) as f64 / 10.0),
            extractor_conf: Some(0.55 + (i % 9) as f64 / 20.0),
            observed_at: late.then(|| format!("2025-{:02}-01", 1 + i % 12)),
            stated_from: None,
            reported_at: None,
            at_write: false,
        }),
        ..Default::default()
    }
}

fn slot_json(h: &Harness, predicate: &str) -> usize {
    run(async {
        let r = credence::model::SlotRef::new("user", &h.engine.settings().registry.resolve(predicate).name);
        serde_json::to_string(&h.store.load_slot(&r).await.unwrap()).unwrap().len()
    })
}

fn same_outcomes(predicate: &str, writes: usize, after: usize) {
    let (a, b) = engine_pair(after);
    for i in 0..writes {
        let (oa, ob) = (a.write(report(i, predicate)), b.write(report(i, predicate)));
        assert_eq!((oa.action, oa.relation), (ob.action, ob.relation), "write {i}");
        assert_eq!(oa.claim.log_odds.to_bits(), ob.claim.log_odds.to_bits(), "write {i}: belief moved");
        assert_eq!(oa.claim.observation_count(), ob.claim.provenance.len(), "write {i}: an observation went missing");
    }
    let (ca, cb) = (a.all(predicate), b.all(predicate));
    assert_eq!(ca.len(), cb.len());
    assert!(ca.iter().any(|c| c.archived_observations > 0), "nothing was archived");
    for (x, y) in ca.iter().zip(&cb) {
        assert_eq!((x.status, x.log_odds.to_bits(), x.valid_to), (y.status, y.log_odds.to_bits(), y.valid_to));
    }
    assert!(run(a.engine.check_invariants()).unwrap().is_empty());
    // `why` gives every observation back, in time order, as the uncompacted claim has them.
    for (x, y) in ca.iter().zip(&cb) {
        let w = run(a.engine.why(&x.id)).unwrap();
        assert_eq!(w.claim.provenance.len(), y.provenance.len());
        assert_eq!(w.claim.archived_observations, 0);
        let mut expected = y.provenance.clone();
        let mut got = w.claim.provenance.clone();
        let key = |p: &Provenance| (p.observed_at.clone(), p.source_id.clone(), p.extractor_conf.map(f64::to_bits));
        expected.sort_by_key(key);
        got.sort_by_key(key);
        assert_eq!(got, expected);
    }
}

#[test]
fn compaction_changes_no_outcome_and_no_belief_on_a_time_varying_slot() {
    same_outcomes("located_in", 400, 16);
}

#[test]
fn compaction_changes_no_outcome_and_no_belief_on_a_fixed_slot() {
    same_outcomes("born_on", 400, 16);
}

#[test]
fn a_hot_slot_stays_small_and_cheap() {
    let h = harness(EngineConfig::default());
    let mut sizes = Vec::new();
    for i in 0..10_000 {
        let o = h.write(report(i * 17 % 16 + 1, "located_in"));
        if i % 2_500 == 2_499 {
            sizes.push(slot_json(&h, "located_in"));
            assert!(o.claim.provenance.len() <= credence::archive::ARCHIVE_AFTER);
        }
    }
    let max = *sizes.iter().max().unwrap();
    assert!(max <= 64 * 1024, "slot record {max} bytes after 10,000 confirmations ({sizes:?})");
    let claim = h.all("located_in").into_iter().find(|c| c.object == "Paris").unwrap();
    assert!(claim.archived_observations > 9_000, "{} archived", claim.archived_observations);
    let w = run(h.engine.why(&claim.id)).unwrap();
    assert_eq!(w.claim.provenance.len(), claim.observation_count());
    assert!(run(h.engine.check_invariants()).unwrap().is_empty());
    // Chunks are never dirty: a review pass with nothing new lists nothing.
    let dirty = run(h.store.dirty_slots(&credence::model::DirtyQuery { after: None, limit: 1000 })).unwrap();
    assert!(dirty.iter().all(|r| !credence::archive::is_archive_subject(&r.subject)), "{} archive chunks listed as dirty", dirty.len());
}

#[test]
fn erasure_removes_the_text_from_every_archive_chunk() {
    let store = Rc::new(MemoryStore::new());
    let h = harness_with(EngineConfig::default(), None, None, Rc::new(FlakyStore::new(store.clone())));
    let h = Harness { engine: h.engine.with_archive_after(8), ..h };
    for i in 0..60 {
        let mut c = report(i, "located_in");
        c.object = "Secret Street 12".into();
        c.provenance.as_mut().unwrap().source_id = format!("informant-{}", i % 3);
        h.write(c);
    }
    let everything = || store_text(&store);
    assert!(everything().contains("Secret Street 12"));
    let claim = h.all("located_in").into_iter().next().unwrap();
    assert!(claim.archived_observations > 0);
    let options = EraseOptions { reason: "asked".into(), by: "dpo".into() };
    run(h.engine.erase(&EraseTarget { subject: "user".into(), predicate: None, claim_id: None }, &options)).unwrap();
    let bytes = everything();
    assert!(!bytes.contains("Secret Street 12"), "erased text left in the store");
    assert!(!bytes.contains("informant-"), "erased source ids left in the store");
    assert!(run(h.engine.check_invariants()).unwrap().is_empty());
}

#[test]
fn idempotent_replays_and_batches_agree_with_compaction() {
    let (a, b) = engine_pair(10);
    let batch: Vec<Candidate> = (0..120).map(|i| Candidate { id: Some(format!("w{i}")), ..report(i, "located_in") }).collect();
    let oa = run(a.engine.remember_many(&batch, &WriteOptions::default())).unwrap();
    let ob = run(b.engine.remember_many(&batch, &WriteOptions::default())).unwrap();
    for (x, y) in oa.iter().zip(&ob) {
        assert_eq!((x.action, x.claim.log_odds.to_bits()), (y.action, y.claim.log_odds.to_bits()));
    }
    // Re-sent one at a time, every write replays.
    for c in &batch {
        let o = run(a.engine.remember(c, &WriteOptions::default())).unwrap();
        assert!(o.replayed);
    }
    assert!(run(a.engine.check_invariants()).unwrap().is_empty());
}

#[test]
fn idempotency_records_expire_into_the_archive_past_the_window() {
    let h = harness(EngineConfig::default());
    // Confirmations of one value (no rival, no late report), each with a message id.
    let keyed = |i: usize| Candidate { id: Some(format!("msg-{i}")), ..report(i * 17 % 16 + 1, "located_in") };
    for i in 0..10_000 {
        h.write(keyed(i));
    }
    let size = slot_json(&h, "located_in");
    let slot = run(h.store.load_slot(&credence::model::SlotRef::new("user", "located_in"))).unwrap();
    assert!(size <= 64 * 1024, "slot record {size} bytes after 10,000 keyed confirmations: claims {} ({} claims, {} obs), writes {} ({}), archive {} ({})",
        serde_json::to_string(&slot.claims).unwrap().len(), slot.claims.len(), slot.claims.iter().map(|c| c.provenance.len()).sum::<usize>(),
        serde_json::to_string(&slot.writes).unwrap().len(), slot.writes.len(),
        serde_json::to_string(&slot.archive).unwrap().len(), slot.archive.len());
    assert!(slot.writes.len() <= credence::archive::WRITES_AFTER);
    // The newest records still replay; nothing was lost: every record is in the slot or a chunk.
    for i in 10_000 - credence::archive::WRITES_KEEP..10_000 {
        assert!(run(h.engine.remember(&keyed(i), &WriteOptions::default())).unwrap().replayed, "msg-{i}");
    }
    let archived: usize = run(async {
        let mut n = 0;
        for chunk in &slot.archive {
            n += h.store.load_slot(&credence::archive::chunk_ref(&credence::model::SlotRef::new("user", "located_in").key, chunk)).await.unwrap().writes.len();
        }
        n
    });
    assert_eq!(archived + slot.writes.len(), 10_000);
    assert!(run(h.engine.check_invariants()).unwrap().is_empty());
}
