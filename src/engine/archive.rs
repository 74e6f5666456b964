//! Moving a hot slot's older observations to its archive before a commit,
//! and reading them back for `why` (see `crate::archive` for what stays).

use super::Engine;
use crate::archive::{self, chunk_copy, chunk_ref, copy_id, split};
use crate::error::{Error, ErrorCode, Result};
use crate::model::{Claim, Provenance, Slot, SlotRef};
use crate::strategy::{self, Strategy};
use crate::txn::SlotTxn;

impl Engine {
    /// Compacts every claim of `txn` over the limit: their older observations
    /// go to a new chunk, committed first, so a crash or a lost race in between
    /// leaves a chunk nobody references (erasure still finds it) and loses
    /// nothing. No-op for most writes.
    pub(crate) async fn archive_overflow(&self, txn: &mut SlotTxn, slot_ref: &SlotRef) -> Result<()> {
        self.archive_dead_claims(txn, slot_ref).await?;
        if !self.observations_due(txn, slot_ref) {
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
        let mut chunk = SlotTxn::new(Slot::default(), txn.now, chunk_cause(&txn.cause), self.ids.clone());
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
        self.observations_due(txn, slot_ref) || self.dead_claims(txn, slot_ref) > 0
    }

    /// How many of `txn`'s oldest claims move whole to a claim chunk now
    /// (`archive::dead_prefix`): superseded free-text entries in any slot;
    /// superseded values in a slot whose strategy in force is not
    /// `reconcile`, at a write that is not one either, and in the history of
    /// a time-varying predicate (a value the world moved on from long ago:
    /// its source's later answers ended its weight, and a report of its
    /// period is matched against the archive, see `archived_until`).
    fn dead_claims(&self, txn: &SlotTxn, slot_ref: &SlotRef) -> usize {
        let after = self.settings.archive_claims_after;
        if super::is_reserved_subject(&slot_ref.subject) || txn.slot.claims.len() < after.saturating_add(archive::keep_for(after)) {
            return 0;
        }
        let spec = self.spec_of(&slot_ref.predicate);
        let entries = |s: Option<Strategy>| {
            strategy::choose(s, self.settings.strategy, &spec, &self.settings.type_defaults, self.merge.is_some()).is_ok_and(|(s, _)| s != Strategy::Reconcile)
        };
        let called = txn.cause.strategy.as_deref().and_then(|s| Strategy::parse(s).ok());
        let values_dead = spec.time_varying || (entries(None) && entries(called));
        archive::dead_prefix(&txn.slot, txn.now, after, values_dead, |id| txn.changed_claim(id))
    }

    /// Moves the dead claims of `txn` (`dead_claims`) to a new claim chunk,
    /// committed first with their own ids (the stores' claim index then leads
    /// each id to the chunk); a lost race in between leaves a chunk whose
    /// claims the slot still holds, which readers skip by id.
    async fn archive_dead_claims(&self, txn: &mut SlotTxn, slot_ref: &SlotRef) -> Result<()> {
        let n = self.dead_claims(txn, slot_ref);
        if n == 0 {
            return Ok(());
        }
        let chunk_id = self.ids.next_id(archive::CLAIM_CHUNK_PREFIX);
        let target = chunk_ref(&slot_ref.key, &chunk_id);
        let offset = txn.slot.archived_claims;
        let moved = txn.take_oldest_claims(n);
        let mut chunk = SlotTxn::new(Slot::default(), txn.now, chunk_cause(&txn.cause), self.ids.clone());
        for c in &moved {
            chunk.add_claim(Claim::clone(c));
        }
        chunk.slot.archived_claims = offset;
        chunk.slot.reviewed = chunk.slot.claims.len();
        chunk.log_change("archive", &[], None, None, format!("{n} dead claim(s) of {}/{}", slot_ref.subject, slot_ref.predicate));
        if !self.store.commit_slot(&chunk.into_commit(target)).await? {
            return Err(Error::new(ErrorCode::Concurrency, format!("archive chunk {chunk_id} of {}/{} already exists", slot_ref.subject, slot_ref.predicate)));
        }
        let ids: Vec<&str> = moved.iter().map(|c| c.id.as_str()).collect();
        txn.log_change("archive_claims", &ids, None, None, format!("{n} claim(s) that left the live set moved to archive chunk {chunk_id}; why() and recall({{ includeHistory, at }}) read them there"));
        Ok(())
    }

    /// The slot with its archived claims put back in front, in their order,
    /// and their chunks' tombstones: the full history, for reads that show
    /// it (`includeHistory`, `at`, `why`, `blob`, erasure, the checker). A
    /// chunk left by a lost race repeats claims held elsewhere: each id is
    /// taken once, the slot's own copy first.
    pub(crate) async fn with_archived_claims(&self, slot_ref: &SlotRef, slot: Slot) -> Result<Slot> {
        if slot.archived_claims == 0 {
            return Ok(slot);
        }
        let mut chunks = Vec::new();
        for chunk in self.store.list_slots(Some(&archive::archive_subject(&slot_ref.key))).await? {
            if archive::is_claim_chunk(&chunk.predicate) {
                chunks.push(self.store.load_slot(&chunk).await?);
            }
        }
        crate::sort::sort_by_key(&mut chunks, |c| c.archived_claims);
        let mut seen: std::collections::HashSet<String> = slot.claims.iter().map(|c| c.id.clone()).collect();
        let mut full = slot.clone();
        let mut claims: crate::model::Chunked<Claim> = crate::model::Chunked::new();
        for chunk in &chunks {
            for c in chunk.claims.iter() {
                if seen.insert(c.id.clone()) {
                    claims.push(c.clone());
                }
            }
            full.erasures.extend(chunk.erasures.iter().filter(|t| slot.tombstone(&t.claim_id).is_none()).cloned());
        }
        for c in slot.claims.iter() {
            claims.push(c.clone());
        }
        full.claims = claims;
        Ok(full)
    }

    /// The slot, with its archived claims put back when one of `drafts`
    /// speaks for a time before `archived_until`: a report of an archived
    /// period then corroborates (or is weighed against) the claim that holds
    /// it, as it would had nothing moved. Those claims go back into the slot
    /// (their chunk copies are skipped by id) until the next archive pass.
    /// Rare: a write of now never reaches back that far.
    pub(crate) async fn with_history_reached<'a>(&self, slot_ref: &SlotRef, slot: Slot, mut drafts: impl Iterator<Item = &'a Claim>) -> Result<Slot> {
        let Some(until) = slot.archived_until else { return Ok(slot) };
        if !drafts.any(|d| d.effective_from() < until) {
            return Ok(slot);
        }
        let mut full = self.with_archived_claims(slot_ref, slot).await?;
        full.archived_until = None;
        Ok(full)
    }

    /// The slot that holds claim `id`, or held it before it moved to a chunk
    /// of its archive (the stores' claim index then names the chunk).
    pub(crate) async fn claim_home(&self, id: &str) -> Result<Option<SlotRef>> {
        let Some(found) = self.store.find_claim(id).await? else { return Ok(None) };
        Ok(Some(if archive::is_archive_subject(&found.subject) { archive::home_of(&found).unwrap_or(found) } else { found }))
    }

    fn observations_due(&self, txn: &SlotTxn, slot_ref: &SlotRef) -> bool {
        if super::is_reserved_subject(&slot_ref.subject) {
            return false;
        }
        let after = self.settings.archive_after;
        // Only a claim this write changed can have gained observations.
        !archive::expired_writes(&txn.slot.writes).is_empty() || txn.changed_positions().into_iter().any(|i| txn.slot.claims[i].provenance.len() > after)
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

/// A chunk's commit names the operation that filled it, not the text or the
/// source of the write that happened to trigger it: a chunk's log then holds
/// nothing an erasure must scrub, so erasing its claims is an ordinary commit
/// instead of a rewrite of the store's log (OkfStore: all of log.md, per chunk).
fn chunk_cause(cause: &crate::model::LogCause) -> crate::model::LogCause {
    crate::model::LogCause { object: None, source_id: None, ..cause.clone() }
}
