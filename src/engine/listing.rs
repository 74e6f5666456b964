//! Listing through the store's v2 indexes, page by page: conflicts by status
//! and the slots a review pass must visit. Cost follows the answer, not the store.

use super::Engine;
use crate::error::Result;
use crate::model::{ConflictQuery, ConflictStatus, DirtyQuery, IndexedConflict, SlotRef};

/// Rows per store call: large enough that paging is rare, small enough that a page is cheap to cross.
pub const PAGE: u32 = 500;

const STATUSES: [ConflictStatus; 4] =
    [ConflictStatus::Open, ConflictStatus::Settled, ConflictStatus::ResolvedByEvidence, ConflictStatus::Moot];

impl Engine {
    /// Index entries of the conflicts with `status` (every status when `None`),
    /// open first, then oldest first.
    pub(crate) async fn indexed_conflicts(&self, status: Option<ConflictStatus>) -> Result<Vec<IndexedConflict>> {
        let mut out = Vec::new();
        for status in STATUSES.into_iter().filter(|s| status.is_none_or(|want| want == *s)) {
            let mut query = ConflictQuery { status, after: None, limit: PAGE };
            loop {
                let page = self.store.list_conflicts(&query).await?;
                let full = page.len() >= PAGE as usize;
                query.after = page.last().map(IndexedConflict::cursor);
                out.extend(page);
                if !full {
                    break;
                }
            }
        }
        crate::sort::sort_by(&mut out, |a, b| {
            (a.status != ConflictStatus::Open, a.opened_at, &a.id).cmp(&(b.status != ConflictStatus::Open, b.opened_at, &b.id))
        });
        Ok(out)
    }

    /// One page of slots with entries the review pass has not looked at.
    pub(crate) async fn dirty_page(&self, after: Option<String>) -> Result<Vec<SlotRef>> {
        self.store.dirty_slots(&DirtyQuery { after, limit: PAGE }).await
    }
}
