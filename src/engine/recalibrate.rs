//! Calibration that reaches what is stored and runs by itself (SPEC §4):
//! after a calibration every reconcile slot is brought in line with its
//! posterior under the new record (committing only slots whose statuses
//! change, log rule `recalibrated`), and a memory calibrates on a geometric
//! schedule of its own writes.

use std::cell::Cell;

use super::{gave_up, Engine};
use crate::calibrate::{CalibrateOptions, Calibration};
use crate::config::CalibrateSetting;
use crate::error::{Error, Result};
use crate::model::{LogCause, SlotRef, Status};
use crate::strategy::{self, WriteCtx};
use crate::txn::SlotTxn;

/// When a memory calibrates by itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AutoCalibrate {
    /// In the background, after the write that makes it due (the binding runs it).
    Background,
    /// Inside the write that makes it due (reproducible runs).
    Inline,
    Off,
}

impl AutoCalibrate {
    pub fn parse(setting: Option<&CalibrateSetting>) -> Result<Self> {
        match setting {
            None | Some(CalibrateSetting::Flag(true)) => Ok(AutoCalibrate::Background),
            Some(CalibrateSetting::Flag(false)) => Ok(AutoCalibrate::Off),
            Some(CalibrateSetting::Mode(m)) if m == "inline" => Ok(AutoCalibrate::Inline),
            Some(CalibrateSetting::Mode(m)) => Err(Error::invalid("calibrate", format!("must be true, false or \"inline\", got {m:?}"))),
        }
    }
}

/// The default `calibrateAfter`: writes before the first automatic calibration.
pub const CALIBRATE_AFTER: u64 = 500;
/// Later calibrations wait for this share of the observations behind the last one,
/// so the cost of calibrating (a pass over the store) stays linear in the writes.
const GROWTH: f64 = 0.25;

/// The schedule's state, per memory.
#[derive(Debug, Default)]
pub struct Schedule {
    writes_since: Cell<u64>,
    behind: Cell<u64>,
    running: Cell<bool>,
}

impl Schedule {
    /// Notes what the calibration in force was computed from.
    pub fn behind(&self, record: Option<&Calibration>) {
        self.behind.set(record.map_or(0, |r| r.sources.iter().map(|s| s.observations as u64).sum()));
    }
}

impl Engine {
    /// Counts stored writes toward the next automatic calibration.
    pub(crate) fn note_writes(&self, n: u64) {
        let s = &self.schedule;
        s.writes_since.set(s.writes_since.get() + n);
    }

    /// True when an automatic calibration is due and none is running.
    pub fn calibration_due(&self) -> bool {
        let s = &self.schedule;
        let after = (self.calibrate_after as f64).max((GROWTH * s.behind.get() as f64).ceil()) as u64;
        self.auto_calibrate != AutoCalibrate::Off && !s.running.get() && s.writes_since.get() >= after.max(1)
    }

    /// A turn for the host's event loop (`Pause`), if this work gives turns and the host takes them.
    pub(crate) async fn give_turn(&self, turns: bool) {
        if let (true, Some(pause)) = (turns, &self.pause) {
            pause.turn(false).await;
        }
    }

    /// How this memory calibrates by itself.
    pub fn auto_calibrate(&self) -> AutoCalibrate {
        self.auto_calibrate
    }

    /// The automatic calibration, when due: adopts a newer record another
    /// process committed since this one's, else calibrates; either way every
    /// slot is brought in line. `None` when it was not due.
    pub async fn calibrate_if_due(&self) -> Result<Option<Calibration>> {
        if !self.calibration_due() {
            return Ok(None);
        }
        let s = &self.schedule;
        s.running.set(true);
        s.writes_since.set(0);
        // In the background the calibration starts on a turn of its own: the
        // write that made it due returns first.
        let turns = self.auto_calibrate == AutoCalibrate::Background;
        if let (true, Some(pause)) = (turns, &self.pause) {
            pause.turn(true).await;
        }
        let result = self.calibrate_adopting(turns).await;
        s.running.set(false);
        result.map(Some)
    }

    async fn calibrate_adopting(&self, turns: bool) -> Result<Calibration> {
        let started_from = self.calibration_version();
        let stored = self.stored_calibration().await?;
        if let Some(newer) = stored.filter(|r| Some(r.version) > started_from) {
            self.settings.calibration.set(Some(newer.clone()));
            self.schedule.behind(Some(&newer));
            self.recalibrate_slots(newer.version, turns).await?;
            return Ok(newer);
        }
        self.calibrate_giving_turns(&CalibrateOptions::default(), turns).await
    }

    /// Brings every reconcile slot of a single-valued predicate in line with
    /// its posterior under calibration `version`; returns the slots changed.
    pub(crate) async fn recalibrate_slots(&self, version: u64, turns: bool) -> Result<usize> {
        let mut changed = 0;
        for slot_ref in self.store.list_slots(None).await? {
            self.give_turn(turns).await;
            if crate::model::is_reserved_subject(&slot_ref.subject) {
                continue;
            }
            let spec = self.spec_of(&slot_ref.predicate);
            if !self.reconciles_one_value(&spec) {
                continue;
            }
            if self.recalibrate_slot(&slot_ref, &spec, version).await? {
                changed += 1;
            }
        }
        Ok(changed)
    }

    async fn recalibrate_slot(&self, slot_ref: &SlotRef, spec: &crate::predicates::PredicateSpec, version: u64) -> Result<bool> {
        let cause = LogCause { op: "recalibrate".into(), write_id: None, object: None, source_id: None, strategy: None, by: None };
        let ctx = WriteCtx { spec, settings: &self.settings };
        let mut attempts = 0;
        loop {
            attempts += 1;
            let now = self.now()?;
            let slot = self.store.load_slot(slot_ref).await?;
            let current_before = self.current_before(slot_ref, &slot);
            let before: Vec<(String, Status)> = slot.claims.iter().map(|c| (c.id.clone(), c.status)).collect();
            let mut txn = SlotTxn::new(slot, now, cause.clone(), self.ids.clone()).single_valued(true).calibrated(Some(version));
            strategy::realign(&mut txn, &ctx);
            let changed: Vec<String> =
                before.iter().filter(|(id, status)| txn.claim(id).is_some_and(|c| c.status != *status)).map(|(id, _)| id.clone()).collect();
            if changed.is_empty() {
                return Ok(false);
            }
            let ids: Vec<&str> = changed.iter().map(String::as_str).collect();
            txn.log_change("recalibrated", &ids, None, None,
                format!("calibration version {version}: the slot's statuses follow its posterior under it"));
            let commit = txn.into_commit(slot_ref.clone());
            if let Ok(slot) = self.store.commit_slot_owned(commit).await? {
                self.flag_dependents(slot_ref, &current_before, &slot, &[]).await?;
                return Ok(true);
            }
            if attempts > self.settings.retries {
                return Err(gave_up(slot_ref, attempts));
            }
        }
    }
}
