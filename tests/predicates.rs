#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used)]
//! Predicates an agent can see (SPEC §7): every outcome names the spec its
//! write used and whether it was assumed; `predicates()` lists the specs in
//! force; `define_predicate` declares an undeclared one, kept in the store;
//! `sources` in the config gives a source's trust to writes that state none.

mod common;

use std::collections::HashMap;
use std::rc::Rc;

use common::*;
use credence::config::SourceConfig;
use credence::engine::{Engine, Hooks, PredicateDefinition};
use credence::hooks::SequentialIds;
use credence::predicates::{Cardinality, PredicateOrigin};
use credence::store::MemoryStore;
use credence::{EngineConfig, ErrorCode};

fn define(h: &Harness, name: &str, cardinality: Option<Cardinality>, time_varying: Option<bool>) -> credence::Result<credence::engine::PredicateInfo> {
    run(h.engine.define_predicate(&PredicateDefinition { name: name.into(), cardinality, time_varying }))
}

#[test]
fn every_outcome_names_its_spec_and_whether_it_was_assumed() {
    let h = harness(EngineConfig::default());
    let o = h.write(cand("lives in", "Paris"));
    assert_eq!((o.spec.name.as_str(), o.spec.cardinality, o.spec.time_varying, o.spec.assumed), ("located_in", Cardinality::Single, true, false));
    let o = h.write(cand("likes", "tea"));
    assert_eq!((o.spec.cardinality, o.spec.time_varying, o.spec.assumed), (Cardinality::Multi, false, false));
    let o = h.write(cand("favorite book", "Dune"));
    assert_eq!((o.spec.name.as_str(), o.spec.cardinality, o.spec.time_varying, o.spec.assumed), ("favorite_book", Cardinality::Single, true, true));
}

#[test]
fn predicates_lists_builtins_with_aliases_and_configured_specs_over_them() {
    let mut likes = credence::predicates::PredicateSpec::implicit("likes");
    likes.cardinality = Cardinality::Single;
    let h = harness(EngineConfig { predicates: vec![likes], ..Default::default() });
    let all = run(h.engine.predicates()).unwrap();
    let located = all.iter().find(|p| p.spec.name == "located_in").unwrap();
    assert!(located.spec.aliases.contains(&"lives_in".to_string()));
    assert_eq!(located.origin, PredicateOrigin::Builtin);
    assert_eq!(located.spec.half_life_days, Some(365.0));
    let born = all.iter().find(|p| p.spec.name == "born_on").unwrap();
    assert_eq!(born.spec.half_life_days, None, "not time-varying: no half-life");
    let likes = all.iter().find(|p| p.spec.name == "likes").unwrap();
    assert_eq!((likes.origin, likes.spec.cardinality), (PredicateOrigin::Configured, Cardinality::Single));
    assert!(all.windows(2).all(|w| w[0].spec.name < w[1].spec.name), "sorted by name");
}

#[test]
fn a_defined_multi_predicate_holds_several_values_and_survives_reopening() {
    let store: Rc<dyn credence::store::Store> = Rc::new(MemoryStore::new());
    let h = harness_with(EngineConfig::default(), None, None, Rc::new(FlakyStore::new(store.clone())));
    let info = define(&h, "Hobby", Some(Cardinality::Multi), None).unwrap();
    assert_eq!((info.spec.name.as_str(), info.origin, info.spec.time_varying), ("hobby", PredicateOrigin::Defined, true));
    h.write(cand("hobby", "chess"));
    let o = h.write(cand("hobby", "climbing"));
    assert_eq!((o.spec.cardinality, o.spec.assumed), (Cardinality::Multi, false));
    assert_eq!(h.current("hobby").len(), 2, "both hobbies are current: {:?}", h.current("hobby"));
    // Same definition again: answered, nothing written.
    define(&h, "hobby", Some(Cardinality::Multi), None).unwrap();

    // Another Memory on the same store sees the definition at its first write.
    let reopened = Engine::new(store.clone(), &EngineConfig::default(), Hooks { clock: h.clock.clone(), ids: Some(Rc::new(SequentialIds::new())), merge: None, judge: None }).unwrap();
    let o = run(reopened.remember(&cand("hobby", "go"), &Default::default())).unwrap();
    assert_eq!((o.spec.cardinality, o.spec.assumed), (Cardinality::Multi, false));
    let listed = run(reopened.predicates()).unwrap();
    assert!(listed.iter().any(|p| p.spec.name == "hobby" && p.origin == PredicateOrigin::Defined));
    // The record is not a fact about anyone.
    assert!(!run(reopened.subjects()).unwrap().iter().any(|s| s.contains("predicates")));
}

#[test]
fn a_definition_never_changes_a_declared_spec() {
    let h = harness(EngineConfig::default());
    let e = define(&h, "located_in", Some(Cardinality::Multi), None).unwrap_err();
    assert_eq!((e.code, e.field.as_deref()), (ErrorCode::InvalidInput, Some("cardinality")));
    let e = define(&h, "lives in", None, Some(false)).unwrap_err();
    assert_eq!(e.field.as_deref(), Some("timeVarying"));
    // Matching fields: answered with the built-in spec.
    assert_eq!(define(&h, "likes", Some(Cardinality::Multi), None).unwrap().origin, PredicateOrigin::Builtin);
    define(&h, "hobby", Some(Cardinality::Multi), None).unwrap();
    assert_eq!(define(&h, "hobby", Some(Cardinality::Single), None).unwrap_err().field.as_deref(), Some("cardinality"));
    assert_eq!(define(&h, "  ", None, None).unwrap_err().field.as_deref(), Some("name"));
}

#[test]
fn a_configured_source_trust_applies_to_writes_that_state_none() {
    let sources = HashMap::from([("user".to_string(), SourceConfig { trust: 0.95 })]);
    let h = harness(EngineConfig { sources: Some(sources), ..Default::default() });
    let said = |source: &str, trust: Option<f64>| {
        let mut c = cand("located_in", "Paris");
        c.provenance = Some(credence::model::Provenance { source_id: source.into(), source_trust: trust, ..Default::default() });
        c
    };
    let o = h.write(said("user", None));
    assert_eq!(o.claim.provenance[0].source_trust, Some(0.95));
    let o = h.write(said("user", Some(0.5)));
    assert_eq!(o.claim.provenance.iter().last().unwrap().source_trust, Some(0.5), "a stated trust wins");
    let o = h.write(said("crawler", None));
    assert_eq!(o.claim.provenance.iter().last().unwrap().source_trust, Some(0.8), "unlisted sources keep the default");
}

#[test]
fn a_source_trust_outside_0_1_is_refused_naming_the_field() {
    let sources = HashMap::from([("user".to_string(), SourceConfig { trust: 1.5 })]);
    let e = Engine::new(
        Rc::new(MemoryStore::new()),
        &EngineConfig { sources: Some(sources), ..Default::default() },
        Hooks { clock: TestClock::at("2026-01-01T00:00:00Z"), ids: None, merge: None, judge: None },
    )
    .err()
    .unwrap();
    assert_eq!((e.code, e.field.as_deref()), (ErrorCode::InvalidInput, Some("sources.user.trust")));
}

#[test]
fn a_memory_that_read_the_definitions_earlier_sees_one_made_since() {
    let store: Rc<dyn credence::store::Store> = Rc::new(MemoryStore::new());
    let h = harness_with(EngineConfig::default(), None, None, Rc::new(FlakyStore::new(store.clone())));
    let other = Engine::new(store.clone(), &EngineConfig::default(), Hooks { clock: h.clock.clone(), ids: Some(Rc::new(SequentialIds::new())), merge: None, judge: None }).unwrap();
    let o = run(other.remember(&cand("hobby", "chess"), &Default::default())).unwrap();
    assert!(o.spec.assumed, "nothing defined yet");
    define(&h, "hobby", Some(Cardinality::Multi), None).unwrap();
    // A second later the other memory, writing a predicate it has no spec for, reads the definitions again.
    h.clock.advance_days(2.0 / 86_400.0);
    let o = run(other.remember(&cand("hobby", "climbing"), &Default::default())).unwrap();
    assert_eq!((o.spec.cardinality, o.spec.assumed), (Cardinality::Multi, false));
    assert_eq!(h.current("hobby").len(), 2, "{:?}", h.current("hobby"));
}
