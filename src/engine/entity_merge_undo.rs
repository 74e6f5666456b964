//! Undoing an entity merge (`entity_merge.rs`): the claims the merge changed
//! go back as they were and the names split again, only while those claims are
//! as the merge left them and restoring breaks no invariant beside a claim
//! written since — checked before anything is written and again in each
//! slot's commit, since a write may land in between (`UNDO_STALE` otherwise).

use super::entity::{entity_slot, type_of};
use super::entity_merge::merge_in;
use super::same_entity::reopen_in;
use super::Engine;
use crate::entities::{self, ClaimMark, ClaimRevert, EntityMerge, MergeState};
use crate::error::{Error, ErrorCode, Result};
use crate::invariants::{self, SlotFacts};
use crate::model::{Claim, ConflictStatus, LogCause, Slot, SlotRef, Status};

impl Engine {
    /// `clash_after_undo` against the slot's log as stored now.
    async fn undo_clash(&self, slot_ref: &SlotRef, slot: &Slot, mine: &[&ClaimRevert]) -> Result<Option<invariants::Violation>> {
        let log = self.store.read_log(slot_ref).await?;
        Ok(clash_after_undo(slot_ref, slot, &log, self.spec_of(&slot_ref.predicate).is_multi(), mine))
    }

    /// Reverts a merge (or rolls back one a crash interrupted): names and
    /// claims back as they were; claims the merge created are retired (kept
    /// for the audit trail). Refused with `UNDO_STALE` when a claim it changed
    /// has changed since, or restoring would break an invariant beside a claim
    /// written since — checked before anything is written and again in each
    /// slot's commit (a write may land in between).
    pub async fn undo_entity_merge(&self, merge_id: &str) -> Result<EntityMerge> {
        self.undo_entity_merge_reopening(merge_id, false).await
    }

    pub(super) async fn undo_entity_merge_reopening(&self, merge_id: &str, reopen: bool) -> Result<EntityMerge> {
        let (reg, merge) = self.find_merge(merge_id).await?;
        if merge.state == MergeState::Undone || merge.undone {
            return Err(Error::invalid("mergeId", format!("entity merge {merge_id:?} was already undone")));
        }
        // Only the moves that happened (their key is in the target slot) are reverted.
        let mut slots: Vec<SlotRef> = Vec::new();
        for r in &merge.reverts {
            let s = SlotRef::new(&r.subject, &r.predicate);
            if !slots.contains(&s) {
                slots.push(s);
            }
        }
        let mut happened: Vec<&ClaimRevert> = Vec::new();
        for r in &merge.reverts {
            let target = self.store.load_slot(&SlotRef::new(&merge.into, &r.predicate)).await?;
            if r.write_id.as_ref().is_none_or(|w| target.writes.iter().any(|x| &x.id == w)) {
                happened.push(r);
            }
        }
        for slot_ref in &slots {
            let slot = self.store.load_slot(slot_ref).await?;
            let mine = reverts_in(&happened, slot_ref);
            changed_since(merge_id, &slot, &mine)?;
            if let Some(clash) = self.undo_clash(slot_ref, &slot, &mine).await? {
                return Err(clashes(merge_id, slot_ref, &clash));
            }
        }

        let cause = LogCause { op: "undo_merge".into(), ..Default::default() };
        // The state it had, as the commit that starts the undo finds it: a
        // refusal before anything is reverted puts it back.
        let (prior, _) = self
            .commit_with_retry(&reg, cause.clone(), |txn| {
                let m = merge_in(&mut txn.slot, merge_id)?;
                if m.state == MergeState::Undone || m.undone {
                    return Err(Error::invalid("mergeId", format!("entity merge {merge_id:?} was already undone")));
                }
                let prior = m.state;
                m.state = MergeState::Undoing;
                txn.log_change("undo_merge_started", &[], None, None, format!("undoing entity merge {merge_id}"));
                Ok(prior)
            })
            .await?;
        for (done, slot_ref) in slots.iter().enumerate() {
            let multi = self.spec_of(&slot_ref.predicate).is_multi();
            // Checked again in the commit: a write that lands after the checks
            // above (a claim the merge left, changed) must make the undo refuse,
            // not restore beside it (concurrency seed 546062062: two current values).
            let mine = reverts_in(&happened, slot_ref);
            let reverted = self.commit_with_log(slot_ref, cause.clone(), |txn, log| {
                changed_since(merge_id, &txn.slot, &mine)?;
                if let Some(clash) = clash_after_undo(slot_ref, &txn.slot, log, multi, &mine) {
                    return Err(clashes(merge_id, slot_ref, &clash));
                }
                // Conflicts the merge closed as moot ask their question again.
                let mooted = super::undo_guard::mooted_by_merge(log);
                for cf in &mooted {
                    txn.update_conflict(cf, |c| {
                        if c.status == crate::model::ConflictStatus::Moot {
                            c.status = crate::model::ConflictStatus::Open;
                        }
                    });
                }
                for r in mine.iter().rev() {
                    if txn.claim(&r.claim_id).is_some_and(|c| is_reverted(r, c)) {
                        continue;
                    }
                    txn.update_claim(&r.claim_id, |c| restore(c, r));
                }
                // Records the merge carried to its copies go: a re-sent write finds its own record
                // where it was written (else it would replay a retired copy, seed 250183).
                let retired: Vec<&str> = mine.iter().filter(|r| r.created).map(|r| r.claim_id.as_str()).collect();
                let own = format!("{merge_id}:");
                txn.drop_writes(|_, w| !w.id.starts_with(&own) && retired.contains(&w.claim_id.as_str()));
                for (cf, copy, back) in conflicts_going_back(&txn.slot, &mine) {
                    txn.update_conflict(&cf, |c| c.rename_claim(&copy, &back));
                    txn.update_claim(&back, |c| c.note_conflict(&cf));
                    txn.log_change("conflict_moved", &[&copy, &back], None, Some(&cf),
                        "the merge that refined this claim was undone: the conflict names it again".into());
                }
                txn.log_change("undo_merge", &[], None, None, format!("entity merge {merge_id} undone"));
                Ok(())
            })
            .await;
            if let Err(e) = reverted {
                // Nothing reverted yet by this call: the merge stands as it was.
                if done == 0 && prior != MergeState::Undoing && e.code == ErrorCode::UndoStale {
                    self.commit_with_retry(&reg, cause.clone(), |txn| {
                        let m = merge_in(&mut txn.slot, merge_id)?;
                        if m.state == MergeState::Undoing {
                            m.state = prior;
                            txn.log_change("undo_merge_refused", &[], None, None, format!("undo of entity merge {merge_id} refused: {}", e.message));
                        }
                        Ok(())
                    })
                    .await?;
                }
                return Err(e);
            }
        }
        self.split_entities(&merge).await?;
        let (undone, _) = self
            .commit_with_retry(&reg, cause.clone(), |txn| {
                let m = merge_in(&mut txn.slot, merge_id)?;
                m.state = MergeState::Undone;
                m.undone = true;
                let out = m.clone();
                txn.log_change("undo_merge", &[], None, None, format!("{} split from {}", merge.from, merge.into));
                Ok(out)
            })
            .await?;
        if let (true, Some(id)) = (reopen, &undone.conflict_id) {
            if let Some(slot_ref) = self.store.find_conflict(id).await? {
                self.commit_with_retry(&slot_ref, cause, |txn| {
                    reopen_in(txn, id);
                    Ok(())
                })
                .await?;
            }
        }
        Ok(undone)
    }

    /// The names split again: those the merge brought to `into` (and spellings
    /// of them seen since) go back to `from`, which no longer points at `into`
    /// but remembers it (a keyed write sent meanwhile landed there). Idempotent.
    async fn split_entities(&self, merge: &EntityMerge) -> Result<()> {
        let cause = LogCause { op: "undo_merge".into(), ..Default::default() };
        let t = type_of(&merge.from).unwrap_or_default().to_string();
        let from_keys: Vec<String> = merge.aliases_added.iter().map(|a| entities::name_key(a, &t)).collect();
        let (returning, _) = self
            .commit_with_retry(&entity_slot(&merge.into), cause.clone(), |txn| {
                let Some(e) = txn.entity_mut() else { return Ok(Vec::new()) };
                let (back, stay): (Vec<String>, Vec<String>) = e.aliases.iter().cloned().partition(|a| from_keys.contains(&entities::name_key(a, &t)));
                let joined = e.merged_from.contains(&merge.from);
                if back.is_empty() && !joined {
                    return Ok(back);
                }
                e.aliases = stay;
                e.merged_from.retain(|x| *x != merge.from);
                txn.log_change("undo_merge", &[], None, None, format!("{} split from {}", merge.from, merge.into));
                Ok(back)
            })
            .await?;
        self.commit_with_retry(&entity_slot(&merge.from), cause, |txn| {
            let Some(e) = txn.entity_mut() else { return Ok(()) };
            if e.merged_into.as_deref() != Some(merge.into.as_str()) && returning.iter().all(|a| e.aliases.contains(a)) {
                return Ok(());
            }
            if e.merged_into.as_deref() == Some(merge.into.as_str()) {
                e.merged_into = None;
            }
            for a in &returning {
                if !e.aliases.contains(a) {
                    e.aliases.push(a.clone());
                }
            }
            if !e.was_merged_into.contains(&merge.into) {
                e.was_merged_into.push(merge.into.clone());
            }
            txn.log_change("undo_merge", &[], None, None, format!("{} split from {}", merge.from, merge.into));
            Ok(())
        })
        .await?;
        Ok(())
    }
}

/// Puts a claim back as the merge found it (a copy it created is retired).
fn restore(c: &mut Claim, r: &ClaimRevert) {
    if r.created {
        c.status = Status::Retired;
    } else {
        c.status = r.status;
        // Counted with the archived observations (an archive only ever holds the oldest).
        let held = r.provenance_len.saturating_sub(c.archived_observations as usize);
        c.provenance.truncate(held);
        crate::belief::set_belief(c, r.log_odds);
        c.superseded_by = r.superseded_by.clone();
        if let Some(valid_to) = r.valid_to {
            c.restore_valid_to(valid_to);
        }
    }
}

/// Conflicts naming a copy the merge made that took the place of a claim of
/// the slot: with the copy retired and the claim restored, they name the claim
/// again — else the question would name a retired copy, and the claim would
/// stand current beside its rival unasked. A refining copy carried its claim's
/// conflicts (all go back); one that superseded or outweighed a claim may have
/// been asked about since the merge (open questions go back, model seed 92020). Read from the slot as restored:
/// (conflict, copy, claim).
fn conflicts_going_back(slot: &Slot, mine: &[&ClaimRevert]) -> Vec<(String, String, String)> {
    let live = |id: &str| slot.claim(id).is_some_and(|c| c.status.is_live());
    let mut out = Vec::new();
    for r in mine.iter().filter(|r| r.created) {
        let refined = slot.claim(&r.claim_id).and_then(|c| c.supersedes.clone()).filter(|b| live(b));
        // The claim the copy displaced: superseded by it, else outweighed by the merge.
        let displaced = |o: &&&ClaimRevert, by_copy: bool| {
            let Some(a) = o.after.as_ref().filter(|_| !o.created) else { return false };
            let current = slot.claim(&o.claim_id).is_some_and(|c| c.status.is_current());
            current && if by_copy { a.superseded_by.as_deref() == Some(r.claim_id.as_str()) } else { o.status.is_current() && a.status == Status::Outweighed }
        };
        let replaced = || mine.iter().find(|o| displaced(o, true)).or_else(|| mine.iter().find(|o| displaced(o, false))).map(|o| o.claim_id.clone());
        let (back, only_open) = match refined {
            Some(b) => (b, false),
            None => match replaced() {
                Some(b) => (b, true),
                None => continue,
            },
        };
        for cf in slot.conflicts.iter().filter(|c| c.earlier_id == r.claim_id || c.newer_id == r.claim_id) {
            let other = if cf.earlier_id == r.claim_id { &cf.newer_id } else { &cf.earlier_id };
            if (only_open && cf.status != ConflictStatus::Open) || *other == back {
                continue;
            }
            out.push((cf.id.clone(), r.claim_id.clone(), back.clone()));
        }
    }
    out
}

/// True when the claim is as it was before the merge.
fn is_reverted(r: &ClaimRevert, c: &Claim) -> bool {
    if r.created {
        c.status == Status::Retired
    } else {
        c.status == r.status && c.observation_count() == r.provenance_len && c.superseded_by == r.superseded_by && r.valid_to.is_none_or(|v| c.valid_to == v)
    }
}

/// The reverts of `happened` that belong to one slot.
fn reverts_in<'a>(happened: &[&'a ClaimRevert], slot_ref: &SlotRef) -> Vec<&'a ClaimRevert> {
    happened.iter().copied().filter(|r| r.subject == slot_ref.subject && r.predicate == slot_ref.predicate).collect()
}

/// `UNDO_STALE` when a claim the merge changed in `slot` (its reverts `mine`) has changed since
/// (neither as the merge left it nor already as before it).
fn changed_since(merge_id: &str, slot: &Slot, mine: &[&ClaimRevert]) -> Result<()> {
    for r in mine {
        let Some(c) = slot.claim(&r.claim_id) else { continue };
        // As the merge left it, or already as before it (a step that
        // never reached this claim, or an undo cut short).
        let as_left = r.after.as_ref().is_none_or(|a| *a == ClaimMark::of(c));
        if !as_left && !is_reverted(r, c) {
            return Err(Error::new(
                ErrorCode::UndoStale,
                format!("entity merge {merge_id:?} can't be undone: claim {} in {}/{} changed after the merge", r.claim_id, r.subject, r.predicate),
            )
            .with_field("mergeId"));
        }
    }
    Ok(())
}

fn clashes(merge_id: &str, slot_ref: &SlotRef, clash: &invariants::Violation) -> Error {
    Error::new(
        ErrorCode::UndoStale,
        format!("entity merge {merge_id:?} can't be undone: the slot {}/{} changed since and restoring it would break an invariant ({})", slot_ref.subject, slot_ref.predicate, clash.message),
    )
    .with_field("mergeId")
}

/// The invariant an undo would break in `slot` beside a claim the merge did
/// not move or change (one written since: it may rely on the merged state),
/// found by restoring a copy of the slot.
fn clash_after_undo(slot_ref: &SlotRef, slot: &Slot, log: &[crate::model::LogEntry], multi: bool, mine: &[&ClaimRevert]) -> Option<invariants::Violation> {
    let mooted = super::undo_guard::mooted_by_merge(log);
    let mut after = slot.clone();
    let reopen: Vec<usize> = (0..after.conflicts.len()).filter(|&i| mooted.contains(&after.conflicts[i].id) && after.conflicts[i].status == ConflictStatus::Moot).collect();
    for i in reopen {
        after.conflicts[i].status = ConflictStatus::Open;
    }
    for r in mine {
        if let Some(c) = after.claims.find_mut(|c| c.id == r.claim_id && !is_reverted(r, c)) {
            restore(c, r);
        }
    }
    for (cf, copy, back) in conflicts_going_back(&after, mine) {
        if let Some(c) = after.conflicts.find_mut(|c| c.id == cf) {
            c.rename_claim(&copy, &back);
        }
    }
    let facts = SlotFacts { slot_ref, log, multi };
    let before = invariants::check_slot(slot, &facts);
    invariants::check_slot(&after, &facts).into_iter().find(|v| {
        matches!(v.rule.as_str(), "two_current_values" | "duplicate_value")
            && !before.contains(v)
            && v.ids.iter().any(|id| !mine.iter().any(|r| &r.claim_id == id))
    })
}
