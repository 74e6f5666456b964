//! Moving a hot slot's older observations to its archive before a commit,
//! and reading them back for `why` (see `crate::archive` for what stays).

use super::Engine;
use crate::archive::{self, chunk_copy, chunk_ref, copy_id, split};
use crate::error::{Error, ErrorCode, Result};
use crate::model::{Claim, Provenance, Slot, SlotRef};
use crate::txn::SlotTxn;

impl Engine {
    /// Compacts every claim of `txn` over the limit: their older observations
    /// go to a new chunk, committed first, so a crash or a lost race in between
    /// leaves a chunk nobody references (erasure still finds it) and loses
    /// nothing. No-op for most writes.
    pub(crate) async fn archive_overflow(&self, txn: &mut SlotTxn, slot_ref: &SlotRef) -> Result<()> {
        if !self.archive_due(txn, slot_ref) {
            return Ok(());
        }
        let after = self.settings.archive_after;
        let expired = archive::expired_writes(&txn.slot.writes);
        let time_varying = self.spec_of(&slot_ref.predicate).time_varying;
        let splits: Vec<(String, Vec<Provenance>, Vec<Provenance>)> =
            txn.slot.claims.iter().filter_map(|c| split(c, time_varying, after).map(|(kept, moved)| (c.id.clone(), kept, moved))).collect();
        if splits.is_empty() && expired.is_empty() {
            return Ok(());
        }
        let chunk_id = self.ids.next_id("ar");
        let target = chunk_ref(&slot_ref.key, &chunk_id);
        let mut chunk = SlotTxn::new(Slot::default(), txn.now, txn.cause.clone(), self.ids.clone());
        for (id, _, moved) in &splits {
            if let Some(c) = txn.claim(id) {
                chunk.add_claim(chunk_copy(&chunk_id, c, moved.clone()));
            }
        }
        chunk.slot.writes = expired.iter().map(|&i| txn.slot.writes[i].clone()).collect();
        chunk.log_change("archive", &[], None, None, format!("archive of {}/{}", slot_ref.subject, slot_ref.predicate));
        // Nothing in a chunk is for the review pass: never listed as dirty.
        chunk.slot.reviewed = chunk.slot.claims.len();
        if !self.store.commit_slot(&chunk.into_commit(target)).await? {
            return Err(Error::new(ErrorCode::Concurrency, format!("archive chunk {chunk_id} of {}/{} already exists", slot_ref.subject, slot_ref.predicate)));
        }
        for (id, kept, moved) in splits {
            let n = moved.len();
            txn.update_claim(&id, |c| {
                c.provenance = kept.into();
                c.archived_observations += n as u32;
            });
            txn.log_change("archive_observations", &[&id], None, None, format!("{n} older observation(s) moved to archive chunk {chunk_id}; why() lists them"));
        }
        if !expired.is_empty() {
            let mut gone = vec![false; txn.slot.writes.len()];
            for &i in &expired {
                gone[i] = true;
            }
            txn.drop_writes(|i, _| gone[i]);
            txn.log_change(
                "archive_writes",
                &[],
                None,
                None,
                format!("{} idempotency record(s) older than the slot's last {} keyed writes expired into archive chunk {chunk_id}", expired.len(), archive::WRITES_KEEP),
            );
        }
        txn.slot.archive.push(chunk_id);
        Ok(())
    }

    /// Whether committing `txn` first writes an archive chunk (`archive_overflow`).
    pub(crate) fn archive_due(&self, txn: &SlotTxn, slot_ref: &SlotRef) -> bool {
        if super::is_reserved_subject(&slot_ref.subject) {
            return false;
        }
        let after = self.settings.archive_after;
        !archive::expired_writes(&txn.slot.writes).is_empty() || txn.slot.claims.iter().any(|c| c.provenance.len() > after)
    }

    /// `claims` of `slot` with their archived observations put back.
    pub(crate) async fn with_archived(&self, slot_ref: &SlotRef, slot: &Slot, claims: &mut [Claim]) -> Result<()> {
        if !claims.iter().any(|c| c.archived_observations > 0) {
            return Ok(());
        }
        let mut moved: Vec<Vec<Provenance>> = vec![Vec::new(); claims.len()];
        for chunk_id in &slot.archive {
            let chunk = self.store.load_slot(&chunk_ref(&slot_ref.key, chunk_id)).await?;
            for (c, out) in claims.iter().zip(moved.iter_mut()) {
                if let Some(copy) = chunk.claim(&copy_id(chunk_id, &c.id)) {
                    out.extend(copy.provenance.iter().cloned());
                }
            }
        }
        for (c, archived) in claims.iter_mut().zip(moved) {
            archive::restore_observations(c, archived);
        }
        Ok(())
    }
}
