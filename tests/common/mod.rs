#![allow(clippy::unwrap_used)]
//! Shared harness for the native engine tests: a settable clock, sequential
//! ids, closure-backed hooks, and a store wrapper that fails on demand.
#![allow(dead_code)]

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use async_trait::async_trait;
use credence::engine::{Engine, Hooks};
use credence::hooks::{Clock, Judge, MergeHook, MergeResult, PairRef, PairVerdict, SequentialIds};
use credence::model::{Candidate, Claim, LogEntry, Provenance, Slot, SlotCommit, SlotRef};
use credence::store::{MemoryStore, Store};
use credence::time::Timestamp;
use credence::{EngineConfig, Error, ErrorCode, RecallOptions, Result, WriteOptions};

pub fn run<F: std::future::Future>(f: F) -> F::Output {
    pollster::block_on(f)
}

pub struct TestClock(pub Cell<i64>);

impl TestClock {
    pub fn at(iso: &str) -> Rc<Self> {
        Rc::new(TestClock(Cell::new(Timestamp::parse(iso, "t").unwrap().millis())))
    }
    pub fn advance_days(&self, days: f64) {
        self.0.set(self.0.get() + (days * 86_400_000.0) as i64);
    }
}

impl Clock for TestClock {
    fn now(&self) -> Result<Timestamp> {
        Ok(Timestamp::from_millis(self.0.get()))
    }
}

pub type MergeFn = Box<dyn Fn(&[Claim], &Claim) -> Result<MergeResult>>;
pub type PairsFn = Box<dyn Fn(&[Claim]) -> Result<Vec<PairRef>>>;
pub type VerdictFn = Box<dyn Fn(&Claim, &Claim) -> Result<PairVerdict>>;

pub struct FnMerge(pub MergeFn);

#[async_trait(?Send)]
impl MergeHook for FnMerge {
    async fn merge(&self, entries: &[Claim], incoming: &Claim) -> Result<MergeResult> {
        (self.0)(entries, incoming)
    }
}

/// Joins texts with " + "; a hook that "consolidates".
pub fn joining_merge() -> Rc<dyn MergeHook> {
    Rc::new(FnMerge(Box::new(|entries, incoming| {
        let mut parts: Vec<&str> = entries.iter().map(|c| c.object.as_str()).collect();
        parts.push(&incoming.object);
        Ok(MergeResult { content: parts.join(" + "), contradicts: false, reason: None })
    })))
}

pub struct Harness {
    pub engine: Engine,
    pub clock: Rc<TestClock>,
    pub store: Rc<FlakyStore>,
}

pub fn harness(config: EngineConfig) -> Harness {
    harness_with(config, None, None, Rc::new(FlakyStore::new(Rc::new(MemoryStore::new()))))
}

pub fn harness_with(config: EngineConfig, merge: Option<Rc<dyn MergeHook>>, judge: Option<Rc<dyn Judge>>, store: Rc<FlakyStore>) -> Harness {
    let clock = TestClock::at("2026-01-01T00:00:00Z");
    let engine = Engine::new(
        store.clone(),
        &config,
        Hooks { clock: clock.clone(), ids: Some(Rc::new(SequentialIds::new())), merge, judge },
    )
    .unwrap();
    Harness { engine, clock, store }
}

pub fn cand(predicate: &str, object: &str) -> Candidate {
    Candidate { predicate: predicate.into(), object: object.into(), ..Default::default() }
}

pub fn from(mut c: Candidate, source: &str, trust: f64) -> Candidate {
    c.provenance = Some(Provenance { source_id: source.into(), source_trust: Some(trust), ..Default::default() });
    c
}

/// `c` (already given a source by `from`) observed at `at`.
pub fn observed(mut c: Candidate, at: &str) -> Candidate {
    if let Some(p) = c.provenance.as_mut() {
        p.observed_at = Some(at.into());
    }
    c
}

pub fn with_strategy(s: &str) -> WriteOptions {
    WriteOptions { strategy: Some(s.into()), expected_version: None }
}

impl Harness {
    pub fn write(&self, c: Candidate) -> credence::model::Outcome {
        self.clock.advance_days(1.0);
        run(self.engine.remember(&c, &WriteOptions::default())).unwrap()
    }
    pub fn write_with(&self, c: Candidate, o: WriteOptions) -> Result<credence::model::Outcome> {
        self.clock.advance_days(1.0);
        run(self.engine.remember(&c, &o))
    }
    pub fn current(&self, predicate: &str) -> Vec<(String, String)> {
        let opts = RecallOptions { predicate: Some(predicate.into()), ..Default::default() };
        run(self.engine.recall(None, &opts)).unwrap().into_iter().map(|c| (c.object, c.status.as_str().to_string())).collect()
    }
    pub fn all(&self, predicate: &str) -> Vec<Claim> {
        let opts = RecallOptions { predicate: Some(predicate.into()), include_history: true, ..Default::default() };
        run(self.engine.recall(None, &opts)).unwrap()
    }
}

/// Another writer's step, run inside a store call.
pub type Step = Box<dyn FnOnce()>;

/// A store that delegates to another and fails the chosen operation.
pub struct FlakyStore {
    pub inner: Rc<dyn Store>,
    pub fail: RefCell<Option<&'static str>>,
    pub lose_races: Cell<u32>,
    /// A snapshot the next load of its slot returns, as a writer that read
    /// before another writer's commit would have seen it.
    pub stale: RefCell<Option<(SlotRef, Slot)>>,
    /// How many loads of that slot get the snapshot.
    pub stale_uses: Cell<u32>,
    /// Runs just before the next commit of its slot reaches the store: another
    /// writer's step landing between this writer's read and its commit.
    pub before_commit: RefCell<Option<(SlotRef, Step)>>,
    /// Commits to `before_commit`'s slot that pass before its step runs.
    pub before_commit_skips: Cell<u32>,
    /// `erase_slot` calls that reached the store.
    pub erase_slots: Cell<u32>,
    /// Entity key rows served by `find_entities` instead of the store's (a writer's earlier view).
    pub stale_rows: RefCell<Option<Vec<credence::entities::EntityKeyRow>>>,
}

impl FlakyStore {
    pub fn new(inner: Rc<dyn Store>) -> Self {
        FlakyStore { inner, fail: RefCell::new(None), lose_races: Cell::new(0), stale: RefCell::new(None), stale_uses: Cell::new(1), before_commit: RefCell::new(None), before_commit_skips: Cell::new(0), erase_slots: Cell::new(0), stale_rows: RefCell::new(None) }
    }
    fn check(&self, op: &str) -> Result<()> {
        if *self.fail.borrow() == Some(op) {
            return Err(Error::new(ErrorCode::StoreFailed, format!("injected failure in {op}")));
        }
        Ok(())
    }
}

#[async_trait(?Send)]
impl Store for FlakyStore {
    async fn load_slot(&self, slot: &SlotRef) -> Result<Slot> {
        self.check("load")?;
        if self.stale.borrow().as_ref().is_some_and(|(r, _)| r == slot) && self.stale_uses.get() > 0 {
            self.stale_uses.set(self.stale_uses.get() - 1);
            let old = self.stale.borrow().as_ref().map(|(_, s)| s.clone());
            if self.stale_uses.get() == 0 {
                *self.stale.borrow_mut() = None;
            }
            if let Some(old) = old {
                return Ok(old);
            }
        }
        self.inner.load_slot(slot).await
    }
    async fn commit_slot(&self, commit: &SlotCommit) -> Result<bool> {
        self.check("commit")?;
        let mut due = self.before_commit.borrow().as_ref().is_some_and(|(r, _)| *r == commit.slot_ref);
        if due && self.before_commit_skips.get() > 0 {
            self.before_commit_skips.set(self.before_commit_skips.get() - 1);
            due = false;
        }
        let step = if due { self.before_commit.borrow_mut().take() } else { None };
        if let Some((_, step)) = step {
            step();
        }
        if self.lose_races.get() > 0 {
            self.lose_races.set(self.lose_races.get() - 1);
            return Ok(false);
        }
        self.inner.commit_slot(commit).await
    }
    async fn find_claim(&self, id: &str) -> Result<Option<SlotRef>> {
        self.inner.find_claim(id).await
    }
    async fn find_conflict(&self, id: &str) -> Result<Option<SlotRef>> {
        self.inner.find_conflict(id).await
    }
    async fn find_write(&self, id: &str) -> Result<Option<SlotRef>> {
        self.inner.find_write(id).await
    }
    async fn list_slots(&self, subject: Option<&str>) -> Result<Vec<SlotRef>> {
        self.inner.list_slots(subject).await
    }
    async fn read_log(&self, slot: &SlotRef) -> Result<Vec<LogEntry>> {
        self.inner.read_log(slot).await
    }
    async fn erase_slot(&self, commit: &SlotCommit, log: &[LogEntry]) -> Result<bool> {
        self.check("commit")?;
        self.erase_slots.set(self.erase_slots.get() + 1);
        self.inner.erase_slot(commit, log).await
    }
    async fn list_conflicts(&self, query: &credence::model::ConflictQuery) -> Result<Vec<credence::model::IndexedConflict>> {
        self.check("list")?;
        self.inner.list_conflicts(query).await
    }
    async fn dirty_slots(&self, query: &credence::model::DirtyQuery) -> Result<Vec<SlotRef>> {
        self.check("list")?;
        self.inner.dirty_slots(query).await
    }
    async fn find_entities(&self, entity_type: &str, keys: &[String]) -> Result<Vec<credence::entities::EntityKeyRow>> {
        self.check("find")?;
        if let Some(rows) = self.stale_rows.borrow().as_ref() {
            let of_type = |r: &&credence::entities::EntityKeyRow| r.entity.split_once(':').is_some_and(|(t, _)| t == entity_type);
            return Ok(rows.iter().filter(of_type).filter(|r| keys.contains(&r.key)).cloned().collect());
        }
        self.inner.find_entities(entity_type, keys).await
    }
}

/// A judge that answers from a script and counts its calls.
pub struct ScriptedJudge {
    pub pairs: PairsFn,
    pub verdict: VerdictFn,
    pub calls: Cell<u32>,
}

#[async_trait(?Send)]
impl Judge for ScriptedJudge {
    async fn find_pairs(&self, claims: &[Claim]) -> Result<Vec<PairRef>> {
        self.calls.set(self.calls.get() + 1);
        (self.pairs)(claims)
    }
    async fn confirm_pair(&self, earlier: &Claim, newer: &Claim) -> Result<PairVerdict> {
        self.calls.set(self.calls.get() + 1);
        (self.verdict)(earlier, newer)
    }
}

/// Every slot and log of `store` as JSON text: what an erasure must leave no trace in.
pub fn store_text(store: &MemoryStore) -> String {
    run(async {
        let mut all = String::new();
        for r in store.list_slots(None).await.unwrap() {
            all.push_str(&serde_json::to_string(&store.load_slot(&r).await.unwrap()).unwrap());
            all.push_str(&serde_json::to_string(&store.read_log(&r).await.unwrap()).unwrap());
        }
        all
    })
}

/// Every order of `n` items (Heap's algorithm).
pub fn all_orders(n: usize) -> Vec<Vec<usize>> {
    fn heap(k: usize, a: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if k <= 1 {
            out.push(a.clone());
            return;
        }
        for i in 0..k {
            heap(k - 1, a, out);
            a.swap(if k % 2 == 0 { i } else { 0 }, k - 1);
        }
    }
    let mut out = Vec::new();
    heap(n, &mut (0..n).collect(), &mut out);
    out
}
