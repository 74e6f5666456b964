//! The v1 adapter: answers the v2 index questions of `Store` by loading every
//! slot. It is the default for Rust stores written before v2, so they keep
//! working, at a cost that grows with the store. Shipped stores override it.

use crate::error::Result;
use crate::entities::EntityKeyRow;
use crate::model::{ConflictQuery, DirtyQuery, EntityIndex, IndexedConflict, SlotIndex, SlotRef, ENTITY_SUBJECT};
use crate::store::Store;

pub async fn conflicts_by_scan<S: Store + ?Sized>(store: &S, query: &ConflictQuery) -> Result<Vec<IndexedConflict>> {
    let mut out = Vec::new();
    for slot_ref in store.list_slots(None).await? {
        let slot = store.load_slot(&slot_ref).await?;
        out.extend(SlotIndex::of(&slot_ref, &slot).conflicts.into_iter().filter(|e| e.status == query.status).map(|e| IndexedConflict {
            id: e.id,
            status: e.status,
            opened_at: e.opened_at,
            slot_ref: slot_ref.clone(),
        }));
    }
    crate::sort::sort_by(&mut out, |a, b| (a.opened_at, &a.id).cmp(&(b.opened_at, &b.id)));
    out.retain(|c| query.after.as_ref().is_none_or(|after| (c.opened_at, &c.id) > (after.opened_at, &after.id)));
    out.truncate(query.limit as usize);
    Ok(out)
}

pub async fn dirty_by_scan<S: Store + ?Sized>(store: &S, query: &DirtyQuery) -> Result<Vec<SlotRef>> {
    let mut out = Vec::new();
    for slot_ref in store.list_slots(None).await? {
        if query.after.as_ref().is_some_and(|after| &slot_ref.key <= after) {
            continue;
        }
        if SlotIndex::of(&slot_ref, &store.load_slot(&slot_ref).await?).unreviewed {
            out.push(slot_ref);
            if out.len() >= query.limit as usize {
                break;
            }
        }
    }
    Ok(out)
}

/// `find_entities` by loading every entity slot: for a store without key rows.
pub async fn entities_by_scan<S: Store + ?Sized>(store: &S, entity_type: &str, keys: &[String]) -> Result<Vec<EntityKeyRow>> {
    let mut out = Vec::new();
    for slot_ref in store.list_slots(Some(ENTITY_SUBJECT)).await? {
        let Some(index) = EntityIndex::of(&slot_ref, &store.load_slot(&slot_ref).await?).filter(|i| i.entity_type == entity_type) else { continue };
        out.extend(index.keys.into_iter().filter(|k| keys.contains(&k.key)).map(|k| EntityKeyRow { key: k.key, entity: index.id.clone(), name: k.name }));
    }
    Ok(out)
}
