#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used)]
//! Entity resolution in the engine (SPEC §9): one slot behind many names,
//! objects resolved per predicate, ambiguity reported, merge and undo.
mod common;

use common::*;
use credence::model::{Action, Candidate};
use credence::{EngineConfig, RecallOptions};

fn about(subject: &str, ty: &str, predicate: &str, object: &str) -> Candidate {
    Candidate { subject: Some(subject.into()), subject_type: Some(ty.into()), ..cand(predicate, object) }
}

fn recall_as(h: &Harness, name: &str, ty: &str) -> Vec<String> {
    let opts = RecallOptions { subject_type: Some(ty.into()), ..Default::default() };
    run(h.engine.recall(Some(name), &opts)).unwrap().into_iter().map(|c| c.object).collect()
}

#[test]
fn three_spellings_land_in_one_slot_so_supersede_fires() {
    let h = harness(EngineConfig::default());
    let a = h.write(about("Acme", "org", "located_in", "Boston"));
    let b = h.write(about("Acme Corp", "org", "located_in", "Austin"));
    let c = h.write(about("ACME, Inc.", "org", "located_in", "austin"));
    assert_eq!(a.claim.subject, "org:acme");
    assert_eq!((b.action, b.claim.subject.as_str()), (Action::Superseded, "org:acme"));
    assert_eq!(c.action, Action::Confirmed);
    assert_eq!(b.resolutions[0].rule, "alias");
    assert_eq!(recall_as(&h, "acme corporation", "org"), vec!["Austin"]);
    let e = run(h.engine.entity("org:acme", None)).unwrap().unwrap().entity;
    assert_eq!(e.aliases, vec!["Acme", "Acme Corp", "ACME, Inc."]);
}

#[test]
fn genuinely_different_names_stay_apart() {
    let h = harness(EngineConfig::default());
    h.write(about("Acme", "org", "located_in", "Boston"));
    let bank = h.write(about("Acme Bank", "org", "located_in", "Zurich"));
    assert_eq!(bank.claim.subject, "org:acme-bank");
    assert_eq!(bank.action, Action::Added);
    assert_eq!(bank.resolutions[0].rule, "new");
    assert_eq!(bank.resolutions[0].near_matches[0].entity_id, "org:acme");
    assert_eq!(recall_as(&h, "Acme", "org"), vec!["Boston"]);
}

#[test]
fn ambiguity_never_merges_silently() {
    let h = harness(EngineConfig::default());
    let east = h.write(about("Acme Global Widget Trading East", "org", "likes", "x"));
    let west = h.write(about("Acme Global Widget Trading West Coast", "org", "likes", "y"));
    assert_ne!(east.claim.subject, west.claim.subject, "4 of 6 tokens (0.67) is below the threshold");
    let o = h.write(about("Acme Global Widget Trading East West", "org", "likes", "z"));
    assert_eq!(o.resolutions[0].rule, "ambiguous");
    let scores: Vec<f64> = o.resolutions[0].near_matches.iter().map(|m| (m.score * 100.0).round() / 100.0).collect();
    assert_eq!(scores, vec![0.83, 0.83]);
    assert_eq!(o.claim.subject, "org:acme-global-widget-trading-east-west");
}

#[test]
fn objects_resolve_so_employer_spellings_confirm() {
    let h = harness(EngineConfig::default());
    h.write(from(cand("works_at", "Acme"), "a", 0.8));
    let o = h.write(from(cand("works_at", "Acme Corp"), "b", 0.8));
    assert_eq!(o.action, Action::Confirmed);
    assert_eq!(o.claim.object_entity.as_deref(), Some("org:acme"));
    let bank = h.write(from(cand("works_at", "Acme Bank"), "c", 0.8));
    assert_eq!(bank.relation, Some(credence::model::Relation::Supersede), "a different employer, not a refinement");
}

#[test]
fn a_person_merges_two_entities_and_can_undo_it() {
    let h = harness(EngineConfig::default());
    h.write(from(about("Bob Smith", "person", "born_on", "1980-01-01"), "a", 0.8));
    h.write(from(about("Robert Smith", "person", "born_on", "1980-01-01"), "b", 0.8));
    h.write(from(about("Robert Smith", "person", "likes", "golf"), "b", 0.8));
    let before_bob = h.all("born_on");
    let m = run(h.engine.merge_entities("person:bob-smith", "person:robert-smith")).unwrap();
    let bob = RecallOptions { predicate: Some("born_on".into()), ..Default::default() };
    let born = run(h.engine.recall(Some("person:bob-smith"), &bob)).unwrap();
    assert_eq!(born.len(), 1);
    assert_eq!(born[0].provenance.len(), 2, "the duplicate confirmed instead of coexisting");
    assert_eq!(recall_as(&h, "Robert Smith", "person").len(), 2, "names of the merged entity now resolve to the target");
    assert!(run(h.engine.recall(Some("person:robert-smith"), &RecallOptions::default())).unwrap().is_empty());
    run(h.engine.undo_entity_merge(&m.id)).unwrap();
    let born = run(h.engine.recall(Some("person:bob-smith"), &bob)).unwrap();
    assert_eq!(born[0].provenance.len(), 1);
    assert_eq!(run(h.engine.recall(Some("person:robert-smith"), &RecallOptions::default())).unwrap().len(), 2);
    assert_eq!(h.all("born_on"), before_bob);
}
