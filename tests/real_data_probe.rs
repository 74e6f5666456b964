#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used)]
//! A native probe of the real truth-discovery data (../shared/data, read at
//! run time): `cargo test --release --test real_data_probe -- --ignored --nocapture`.
//! Prints accuracy per set for the configs the eval runs; asserts nothing
//! (the eval, through the package, is the measurement of record).
mod common;

use std::rc::Rc;

use common::*;
use credence::engine::{Engine, Hooks};
use credence::hooks::SequentialIds;
use credence::model::{Candidate, Provenance};
use credence::store::MemoryStore;
use credence::{EngineConfig, RecallOptions, WriteOptions};

fn load() -> Option<serde_json::Value> {
    let path = std::env::var("CREDENCE_DATA_DIR").unwrap_or_else(|_| "../shared/data".into());
    let text = std::fs::read_to_string(format!("{path}/truth-discovery.json")).ok()?;
    serde_json::from_str(&text).ok()
}

fn run_set(d: &serde_json::Value, config: serde_json::Value, reverse: bool) -> (f64, usize) {
    let tv = d["timeVarying"].as_bool().unwrap();
    let predicate = d["predicate"].as_str().unwrap().to_string();
    let mut cfg: EngineConfig = serde_json::from_value(config).unwrap();
    cfg.predicates = serde_json::from_value(serde_json::json!([{ "name": predicate, "cardinality": "single", "timeVarying": tv }])).unwrap();
    let dates: Vec<String> = d.get("dates").and_then(|x| x.as_array()).map(|a| a.iter().map(|x| x.as_str().unwrap().to_string()).collect()).unwrap_or_else(|| vec!["2007-01-01".into()]);
    let clock = TestClock::at(&format!("{}T00:00:00Z", dates[0]));
    let engine = Engine::new(Rc::new(MemoryStore::new()), &cfg, Hooks { clock: clock.clone(), ids: Some(Rc::new(SequentialIds::new())), merge: None, judge: None }).unwrap();
    let s = |v: &serde_json::Value, i: usize| v[i].as_u64().unwrap() as usize;
    let (sources, items, values) = (&d["sources"], &d["items"], &d["values"]);
    let mut weeks: Vec<Vec<(usize, usize, usize)>> = vec![Vec::new(); dates.len()];
    for c in d["claims"].as_array().unwrap() {
        let (w, src, item, val) = if tv { (s(c, 0), s(c, 1), s(c, 2), s(c, 3)) } else { (0, s(c, 0), s(c, 1), s(c, 2)) };
        weeks[w].push((src, item, val));
    }
    for (w, mut reports) in weeks.into_iter().enumerate() {
        let at = format!("{}T00:00:00.000Z", dates[w]);
        clock.0.set(credence::time::Timestamp::parse(&at, "t").unwrap().millis());
        if reverse {
            reports.reverse();
        }
        for (src, item, val) in reports {
            let c = Candidate {
                subject: Some(items[item].as_str().unwrap().into()),
                predicate: predicate.clone(),
                object: values[val].as_str().unwrap().into(),
                provenance: Some(Provenance { source_id: sources[src].as_str().unwrap().into(), observed_at: Some(at.clone()), ..Default::default() }),
                ..Default::default()
            };
            run(engine.remember(&c, &WriteOptions::default())).unwrap();
        }
    }
    let score = |engine: &Engine| {
        let mut right = 0;
        for g in d["gold"].as_array().unwrap() {
            let (item, val) = (s(g, 0), s(g, 1));
            let claims = run(engine.recall(Some(items[item].as_str().unwrap()), &RecallOptions { predicate: Some(predicate.clone()), ..Default::default() })).unwrap();
            let best = claims.iter().filter(|c| c.status.is_current()).max_by(|a, b| a.confidence.total_cmp(&b.confidence));
            if best.is_some_and(|c| c.object == values[val].as_str().unwrap()) {
                right += 1;
            }
        }
        right
    };
    if std::env::var("PROBE_RECALIBRATE").is_ok() {
        let show = |engine: &Engine| {
            let c = run(engine.calibration()).unwrap();
            if let Some(c) = c {
                let r: Vec<String> = c.sources.iter().filter(|s| s.observations > 500).map(|s| format!("{}={:.2}/{:.2}", &s.source_id[..4.min(s.source_id.len())], s.reliability, s.repeat_weight)).collect();
                println!("  v{} forms {:?} domains {:?} half-life {:?} deps {} | {}", c.version, c.forms.iter().map(|f| (f.refined_support, f.embellished, f.observations)).collect::<Vec<_>>(), c.domains.iter().map(|d| d.values).collect::<Vec<_>>(), c.predicates.iter().map(|p| p.half_life_days as i64).collect::<Vec<_>>(), c.dependencies.len(), r.join(" "));
            }
        };
        show(&engine);
        println!("  before: {}", score(&engine));
        for _ in 0..3 {
            run(engine.calibrate(&Default::default())).unwrap();
            show(&engine);
            println!("  after calibrate(): {}", score(&engine));
        }
    }
    let mut right = 0;
    let gold = d["gold"].as_array().unwrap();
    for g in gold {
        let (item, val) = (s(g, 0), s(g, 1));
        let claims = run(engine.recall(Some(items[item].as_str().unwrap()), &RecallOptions { predicate: Some(predicate.clone()), ..Default::default() })).unwrap();
        let best = claims.iter().filter(|c| c.status.is_current()).max_by(|a, b| a.confidence.total_cmp(&b.confidence));
        if best.is_some_and(|c| c.object == values[val].as_str().unwrap()) {
            right += 1;
        }
    }
    (100.0 * right as f64 / gold.len() as f64, gold.len())
}

#[test]
#[ignore]
fn real_data_accuracy() {
    let Some(doc) = load() else { return };
    for name in ["book", "restaurant"] {
        let d = &doc["datasets"][name];
        for (label, cfg) in [("inline", serde_json::json!({ "calibrate": "inline" })), ("off", serde_json::json!({ "calibrate": false }))] {
            let (acc, n) = run_set(d, cfg.clone(), false);
            let (rev, _) = run_set(d, cfg, true);
            println!("{name} {label}: {acc:.1}% of {n} (reverse order {rev:.1}%)");
        }
    }
}

#[test]
#[ignore]
fn order_difference() {
    let Some(doc) = load() else { return };
    let d = &doc["datasets"]["restaurant"];
    let predicate = d["predicate"].as_str().unwrap().to_string();
    let cfg: EngineConfig = serde_json::from_value(serde_json::json!({ "calibrate": false, "predicates": [{ "name": predicate, "cardinality": "single", "timeVarying": true }] })).unwrap();
    let dates: Vec<String> = d["dates"].as_array().unwrap().iter().map(|x| x.as_str().unwrap().to_string()).collect();
    let s = |v: &serde_json::Value, i: usize| v[i].as_u64().unwrap() as usize;
    let (sources, items, values) = (&d["sources"], &d["items"], &d["values"]);
    let only: Option<usize> = std::env::var("ITEM").ok().map(|x| x.parse().unwrap());
    let feed = |reverse: bool| {
        let clock = TestClock::at(&format!("{}T00:00:00Z", dates[0]));
        let engine = Engine::new(Rc::new(MemoryStore::new()), &cfg, Hooks { clock: clock.clone(), ids: Some(Rc::new(SequentialIds::new())), merge: None, judge: None }).unwrap();
        let mut weeks: Vec<Vec<(usize, usize, usize)>> = vec![Vec::new(); dates.len()];
        for c in d["claims"].as_array().unwrap() {
            if only.is_some_and(|i| i != s(c, 2)) { continue; }
            weeks[s(c, 0)].push((s(c, 1), s(c, 2), s(c, 3)));
        }
        for (w, mut reports) in weeks.into_iter().enumerate() {
            let at = format!("{}T00:00:00.000Z", dates[w]);
            clock.0.set(credence::time::Timestamp::parse(&at, "t").unwrap().millis());
            if reverse { reports.reverse(); }
            for (src, item, val) in reports {
                if only.is_some() { println!("  {} w{w} {} {}", if reverse { "R" } else { "F" }, sources[src].as_str().unwrap(), values[val].as_str().unwrap()); }
                let c = Candidate { subject: Some(items[item].as_str().unwrap().into()), predicate: predicate.clone(), object: values[val].as_str().unwrap().into(),
                    provenance: Some(Provenance { source_id: sources[src].as_str().unwrap().into(), observed_at: Some(at.clone()), ..Default::default() }), ..Default::default() };
                let o = run(engine.remember(&c, &WriteOptions::default())).unwrap();
                if only.is_some() { println!("     -> {:?}", o.action); }
            }
        }
        engine
    };
    let (f, r) = (feed(false), feed(true));
    let mut shown = 0;
    for (i, item) in items.as_array().unwrap().iter().enumerate() {
        if only.is_some_and(|x| x != i) { continue; }
        let opts = RecallOptions { predicate: Some(predicate.clone()), ..Default::default() };
        let state = |e: &Engine| -> Vec<String> { run(e.recall(Some(item.as_str().unwrap()), &opts)).unwrap().iter().map(|c| format!("{} {:?} {:.3}", c.object, c.status, c.confidence)).collect() };
        let (mut a, mut b) = (state(&f), state(&r));
        a.sort();
        b.sort();
        if a != b {
            shown += 1;
            if shown <= 5 { println!("item {i} {}: forward {a:?} reverse {b:?}", item.as_str().unwrap()); }
        }
    }
    println!("{shown} items differ");
}
