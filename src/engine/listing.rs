//! Listing through the store's v2 indexes, page by page: conflicts by status
//! and the slots a review pass must visit. Cost follows the answer, not the store.

use super::Engine;
use crate::error::{Error, ErrorCode, Result};
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
                if let Some(after) = &query.after {
                    // A store that ignores the cursor would answer the same page forever.
                    if page.iter().any(|c| c.id == after.id) {
                        return Err(not_after("listConflicts", &format!("{{ openedAt: {}, id: {:?} }}", after.opened_at.to_iso(), after.id)));
                    }
                }
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
        let page = self.store.dirty_slots(&DirtyQuery { after: after.clone(), limit: PAGE }).await?;
        match after {
            // Compared by equality: a store orders keys as JS strings (UTF-16), not as Rust does.
            Some(after) if page.iter().any(|r| r.key == after) => Err(not_after("dirtySlots", &format!("{after:?}"))),
            _ => Ok(page),
        }
    }
}

/// A page that does not move past its cursor (the store ignored `after`).
fn not_after(method: &str, cursor: &str) -> Error {
    Error::new(ErrorCode::MalformedStoreData, format!("store.{method}() result: every row must come after the cursor `after` ({cursor}); the store answered the cursor's row again"))
}
