//! `same_entity` conflicts (SPEC §9): two names that look alike, settled by a
//! person or the judge — "same" merges their entities (see `entity_merge.rs`),
//! "different" is remembered and never asked again; undo reopens the question.

use super::{Engine, ReviewReport};
use crate::entities::MergeState;
use crate::error::{Error, ErrorCode, Result};
use crate::hooks::Judge;
use crate::model::{Conflict, ConflictKind, ConflictStatus, LogCause, Settlement, SlotRef, ENTITY_SUBJECT};
use crate::txn::SlotTxn;

/// A `same_entity` settlement to record with the merge.
pub(super) struct SettleWith<'a> {
    /// The slot holding the conflict (the newer name's entity).
    pub slot: &'a SlotRef,
    pub conflict_id: &'a str,
    pub settlement: Settlement,
    pub by: &'a str,
}

pub(super) fn already_settled(id: &str) -> Error {
    Error::new(ErrorCode::ConflictAlreadySettled, format!("conflict {id:?} was already settled")).with_field("conflictId")
}

pub(super) fn not_found(id: &str) -> Error {
    Error::new(ErrorCode::ConflictNotFound, format!("no conflict with id {id:?}")).with_field("conflictId")
}

impl Engine {
    /// Settles a `same_entity` conflict: "same" merges the newer name's entity
    /// into the earlier's (one merge, recorded with the conflict); "different"
    /// only records the answer, so the pair is never asked about again.
    pub(crate) async fn settle_same_entity(&self, slot_ref: &SlotRef, conflict_id: &str, settlement: Settlement, by: &str) -> Result<Conflict> {
        let slot = self.store.load_slot(slot_ref).await?;
        let record = slot.conflict(conflict_id).ok_or_else(|| not_found(conflict_id))?;
        if record.status != ConflictStatus::Open {
            return Err(already_settled(conflict_id));
        }
        if !matches!(settlement, Settlement::Same | Settlement::Different) {
            return Err(Error::new(
                ErrorCode::InvalidSettlement,
                format!("conflict {conflict_id:?} asks whether two names are one entity; settle it \"same\" or \"different\", not {:?}", settlement.as_str()),
            )
            .with_field("settlement"));
        }
        let entity_of = |claim_id: &str| slot.claim(claim_id).map(|c| c.subject.clone()).ok_or_else(|| not_found(conflict_id));
        let (earlier, newer) = (entity_of(&record.earlier_id)?, entity_of(&record.newer_id)?);
        let settle = SettleWith { slot: slot_ref, conflict_id, settlement, by };
        // "same" always goes through the merge's own commit, which takes the
        // two names' entities to their roots as it finds them: one entity
        // already (settled, no merge), or two (perhaps again: an undo of the
        // merge that joined them may land meanwhile).
        if settlement == Settlement::Same {
            self.merge_entities_settling(&earlier, &newer, Some(settle)).await?;
        } else {
            let cause = LogCause { op: "settle".into(), by: Some(by.to_string()), ..Default::default() };
            self.commit_with_retry(slot_ref, cause, |txn| settle_in(txn, &settle)).await?;
        }
        self.conflict_in(slot_ref, conflict_id).await
    }

    /// Undoes a `same_entity` settlement: the merge it made (if any) is undone
    /// and the conflict reopens.
    pub(crate) async fn undo_same_entity(&self, slot_ref: &SlotRef, conflict_id: &str) -> Result<Conflict> {
        let slot = self.store.load_slot(slot_ref).await?;
        let record = slot.conflict(conflict_id).ok_or_else(|| not_found(conflict_id))?;
        if record.status != ConflictStatus::Settled {
            return Err(Error::new(ErrorCode::ConflictNotSettled, format!("conflict {conflict_id:?} is not settled; nothing to undo")).with_field("conflictId"));
        }
        // The merge the settlement made is recorded with its type's merges.
        let t = slot.claim(&record.earlier_id).and_then(|c| super::entity::type_of(&c.subject)).unwrap_or_default().to_string();
        let merges = self.store.load_slot(&super::entity_migrate::merges_slot(&t)).await?;
        match merges.merges.iter().find(|m| m.conflict_id.as_deref() == Some(conflict_id) && m.state != MergeState::Undone) {
            Some(m) => {
                // Another writer may undo the merge between this read and ours: a lost race (retrying
                // finds no merge to undo and reopens the question), not bad input.
                let merge_id = m.id.clone();
                self.undo_entity_merge_reopening(&merge_id, true).await.map_err(|e| {
                    if e.code == ErrorCode::InvalidInput {
                        Error::new(ErrorCode::UndoStale, format!("conflict {conflict_id:?} can't be undone now: its merge {merge_id:?} changed meanwhile ({}); try again", e.message))
                            .with_field("conflictId")
                    } else {
                        e
                    }
                })?;
            }
            None => {
                let cause = LogCause { op: "undo".into(), ..Default::default() };
                self.commit_with_retry(slot_ref, cause, |txn| {
                    reopen_in(txn, conflict_id);
                    Ok(())
                })
                .await?;
            }
        }
        self.conflict_in(slot_ref, conflict_id).await
    }

    /// The review pass's part for entities: each open `same_entity` question
    /// goes to `judge.confirmPair(earlier name, newer name)`; `sameThing`
    /// settles it "same" (a merge), otherwise "different", by "judge", undoable
    /// like any settlement. One call per question, within the pass's budget.
    /// The entity slots holding open questions come from the conflict index,
    /// so a pass with none to ask loads none.
    pub(crate) async fn judge_same_entity(&self, judge: &dyn Judge, budget: u32, report: &mut ReviewReport) -> Result<()> {
        for registry in self.store.list_slots(Some(crate::model::ENTITY_REGISTRY)).await? {
            self.migrate_registry(&registry.predicate).await?;
        }
        let mut entity_slots: Vec<SlotRef> = Vec::new();
        for c in self.indexed_conflicts(Some(ConflictStatus::Open)).await? {
            if c.slot_ref.subject == ENTITY_SUBJECT && !entity_slots.contains(&c.slot_ref) {
                entity_slots.push(c.slot_ref);
            }
        }
        // Slot order, as a listing of the slots gives it.
        crate::sort::sort_by(&mut entity_slots, |a, b| a.key.cmp(&b.key));
        for slot_ref in entity_slots {
            let slot = self.store.load_slot(&slot_ref).await?;
            let open = slot.conflicts.iter().filter(|c| c.kind == ConflictKind::SameEntity && c.status == ConflictStatus::Open);
            for record in open {
                let (Some(earlier), Some(newer)) = (slot.claim(&record.earlier_id), slot.claim(&record.newer_id)) else { continue };
                if report.calls >= budget {
                    report.stopped.get_or_insert_with(|| "budget".into());
                    return Ok(());
                }
                report.calls += 1;
                let verdict = match judge.confirm_pair(earlier, newer).await {
                    Ok(v) => v,
                    Err(e) => {
                        report.stopped = Some(e.message);
                        return Ok(());
                    }
                };
                let settlement = if verdict.same_thing { Settlement::Same } else { Settlement::Different };
                match self.settle_same_entity(&slot_ref, &record.id, settlement, "judge").await {
                    Ok(settled) => report.conflicts.push(settled),
                    // Settled meanwhile by someone else, or its entity merged away: nothing to do.
                    Err(e) if matches!(e.code, ErrorCode::ConflictAlreadySettled | ErrorCode::InvalidInput) => {}
                    Err(e) => return Err(e),
                }
            }
        }
        Ok(())
    }

    async fn conflict_in(&self, slot_ref: &SlotRef, conflict_id: &str) -> Result<Conflict> {
        let slot = self.store.load_slot(slot_ref).await?;
        slot.conflict(conflict_id).and_then(|r| super::read::conflict_view(&slot, slot_ref, r)).ok_or_else(|| not_found(conflict_id))
    }
}

/// Records a `same_entity` settlement in the transaction of the slot holding it.
pub(super) fn settle_in(txn: &mut SlotTxn, s: &SettleWith) -> Result<()> {
    let record = txn.slot.conflict(s.conflict_id).ok_or_else(|| not_found(s.conflict_id))?;
    if record.kind != ConflictKind::SameEntity || record.status != ConflictStatus::Open {
        return Err(already_settled(s.conflict_id));
    }
    let ids = [record.earlier_id.clone(), record.newer_id.clone()];
    let now = txn.now;
    txn.update_conflict(s.conflict_id, |c| {
        c.settled_from = Some(c.status);
        c.status = ConflictStatus::Settled;
        c.settled_at = Some(now);
        c.settled_by = Some(s.by.to_string());
        c.settlement = Some(s.settlement);
    });
    txn.log_change("settle", &[&ids[0], &ids[1]], None, Some(s.conflict_id), format!("{} settled it: {}", s.by, s.settlement.as_str()));
    Ok(())
}

/// Reopens a settled conflict, as it was before the settlement.
pub(super) fn reopen_in(txn: &mut SlotTxn, conflict_id: &str) {
    let Some(record) = txn.slot.conflict(conflict_id).cloned() else { return };
    if record.status != ConflictStatus::Settled {
        return;
    }
    txn.update_conflict(conflict_id, |c| {
        c.status = c.settled_from.take().unwrap_or(ConflictStatus::Open);
        c.settled_at = None;
        c.settled_by = None;
        c.settlement = None;
    });
    txn.log_change(
        "undo",
        &[&record.earlier_id, &record.newer_id],
        None,
        Some(conflict_id),
        format!("settlement {} undone; conflict reopened", record.settlement.map(|s| s.as_str()).unwrap_or("?")),
    );
}
