#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used)]
//! Writes from snapshots a store holds (`Store::load_slot_to_write`): a held
//! snapshot saves the write's load; a stale one (another writer committed
//! since) is caught by the commit's version check or reloaded before an
//! answer that commits nothing, and never costs the write one of its retries.
mod common;

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use async_trait::async_trait;
use common::*;
use credence::engine::{Engine, Hooks};
use credence::model::{Action, LogEntry, Slot, SlotCommit, SlotRef};
use credence::store::{MemoryStore, Store};
use credence::{EngineConfig, Result, WriteOptions};
use foldhash::HashMap;

/// What a PostgresStore in another process looks like: it holds the last
/// version of each slot it loaded or committed, and never hears of commits
/// made through another `Holding` over the same backend.
struct Holding {
    backend: Rc<MemoryStore>,
    held: RefCell<HashMap<String, Slot>>,
    /// Loads of the slots of subject "ann" that reached the backend.
    backend_loads: Cell<usize>,
}

impl Holding {
    fn over(backend: &Rc<MemoryStore>) -> Rc<Self> {
        Rc::new(Holding { backend: backend.clone(), held: RefCell::default(), backend_loads: Cell::new(0) })
    }
}

#[async_trait(?Send)]
impl Store for Holding {
    async fn load_slot(&self, slot: &SlotRef) -> Result<Slot> {
        if slot.subject == "ann" {
            self.backend_loads.set(self.backend_loads.get() + 1);
        }
        let loaded = self.backend.load_slot(slot).await?;
        self.held.borrow_mut().insert(slot.key.clone(), loaded.clone());
        Ok(loaded)
    }
    async fn load_slot_to_write(&self, slot: &SlotRef) -> Result<(Slot, bool)> {
        if let Some(held) = self.held.borrow().get(&slot.key) {
            return Ok((held.clone(), true));
        }
        self.load_slot(slot).await.map(|s| (s, false))
    }
    async fn commit_slot(&self, commit: &SlotCommit) -> Result<bool> {
        let won = self.backend.commit_slot(commit).await?;
        if won {
            self.held.borrow_mut().insert(commit.slot_ref.key.clone(), commit.slot.clone());
        } else {
            self.held.borrow_mut().remove(&commit.slot_ref.key);
        }
        Ok(won)
    }
    async fn find_claim(&self, id: &str) -> Result<Option<SlotRef>> {
        self.backend.find_claim(id).await
    }
    async fn find_conflict(&self, id: &str) -> Result<Option<SlotRef>> {
        self.backend.find_conflict(id).await
    }
    async fn find_write(&self, id: &str) -> Result<Option<SlotRef>> {
        self.backend.find_write(id).await
    }
    async fn list_slots(&self, subject: Option<&str>) -> Result<Vec<SlotRef>> {
        self.backend.list_slots(subject).await
    }
    async fn read_log(&self, slot: &SlotRef) -> Result<Vec<LogEntry>> {
        self.backend.read_log(slot).await
    }
    async fn list_conflicts(&self, query: &credence::model::ConflictQuery) -> Result<Vec<credence::model::IndexedConflict>> {
        self.backend.list_conflicts(query).await
    }
    async fn dirty_slots(&self, query: &credence::model::DirtyQuery) -> Result<Vec<SlotRef>> {
        self.backend.dirty_slots(query).await
    }
    async fn find_entities(&self, entity_type: &str, keys: &[String]) -> Result<Vec<credence::entities::EntityKeyRow>> {
        self.backend.find_entities(entity_type, keys).await
    }
}

fn engine(store: &Rc<Holding>, clock: &Rc<TestClock>, retries: u32) -> Engine {
    let config = EngineConfig { retries: Some(retries), ..Default::default() };
    Engine::new(store.clone(), &config, Hooks { clock: clock.clone(), ids: None, merge: None, judge: None }).unwrap()
}

fn lives_in(city: &str, year: &str) -> credence::model::Candidate {
    credence::model::Candidate { subject: Some("ann".into()), valid_from: Some(year.into()), ..cand("located_in", city) }
}

/// Two writers over one backend, each with its own held snapshots.
fn two_writers(retries: u32) -> (Engine, Rc<Holding>, Engine, Rc<Holding>) {
    let backend = Rc::new(MemoryStore::new());
    let clock = TestClock::at("2026-01-01T00:00:00Z");
    let (a, b) = (Holding::over(&backend), Holding::over(&backend));
    (engine(&a, &clock, retries), a, engine(&b, &clock, retries), b)
}

/// `a` holds the slot with Paris; `b` has since written London (a's snapshot is stale).
fn a_stale_after_london(retries: u32) -> (Engine, Rc<Holding>) {
    let (a, held, b, _) = two_writers(retries);
    write(&a, lives_in("Paris", "2020"), &WriteOptions::default()).unwrap();
    write(&b, lives_in("London", "2024"), &WriteOptions::default()).unwrap();
    (a, held)
}

fn write(e: &Engine, c: credence::model::Candidate, options: &WriteOptions) -> Result<credence::model::Outcome> {
    run(e.remember(&c, options))
}

fn assert_sound(e: &Engine) {
    assert_eq!(run(e.check_invariants()).unwrap(), Vec::new());
}

#[test]
fn a_held_snapshot_saves_the_writes_load() {
    let (a, store, _, _) = two_writers(3);
    for year in ["2020", "2021", "2022", "2023"] {
        write(&a, lives_in(&format!("City {year}"), year), &WriteOptions::default()).unwrap();
    }
    assert_eq!(store.backend_loads.get(), 1, "only the first write loads the slot");
    assert_sound(&a);
}

#[test]
fn a_stale_held_snapshot_is_caught_by_the_commit_and_costs_no_retry() {
    // retries 0: a lost race would fail the write; a stale snapshot must not.
    let (a, _) = a_stale_after_london(0);
    // Against a's held snapshot London would be new; it is a confirmation.
    let o = write(&a, lives_in("London", "2024"), &WriteOptions::default()).unwrap();
    assert_eq!((o.action, o.attempts), (Action::Confirmed, 1));
    let current: Vec<_> = o.affected.iter().chain(std::iter::once(&o.claim)).filter(|c| c.status.is_current()).map(|c| c.object.clone()).collect();
    assert_eq!(current, vec!["London"]);
    assert_sound(&a);
}

#[test]
fn expected_version_is_checked_against_the_slot_as_it_is() {
    let (a, _, b, _) = two_writers(3);
    write(&a, lives_in("Paris", "2020"), &WriteOptions::default()).unwrap();
    let v = write(&b, lives_in("London", "2024"), &WriteOptions::default()).unwrap().slot_version;
    let o = write(&a, lives_in("Rome", "2025"), &WriteOptions { expected_version: Some(v), ..Default::default() }).unwrap();
    assert_eq!(o.action, Action::Superseded);
    let err = write(&b, lives_in("Oslo", "2026"), &WriteOptions { expected_version: Some(v), ..Default::default() }).unwrap_err();
    assert_eq!(err.code, credence::ErrorCode::Concurrency);
}

#[test]
fn an_answer_without_a_commit_comes_from_the_slot_as_it_is() {
    let (a, _) = a_stale_after_london(3);
    // `reject` refuses London against a's held snapshot (Paris only) without
    // committing anything; the slot as it is holds London: a confirmation.
    let reject = WriteOptions { strategy: Some("reject".into()), ..Default::default() };
    let o = write(&a, lives_in("London", "2024"), &reject).unwrap();
    assert_eq!((o.action, o.claim.object.as_str(), o.attempts), (Action::Confirmed, "London", 1));
    assert_sound(&a);
}

#[test]
fn a_batch_writes_from_held_snapshots_too() {
    let (a, store) = a_stale_after_london(0);
    let loads = store.backend_loads.get();
    let out = run(a.remember_many(&[lives_in("London", "2024"), lives_in("Rome", "2025")], &WriteOptions::default())).unwrap();
    assert_eq!(out.iter().map(|o| o.action).collect::<Vec<_>>(), vec![Action::Confirmed, Action::Superseded]);
    assert_eq!(store.backend_loads.get(), loads + 1, "the stale snapshot, then one load");
    assert_sound(&a);
}

#[test]
fn a_replayed_write_shows_its_claim_as_it_is_now() {
    let (a, _, b, _) = two_writers(3);
    let keyed = credence::model::Candidate { id: Some("w1".into()), ..lives_in("Paris", "2020") };
    let first = write(&a, keyed.clone(), &WriteOptions::default()).unwrap();
    write(&b, lives_in("London", "2024"), &WriteOptions::default()).unwrap();
    // a holds the slot from before London: its replay must not say Paris is current.
    let again = write(&a, keyed, &WriteOptions::default()).unwrap();
    assert!(again.replayed);
    assert_eq!(again.claim.id, first.claim.id);
    assert!(!again.claim.status.is_current(), "{:?}", again.claim.status);
}
