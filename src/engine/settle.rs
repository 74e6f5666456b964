//! A person settles what machines should not guess (SPEC §6): settle and undo.
//! Settlement changes statuses only (never belief), and records each change
//! so that `undo` restores exactly what it changed.

use super::{undo_guard, Engine};
use crate::belief;
use crate::strategy::{self, WriteCtx};
use crate::error::{Error, ErrorCode, Result};
use crate::invariants::{self, SlotFacts};
use crate::model::{
    Chunked, Claim, Conflict, ConflictKind, ConflictRecord, ConflictStatus, LogCause, LogEntry, Settlement, SlotRef, Status,
    StatusChange,
};
use crate::txn::SlotTxn;

impl Settlement {
    pub fn parse(text: &str) -> Result<Self> {
        match text.trim().to_lowercase().replace(['-', ' '], "_").as_str() {
            "keep_newer" => Ok(Settlement::KeepNewer),
            "keep_earlier" => Ok(Settlement::KeepEarlier),
            "keep_both" => Ok(Settlement::KeepBoth),
            "same" => Ok(Settlement::Same),
            "different" => Ok(Settlement::Different),
            _ => Err(Error::new(
                ErrorCode::InvalidSettlement,
                format!("unknown settlement {text:?}; expected keep_newer, keep_earlier or keep_both (same or different for a same_entity conflict)"),
            )
            .with_field("settlement")),
        }
    }
}

fn set_status(txn: &mut SlotTxn, id: &str, to: Status) {
    txn.update_claim(id, |c| c.status = to);
}

/// Every claim whose status or belief differs between `before` and now.
pub(super) fn diff(before: &Chunked<Claim>, txn: &SlotTxn) -> Vec<StatusChange> {
    before
        .iter()
        .filter_map(|old| {
            let now = txn.claim(&old.id)?;
            (now.status != old.status || now.log_odds != old.log_odds).then(|| StatusChange {
                claim_id: old.id.clone(),
                before: old.status,
                after: now.status,
                log_odds_before: old.log_odds,
                log_odds_after: now.log_odds,
            })
        })
        .collect()
}

fn conflict_not_found(id: &str) -> Error {
    Error::new(ErrorCode::ConflictNotFound, format!("no conflict with id {id:?}")).with_field("conflictId")
}

impl Engine {
    /// The slot holding conflict `id`; a question still in a registry
    /// written before entities had slots is moved out first (it then lives
    /// in an entity's slot).
    async fn slot_of_conflict(&self, id: &str) -> Result<SlotRef> {
        let slot_ref = self.store.find_conflict(id).await?.ok_or_else(|| conflict_not_found(id))?;
        if slot_ref.subject != crate::model::ENTITY_REGISTRY {
            return Ok(slot_ref);
        }
        self.migrate_registry(&slot_ref.predicate).await?;
        self.store.find_conflict(id).await?.ok_or_else(|| conflict_not_found(id))
    }

    async fn view(&self, slot_ref: &SlotRef, slot: &crate::model::Slot, id: &str) -> Result<Conflict> {
        slot.conflict(id)
            .and_then(|r| super::read::conflict_view(slot, slot_ref, r))
            .ok_or_else(|| conflict_not_found(id))
    }

    /// Whether claims of this slot compete for belief when a settlement changes
    /// them: free-text entries (append, merge_on_read, imports) stand alone.
    fn entries_compete(&self, slot_ref: &SlotRef, log: &[LogEntry]) -> bool {
        !self.spec_of(&slot_ref.predicate).is_multi() && invariants::entry_claims(log).is_empty()
    }

    pub async fn settle(&self, conflict_id: &str, settlement: &str, by: Option<&str>) -> Result<Conflict> {
        let settlement = Settlement::parse(settlement)?;
        let slot_ref = self.slot_of_conflict(conflict_id).await?;
        let multi = self.spec_of(&slot_ref.predicate).is_multi();
        // An empty actor is no actor: "user", as `retract` reads it.
        let by = by.map(str::trim).filter(|b| !b.is_empty()).unwrap_or("user").to_string();
        if crate::model::is_entity_subject(&slot_ref.subject) {
            return self.settle_same_entity(&slot_ref, conflict_id, settlement, &by).await;
        }
        if matches!(settlement, Settlement::Same | Settlement::Different) {
            return Err(Error::new(ErrorCode::InvalidSettlement, format!("{:?} settles only a same_entity conflict; {conflict_id:?} is about a fact", settlement.as_str())).with_field("settlement"));
        }
        let cause = LogCause { op: "settle".into(), by: Some(by.clone()), ..Default::default() };
        let (current_before, slot) = self
            .commit_with_log(&slot_ref, cause, |txn, log| {
                let compete = self.entries_compete(&slot_ref, log);
                let current_before = self.current_before(&slot_ref, &txn.slot);
                let record = txn.slot.conflict(conflict_id).cloned().ok_or_else(|| conflict_not_found(conflict_id))?;
                if record.status.is_closed() || left_live_set(txn, &record).is_some() || overtaken(txn, &record).is_some() {
                    return Err(already_closed(conflict_id, &record, txn));
                }
                let (earlier, newer) = (record.earlier_id.as_str(), record.newer_id.as_str());
                let before = txn.slot.claims.clone();
                let facts = SlotFacts { slot_ref: &slot_ref, log, multi };
                let violations_before = invariants::check_slot(&txn.slot, &facts);
                if record.kind == ConflictKind::Dependent {
                    let spec = self.spec_of(&slot_ref.predicate);
                    super::dependent::settle_dependent(txn, &WriteCtx { spec: &spec, settings: &self.settings }, &record, settlement, &by)?;
                } else {
                    apply_settlement(txn, &record, settlement);
                }
                // Rivals a person removed no longer compete for belief.
                let spec = self.spec_of(&slot_ref.predicate);
                let ctx = WriteCtx { spec: &spec, settings: &self.settings };
                if compete {
                    strategy::reweigh_claims(txn, &ctx);
                } else {
                    strategy::reweigh_entries(txn, &ctx);
                }
                let changes = diff(&before, txn);
                let now = txn.now;
                let who = by.clone();
                txn.update_conflict(conflict_id, |c| {
                    c.settled_from = Some(c.status);
                    c.status = ConflictStatus::Settled;
                    c.settled_at = Some(now);
                    c.settled_by = Some(who);
                    c.settlement = Some(settlement);
                    c.changes = changes.clone();
                });
                let ids: Vec<&str> = vec![earlier, newer];
                txn.log_change("settle", &ids, None, Some(conflict_id),
                    format!("{} settled it: {} ({} status change{})", by, settlement.as_str(), changes.len(), if changes.len() == 1 { "" } else { "s" }));
                let (opened, reopened, reopened_moot) = ask_about_clashes(txn, &facts, &violations_before, conflict_id, &by);
                // Other questions about the claims it retired are gone; undo reopens them.
                let mooted = txn.close_moot_conflicts();
                txn.update_conflict(conflict_id, |c| {
                    c.mooted = mooted;
                    c.opened = opened;
                    c.reopened = reopened;
                    c.reopened_moot = reopened_moot;
                });
                Ok(current_before)
            })
            .await?;
        // A settlement that changed the current value flags what hangs on it.
        self.flag_dependents(&slot_ref, &current_before, &slot, &[]).await?;
        self.view(&slot_ref, &slot, conflict_id).await
    }

    /// Puts back what a settlement changed, only while those claims are still
    /// as it left them (else `UNDO_STALE`, nothing written). Belief a later
    /// observation moved is kept: undo never removes evidence.
    pub async fn undo(&self, conflict_id: &str) -> Result<Conflict> {
        let slot_ref = self.slot_of_conflict(conflict_id).await?;
        if crate::model::is_entity_subject(&slot_ref.subject) {
            return self.undo_same_entity(&slot_ref, conflict_id).await;
        }
        let multi = self.spec_of(&slot_ref.predicate).is_multi();
        let cause = LogCause { op: "undo".into(), ..Default::default() };
        let ((), slot) = self
            .commit_with_log(&slot_ref, cause, |txn, log| {
                let record = txn.slot.conflict(conflict_id).cloned().ok_or_else(|| conflict_not_found(conflict_id))?;
                if record.status != ConflictStatus::Settled {
                    return Err(Error::new(ErrorCode::ConflictNotSettled, format!("conflict {conflict_id:?} is not settled; nothing to undo")).with_field("conflictId"));
                }
                if let Some(err) = undo_guard::stale_change(txn, &record, log) {
                    return Err(err);
                }
                let facts = SlotFacts { slot_ref: &slot_ref, log, multi };
                let before = invariants::check_slot(&txn.slot, &facts);
                let spec = self.spec_of(&slot_ref.predicate);
                super::dependent::unsettle_dependent(txn, &WriteCtx { spec: &spec, settings: &self.settings }, &record)?;
                for change in record.changes.iter().rev() {
                    let (status, before, after) = (change.before, change.log_odds_before, change.log_odds_after);
                    txn.update_claim(&change.claim_id, |c| {
                        c.status = status;
                        if c.log_odds == after {
                            belief::set_belief(c, before);
                        }
                    });
                }
                txn.update_conflict(conflict_id, |c| {
                    c.status = c.settled_from.take().unwrap_or(ConflictStatus::Open);
                    c.settled_at = None;
                    c.settled_by = None;
                    c.settlement = None;
                    c.changes.clear();
                    c.mooted.clear();
                    c.opened.clear();
                    c.reopened.clear();
                    c.reopened_moot.clear();
                    // Undone with the settlement: a later settlement of the flag
                    // that retracts nothing has none to undo.
                    c.retraction = None;
                });
                for cf in &record.opened {
                    txn.update_conflict(cf, |c| c.status = ConflictStatus::Moot);
                }
                for cf in &record.reopened {
                    txn.update_conflict(cf, |c| c.status = ConflictStatus::ResolvedByEvidence);
                }
                for cf in &record.reopened_moot {
                    txn.update_conflict(cf, |c| c.status = ConflictStatus::Moot);
                }
                for cf in &record.mooted {
                    txn.update_conflict(cf, |c| {
                        if c.status == ConflictStatus::Moot {
                            c.status = ConflictStatus::Open;
                        }
                    });
                }
                // Claims written or changed since may rely on what the settlement
                // retired: restoring must not clash with them (two current values,
                // or a value restored beside its later copy). A clash among claims
                // untouched since is the state the settlement found.
                let later = undo_guard::touched_since_settlement(log, &record.id);
                let clash = invariants::check_slot(&txn.slot, &facts).into_iter().find(|v| {
                    matches!(v.rule.as_str(), "two_current_values" | "duplicate_value")
                        && !before.contains(v)
                        && v.ids.iter().any(|id| later.contains(id))
                });
                if let Some(clash) = clash {
                    return Err(Error::new(
                        ErrorCode::UndoStale,
                        format!("cannot undo conflict {conflict_id:?}: the slot changed since it was settled and restoring it would break an invariant ({}); nothing was changed", clash.message),
                    )
                    .with_field("conflictId"));
                }
                let ids: Vec<&str> = record.changes.iter().map(|c| c.claim_id.as_str()).collect();
                txn.log_change("undo", &ids, None, Some(conflict_id),
                    format!("settlement {} undone; {} status change(s) restored, conflict reopened", record.settlement.map(|s| s.as_str()).unwrap_or("?"), record.changes.len()));
                Ok(())
            })
            .await?;
        self.view(&slot_ref, &slot, conflict_id).await
    }
}

/// A claim of the conflict that is no longer live (a resolved-by-evidence
/// conflict stays settleable only while both its claims still compete).
fn left_live_set<'t>(txn: &'t SlotTxn, record: &ConflictRecord) -> Option<&'t Claim> {
    [&record.earlier_id, &record.newer_id].into_iter().filter_map(|id| txn.claim(id)).find(|c| !c.status.is_live())
}

/// Neither claim of a resolved conflict is current: a third value won since.
fn overtaken(txn: &SlotTxn, record: &ConflictRecord) -> Option<String> {
    // A dependent flag's `newer` is the changed fact in another slot: no rival
    // here (the moot rule skips it too; SPEC §7: it waits for a person).
    if record.kind == ConflictKind::Dependent {
        return None;
    }
    txn.third_value_won(&[&record.earlier_id, &record.newer_id])
}

fn already_closed(conflict_id: &str, record: &ConflictRecord, txn: &SlotTxn) -> Error {
    let how = match (record.status, left_live_set(txn, record)) {
        (ConflictStatus::Settled, _) => format!("already settled ({})", record.settlement.map(|s| s.as_str()).unwrap_or("?")),
        (_, Some(c)) => format!("closed as moot: its claim {} is {}", c.id, c.status.as_str()),
        _ if overtaken(txn, record).is_some() => {
            format!("closed as moot: neither claim is current; {} won on evidence since", overtaken(txn, record).unwrap_or_default())
        }
        _ => "closed as moot: one of its claims left the live set".to_string(),
    };
    Error::new(ErrorCode::ConflictAlreadySettled, format!("conflict {conflict_id:?} was {how}")).with_field("conflictId")
}

fn apply_settlement(txn: &mut SlotTxn, record: &ConflictRecord, settlement: Settlement) {
    let (earlier, newer) = (record.earlier_id.as_str(), record.newer_id.as_str());
    match settlement {
        Settlement::KeepNewer => {
            set_status(txn, earlier, Status::Retired);
            set_status(txn, newer, Status::Active);
            if record.kind == ConflictKind::MergeProposal {
                // The approved rewrite consolidates every other active entry.
                let others: Vec<String> = txn.slot.claims.iter()
                    .filter(|c| c.status.is_current() && c.id != newer)
                    .map(|c| c.id.clone()).collect();
                for id in others {
                    set_status(txn, &id, Status::Superseded);
                }
            }
        }
        Settlement::KeepEarlier => {
            set_status(txn, newer, Status::Retired);
            set_status(txn, earlier, Status::Active);
        }
        Settlement::Same | Settlement::Different => {}
        Settlement::KeepBoth => {
            if record.kind != ConflictKind::MergeProposal {
                set_status(txn, earlier, Status::Active);
                set_status(txn, newer, Status::Active);
            }
        }
    }
}

/// A claim the settlement kept may clash with a value that became current
/// after the conflict opened: rather than leave two current values
/// unexplained, each such pair is put to the person as a new conflict.
/// Returns (conflicts opened, conflicts resolved by evidence and reopened,
/// conflicts closed as moot and reopened).
fn ask_about_clashes(txn: &mut SlotTxn, facts: &SlotFacts, before: &[invariants::Violation], conflict_id: &str, by: &str) -> (Vec<String>, Vec<String>, Vec<String>) {
    let clashes: Vec<Vec<String>> = invariants::check_slot(&txn.slot, facts)
        .into_iter()
        .filter(|v| v.rule == "two_current_values" && !before.contains(v))
        .map(|v| v.ids)
        .collect();
    let (mut opened, mut reopened, mut reopened_moot) = (Vec::new(), Vec::new(), Vec::new());
    for ids in clashes {
        let [a, b] = ids.as_slice() else { continue };
        // A pair is noted once: a conflict evidence resolved, or one closed as
        // moot while its pair was apart (an undo, a third value), is asked again instead.
        let closed = txn
            .slot
            .conflicts
            .iter()
            .find(|c| c.names_pair(a, b) && matches!(c.status, ConflictStatus::ResolvedByEvidence | ConflictStatus::Moot))
            .map(|c| (c.id.clone(), c.status));
        if let Some((cf, was)) = closed {
            txn.update_conflict(&cf, |c| c.status = ConflictStatus::Open);
            txn.log_change("conflict_reopened", &[a, b], None, Some(&cf), format!("{by} kept one of these when settling {conflict_id}: the person decides, not evidence"));
            if was == ConflictStatus::Moot { reopened_moot.push(cf) } else { reopened.push(cf) }
            continue;
        }
        let reason = format!("{by} kept one of these when settling {conflict_id}, but the other became current since: which holds?");
        opened.extend(txn.open_conflict(ConflictKind::AskUser, a, b, reason));
    }
    (opened, reopened, reopened_moot)
}
