#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used)]
//! Claims know their kind (SPEC §5, issue #43): a value, or a free-text entry
//! of `append`, `merge_on_read` or an import. Entries sharing a slot with
//! values are never weighed as rival values in the filter; records written
//! before claims knew their kind read as before.
mod common;

use common::*;
use credence::model::{Claim, ClaimKind, Status};
use credence::EngineConfig;

fn seen(predicate: &str, object: &str, source: &str, at: &str) -> credence::model::Candidate {
    observed(from(cand(predicate, object), source, 0.8), at)
}

fn value_belief(h: &Harness, object: &str) -> f64 {
    h.all("located_in").into_iter().find(|c| c.object == object && c.kind == ClaimKind::Value && c.status.is_current()).unwrap().confidence
}

#[test]
fn every_write_records_its_kind() {
    let h = harness(EngineConfig::default());
    let kind = |p: &str, o: &str, s: Option<&str>| {
        let out = match s {
            Some(s) => h.write_with(cand(p, o), with_strategy(s)).unwrap(),
            None => h.write(cand(p, o)),
        };
        out.claim.kind
    };
    assert_eq!(kind("located_in", "Rome", None), ClaimKind::Value);
    assert_eq!(kind("experience.log", "a", None), ClaimKind::Append, "episodic: append by default");
    assert_eq!(kind("notes", "x", Some("merge_on_read")), ClaimKind::MergeOnRead);
    assert_eq!(kind("notes", "y", Some("replace")), ClaimKind::Value);
    assert_eq!(kind("located_in", "diary text", Some("append")), ClaimKind::Append);
}

#[test]
fn free_text_entries_are_not_rival_values_in_the_filter() {
    let plain = harness(EngineConfig::default());
    let mixed = harness(EngineConfig::default());
    for h in [&plain, &mixed] {
        h.write(seen("located_in", "Rome", "crm", "2026-01-01T12:00:00.000Z"));
    }
    for (i, text) in ["flew in on Monday", "hotel by the station", "Rome", "a day at the Vatican"].iter().enumerate() {
        let at = format!("2026-01-0{}T12:00:00.000Z", 2 + i);
        let out = mixed.write_with(seen("located_in", text, "diary", &at), with_strategy(if i % 2 == 0 { "append" } else { "merge_on_read" })).unwrap();
        assert!(out.claim.kind.is_entry());
        plain.clock.advance_days(1.0);
    }
    assert!((value_belief(&mixed, "Rome") - value_belief(&plain, "Rome")).abs() < 1e-12, "entries left the value's belief alone");
    // A valued write weighed against the values alone, as in the slot without entries.
    let a = plain.write(seen("located_in", "Paris", "crm", "2026-01-10T12:00:00.000Z"));
    let b = mixed.write(seen("located_in", "Paris", "crm", "2026-01-10T12:00:00.000Z"));
    assert_eq!(a.action, b.action);
    assert!((a.claim.confidence - b.claim.confidence).abs() < 1e-12, "{} vs {}", a.claim.confidence, b.claim.confidence);
    // Each entry stands on its own evidence, like an entry of a log-like slot.
    let alone = harness(EngineConfig::default());
    let own = alone.write_with(seen("notes", "flew in on Monday", "diary", "2026-01-02T12:00:00.000Z"), with_strategy("append")).unwrap().claim.confidence;
    let entry = mixed.all("located_in").into_iter().find(|c| c.object == "flew in on Monday").unwrap();
    assert!(entry.status != Status::Active || (entry.confidence - own).abs() < 0.2, "{} vs {own}", entry.confidence);
    let v = run(mixed.engine.check_invariants()).unwrap();
    assert!(v.is_empty(), "{v:?}");
}

#[test]
fn a_record_without_a_kind_reads_as_a_value() {
    let h = harness(EngineConfig::default());
    let claim = h.write(cand("located_in", "Rome")).claim;
    let mut json = serde_json::to_value(&claim).unwrap();
    assert!(json.get("kind").is_none(), "a value's kind is left out of the record");
    json.as_object_mut().unwrap().remove("kind");
    let back: Claim = serde_json::from_value(json).unwrap();
    assert_eq!(back.kind, ClaimKind::Value);
    let entry = h.write_with(cand("notes", "x"), with_strategy("append")).unwrap().claim;
    assert_eq!(serde_json::to_value(&entry).unwrap()["kind"], "append");
}
