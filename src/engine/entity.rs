//! Entities in the engine: names resolved before the slot is chosen, the
//! registry kept in one slot per type, and a person's merge (undoable).

use serde::{Deserialize, Serialize};

use super::{Engine, Planned, WriteCtx};
use crate::entities::{self, ClaimRevert, Entity, EntityMerge, Resolution, ENTITY_REGISTRY};
use crate::error::{Error, ErrorCode, Result};
use crate::model::{Claim, LogCause, SlotRef, Status};
use crate::strategy;

/// An entity with, when it was looked up by name, how that name resolved.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct EntityView {
    pub entity: Entity,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolution: Option<Resolution>,
}

fn registry(entity_type: &str) -> SlotRef {
    SlotRef::new(ENTITY_REGISTRY, entity_type)
}

fn type_of(id: &str) -> Option<&str> {
    id.split_once(':').map(|(t, _)| t)
}

fn unknown(id: &str) -> Error {
    Error::new(ErrorCode::InvalidInput, format!("no entity {id:?}")).with_field("entity")
}

impl Engine {
    /// Resolves `name` to an entity of `entity_type`, creating it (or adding
    /// the name as an alias) when `create` is set.
    pub async fn resolve_name(&self, name: &str, entity_type: &str, create: bool) -> Result<Resolution> {
        let entity_type = entity_type.trim().to_lowercase();
        if entity_type.is_empty() || entity_type.contains(':') {
            return Err(Error::invalid("subjectType", "must be a non-empty type name without ':'"));
        }
        if !create {
            let slot = self.store.load_slot(&registry(&entity_type)).await?;
            return Ok(entities::resolve(&slot.entities, name, &entity_type).1);
        }
        let cause = LogCause { op: "resolve".into(), object: Some(name.into()), ..Default::default() };
        let (resolution, _) = self
            .commit_with_retry(&registry(&entity_type), cause, |txn| {
                let (hit, mut r) = entities::resolve(&txn.slot.entities, name, &entity_type);
                match hit {
                    Some(i) => {
                        if !txn.slot.entities[i].aliases.iter().any(|a| a == name) {
                            txn.slot.entities[i].aliases.push(name.to_string());
                            txn.log_change("entity_alias", &[], None, None, format!("{name:?} is {} ({}, score {:.2})", r.entity_id, r.rule, r.score));
                        }
                    }
                    None => {
                        let id = entities::new_id(&txn.slot.entities, name, &entity_type);
                        txn.slot.entities.push(Entity { id: id.clone(), entity_type: entity_type.clone(), name: name.into(), aliases: vec![name.into()], merged_into: None });
                        txn.log_change("entity_new", &[], None, None, format!("new entity {id} for {name:?} ({})", r.rule));
                        r.entity_id = id;
                    }
                }
                Ok(r)
            })
            .await?;
        Ok(resolution)
    }

    /// Points a planned write at the entities its subject and object name.
    pub(crate) async fn resolve_planned(&self, planned: &mut Planned, subject_type: Option<&str>) -> Result<Vec<Resolution>> {
        let mut out = Vec::new();
        if let Some(t) = subject_type {
            let r = self.resolve_name(&planned.prepared.draft.subject, t, true).await?;
            planned.prepared.draft.subject = r.entity_id.clone();
            planned.prepared.slot = SlotRef::new(&r.entity_id, &planned.prepared.spec.name);
            out.push(r);
        }
        if let Some(t) = planned.prepared.spec.object_type.clone() {
            let r = self.resolve_name(&planned.prepared.draft.object, &t, true).await?;
            planned.prepared.draft.object_entity = Some(r.entity_id.clone());
            out.push(r);
        }
        Ok(out)
    }

    /// Looks an entity up by id (`org:acme`) or by name (with `entity_type`).
    pub async fn entity(&self, id_or_name: &str, entity_type: Option<&str>) -> Result<Option<EntityView>> {
        let Some(t) = entity_type.or_else(|| type_of(id_or_name)) else {
            return Err(Error::invalid("type", "is required to look an entity up by name"));
        };
        let slot = self.store.load_slot(&registry(t)).await?;
        if let Some(e) = slot.entities.iter().find(|e| e.id == id_or_name) {
            return Ok(Some(EntityView { entity: e.clone(), resolution: None }));
        }
        let (hit, r) = entities::resolve(&slot.entities, id_or_name, t);
        Ok(hit.map(|i| EntityView { entity: slot.entities[i].clone(), resolution: Some(r) }))
    }

    /// A person's merge of entity `from` into `into`: names move to `into`, and
    /// `from`'s current claims are reconciled into `into`'s slots through the
    /// normal rules. `undo_entity_merge` puts everything back.
    pub async fn merge_entities(&self, into: &str, from: &str) -> Result<EntityMerge> {
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
        let merge = EntityMerge { id: self.ids.next_id("em"), into: into.into(), from: from.into(), aliases_added, reverts, undone: false };
        let record = merge.clone();
        let cause = LogCause { op: "merge_entities".into(), ..Default::default() };
        self.commit_with_retry(&registry(t), cause, |txn| {
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
            if let Some(err) = super::undo_guard::changed_since_merge(&log, &merge, slot_ref) {
                return Err(err);
            }
            mooted_by_merge.push(super::undo_guard::mooted_by_merge(&log));
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
                for e in txn.slot.entities.iter_mut() {
                    if e.id == merge.into {
                        e.aliases.retain(|a| !merge.aliases_added.contains(a));
                    } else if e.id == merge.from {
                        e.merged_into = None;
                    }
                }
                let m = txn.slot.merges.iter_mut().find(|m| m.id == merge_id).ok_or_else(|| Error::invalid("mergeId", "vanished"))?;
                m.undone = true;
                let out = m.clone();
                txn.log_change("undo_merge", &[], None, None, format!("{} split from {}", merge.from, merge.into));
                Ok(out)
            })
            .await?;
        Ok(undone)
    }
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
