//! A person settles what machines should not guess (SPEC §6): settle and undo.
//! Settlement changes statuses only (never belief), and records each change
//! so that `undo` restores exactly what it changed.

use super::{Engine, WriteCtx};
use crate::belief;
use crate::strategy;
use crate::error::{Error, ErrorCode, Result};
use crate::model::{
    Claim, Conflict, ConflictKind, ConflictStatus, LogCause, Settlement, SlotRef, Status, StatusChange,
};
use crate::txn::SlotTxn;

impl Settlement {
    pub fn parse(text: &str) -> Result<Self> {
        match text.trim().to_lowercase().replace(['-', ' '], "_").as_str() {
            "keep_newer" => Ok(Settlement::KeepNewer),
            "keep_earlier" => Ok(Settlement::KeepEarlier),
            "keep_both" => Ok(Settlement::KeepBoth),
            _ => Err(Error::new(
                ErrorCode::InvalidSettlement,
                format!("unknown settlement {text:?}; expected keep_newer, keep_earlier or keep_both"),
            )
            .with_field("settlement")),
        }
    }
}

fn set_status(txn: &mut SlotTxn, id: &str, to: Status) {
    txn.update_claim(id, |c| c.status = to);
}

/// Every claim whose status or belief differs between `before` and now.
pub(super) fn diff(before: &[Claim], txn: &SlotTxn) -> Vec<StatusChange> {
    before
        .iter()
        .filter_map(|old| {
            let now = txn.claim(&old.id)?;
            (now.status != old.status || now.log_odds != old.log_odds).then(|| StatusChange {
                claim_id: old.id.clone(),
                before: old.status,
                after: now.status,
                log_odds_before: old.log_odds,
                log_odds_after: now.log_odds,
            })
        })
        .collect()
}

fn conflict_not_found(id: &str) -> Error {
    Error::new(ErrorCode::ConflictNotFound, format!("no conflict with id {id:?}")).with_field("conflictId")
}

impl Engine {
    async fn slot_of_conflict(&self, id: &str) -> Result<SlotRef> {
        self.store.find_conflict(id).await?.ok_or_else(|| conflict_not_found(id))
    }

    async fn view(&self, slot_ref: &SlotRef, slot: &crate::model::Slot, id: &str) -> Result<Conflict> {
        slot.conflict(id)
            .and_then(|r| super::read::conflict_view(slot, slot_ref, r))
            .ok_or_else(|| conflict_not_found(id))
    }

    pub async fn settle(&self, conflict_id: &str, settlement: &str, by: Option<&str>) -> Result<Conflict> {
        let settlement = Settlement::parse(settlement)?;
        let slot_ref = self.slot_of_conflict(conflict_id).await?;
        let by = by.map(str::to_string).unwrap_or_else(|| "user".into());
        let cause = LogCause { op: "settle".into(), by: Some(by.clone()), ..Default::default() };
        let (current_before, slot) = self
            .commit_with_retry(&slot_ref, cause, |txn| {
                let current_before = super::dependent::current_ids(&txn.slot);
                let record = txn.slot.conflict(conflict_id).cloned().ok_or_else(|| conflict_not_found(conflict_id))?;
                if record.status == ConflictStatus::Settled {
                    return Err(Error::new(
                        ErrorCode::ConflictAlreadySettled,
                        format!("conflict {conflict_id:?} was already settled ({})", record.settlement.map(|s| s.as_str()).unwrap_or("?")),
                    )
                    .with_field("conflictId"));
                }
                if record.status == ConflictStatus::Moot {
                    return Err(Error::new(ErrorCode::ConflictAlreadySettled, format!("conflict {conflict_id:?} is moot: what it asked about no longer stands")).with_field("conflictId"));
                }
                let (earlier, newer) = (record.earlier_id.as_str(), record.newer_id.as_str());
                let before = txn.slot.claims.clone();
                match settlement {
                    _ if record.kind == ConflictKind::Dependent => {
                        let spec = self.spec_of(&slot_ref.predicate);
                        super::dependent::settle_dependent(txn, &WriteCtx { spec: &spec, settings: &self.settings }, &record, settlement, &by)?;
                    }
                    Settlement::KeepNewer => {
                        set_status(txn, earlier, Status::Retired);
                        set_status(txn, newer, Status::Active);
                        if record.kind == ConflictKind::MergeProposal {
                            // The approved rewrite consolidates every other active entry.
                            let others: Vec<String> = txn.slot.claims.iter()
                                .filter(|c| c.status.is_current() && c.id != newer)
                                .map(|c| c.id.clone()).collect();
                            for id in others {
                                set_status(txn, &id, Status::Superseded);
                            }
                        }
                    }
                    Settlement::KeepEarlier => {
                        set_status(txn, newer, Status::Retired);
                        set_status(txn, earlier, Status::Active);
                    }
                    Settlement::KeepBoth => {
                        if record.kind != ConflictKind::MergeProposal {
                            set_status(txn, earlier, Status::Active);
                            set_status(txn, newer, Status::Active);
                        }
                    }
                }
                // Rivals a person removed no longer compete for belief.
                let spec = self.spec_of(&slot_ref.predicate);
                strategy::refresh_beliefs(txn, &WriteCtx { spec: &spec, settings: &self.settings });
                let changes = diff(&before, txn);
                let now = txn.now;
                let who = by.clone();
                txn.update_conflict(conflict_id, |c| {
                    c.settled_from = Some(c.status);
                    c.status = ConflictStatus::Settled;
                    c.settled_at = Some(now);
                    c.settled_by = Some(who);
                    c.settlement = Some(settlement);
                    c.changes = changes.clone();
                });
                let ids: Vec<&str> = vec![earlier, newer];
                txn.log_change("settle", &ids, None, Some(conflict_id),
                    format!("{} settled it: {} ({} status change{})", by, settlement.as_str(), changes.len(), if changes.len() == 1 { "" } else { "s" }));
                Ok(current_before)
            })
            .await?;
        // A settlement that changed the current value flags what hangs on it.
        self.flag_dependents(&slot_ref, &current_before, &slot, self.now()?).await?;
        self.view(&slot_ref, &slot, conflict_id).await
    }

    pub async fn undo(&self, conflict_id: &str) -> Result<Conflict> {
        let slot_ref = self.slot_of_conflict(conflict_id).await?;
        let cause = LogCause { op: "undo".into(), ..Default::default() };
        let ((), slot) = self
            .commit_with_retry(&slot_ref, cause, |txn| {
                let record = txn.slot.conflict(conflict_id).cloned().ok_or_else(|| conflict_not_found(conflict_id))?;
                if record.status != ConflictStatus::Settled {
                    return Err(Error::new(ErrorCode::ConflictNotSettled, format!("conflict {conflict_id:?} is not settled; nothing to undo")).with_field("conflictId"));
                }
                let spec = self.spec_of(&slot_ref.predicate);
                super::dependent::unsettle_dependent(txn, &WriteCtx { spec: &spec, settings: &self.settings }, &record)?;
                for change in record.changes.iter().rev() {
                    let (status, log_odds) = (change.before, change.log_odds_before);
                    txn.update_claim(&change.claim_id, |c| {
                        c.status = status;
                        belief::set_belief(c, log_odds);
                    });
                }
                txn.update_conflict(conflict_id, |c| {
                    c.status = c.settled_from.take().unwrap_or(ConflictStatus::Open);
                    c.settled_at = None;
                    c.settled_by = None;
                    c.settlement = None;
                    c.changes.clear();
                });
                let ids: Vec<&str> = record.changes.iter().map(|c| c.claim_id.as_str()).collect();
                txn.log_change("undo", &ids, None, Some(conflict_id),
                    format!("settlement {} undone; {} status change(s) restored, conflict reopened", record.settlement.map(|s| s.as_str()).unwrap_or("?"), record.changes.len()));
                Ok(())
            })
            .await?;
        self.view(&slot_ref, &slot, conflict_id).await
    }
}
