//! Dependent facts (SPEC §7): a predicate may name `dependsOn`; when a
//! subject's current value of one of those changes or is retracted, its
//! current claims of the dependent predicate are flagged with a `dependent`
//! conflict, which a person settles (keep_earlier: it still holds; keep_newer:
//! retract it) or a later write resolves.
//!
//! The flag lives in the dependent claim's slot; the changed fact lives in
//! another slot, so the record keeps a snapshot of it (`changed`). Raising the
//! flags is a second commit after the change itself: slots commit one at a time
//! (SPEC §8), so a store failure in between leaves the change without its flags
//! and is reported as an error.

use super::read::conflict_view;
use super::Engine;
use crate::error::Result;
use crate::model::{Action, Claim, Conflict, ConflictKind, ConflictRecord, ConflictStatus, LogCause, Settlement, Shared, Slot, SlotRef};
use crate::strategy::{Applied, WriteCtx};
use crate::time::Timestamp;
use crate::txn::SlotTxn;

/// The claims a reader sees as current, by id.
fn current_ids(slot: &Slot) -> Vec<String> {
    slot.claims.iter().filter(|c| c.status.is_current()).map(|c| c.id.clone()).collect()
}

/// What changed in a slot: the fact to name as `newer` and a sentence, when a
/// claim current before is current no longer. In a single-valued slot a claim
/// still current (say, the side a person kept) is the new value.
fn change_of(slot_ref: &SlotRef, before: &[String], after: &Slot, multi: bool) -> Option<(Claim, String)> {
    let left: Vec<&Claim> = before.iter().filter_map(|id| after.claim(id)).filter(|c| !c.status.is_current()).collect();
    let gone = left.first()?;
    let mut current = after.claims.iter().filter(|c| c.status.is_current());
    let came = current.clone().find(|c| !before.contains(&c.id)).or_else(|| if multi { None } else { current.next() });
    Some(match came {
        Some(new) => (Claim::clone(new), format!("{} changed from {:?} to {:?}", slot_ref.predicate, gone.object, new.object)),
        None => ((*gone).clone(), format!("{} {:?} is {} and nothing replaced it", slot_ref.predicate, gone.object, gone.status.as_str())),
    })
}

fn open_dependent_on(slot: &Slot, claim_id: &str) -> bool {
    slot.conflicts.iter().any(|c| c.kind == ConflictKind::Dependent && c.status == ConflictStatus::Open && c.earlier_id == claim_id)
}

impl Engine {
    /// After a commit to `changed_ref`, flags the current claims of its
    /// dependent predicates, except `written_with` (claims a batch wrote
    /// together with the change are taken as already up to date). Decided by
    /// id, not by time: under a fixed clock, or two writes in one
    /// millisecond, every claim looks as new as the change.
    /// The flags are a commit of their own after the change: when it fails, the
    /// change stands and a re-send replays it without flagging (a replay
    /// changes nothing), so the error says so.
    /// What `flag_dependents` compares the committed slot with: its current
    /// claims before the change, or nothing when no predicate depends on this
    /// one (copying every id cost a multi-valued slot O(values) per write).
    pub(super) fn current_before(&self, slot_ref: &SlotRef, slot: &Slot) -> Vec<String> {
        if self.settings.registry.dependents_of(&slot_ref.predicate).is_empty() {
            return Vec::new();
        }
        current_ids(slot)
    }

    pub(super) async fn flag_dependents(&self, changed_ref: &SlotRef, before: &[String], after: &Slot, written_with: &[String]) -> Result<Vec<Conflict>> {
        self.raise_dependent_flags(changed_ref, before, after, written_with).await.map_err(|mut e| {
            e.message = format!("{} (the change to {} itself was committed; the facts that depend on it were not flagged, so check them)", e.message, changed_ref.predicate);
            e
        })
    }

    async fn raise_dependent_flags(&self, changed_ref: &SlotRef, before: &[String], after: &Slot, written_with: &[String]) -> Result<Vec<Conflict>> {
        let dependents = self.settings.registry.dependents_of(&changed_ref.predicate);
        if dependents.is_empty() {
            return Ok(Vec::new());
        }
        let Some((changed, what)) = change_of(changed_ref, before, after, self.spec_of(&changed_ref.predicate).is_multi()) else {
            return Ok(Vec::new());
        };
        // Only the dependent slots the subject has (one index look-up, not one load per dependent).
        let held: Vec<String> = self.store.list_slots(Some(&changed_ref.subject)).await?.into_iter().map(|r| r.predicate).collect();
        let mut out = Vec::new();
        for predicate in dependents.iter().filter(|p| held.contains(p)) {
            let dep_ref = SlotRef::new(&changed_ref.subject, predicate);
            let cause = LogCause { op: "flag_dependents".into(), ..Default::default() };
            let (ids, slot) = self
                .commit_with_retry(&dep_ref, cause, |txn| {
                    let targets: Vec<Claim> = txn.slot.claims.iter()
                        .filter(|c| c.status.is_current() && !written_with.contains(&c.id) && !open_dependent_on(&txn.slot, &c.id))
                        .map(|c| Claim::clone(c)).collect();
                    let mut ids = Vec::new();
                    for c in targets {
                        let reason = format!("{what}: does {predicate} {:?} still hold?", c.object);
                        if let Some(id) = txn.open_conflict(ConflictKind::Dependent, &c.id, &changed.id, reason) {
                            txn.update_conflict(&id, |r| r.changed = Some(Box::new(changed.clone())));
                            ids.push(id);
                        }
                    }
                    Ok(ids)
                })
                .await?;
            out.extend(ids.iter().filter_map(|id| slot.conflict(id)).filter_map(|r| conflict_view(&slot, &dep_ref, r)));
        }
        Ok(out)
    }

    /// Undoing a change (or withdrawing a scheduled one) withdraws the flags
    /// it raised (those about `changed_claim` opened since the change,
    /// `since`) that nobody settled yet (status `moot`, logged with `why`).
    pub(super) async fn withdraw_dependents(&self, changed_ref: &SlotRef, changed_claim: &str, why: &str, since: Timestamp) -> Result<()> {
        let note = format!("{why}, so the change this flag asked about no longer stands");
        self.move_flags(changed_ref, changed_claim, (ConflictStatus::Open, ConflictStatus::Moot), "dependent_moot", &note, |_, c| c.opened_at >= since).await
    }

    /// Undoing a withdrawal puts the scheduled change back, and with it the
    /// questions the withdrawal closed: its `moot` flags on claims still current
    /// open again (a pair once noted is never noted anew).
    pub(super) async fn reopen_dependents(&self, changed_ref: &SlotRef, changed_claim: &str, undone: &str) -> Result<()> {
        let note = format!("{undone} was undone, so the change this flag asks about stands again");
        self.move_flags(changed_ref, changed_claim, (ConflictStatus::Moot, ConflictStatus::Open), "dependent_reopened", &note, |slot, c| {
            slot.claim(&c.earlier_id).is_some_and(|d| d.status.is_current()) && !open_dependent_on(slot, &c.earlier_id)
        })
        .await
    }

    /// Moves the dependent flags about `changed_claim` that `keep` picks from
    /// one status to another, in every dependent slot of its subject, logged as `rule`.
    async fn move_flags(
        &self,
        changed_ref: &SlotRef,
        changed_claim: &str,
        (from, to): (ConflictStatus, ConflictStatus),
        rule: &str,
        note: &str,
        keep: impl Fn(&Slot, &ConflictRecord) -> bool,
    ) -> Result<()> {
        for predicate in self.settings.registry.dependents_of(&changed_ref.predicate) {
            let dep_ref = SlotRef::new(&changed_ref.subject, predicate);
            let cause = LogCause { op: "undo".into(), ..Default::default() };
            self.commit_with_retry(&dep_ref, cause, |txn| {
                let picked: Vec<Shared<ConflictRecord>> = txn.slot.conflicts.iter()
                    .filter(|c| c.kind == ConflictKind::Dependent && c.status == from && c.newer_id == changed_claim && keep(&txn.slot, c))
                    .cloned().collect();
                for r in picked {
                    txn.update_conflict(&r.id, |c| c.status = to);
                    txn.log_change(rule, &[&r.earlier_id], None, Some(&r.id), note.to_string());
                }
                Ok(())
            })
            .await?;
        }
        Ok(())
    }
}

/// A person's answer to a dependent flag: keep_newer retracts the dependent
/// claim (undoable with the settlement), keep_earlier and keep_both keep it.
pub(super) fn settle_dependent(txn: &mut SlotTxn, ctx: &WriteCtx, record: &ConflictRecord, settlement: Settlement, by: &str) -> Result<()> {
    if settlement != Settlement::KeepNewer {
        return Ok(());
    }
    let reason = format!("settled {} keep_newer: {}", record.id, record.reason);
    // A scheduled dependent fact (it begins later) ends where it would have begun.
    let at = txn.claim(&record.earlier_id).map_or(txn.now, |c| c.effective_from().max(txn.now));
    let retraction = super::retract::apply_retraction(txn, ctx, &record.earlier_id, at, by, Some(&reason), Some(&record.id))?;
    txn.update_conflict(&record.id, |c| c.retraction = Some(retraction.id));
    Ok(())
}

/// Undo of a dependent settlement: puts back what its retraction changed
/// (validity included), refusing with UNDO_STALE when that moved on.
pub(super) fn unsettle_dependent(txn: &mut SlotTxn, ctx: &WriteCtx, record: &ConflictRecord) -> Result<()> {
    match &record.retraction {
        Some(id) => super::retract::revert_retraction(txn, ctx, id).map(|_| ()),
        None => Ok(()),
    }
}

/// A later write to a dependent slot answers an open flag: confirming the
/// flagged value says it still holds (`resolved_by_evidence`); a write that
/// took it out of the live set leaves nothing to ask (`moot`).
pub(super) fn resolve_by_write(txn: &mut SlotTxn, applied: &Applied) {
    let open: Vec<Shared<ConflictRecord>> = txn.slot.conflicts.iter()
        .filter(|c| c.kind == ConflictKind::Dependent && c.status == ConflictStatus::Open)
        .cloned().collect();
    for r in open {
        let live = txn.claim(&r.earlier_id).is_some_and(|c| c.status.is_live());
        let (status, rule, note) = if applied.action == Action::Confirmed && applied.claim_id == r.earlier_id {
            (ConflictStatus::ResolvedByEvidence, "dependent_resolved", "a later write confirmed it still holds")
        } else if !live {
            (ConflictStatus::Moot, "dependent_moot", "a later write replaced it")
        } else {
            continue;
        };
        txn.update_conflict(&r.id, |c| c.status = status);
        txn.log_change(rule, &[&r.earlier_id], None, Some(&r.id), note.to_string());
    }
}
