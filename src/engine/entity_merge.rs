//! Entity merges: a person's `mergeEntities`, or a `same_entity` conflict
//! settled "same" (`same_entity.rs`).
//!
//! A merge touches many slots, and a store commits one slot at a time, so it
//! runs as a recorded operation in its type's merges slot:
//! 1. the merge is recorded `pending`, then the names move to `into` (`from`'s
//!    slot points at `into`, whose slot takes its names: new writes of either
//!    name land on `into` from then on);
//! 2. per slot of `from`: what the move will change is written to the record
//!    first, then the target slot is committed with one idempotency key per
//!    moved claim (so "did this move happen?" is a look-up), then the source
//!    claims are marked superseded by their copies;
//! 3. the record becomes `done`.
//!
//! A crash part-way leaves a `pending` record: `resume_entity_merge` finishes
//! it and `undo_entity_merge` rolls back what happened. Undo restores exactly
//! the claims the merge changed, only while they are as it left them
//! (`UNDO_STALE` otherwise, nothing written), so it never deletes an
//! observation that arrived later.

use super::entity::{entity_slot, type_of, unknown};
use super::entity_migrate::merges_slot;
use super::same_entity::{already_settled, settle_in, SettleWith};
use super::Engine;
use crate::entities::{ClaimMark, ClaimRevert, EntityMerge, MergeState, ENTITY_REGISTRY};
use crate::error::{Error, ErrorCode, Result};
use crate::model::{Action, Claim, ConflictStatus, LogCause, Settlement, Slot, SlotRef, Status, WriteRecord, MERGES_SUBJECT};
use crate::strategy::{self, Applied, WriteCtx};
use crate::txn::SlotTxn;

fn no_merge(id: &str) -> Error {
    Error::invalid("mergeId", format!("no entity merge {id:?}"))
}

/// The idempotency key of one claim's move: "moved" is a look-up in the target slot.
fn move_key(merge_id: &str, claim_id: &str) -> String {
    format!("{merge_id}:{claim_id}")
}

fn revert_of(slot: &SlotRef, before: &Claim, created: bool, write_id: &str) -> ClaimRevert {
    ClaimRevert {
        subject: slot.subject.clone(),
        predicate: slot.predicate.clone(),
        claim_id: before.id.clone(),
        created,
        status: before.status,
        provenance_len: before.observation_count(),
        log_odds: before.log_odds,
        superseded_by: before.superseded_by.clone(),
        after: None,
        write_id: Some(write_id.to_string()),
        valid_to: Some(before.valid_to),
    }
}

pub(super) fn merge_in<'s>(slot: &'s mut Slot, id: &str) -> Result<&'s mut EntityMerge> {
    let i = slot.merges.iter().position(|m| m.id == id).ok_or_else(|| no_merge(id))?;
    Ok(&mut slot.merges[i])
}

impl Engine {
    /// A person's merge of entity `from` into `into`: names move to `into`, and
    /// `from`'s current claims are reconciled into `into`'s slots through the
    /// normal rules. `undo_entity_merge` puts everything back.
    pub async fn merge_entities(&self, into: &str, from: &str) -> Result<EntityMerge> {
        let t = type_of(into).ok_or_else(|| unknown(into))?;
        if type_of(from) != Some(t) || into == from {
            return Err(Error::invalid("entities", format!("{into:?} and {from:?} must be two entities of one type")));
        }
        let merged = self.merge_entities_settling(into, from, None).await?;
        merged.ok_or_else(|| Error::invalid("entities", format!("{into:?} and {from:?} are already one entity")))
    }

    /// A merge, or a `same_entity` settlement "same" that merges: the settlement
    /// takes the two entities as it finds them — merged meanwhile by another
    /// writer, the names are one entity already and the question is settled
    /// without a merge (`None`).
    pub(super) async fn merge_entities_settling(&self, into: &str, from: &str, settle: Option<SettleWith<'_>>) -> Result<Option<EntityMerge>> {
        let t = type_of(into).ok_or_else(|| unknown(into))?;
        self.migrate_registry(t).await?;
        let names = (into.to_string(), from.to_string());
        let (into, target) = self.merge_side(into, settle.is_some()).await?;
        let (from, source) = self.merge_side(from, settle.is_some()).await?;
        if let Some(s) = &settle {
            let slot = self.store.load_slot(s.slot).await?;
            if slot.conflict(s.conflict_id).is_none_or(|c| c.status != ConflictStatus::Open) {
                return Err(already_settled(s.conflict_id));
            }
            if into == from {
                let cause = LogCause { op: "settle".into(), by: Some(s.by.to_string()), ..Default::default() };
                self.commit_with_retry(s.slot, cause, |txn| settle_in(txn, s)).await?;
                // The merge that joined them undone meanwhile: "same" merges them again.
                let (a, b) = (self.root_of(&names.0).await?.map(|r| r.0), self.root_of(&names.1).await?.map(|r| r.0));
                return match (a, b) {
                    (Some(a), Some(b)) if a != b => Box::pin(self.merge_entities_settling(&a, &b, None)).await,
                    _ => Ok(None),
                };
            }
        }
        let (Some(target), Some(source)) = (target.entities.get(0), source.entities.get(0)) else { return Err(unknown(&from)) };
        for (id, e) in [(&from, source), (&into, target)] {
            if e.merged_into.is_some() {
                let root = self.root_of(id).await?.map(|(r, _)| r).unwrap_or_default();
                return Err(Error::invalid("entities", format!("{id:?} was already merged into {root:?}: name {root:?} instead")));
            }
        }
        let merge = EntityMerge {
            id: self.ids.next_id("em"),
            into: into.clone(),
            from: from.clone(),
            aliases_added: source.aliases.iter().filter(|a| !target.aliases.contains(a)).cloned().collect(),
            reverts: Vec::new(),
            undone: false,
            conflict_id: settle.as_ref().map(|s| s.conflict_id.to_string()),
            state: MergeState::Pending,
            slots_done: Vec::new(),
            by: settle.as_ref().map(|s| s.by.to_string()),
        };
        let reg = merges_slot(t);
        let cause = LogCause { op: "merge_entities".into(), object: Some(format!("{from} → {into}")), by: merge.by.clone(), ..Default::default() };
        // Recorded before either entity changes, so a crash part-way is resumed or undone from the record.
        self.commit_with_retry(&reg, cause, |txn| {
            txn.slot.merges.push(merge.clone().into());
            txn.log_change("entity_merge_started", &[], None, None, format!("{from} is merging into {into} ({})", merge.id));
            Ok(())
        })
        .await?;
        if let Err(e) = self.join_entities(&merge, true).await {
            // Merged by another writer since the entities were read: this merge never happens.
            self.abandon_merge(&reg, &merge.id).await?;
            if let Some(s) = &settle {
                if self.settle_if_one(s).await? {
                    return Ok(None);
                }
            }
            return Err(e);
        }
        self.drive_merge(&reg, &merge.id).await.map(Some)
    }

    /// Entity `id` and its slot, or (`follow`, for a settlement) the entity its merges lead to.
    async fn merge_side(&self, id: &str, follow: bool) -> Result<(String, std::rc::Rc<Slot>)> {
        let found = if follow { self.root_of(id).await? } else { self.entity_at(id).await?.map(|slot| (id.to_string(), slot)) };
        found.ok_or_else(|| unknown(id))
    }

    /// Settles a "same" question without a merge when its two names are one
    /// entity now; false (nothing written) when they are two.
    async fn settle_if_one(&self, s: &SettleWith<'_>) -> Result<bool> {
        let slot = self.store.load_slot(s.slot).await?;
        let Some(record) = slot.conflict(s.conflict_id) else { return Ok(false) };
        let subject = |id: &str| slot.claim(id).map(|c| c.subject.clone()).unwrap_or_default();
        let (earlier, newer) = (subject(&record.earlier_id), subject(&record.newer_id));
        let root = |found: Option<(String, std::rc::Rc<Slot>)>| found.map(|(r, _)| r);
        if root(self.root_of(&earlier).await?) != root(self.root_of(&newer).await?) {
            return Ok(false);
        }
        let cause = LogCause { op: "settle".into(), by: Some(s.by.to_string()), ..Default::default() };
        self.commit_with_retry(s.slot, cause, |txn| settle_in(txn, s)).await?;
        Ok(true)
    }

    /// The names move: `from` points at `into`, which takes its names.
    /// Idempotent (a resume repeats it); `fresh`: the merge's first join, which
    /// refuses a `from` merged by another writer since it was read.
    async fn join_entities(&self, merge: &EntityMerge, fresh: bool) -> Result<()> {
        let cause = LogCause { op: "merge_entities".into(), by: merge.by.clone(), ..Default::default() };
        self.commit_with_retry(&entity_slot(&merge.from), cause.clone(), |txn| {
            let into = &merge.into;
            let e = txn.entity_mut().ok_or_else(|| unknown(&merge.from))?;
            match e.merged_into.as_deref() {
                Some(other) if other == into && !fresh => return Ok(()),
                Some(other) => return Err(Error::invalid("entities", format!("{:?} was already merged into {other:?}: name {other:?} instead", merge.from))),
                None => e.merged_into = Some(into.clone()),
            }
            txn.log_change("entity_merge_started", &[], None, None, format!("{} is merging into {into} ({})", merge.from, merge.id));
            Ok(())
        })
        .await?;
        self.commit_with_retry(&entity_slot(&merge.into), cause, |txn| {
            let e = txn.entity_mut().ok_or_else(|| unknown(&merge.into))?;
            let new: Vec<String> = merge.aliases_added.iter().filter(|a| !e.aliases.contains(a)).cloned().collect();
            let joined = e.merged_from.contains(&merge.from);
            if new.is_empty() && joined {
                return Ok(());
            }
            e.aliases.extend(new);
            if !joined {
                e.merged_from.push(merge.from.clone());
            }
            txn.log_change("entity_merge_started", &[], None, None, format!("{} is merging into {} ({})", merge.from, merge.into, merge.id));
            Ok(())
        })
        .await?;
        Ok(())
    }

    /// A merge whose names could not move: marked undone, nothing else changed.
    async fn abandon_merge(&self, reg: &SlotRef, merge_id: &str) -> Result<()> {
        let cause = LogCause { op: "merge_entities".into(), ..Default::default() };
        self.commit_with_retry(reg, cause, |txn| {
            let m = merge_in(&mut txn.slot, merge_id)?;
            m.state = MergeState::Undone;
            m.undone = true;
            txn.log_change("entity_merge_abandoned", &[], None, None, format!("entity merge {merge_id} abandoned: its entities were merged elsewhere"));
            Ok(())
        })
        .await?;
        Ok(())
    }

    /// Finishes a merge a crash interrupted (a `pending` one); a finished merge is returned as it is.
    pub async fn resume_entity_merge(&self, merge_id: &str) -> Result<EntityMerge> {
        let (reg, merge) = self.find_merge(merge_id).await?;
        match merge.state {
            MergeState::Pending => self.drive_merge(&reg, merge_id).await,
            MergeState::Undoing => self.undo_entity_merge(merge_id).await,
            MergeState::Done | MergeState::Undone => Ok(merge),
        }
    }

    /// Moves `from`'s slot of `predicate`, which a writer opened after
    /// `from`'s merge listed its slots (the writer resolved the name before
    /// the merge began), as the merge moved the others; false when no merge
    /// of `from` stands (none, or undone meanwhile: the slot stays, `from`'s own).
    pub(super) async fn follow_merge_of(&self, from: &str, predicate: &str) -> Result<bool> {
        let reg = merges_slot(type_of(from).ok_or_else(|| unknown(from))?);
        let slot = self.store.load_slot(&reg).await?;
        let Some(merge) = slot.merges.iter().rev().find(|m| m.from == from && !m.undone && matches!(m.state, MergeState::Pending | MergeState::Done)) else {
            return Ok(false);
        };
        let merge = EntityMerge::clone(merge);
        match self.move_slot(&reg, &merge, &SlotRef::new(from, predicate)).await {
            Err(e) if e.code == ErrorCode::Concurrency && self.merge_record(&reg, &merge.id).await.is_ok_and(|m| m.undone || matches!(m.state, MergeState::Undoing | MergeState::Undone)) => Ok(false),
            r => r.map(|()| true),
        }
    }

    /// Merges a crash interrupted (`pending`, or `undoing`): resume or undo each.
    pub async fn unfinished_entity_merges(&self) -> Result<Vec<EntityMerge>> {
        let mut out = Vec::new();
        for slot_ref in self.merge_slots().await? {
            let slot = self.store.load_slot(&slot_ref).await?;
            out.extend(slot.merges.iter().filter(|m| matches!(m.state, MergeState::Pending | MergeState::Undoing)).map(|m| EntityMerge::clone(m)));
        }
        Ok(out)
    }

    /// The merges slot of every entity type (registries moved first). Few,
    /// whatever the size of the store.
    async fn merge_slots(&self) -> Result<Vec<SlotRef>> {
        for registry in self.store.list_slots(Some(ENTITY_REGISTRY)).await? {
            self.migrate_registry(&registry.predicate).await?;
        }
        self.store.list_slots(Some(MERGES_SUBJECT)).await
    }

    pub(super) async fn find_merge(&self, merge_id: &str) -> Result<(SlotRef, EntityMerge)> {
        for slot_ref in self.merge_slots().await? {
            let slot = self.store.load_slot(&slot_ref).await?;
            if let Some(m) = slot.merges.iter().find(|m| m.id == merge_id) {
                return Ok((slot_ref, EntityMerge::clone(m)));
            }
        }
        Err(no_merge(merge_id))
    }

    async fn merge_record(&self, reg: &SlotRef, merge_id: &str) -> Result<EntityMerge> {
        let slot = self.store.load_slot(reg).await?;
        slot.merges.iter().find(|m| m.id == merge_id).map(|m| EntityMerge::clone(m)).ok_or_else(|| no_merge(merge_id))
    }

    /// Moves every slot of `from` not moved yet, then marks the merge done
    /// (settling the `same_entity` conflict that asked for it, if any).
    async fn drive_merge(&self, reg: &SlotRef, merge_id: &str) -> Result<EntityMerge> {
        self.ensure_calibration().await?;
        let merge = self.merge_record(reg, merge_id).await?;
        self.join_entities(&merge, false).await?;
        // Listed again until no new slot shows up: a writer that resolved the
        // name before the merge began may have opened one meanwhile.
        let mut moved: Vec<String> = merge.slots_done.clone();
        loop {
            let todo: Vec<SlotRef> = self.store.list_slots(Some(&merge.from)).await?.into_iter().filter(|s| !moved.contains(&s.predicate)).collect();
            if todo.is_empty() {
                break;
            }
            for slot_ref in todo {
                self.move_slot(reg, &merge, &slot_ref).await?;
                moved.push(slot_ref.predicate);
            }
        }
        let cause = LogCause { op: "merge_entities".into(), by: merge.by.clone(), ..Default::default() };
        let (done, _) = self
            .commit_with_retry(reg, cause.clone(), |txn| {
                let m = merge_in(&mut txn.slot, merge_id)?;
                // Undone (or being undone) by another writer while this one moved slots: not done.
                if matches!(m.state, MergeState::Undoing | MergeState::Undone) || m.undone {
                    return Err(undone_meanwhile(merge_id));
                }
                m.state = MergeState::Done;
                let done = m.clone();
                txn.log_change("entity_merge", &[], None, None, format!("{} merged into {} ({merge_id})", done.from, done.into));
                Ok(done)
            })
            .await?;
        // The question that asked for the merge, settled "same" in its own slot.
        if let Some(conflict_id) = &done.conflict_id {
            if let Some(slot_ref) = self.store.find_conflict(conflict_id).await? {
                let by = done.by.clone().unwrap_or_else(|| "user".into());
                self.commit_with_retry(&slot_ref, cause, |txn| {
                    if txn.slot.conflict(conflict_id).is_some_and(|c| c.status == ConflictStatus::Open) {
                        settle_in(txn, &SettleWith { slot: &slot_ref, conflict_id, settlement: Settlement::Same, by: &by })?;
                    }
                    Ok(())
                })
                .await?;
            }
        }
        Ok(done)
    }

    /// Moves one slot of `from` into `into`'s slot of the same predicate.
    async fn move_slot(&self, reg: &SlotRef, merge: &EntityMerge, source_ref: &SlotRef) -> Result<()> {
        let target_ref = SlotRef::new(&merge.into, &source_ref.predicate);
        let spec = self.spec_of(&source_ref.predicate);
        let ctx = WriteCtx { spec: &spec, settings: &self.settings };
        let cause = LogCause { op: "merge_entities".into(), object: Some(format!("{} → {}", merge.from, merge.into)), by: merge.by.clone(), ..Default::default() };
        // Sealed first: the slot's version moves, so a write under way whose
        // writer resolved the name before the merge began loses its race, reads
        // the entity again and follows the merge; one that committed before
        // the seal is read below and moves with the rest.
        self.commit_with_retry(source_ref, cause.clone(), |txn| {
            txn.log_change("entity_merge_sealed", &[], None, None, format!("{} is merging into {}", merge.from, merge.into));
            Ok(())
        })
        .await?;
        let mut attempts = 0;
        loop {
            attempts += 1;
            let source = self.store.load_slot(source_ref).await?;
            let target = self.store.load_slot(&target_ref).await?;
            let moved = |c: &Claim| target.writes.iter().any(|w| w.id == move_key(&merge.id, &c.id));
            let pending: Vec<Claim> = source.claims.iter().filter(|c| c.status.is_current() && !moved(c)).map(|c| Claim::clone(c)).collect();
            if pending.is_empty() {
                break;
            }
            let committed: Vec<String> = target.writes.iter().map(|w| w.id.clone()).collect();
            let mut txn = SlotTxn::new(target, self.now()?, cause.clone(), self.ids.clone())
                .single_valued(!self.spec_of(&target_ref.predicate).is_multi())
                .calibrated(self.calibration_version());
            let mut reverts = Vec::new();
            for c in &pending {
                let key = move_key(&merge.id, &c.id);
                let before = txn.slot.claims.clone();
                let applied = land(&mut txn, &ctx, c, &merge.into);
                txn.slot.writes.push(WriteRecord { id: key.clone(), claim_id: applied.claim_id.clone(), action: applied.action });
                carry_writes(&mut txn, &source, &c.id, &applied.claim_id);
                for old in &before {
                    if txn.claim(&old.id) != Some(old) {
                        reverts.push(revert_of(&target_ref, old, false, &key));
                    }
                }
                for new in txn.slot.claims.iter().filter(|n| !before.iter().any(|o| o.id == n.id)) {
                    reverts.push(revert_of(&target_ref, new, true, &key));
                }
                let mut source_revert = revert_of(source_ref, c, false, &key);
                source_revert.after = Some(ClaimMark { status: Status::Superseded, provenance_len: c.observation_count(), superseded_by: Some(applied.claim_id) });
                reverts.push(source_revert);
            }
            // Reverts record the claim as the merge leaves it, for undo's staleness check.
            for r in reverts.iter_mut().filter(|r| r.subject == target_ref.subject) {
                r.after = txn.claim(&r.claim_id).map(ClaimMark::of);
            }
            // Write-ahead: the record names what this commit will change before it is made.
            let record_cause = LogCause { op: "merge_entities".into(), ..Default::default() };
            self.commit_with_retry(reg, record_cause, |rtxn| {
                let m = merge_in(&mut rtxn.slot, &merge.id)?;
                // An undo started meanwhile: move nothing more.
                // A finished merge moves a slot it missed (`follow_merge_of`); an undoing one nothing.
                if !matches!(m.state, MergeState::Pending | MergeState::Done) {
                    return Err(undone_meanwhile(&merge.id));
                }
                // Reverts of an earlier attempt at this slot that never committed are dropped.
                m.reverts.retain(|r| r.predicate != source_ref.predicate || r.write_id.as_ref().is_none_or(|w| committed.contains(w)));
                m.reverts.extend(reverts.iter().cloned());
                rtxn.log_change("entity_merge_step", &[], None, None, format!("moving {} claim(s) of {}/{}", pending.len(), merge.from, source_ref.predicate));
                Ok(())
            })
            .await?;
            let commit = txn.into_commit(target_ref.clone());
            if self.store.commit_slot(&commit).await? {
                break;
            }
            if attempts > self.settings.retries {
                return Err(super::gave_up(&target_ref, attempts));
            }
        }
        // The originals give way to their copies; idempotent, so a resume can repeat it.
        let target = self.store.load_slot(&target_ref).await?;
        let (retracted, source) = self
            .commit_with_retry(source_ref, cause.clone(), |txn| {
                let landed: Vec<(String, String)> = txn
                    .slot
                    .claims
                    .iter()
                    .filter_map(|c| target.writes.iter().find(|w| w.id == move_key(&merge.id, &c.id)).map(|w| (c.id.clone(), w.claim_id.clone())))
                    .collect();
                // Retracted by a person after its copy was made: the retraction stands, and follows it.
                let mut retracted = Vec::new();
                for (old, new) in landed {
                    let Some(c) = txn.claim(&old) else { continue };
                    if c.superseded_by.as_deref() == Some(new.as_str()) {
                        continue;
                    }
                    if c.status == Status::Retracted {
                        let record = txn.slot.retractions.iter().rev().find(|r| r.claim_id == old);
                        retracted.push((new, record.map(|r| r.by.clone()), record.and_then(|r| r.reason.clone())));
                        continue;
                    }
                    txn.update_claim(&old, |c| {
                        c.status = Status::Superseded;
                        c.superseded_by = Some(new.clone());
                    });
                    txn.log_change("entity_merge", &[&old], None, None, format!("{} merged into {}", merge.from, merge.into));
                }
                Ok(retracted)
            })
            .await?;
        for (copy, by, reason) in retracted {
            let options = super::RetractOptions { by, reason: Some(reason.unwrap_or_else(|| format!("retracted while {} merged into {}", merge.from, merge.into))), ..Default::default() };
            match self.retract(&copy, &options).await {
                Ok(_) => {}
                // Not live in the target (outweighed away, or retracted there already): nothing to carry.
                Err(e) if matches!(e.code, ErrorCode::ClaimNotLive) => {}
                Err(e) => return Err(e),
            }
        }
        // A value the retraction revived is current where no one reads now: moved like the rest.
        let moved_to = |c: &Claim| target.writes.iter().any(|w| w.id == move_key(&merge.id, &c.id));
        if source.claims.iter().any(|c| c.status.is_current() && !moved_to(c)) {
            return Box::pin(self.move_slot(reg, merge, source_ref)).await;
        }
        let cause = LogCause { op: "merge_entities".into(), ..Default::default() };
        self.commit_with_retry(reg, cause, |txn| {
            let m = merge_in(&mut txn.slot, &merge.id)?;
            if !m.slots_done.contains(&source_ref.predicate) {
                m.slots_done.push(source_ref.predicate.clone());
                txn.log_change("entity_merge_step", &[], None, None, format!("{}/{} moved", merge.from, source_ref.predicate));
            }
            Ok(())
        })
        .await?;
        Ok(())
    }

}

/// The writes that made claim `moved` move with it to its copy `copy`: re-sent
/// after the merge (the name now leads to `into`), each replays on the copy. A
/// record left by an earlier, undone merge (its copy retired) is repointed.
fn carry_writes(txn: &mut SlotTxn, source: &Slot, moved: &str, copy: &str) {
    for w in source.writes.iter().filter(|w| w.claim_id == moved) {
        let record = WriteRecord { id: w.id.clone(), claim_id: copy.to_string(), action: w.action };
        match txn.slot.writes.iter().position(|x| x.id == w.id) {
            None => txn.slot.writes.push(record),
            Some(i) if txn.slot.claim(&txn.slot.writes[i].claim_id).is_some_and(|c| c.status == Status::Retired) => txn.slot.writes[i] = record,
            Some(_) => {}
        }
    }
}

/// One claim of `from` lands in `into`'s slot through the normal rules
/// (corroborating an equal value, superseding, disputing, …) as a copy.
fn land(txn: &mut SlotTxn, ctx: &WriteCtx, claim: &Claim, into: &str) -> Applied {
    let mut draft = claim.clone();
    draft.id = txn.new_id("cl");
    draft.subject = into.to_string();
    draft.conflict_ids.clear();
    // The original's archived observations stay in its own slot's archive (its `why` shows them).
    draft.archived_observations = 0;
    draft.superseded_by = None;
    draft.supersedes = None;
    // Outweighed claims, history and retractions of the slot still hold
    // values: the relation engine must see them, or the copy would repeat one.
    if txn.slot.claims.iter().any(|x| x.status.is_live()) || strategy::meets_past(txn, &draft) {
        return strategy::apply_reconcile(txn, ctx, draft);
    }
    let id = draft.id.clone();
    txn.add_claim(draft);
    strategy::reweigh_claims(txn, ctx);
    txn.log_change("entity_merge", &[&id], None, None, format!("moved from {}", claim.subject));
    Applied::stored(Action::Added, None, id, vec![])
}

fn undone_meanwhile(merge_id: &str) -> Error {
    Error::new(ErrorCode::Concurrency, format!("entity merge {merge_id:?} was undone while its facts moved"))
}
