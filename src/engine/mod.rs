//! Orchestration: the engine (a store, settings and hooks) and the commit
//! loop every change of a slot goes through, with optimistic concurrency.
//! One write from candidate to committed slot lives in `write.rs`, reads in
//! `read.rs`, settlement in `settle.rs`, the review pass in `review.rs`.

mod archive;
pub(crate) mod prepare;
mod read;
mod record;
mod recalibrate;
mod batch;
mod calibrate;
mod check;
mod define;
mod dependent;
mod entity;
mod entity_migrate;
mod entity_merge;
mod entity_merge_undo;
mod erase;
mod import;
mod listing;
mod name_memo;
mod review;
mod retract;
mod same_entity;
mod settle;
mod undo_guard;
mod write;

pub use define::{PredicateDefinition, PredicateInfo, HalfLifeSource};
// Kept here for the tests that name them by this path; they live in `model`.
pub use crate::model::{is_reserved_subject, CALIBRATION_PREDICATE, CALIBRATION_SUBJECT};
pub use read::{RecallOptions, Why};
pub use entity::EntityView;
pub use erase::{EraseOptions, EraseTarget, Erasure};
pub use review::ReviewReport;
pub use retract::{RetractOptions, Undone};
pub use recalibrate::AutoCalibrate;
pub use write::WriteOptions;

use std::rc::Rc;

use crate::config::{EngineConfig, Settings};
use crate::error::{Error, ErrorCode, Result};
use crate::hooks::{Clock, IdSource, Judge, MergeHook, Pause, RandomIds};
use crate::model::{LogCause, Slot, SlotRef};
use crate::predicates::PredicateSpec;
use crate::store::Store;
use crate::strategy::{self, Strategy};
use crate::txn::SlotTxn;

pub struct Engine {
    store: Rc<dyn Store>,
    settings: Settings,
    clock: Rc<dyn Clock>,
    ids: Rc<dyn IdSource>,
    merge: Option<Rc<dyn MergeHook>>,
    judge: Option<Rc<dyn Judge>>,
    /// Entity types whose registry (written before entities had slots of their own) was looked at.
    migrated: entity_migrate::Migrated,
    /// Names resolved to known spellings, so their next write skips the look-up.
    names: name_memo::NameMemo,
    auto_calibrate: AutoCalibrate,
    calibrate_after: u64,
    schedule: recalibrate::Schedule,
    /// Turns given to the host during background calibration (none natively).
    pause: Option<Rc<dyn Pause>>,
}

pub struct Hooks {
    pub clock: Rc<dyn Clock>,
    pub ids: Option<Rc<dyn IdSource>>,
    pub merge: Option<Rc<dyn MergeHook>>,
    pub judge: Option<Rc<dyn Judge>>,
}

impl Engine {
    pub fn new(store: Rc<dyn Store>, config: &EngineConfig, hooks: Hooks) -> Result<Self> {
        Ok(Engine {
            store,
            settings: Settings::new(config)?,
            clock: hooks.clock,
            ids: hooks.ids.unwrap_or_else(|| Rc::new(RandomIds)),
            merge: hooks.merge,
            judge: hooks.judge,
            migrated: Default::default(),
            names: Default::default(),
            auto_calibrate: AutoCalibrate::parse(config.calibrate.as_ref())?,
            calibrate_after: config.calibrate_after.unwrap_or(recalibrate::CALIBRATE_AFTER),
            schedule: Default::default(),
            pause: None,
        })
    }

    /// Lets background work give the host's event loop turns (`Pause`).
    pub fn with_pause(mut self, pause: Rc<dyn Pause>) -> Self {
        self.pause = Some(pause);
        self
    }

    /// Compacts claims holding more than `n` observations (default
    /// `archive::ARCHIVE_AFTER`); tests lower it so compaction runs often.
    #[doc(hidden)]
    pub fn with_archive_after(mut self, n: usize) -> Self {
        self.settings.archive_after = n.max(2);
        self
    }

    /// Moves dead claims to claim chunks once `n` of them lead the slot
    /// (default `archive::CLAIMS_AFTER`); tests lower it so it runs often.
    #[doc(hidden)]
    pub fn with_archive_claims_after(mut self, n: usize) -> Self {
        self.settings.archive_claims_after = n.max(1);
        self
    }

    /// The version of the calibration in force, if any.
    pub(crate) fn calibration_version(&self) -> Option<u64> {
        self.settings.calibration.get().map(|c| c.record.version)
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    pub fn store(&self) -> &Rc<dyn Store> {
        &self.store
    }

    pub fn now(&self) -> Result<crate::time::Timestamp> {
        self.clock.now()
    }

    pub fn spec_of(&self, predicate: &str) -> PredicateSpec {
        self.settings.registry.resolve(predicate)
    }

    /// Whether a predicate's slots hold one believed value, reconciled (what
    /// calibration learns from and brings in line); multi-valued slots and
    /// slots of another strategy in force are left out.
    pub(crate) fn reconciles_one_value(&self, spec: &PredicateSpec) -> bool {
        !spec.is_multi()
            && strategy::choose(None, self.settings.strategy, spec, &self.settings.type_defaults, self.merge.is_some()).is_ok_and(|(s, _)| s == Strategy::Reconcile)
    }

    /// Commits a change built by `build` against a freshly loaded slot, retrying on lost races.
    pub(crate) async fn commit_with_retry<T>(
        &self,
        slot_ref: &SlotRef,
        cause: LogCause,
        mut build: impl FnMut(&mut SlotTxn) -> Result<T>,
    ) -> Result<(T, Rc<Slot>)> {
        self.ids.health()?;
        self.ensure_calibration().await?;
        let now = self.clock.now()?;
        let mut attempts = 0;
        loop {
            attempts += 1;
            let slot = self.store.load_slot(slot_ref).await?;
            let mut txn = SlotTxn::new(slot, now, cause.clone(), self.ids.clone()).single_valued(!self.spec_of(&slot_ref.predicate).is_multi()).calibrated(self.calibration_version());
            let value = build(&mut txn)?;
            if txn.is_empty() {
                return Ok((value, Rc::new(txn.slot)));
            }
            let commit = txn.into_commit(slot_ref.clone());
            if let Ok(slot) = self.store.commit_slot_owned(commit).await? {
                return Ok((value, slot));
            }
            if attempts > self.settings.retries {
                return Err(gave_up(slot_ref, attempts));
            }
        }
    }

    /// `commit_with_retry` for a change judged with the slot's log (undo's
    /// guard, the invariants' entry claims): each attempt sees the log as of
    /// the slot version it changes — a log read before another writer's
    /// commit would miss the claims that commit wrote (concurrency seed 500576:
    /// an undo restored a value beside a question asked meanwhile).
    pub(crate) async fn commit_with_log<T>(
        &self,
        slot_ref: &SlotRef,
        cause: LogCause,
        mut build: impl FnMut(&mut SlotTxn, &[crate::model::LogEntry]) -> Result<T>,
    ) -> Result<(T, Rc<Slot>)> {
        let mut rounds = 0;
        loop {
            rounds += 1;
            let seen = self.store.read_slot(slot_ref).await?.version;
            let log = self.store.read_log(slot_ref).await?;
            let moved = std::cell::Cell::new(false);
            let result = self
                .commit_with_retry(slot_ref, cause.clone(), |txn| {
                    if txn.slot.version != seen {
                        moved.set(true);
                        return Err(gave_up(slot_ref, rounds));
                    }
                    build(txn, &log)
                })
                .await;
            if !(moved.get() && result.is_err()) || rounds > self.settings.retries {
                return result;
            }
        }
    }
}

fn gave_up(slot: &SlotRef, attempts: u32) -> Error {
    Error::new(
        ErrorCode::Concurrency,
        format!("slot {}/{} kept changing under this write; gave up after {attempts} attempts", slot.subject, slot.predicate),
    )
}
