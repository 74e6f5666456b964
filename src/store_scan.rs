//! The v1 adapter: answers the v2 index questions of `Store` by loading every
//! slot. It is the default for Rust stores written before v2, so they keep
//! working, at a cost that grows with the store. Shipped stores override it.

use crate::error::Result;
use crate::model::{ConflictQuery, DirtyQuery, IndexedConflict, SlotIndex, SlotRef};
use crate::store::Store;

pub async fn conflicts_by_scan<S: Store + ?Sized>(store: &S, query: &ConflictQuery) -> Result<Vec<IndexedConflict>> {
    let mut out = Vec::new();
    for slot_ref in store.list_slots(None).await? {
        let slot = store.load_slot(&slot_ref).await?;
        out.extend(SlotIndex::of(&slot).conflicts.into_iter().filter(|e| e.status == query.status).map(|e| IndexedConflict {
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
        if SlotIndex::of(&store.load_slot(&slot_ref).await?).unreviewed {
            out.push(slot_ref);
            if out.len() >= query.limit as usize {
                break;
            }
        }
    }
    Ok(out)
}
