#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used)]
//! Property-based fuzzing of every parser and decoder: arbitrary text and
//! JSON never panic, and every refusal carries a stable error code.
mod common;

use common::*;
use credence::blob::upgrade_blob;
use credence::entities::resolve;
use credence::model::{Candidate, Slot};
use credence::predicates::{PredicateSpec, Registry};
use credence::time::Timestamp;
use credence::{EngineConfig, WriteOptions};
use proptest::prelude::*;
use serde_json::Value;

fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<f64>().prop_map(|f| serde_json::Number::from_f64(f).map(Value::Number).unwrap_or(Value::Null)),
        any::<i64>().prop_map(|i| Value::Number(i.into())),
        ".{0,12}".prop_map(Value::String),
        prop_oneof![Just("predicate"), Just("object"), Just("2026-01-01"), Just("likes"), Just("")].prop_map(|s| Value::String(s.into())),
    ];
    leaf.prop_recursive(3, 24, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::vec((prop_oneof![Just("predicate".to_string()), Just("object".to_string()), Just("confidence".to_string()),
                Just("provenance".to_string()), Just("sourceTrust".to_string()), Just("validFrom".to_string()), Just("key".to_string()),
                Just("content".to_string()), Just("schema_version".to_string()), Just("entries".to_string()), ".{0,6}".prop_map(|s| s)], inner), 0..5)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn times_parse_or_refuse(text in ".{0,40}") {
        if let Err(e) = Timestamp::parse(&text, "t") {
            prop_assert_eq!(e.code.as_str(), "INVALID_TIME");
        }
    }

    #[test]
    fn blobs_upgrade_idempotently_or_refuse(v in json()) {
        match upgrade_blob(&v) {
            Ok(up) => prop_assert_eq!(upgrade_blob(&up).ok(), Some(up)),
            Err(e) => prop_assert_eq!(e.code.as_str(), "INVALID_INPUT"),
        }
    }

    #[test]
    fn slots_and_specs_decode_or_refuse(v in json()) {
        let _ = serde_json::from_value::<Slot>(v.clone());
        if let Ok(spec) = serde_json::from_value::<PredicateSpec>(v) {
            let _ = Registry::new(&[spec]);
        }
    }

    #[test]
    fn entity_names_resolve_without_panicking(names in proptest::collection::vec(".{0,20}", 1..6), ty in prop_oneof![Just("org"), Just("person"), Just("x")]) {
        let mut reg = credence::entities::Entities::new();
        for (i, n) in names.iter().enumerate() {
            let (hit, r) = resolve(&reg, n, ty);
            prop_assert!(r.score >= 0.0 && r.score <= 1.0);
            if hit.is_none() {
                reg.push(credence::entities::Entity { id: format!("{ty}:{i}"), entity_type: ty.into(), name: n.clone(), aliases: vec![n.clone()], merged_into: None, merged_from: Vec::new(), was_merged_into: Vec::new() }.into());
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]

    #[test]
    fn any_candidate_is_written_or_refused_with_a_code(v in json(), strategy in proptest::option::of(".{0,10}")) {
        let h = harness(EngineConfig::default());
        let before = h.all("likes").len();
        if let Ok(c) = serde_json::from_value::<Candidate>(v) {
            let opts = WriteOptions { strategy, expected_version: None };
            match run(h.engine.remember(&c, &opts)) {
                Ok(o) => prop_assert!(o.claim.confidence > 0.0 && o.claim.confidence < 1.0),
                Err(e) => {
                    prop_assert!(!e.code.as_str().is_empty());
                    prop_assert_eq!(h.all("likes").len(), before);
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_field_values_are_written_or_refused(
        subject in proptest::option::of(".{0,8}"), subject_type in proptest::option::of(prop_oneof![Just("org".to_string()), ".{0,4}"]),
        predicate in prop_oneof![Just("likes".to_string()), Just("born_on".to_string()), ".{0,10}"], object in ".{0,16}",
        confidence in proptest::option::of(-1.0f64..2.0), valid in proptest::option::of(prop_oneof![Just("2025-02-30".to_string()), Just("2025-01-01".to_string()), ".{0,12}"]),
        trust in proptest::option::of(-0.5f64..1.5), repeat in 1..3usize,
    ) {
        let h = harness(EngineConfig::default());
        let mut c = cand(&predicate, &object);
        c.subject = subject;
        c.subject_type = subject_type;
        c.confidence = confidence;
        c.valid_from = valid;
        if let Some(t) = trust {
            c = from(c, "s", t);
        }
        for _ in 0..repeat {
            match run(h.engine.remember(&c, &WriteOptions::default())) {
                Ok(o) => prop_assert!(o.claim.confidence > 0.0 && o.claim.confidence < 1.0 && o.claim.log_odds.is_finite()),
                Err(e) => prop_assert!(e.field.is_some() || e.code.as_str() == "INVALID_STRATEGY", "{:?}", e),
            }
        }
    }
}
