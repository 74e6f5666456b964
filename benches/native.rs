//! The native side of `npm run bench`: the reconcile workload through the Rust
//! core on the in-memory store, exactly as bench/run.mjs drives the packed
//! package (default config, system clock, random ids), printing one JSON line.
//!
//! `CREDENCE_BENCH_WORKLOAD=<candidates.json> CREDENCE_BENCH_REPS=5 cargo bench --bench native`
//! (bench/run.mjs writes the file). Each rep writes every candidate into a
//! fresh store; the JSON holds ns per write for every rep, one at a time and
//! through `remember_many` (`CREDENCE_BENCH_BATCH` per call), and the action histogram.

use std::collections::BTreeMap;
use std::rc::Rc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use credence::engine::{Engine, Hooks};
use credence::hooks::Clock;
use credence::model::{Candidate, Outcome};
use credence::time::Timestamp;
use credence::{EngineConfig, MemoryStore, Result, WriteOptions};

struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Result<Timestamp> {
        let ms = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0);
        Ok(Timestamp::from_millis(ms))
    }
}

fn engine() -> Engine {
    let hooks = Hooks { clock: Rc::new(SystemClock), ids: None, merge: None, judge: None };
    match Engine::new(Rc::new(MemoryStore::new()), &EngineConfig::default(), hooks) {
        Ok(e) => e,
        Err(e) => fail(&format!("engine: {}", e.message)),
    }
}

fn fail(message: &str) -> ! {
    eprintln!("native bench: {message}");
    std::process::exit(1)
}

fn histogram(outcomes: &[Outcome]) -> BTreeMap<String, usize> {
    let mut h = BTreeMap::new();
    for o in outcomes {
        let action = serde_json::to_value(o.action).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
        *h.entry(action).or_insert(0) += 1;
    }
    h
}

/// One rep, one write at a time: (ns per write, outcomes).
fn one_at_a_time(candidates: &[Candidate]) -> (f64, Vec<Outcome>) {
    let engine = engine();
    let options = WriteOptions::default();
    let mut outcomes = Vec::with_capacity(candidates.len());
    let start = Instant::now();
    for c in candidates {
        match pollster::block_on(engine.remember(c, &options)) {
            Ok(o) => outcomes.push(o),
            Err(e) => fail(&format!("remember: {}", e.message)),
        }
    }
    (start.elapsed().as_nanos() as f64 / candidates.len() as f64, outcomes)
}

/// One rep through `remember_many`, `batch` candidates per call in arrival order (as the JS side does).
fn batched(candidates: &[Candidate], batch: usize) -> f64 {
    let engine = engine();
    let options = WriteOptions::default();
    let start = Instant::now();
    for chunk in candidates.chunks(batch) {
        if let Err(e) = pollster::block_on(engine.remember_many(chunk, &options)) {
            fail(&format!("remember_many: {}", e.message));
        }
    }
    start.elapsed().as_nanos() as f64 / candidates.len() as f64
}

/// Growth: ns per write of `probe` into fresh slots of an empty store vs of a
/// store first filled (through `remember_many`) with `target` claims of `fill`.
/// Growth: ns per write of `probe` into fresh slots of an empty store vs of a
/// store first filled (through `remember_many`) with `target` claims of `fill`,
/// overall and split into works_at writes (resolved against the org registry)
/// and the rest: `[all, works_at, rest]` per rep.
fn growth(probe: &[Candidate], fill: &[Candidate], target: usize, reps: usize) -> serde_json::Value {
    let run = |engine: &Engine, tag: &str| {
        let options = WriteOptions::default();
        let (mut all, mut typed, mut typed_n) = (0.0, 0.0, 0usize);
        for c in probe {
            let mut c = c.clone();
            c.subject = c.subject.map(|s| format!("{tag}{s}"));
            let start = Instant::now();
            if let Err(e) = pollster::block_on(engine.remember(&c, &options)) {
                fail(&format!("remember: {}", e.message));
            }
            let ns = start.elapsed().as_nanos() as f64;
            all += ns;
            if c.predicate == "works_at" {
                typed += ns;
                typed_n += 1;
            }
        }
        let n = probe.len();
        [all / n as f64, typed / typed_n.max(1) as f64, (all - typed) / (n - typed_n).max(1) as f64]
    };
    let store = Rc::new(MemoryStore::new());
    let hooks = Hooks { clock: Rc::new(SystemClock), ids: None, merge: None, judge: None };
    let full_engine = Engine::new(store.clone(), &EngineConfig::default(), hooks).unwrap_or_else(|e| fail(&e.message));
    let mut round = 0;
    while store.claim_count() < target {
        round += 1;
        for chunk in fill.chunks(1000) {
            let chunk: Vec<Candidate> = chunk.iter().map(|c| Candidate { subject: c.subject.as_ref().map(|s| format!("r{round}{s}")), ..c.clone() }).collect();
            if let Err(e) = pollster::block_on(full_engine.remember_many(&chunk, &WriteOptions::default())) {
                fail(&format!("remember_many: {}", e.message));
            }
            if store.claim_count() >= target {
                break;
            }
        }
    }
    // A warm-up of each, then empty and full runs interleaved.
    run(&engine(), "we");
    run(&full_engine, "wf");
    let (mut empty, mut full) = (Vec::new(), Vec::new());
    for i in 0..reps {
        empty.push(run(&engine(), &format!("e{i}")));
        full.push(run(&full_engine, &format!("f{i}")));
    }
    serde_json::json!({ "claims": store.claim_count(), "empty": empty, "full": full })
}

fn main() {
    let Ok(path) = std::env::var("CREDENCE_BENCH_WORKLOAD") else {
        // `cargo test --benches` runs this too: nothing to measure without a workload.
        eprintln!("native bench: set CREDENCE_BENCH_WORKLOAD to a candidates JSON file (bench/run.mjs does)");
        return;
    };
    let env_num = |name: &str, default: usize| std::env::var(name).ok().and_then(|r| r.parse().ok()).filter(|n| *n > 0).unwrap_or(default);
    let reps = env_num("CREDENCE_BENCH_REPS", 5);
    let batch = env_num("CREDENCE_BENCH_BATCH", 100);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| fail(&format!("{path}: {e}")));
    let candidates: Vec<Candidate> = serde_json::from_str(&text).unwrap_or_else(|e| fail(&format!("{path}: {e}")));
    let (_, first) = one_at_a_time(&candidates); // warm-up; also the histogram
    let single: Vec<f64> = (0..reps).map(|_| one_at_a_time(&candidates).0).collect();
    batched(&candidates, batch);
    let batch_ns: Vec<f64> = (0..reps).map(|_| batched(&candidates, batch)).collect();
    let growth = std::env::var("CREDENCE_BENCH_GROWTH").ok().and_then(|t| t.parse::<usize>().ok()).map(|target| {
        let fill_path = std::env::var("CREDENCE_BENCH_FILL").unwrap_or_else(|_| fail("CREDENCE_BENCH_GROWTH needs CREDENCE_BENCH_FILL"));
        let fill_text = std::fs::read_to_string(&fill_path).unwrap_or_else(|e| fail(&format!("{fill_path}: {e}")));
        let fill: Vec<Candidate> = serde_json::from_str(&fill_text).unwrap_or_else(|e| fail(&format!("{fill_path}: {e}")));
        growth(&candidates, &fill, target, reps)
    });
    let report = serde_json::json!({
        "growth": growth,
        "writes": candidates.len(),
        "reps": reps,
        "batch": batch,
        "nsPerWrite": single,
        "nsPerWriteBatched": batch_ns,
        "histogram": histogram(&first),
    });
    println!("{report}");
}
