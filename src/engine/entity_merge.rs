//! Entity merges: a person's `mergeEntities`, and the `same_entity` conflict
//! settled "same" (a merge) or "different" (remembered, never asked again).
//! Both are undoable: undo restores what the merge changed.

use super::entity::{registry, type_of, unknown};
use super::{Engine, WriteCtx};
use crate::entities::{self, ClaimRevert, EntityMerge, ENTITY_REGISTRY};
use crate::error::{Error, ErrorCode, Result};
use crate::model::{Claim, Conflict, ConflictKind, ConflictStatus, LogCause, Settlement, SlotRef, Status};
use crate::strategy;

/// A `same_entity` settlement to record in the merge's registry commit.
struct SettleWith<'a> {
    conflict_id: &'a str,
    settlement: Settlement,
    by: &'a str,
}

fn already_settled(id: &str) -> Error {
    Error::new(ErrorCode::ConflictAlreadySettled, format!("conflict {id:?} was already settled")).with_field("conflictId")
}

fn not_found(id: &str) -> Error {
    Error::new(ErrorCode::ConflictNotFound, format!("no conflict with id {id:?}")).with_field("conflictId")
}

impl Engine {
    /// A person's merge of entity `from` into `into`: names move to `into`, and
    /// `from`'s current claims are reconciled into `into`'s slots through the
    /// normal rules. `undo_entity_merge` puts everything back.
    pub async fn merge_entities(&self, into: &str, from: &str) -> Result<EntityMerge> {
        self.merge_entities_settling(into, from, None).await
    }

    async fn merge_entities_settling(&self, into: &str, from: &str, settle: Option<SettleWith<'_>>) -> Result<EntityMerge> {
        let t = type_of(into).ok_or_else(|| unknown(into))?;
        if type_of(from) != Some(t) || into == from {
            return Err(Error::invalid("entities", format!("{into:?} and {from:?} must be two entities of one type")));
        }
        let registry_slot = self.store.load_slot(&registry(t)).await?;
        let target = registry_slot.entities.iter().find(|e| e.id == into).ok_or_else(|| unknown(into))?;
        let source = registry_slot.entities.iter().find(|e| e.id == from).ok_or_else(|| unknown(from))?;
        if source.merged_into.is_some() {
            return Err(Error::invalid("entities", format!("{from:?} was already merged")));
        }
        let aliases_added: Vec<String> = source.aliases.iter().filter(|a| !target.aliases.contains(a)).cloned().collect();
        let mut reverts = Vec::new();
        for slot_ref in self.store.list_slots(Some(from)).await? {
            let spec = self.spec_of(&slot_ref.predicate);
            let to = SlotRef::new(into, &slot_ref.predicate);
            let moving: Vec<Claim> = self.store.load_slot(&slot_ref).await?.claims.into_iter().filter(|c| c.status.is_current()).collect();
            let cause = LogCause { op: "merge_entities".into(), object: Some(format!("{from} → {into}")), ..Default::default() };
            let ctx = WriteCtx { spec: &spec, settings: &self.settings };
            let (landed, _) = self
                .commit_with_retry(&to, cause.clone(), |txn| {
                    let mut landed = Vec::new();
                    for c in &moving {
                        let before = txn.slot.claims.clone();
                        let mut draft = c.clone();
                        draft.id = txn.new_id("cl");
                        draft.subject = into.to_string();
                        draft.conflict_ids.clear();
                        let applied = if txn.slot.claims.iter().any(|x| x.status.is_current()) {
                            strategy::apply_reconcile(txn, &ctx, draft)
                        } else {
                            let id = draft.id.clone();
                            txn.add_claim(draft);
                            strategy::refresh_beliefs(txn, &ctx);
                            txn.log_change("entity_merge", &[&id], None, None, format!("moved from {from}"));
                            super::Applied::stored(crate::model::Action::Added, None, id, vec![])
                        };
                        for old in &before {
                            if txn.claim(&old.id) != Some(old) {
                                reverts.push(revert_of(&to, old, false));
                            }
                        }
                        for new in txn.slot.claims.iter().filter(|n| !before.iter().any(|o| o.id == n.id)) {
                            reverts.push(revert_of(&to, new, true));
                        }
                        landed.push((c.id.clone(), applied.claim_id));
                    }
                    Ok(landed)
                })
                .await?;
            self.commit_with_retry(&slot_ref, cause, |txn| {
                for (old, new) in &landed {
                    if let Some(c) = txn.claim(old) {
                        reverts.push(revert_of(&slot_ref, c, false));
                    }
                    let new = new.clone();
                    txn.update_claim(old, |c| {
                        c.status = Status::Superseded;
                        c.superseded_by = Some(new);
                    });
                    txn.log_change("entity_merge", &[old], None, None, format!("{from} merged into {into}"));
                }
                Ok(())
            })
            .await?;
        }
        let conflict_id = settle.as_ref().map(|s| s.conflict_id.to_string());
        let merge = EntityMerge { id: self.ids.next_id("em"), into: into.into(), from: from.into(), aliases_added, reverts, undone: false, conflict_id };
        let record = merge.clone();
        let cause = LogCause { op: "merge_entities".into(), by: settle.as_ref().map(|s| s.by.to_string()), ..Default::default() };
        self.commit_with_retry(&registry(t), cause, |txn| {
            if let Some(s) = &settle {
                settle_in(txn, s)?;
            }
            for e in txn.slot.entities.iter_mut() {
                if e.id == record.into {
                    e.aliases.extend(record.aliases_added.iter().cloned());
                } else if e.id == record.from {
                    e.merged_into = Some(record.into.clone());
                }
            }
            txn.slot.merges.push(record.clone());
            txn.log_change("entity_merge", &[], None, None, format!("{} merged into {}", record.from, record.into));
            Ok(())
        })
        .await?;
        Ok(merge)
    }

    /// Reverts a merge: names and claims back as they were; claims the merge
    /// created are retired (kept for the audit trail).
    pub async fn undo_entity_merge(&self, merge_id: &str) -> Result<EntityMerge> {
        self.undo_entity_merge_reopening(merge_id, None).await
    }

    async fn undo_entity_merge_reopening(&self, merge_id: &str, reopen: Option<&str>) -> Result<EntityMerge> {
        let mut found = None;
        for slot_ref in self.store.list_slots(Some(ENTITY_REGISTRY)).await? {
            let slot = self.store.load_slot(&slot_ref).await?;
            if let Some(m) = slot.merges.iter().find(|m| m.id == merge_id) {
                found = Some((slot_ref, m.clone()));
            }
        }
        let (reg, merge) = found.ok_or_else(|| Error::invalid("mergeId", format!("no entity merge {merge_id:?}")))?;
        if merge.undone {
            return Err(Error::invalid("mergeId", format!("entity merge {merge_id:?} was already undone")));
        }
        let mut slots: Vec<SlotRef> = merge.reverts.iter().map(|r| SlotRef::new(&r.subject, &r.predicate)).collect();
        slots.dedup();
        let mut mooted_by_merge = Vec::new();
        for slot_ref in &slots {
            let log = self.store.read_log(slot_ref).await?;
            if let Some(err) = super::settle::changed_since_merge(&log, &merge, slot_ref) {
                return Err(err);
            }
            mooted_by_merge.push(super::settle::mooted_by_merge(&log));
        }
        for (slot_ref, mooted) in slots.into_iter().zip(mooted_by_merge) {
            let cause = LogCause { op: "undo_merge".into(), ..Default::default() };
            self.commit_with_retry(&slot_ref, cause, |txn| {
                for cf in &mooted {
                    txn.update_conflict(cf, |c| c.status = crate::model::ConflictStatus::Open);
                }
                for r in merge.reverts.iter().rev().filter(|r| r.subject == slot_ref.subject && r.predicate == slot_ref.predicate) {
                    txn.update_claim(&r.claim_id, |c| {
                        if r.created {
                            c.status = Status::Retired;
                        } else {
                            c.status = r.status;
                            c.provenance.truncate(r.provenance_len);
                            crate::belief::set_belief(c, r.log_odds);
                            c.superseded_by = r.superseded_by.clone();
                        }
                    });
                }
                txn.log_change("undo_merge", &[], None, None, format!("entity merge {merge_id} undone"));
                Ok(())
            })
            .await?;
        }
        let cause = LogCause { op: "undo_merge".into(), ..Default::default() };
        let (undone, _) = self
            .commit_with_retry(&reg, cause, |txn| {
                // Names the merge brought, and spellings of them seen since, go back.
                let t = type_of(&merge.from).unwrap_or_default().to_string();
                let from_keys: Vec<String> = merge.aliases_added.iter().map(|a| entities::name_key(a, &t)).collect();
                let mut returning = Vec::new();
                for e in txn.slot.entities.iter_mut().filter(|e| e.id == merge.into) {
                    let (back, stay): (Vec<String>, Vec<String>) = e.aliases.drain(..).partition(|a| from_keys.contains(&entities::name_key(a, &t)));
                    e.aliases = stay;
                    returning = back;
                }
                for e in txn.slot.entities.iter_mut().filter(|e| e.id == merge.from) {
                    e.merged_into = None;
                    for a in returning.drain(..) {
                        if !e.aliases.contains(&a) {
                            e.aliases.push(a);
                        }
                    }
                }
                let m = txn.slot.merges.iter_mut().find(|m| m.id == merge_id).ok_or_else(|| Error::invalid("mergeId", "vanished"))?;
                m.undone = true;
                let out = m.clone();
                if let Some(id) = reopen {
                    reopen_in(txn, id);
                }
                txn.log_change("undo_merge", &[], None, None, format!("{} split from {}", merge.from, merge.into));
                Ok(out)
            })
            .await?;
        Ok(undone)
    }

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
        let root = |id: &str| {
            let i = slot.entities.iter().position(|e| e.id == id).ok_or_else(|| unknown(id))?;
            Ok::<String, Error>(slot.entities[entities::root_of(&slot.entities, i)].id.clone())
        };
        let (into, from) = (root(&earlier)?, root(&newer)?);
        let settle = SettleWith { conflict_id, settlement, by };
        if settlement == Settlement::Same && into != from {
            self.merge_entities_settling(&into, &from, Some(settle)).await?;
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
        let merge = slot.merges.iter().find(|m| m.conflict_id.as_deref() == Some(conflict_id) && !m.undone);
        match merge {
            Some(m) => {
                self.undo_entity_merge_reopening(&m.id.clone(), Some(conflict_id)).await?;
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

    async fn conflict_in(&self, slot_ref: &SlotRef, conflict_id: &str) -> Result<Conflict> {
        let slot = self.store.load_slot(slot_ref).await?;
        slot.conflict(conflict_id).and_then(|r| super::read::conflict_view(&slot, slot_ref, r)).ok_or_else(|| not_found(conflict_id))
    }
}

/// Records a `same_entity` settlement in the registry slot's transaction.
fn settle_in(txn: &mut crate::txn::SlotTxn, s: &SettleWith) -> Result<()> {
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

fn reopen_in(txn: &mut crate::txn::SlotTxn, conflict_id: &str) {
    let Some(record) = txn.slot.conflict(conflict_id).cloned() else { return };
    txn.update_conflict(conflict_id, |c| {
        c.status = c.settled_from.take().unwrap_or(ConflictStatus::Open);
        c.settled_at = None;
        c.settled_by = None;
        c.settlement = None;
    });
    txn.log_change("undo", &[&record.earlier_id, &record.newer_id], None, Some(conflict_id),
        format!("settlement {} undone; conflict reopened", record.settlement.map(|s| s.as_str()).unwrap_or("?")));
}

fn revert_of(slot: &SlotRef, c: &Claim, created: bool) -> ClaimRevert {
    ClaimRevert {
        subject: slot.subject.clone(),
        predicate: slot.predicate.clone(),
        claim_id: c.id.clone(),
        created,
        status: c.status,
        provenance_len: c.provenance.len(),
        log_odds: c.log_odds,
        superseded_by: c.superseded_by.clone(),
    }
}
