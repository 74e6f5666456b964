//! The move out of a registry written before each entity had a slot of its
//! own (one slot per type, subject `ENTITY_REGISTRY`): on the first use of a
//! type in a process, what its registry holds goes to the entity slots (each
//! entity, its names and the `same_entity` questions about it) and to the
//! type's merges slot, then the registry is committed empty, its log kept.
//! Every step is idempotent, so two processes, or a crash part-way, move it
//! once: an entity slot that exists already is left as it is.

use std::cell::RefCell;
use std::collections::BTreeSet;

use super::entity::entity_slot;
use super::Engine;
use crate::entities::Entity;
use crate::error::Result;
use crate::model::{Claim, ConflictRecord, LogCause, Slot, SlotRef, ENTITY_REGISTRY, MERGES_SUBJECT};
use crate::txn::SlotTxn;

/// The entity types this process has looked at (their registry moved, or none).
#[derive(Default)]
pub(crate) struct Migrated(RefCell<BTreeSet<String>>);

/// The slot of a type's merge records.
pub(crate) fn merges_slot(entity_type: &str) -> SlotRef {
    SlotRef::new(MERGES_SUBJECT, entity_type)
}

/// What one entity's slot receives from the registry.
#[derive(Default)]
struct Share {
    claims: Vec<Claim>,
    conflicts: Vec<ConflictRecord>,
}

/// The registry's contents by the entity slot each goes to: a `same_entity`
/// question (and both its names) to the newer name's entity, which its
/// arrival created; any other name claim to its own entity's.
fn shares(old: &Slot) -> std::collections::BTreeMap<String, Share> {
    let mut out: std::collections::BTreeMap<String, Share> = std::collections::BTreeMap::new();
    let mut placed: BTreeSet<&str> = BTreeSet::new();
    for c in old.conflicts.iter() {
        let Some(newer) = old.claim(&c.newer_id) else { continue };
        let share = out.entry(newer.subject.clone()).or_default();
        for id in [&c.earlier_id, &c.newer_id] {
            if let Some(claim) = old.claim(id) {
                if !share.claims.iter().any(|x| x.id == claim.id) {
                    share.claims.push(claim.clone());
                }
                placed.insert(&claim.id);
            }
        }
        share.conflicts.push(ConflictRecord::clone(c));
    }
    for c in old.claims.iter().filter(|c| !placed.contains(c.id.as_str())) {
        out.entry(c.subject.clone()).or_default().claims.push(Claim::clone(c));
    }
    out
}

impl Engine {
    /// Moves `entity_type`'s registry into entity slots, once per process and type.
    pub(crate) async fn migrate_registry(&self, entity_type: &str) -> Result<()> {
        if self.migrated.0.borrow().contains(entity_type) {
            return Ok(());
        }
        let registry = SlotRef::new(ENTITY_REGISTRY, entity_type);
        let old = self.store.load_slot(&registry).await?;
        if !(old.entities.is_empty() && old.claims.is_empty() && old.merges.is_empty()) {
            self.move_registry(entity_type, &registry, &old).await?;
        }
        self.migrated.0.borrow_mut().insert(entity_type.to_string());
        Ok(())
    }

    async fn move_registry(&self, entity_type: &str, registry: &SlotRef, old: &Slot) -> Result<()> {
        let cause = LogCause { op: "migrate".into(), ..Default::default() };
        if !old.merges.is_empty() {
            self.commit_with_retry(&merges_slot(entity_type), cause.clone(), |txn| {
                let new: Vec<_> = old.merges.iter().filter(|m| !txn.slot.merges.iter().any(|x| x.id == m.id)).cloned().collect();
                for m in new {
                    txn.log_change("migrate", &[], None, None, format!("entity merge {} moved from the {entity_type} registry", m.id));
                    txn.slot.merges.push(m);
                }
                Ok(())
            })
            .await?;
        }
        let mut shares = shares(old);
        for e in old.entities.iter() {
            let mut entity = Entity::clone(e);
            entity.merged_from = old.entities.iter().filter(|x| x.merged_into.as_deref() == Some(&e.id)).map(|x| x.id.clone()).collect();
            entity.was_merged_into = old.merges.iter().filter(|m| m.undone && m.from == e.id).map(|m| m.into.clone()).collect();
            let share = shares.remove(&e.id).unwrap_or_default();
            self.move_entity(entity, share, &cause).await?;
        }
        // Names of ids no entity has (store data): kept with the first entity, never dropped.
        if let Some(first) = old.entities.iter().next() {
            let mut orphans = Share::default();
            for share in shares.into_values() {
                orphans.claims.extend(share.claims);
                orphans.conflicts.extend(share.conflicts);
            }
            self.move_share(&first.id, orphans, &cause).await?;
        }
        let now = self.now()?;
        let mut txn = SlotTxn::new(old.clone(), now, cause, self.ids.clone());
        txn.slot.entities = Default::default();
        txn.slot.merges = Default::default();
        txn.slot.claims = Default::default();
        txn.slot.conflicts = Default::default();
        txn.log_change("migrate", &[], None, None, "every entity moved to a slot of its own".into());
        // Lost to another process moving it meanwhile: its commit stands.
        self.store.commit_slot(&txn.into_commit(registry.clone())).await?;
        Ok(())
    }

    /// Writes one entity's slot, unless it exists already (moved by another process).
    async fn move_entity(&self, entity: Entity, share: Share, cause: &LogCause) -> Result<()> {
        let id = entity.id.clone();
        self.commit_with_retry(&entity_slot(&id), cause.clone(), |txn| {
            if !txn.slot.entities.is_empty() {
                return Ok(());
            }
            txn.slot.entities.push(entity.clone().into());
            txn.log_change("migrate", &[], None, None, format!("entity {id} moved from its type's registry"));
            Ok(())
        })
        .await?;
        self.move_share(&id, share, cause).await
    }

    /// Adds the names and questions of `share` to entity `id`'s slot (those it holds already are skipped).
    async fn move_share(&self, id: &str, share: Share, cause: &LogCause) -> Result<()> {
        if share.claims.is_empty() && share.conflicts.is_empty() {
            return Ok(());
        }
        self.commit_with_retry(&entity_slot(id), cause.clone(), |txn| {
            for c in &share.claims {
                if txn.claim(&c.id).is_none() {
                    txn.add_claim(c.clone());
                }
            }
            for c in &share.conflicts {
                if txn.slot.conflict(&c.id).is_none() {
                    txn.add_conflict_record(c.clone());
                }
            }
            txn.log_change("migrate", &[], None, None, format!("{} name(s) and {} question(s) moved from the registry", share.claims.len(), share.conflicts.len()));
            Ok(())
        })
        .await?;
        Ok(())
    }
}
