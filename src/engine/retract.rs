//! A person's "that's no longer true" (SPEC §7): `retract` ends a claim's
//! validity with no replacement, and `undo` of its id puts it back exactly,
//! refused with `UNDO_STALE` once the slot moved on.

use serde::{Deserialize, Serialize};

use super::settle::diff;
use super::Engine;
use crate::error::{Error, ErrorCode, Result};
use crate::invariants::{self, overlap, SlotFacts};
use crate::model::{Claim, ConflictKind, ConflictRecord, ConflictStatus, LogCause, Retraction, RetractionRecord, Shared, Slot, SlotRef, Status};
use crate::strategy::{self, WriteCtx};
use crate::time::Timestamp;
use crate::txn::SlotTxn;

/// `memory.retract(claimId, options)`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct RetractOptions {
    /// Why it no longer holds; kept in the log.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Who retracted it (default "user").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
    /// When it stopped holding (ISO 8601, default now; not in the future).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
}

fn claim_not_found(id: &str) -> Error {
    Error::new(ErrorCode::ClaimNotFound, format!("no claim with id {id:?}")).with_field("claimId")
}

fn retraction_not_found(id: &str) -> Error {
    Error::new(ErrorCode::ConflictNotFound, format!("no retraction with id {id:?}")).with_field("id")
}

fn stale(id: &str, change: String) -> Error {
    Error::new(ErrorCode::UndoStale, format!("retraction {id:?} cannot be undone: {change}")).with_field("id")
}

fn view(slot: &Slot, record: &RetractionRecord) -> Result<Retraction> {
    let claim = slot.claim(&record.claim_id).cloned().ok_or_else(|| claim_not_found(&record.claim_id))?;
    Ok(Retraction {
        id: record.id.clone(),
        claim,
        by: record.by.clone(),
        reason: record.reason.clone(),
        at: record.at,
        recorded_at: record.recorded_at,
        undone: record.undone_at.is_some(),
        dependents: Vec::new(),
    })
}

/// What keeps a retraction from being undone, if anything: a changed claim,
/// or a value that became current after it.
fn later_change(slot: &Slot, record: &RetractionRecord) -> Option<String> {
    let claim = slot.claim(&record.claim_id)?;
    if claim.status != Status::Retracted || claim.valid_to != Some(record.at) {
        return Some(format!("claim {:?} changed since (now {})", claim.id, claim.status.as_str()));
    }
    // A claim the withdrawal let hold on that has since been ended another way.
    // (Its stated end, given back by the withdrawal, is no such end.)
    let ended = |c: &Claim| {
        c.superseded_by.is_some() || matches!(c.status, Status::Superseded | Status::Retracted | Status::Retired) || c.valid_to.is_some_and(|end| end <= record.at)
    };
    if let Some(id) = record.revived.iter().find(|id| slot.claim(id).is_some_and(ended)) {
        return Some(format!("claim {id:?} it let hold on has ended since"));
    }
    for change in &record.changes {
        match slot.claim(&change.claim_id) {
            Some(c) if c.status == change.after => {}
            Some(c) => return Some(format!("claim {:?} changed since, from {} to {}", c.id, change.after.as_str(), c.status.as_str())),
            None => return Some(format!("claim {:?} is gone", change.claim_id)),
        }
    }
    // A copy of its value written since (the retracted claim was not there
    // to corroborate), live or not, would overlap it once restored. (A copy
    // an entity merge moved in keeps the original's recording time: the
    // invariant check in `undo_retraction` catches that one.)
    let restored = (claim.effective_from(), record.valid_to_before.unwrap_or(Timestamp(i64::MAX)));
    if let Some(copy) = slot.claims.iter().find(|c| {
        let (from, to) = slot.validity(c);
        c.id != claim.id
            && c.status != Status::Retired
            && c.recorded_at >= record.recorded_at
            && strategy::same_value(c, claim)
            && from < restored.1
            && restored.0 < to
    }) {
        return Some(format!("claim {:?} repeats its value {:?} and was written since", copy.id, copy.object));
    }
    // A question about it that closed since (not by this retraction) while its
    // other claim is current: restored, the pair would stand unasked.
    if let Some(cf) = slot.conflicts.iter().find(|cf| {
        cf.status == ConflictStatus::Moot
            && cf.kind != ConflictKind::Dependent
            && !record.mooted.contains(&cf.id)
            && (cf.earlier_id == claim.id || cf.newer_id == claim.id)
            && [&cf.earlier_id, &cf.newer_id].iter().any(|id| **id != claim.id && slot.claim(id).is_some_and(|c| c.status.is_current()))
    }) {
        return Some(format!("conflict {:?} about it closed since", cf.id));
    }
    slot.claims
        .iter()
        .find(|c| c.status.is_current() && !record.current_after.contains(&c.id))
        .map(|c| format!("claim {:?} ({:?}) became {} since", c.id, c.object, c.status.as_str()))
}

/// Closes the open conflicts about a claim that left the live set (`moot`):
/// a rival it disputed with alone is current on its own again.
fn close_conflicts_about(txn: &mut SlotTxn, claim_id: &str, settling: Option<&str>) -> Vec<String> {
    let open: Vec<Shared<ConflictRecord>> = txn.slot.conflicts.iter()
        .filter(|c| c.status == ConflictStatus::Open && (c.earlier_id == claim_id || c.newer_id == claim_id) && Some(c.id.as_str()) != settling)
        .cloned().collect();
    for r in &open {
        txn.update_conflict(&r.id, |c| c.status = ConflictStatus::Moot);
        txn.log_change("conflict_moot", &[&r.earlier_id, &r.newer_id], None, Some(&r.id), format!("{claim_id} was retracted, so this {} no longer stands", crate::txn::kind_name(r.kind)));
        let rival = if r.earlier_id == claim_id { &r.newer_id } else { &r.earlier_id };
        let still_disputed = txn.slot.conflicts.iter().any(|c| {
            c.status == ConflictStatus::Open && c.kind == ConflictKind::Dispute && (&c.earlier_id == rival || &c.newer_id == rival)
        });
        if r.kind == ConflictKind::Dispute && !still_disputed && txn.claim(rival).is_some_and(|c| c.status == Status::Disputed) {
            txn.update_claim(rival, |c| c.status = Status::Active);
        }
    }
    open.into_iter().map(|r| r.id.clone()).collect()
}

/// The claims `withdrawn` (a scheduled claim that never began) had ended at
/// its start, made current again as they were before it came — unless
/// another current claim or a copy of their value now covers the time they
/// would hold (then nothing holds there: no guess).
fn revive_predecessors(txn: &mut SlotTxn, withdrawn: &Claim, multi: bool) -> Vec<String> {
    let start = withdrawn.effective_from();
    let ended: Vec<Shared<Claim>> = txn.slot.claims.iter()
        .filter(|p| p.status == Status::Superseded && p.superseded_by.as_deref() == Some(withdrawn.id.as_str()) && p.valid_to == Some(start))
        .cloned().collect();
    let mut revived = Vec::new();
    for p in ended {
        let period = (p.effective_from(), p.stated_valid_to.unwrap_or(Timestamp(i64::MAX)));
        let blocked = txn.slot.claims.iter().any(|c| {
            c.id != p.id
                && overlap(period, txn.slot.validity(c))
                // A free-text entry sharing the slot is no rival value (SPEC §5).
                && ((c.status.is_current() && c.kind.is_value() && !multi) || (c.status != Status::Retired && strategy::same_value(c, &p)))
        });
        if blocked {
            continue;
        }
        txn.update_claim(&p.id, |c| c.hold_again(Status::Active));
        revived.push(p.id.clone());
    }
    revived
}

/// Retracts `claim_id` inside `txn` (shared by `retract` and a dependent
/// conflict settled keep_newer, named by `settling`, which stays for the
/// settlement to close) and records what it changed.
pub(super) fn apply_retraction(txn: &mut SlotTxn, ctx: &WriteCtx, claim_id: &str, at: Timestamp, by: &str, reason: Option<&str>, settling: Option<&str>) -> Result<RetractionRecord> {
    let claim = txn.claim(claim_id).cloned().ok_or_else(|| claim_not_found(claim_id))?;
    if !claim.status.is_live() {
        return Err(Error::new(
            ErrorCode::ClaimNotLive,
            format!("claim {claim_id:?} is {}; only an active, disputed or outweighed claim can be retracted", claim.status.as_str()),
        )
        .with_field("claimId"));
    }
    // A scheduled claim withdrawn before it begins never holds: its period
    // is empty and the claim it would have ended holds on.
    let withdrawn = claim.valid_from.is_some_and(|from| from > txn.now) && at <= claim.effective_from();
    if at < claim.effective_from() && !withdrawn {
        return Err(Error::new(ErrorCode::InvalidTime, format!("at: {} is before claim {claim_id:?} began to hold ({})", at.to_iso(), claim.effective_from().to_iso())).with_field("at"));
    }
    let before = txn.slot.claims.clone();
    let valid_to = if withdrawn { claim.effective_from() } else { claim.valid_to.map_or(at, |end| end.min(at)) };
    txn.update_claim(claim_id, |c| {
        c.status = Status::Retracted;
        c.valid_to = Some(valid_to);
    });
    let mooted = close_conflicts_about(txn, claim_id, settling);
    let revived = if withdrawn { revive_predecessors(txn, &claim, ctx.spec.is_multi()) } else { Vec::new() };
    strategy::reweigh_claims(txn, ctx);
    let n = txn.slot.retractions.iter().filter(|r| r.claim_id == claim_id).count() + 1;
    let record = RetractionRecord {
        id: RetractionRecord::make_id(claim_id, n),
        claim_id: claim_id.to_string(),
        at: valid_to,
        recorded_at: txn.now,
        by: by.to_string(),
        reason: reason.map(str::to_string),
        valid_to_before: claim.valid_to,
        changes: diff(&before, txn),
        current_after: txn.slot.claims.iter().filter(|c| c.status.is_current()).map(|c| c.id.clone()).collect(),
        mooted,
        undone_at: None,
        revived,
    };
    txn.slot.retractions.push(record.clone());
    let because = reason.map(|r| format!(": {r}")).unwrap_or_default();
    let what = if withdrawn {
        let held_on: Vec<&str> = record.revived.iter().filter_map(|id| txn.claim(id)).map(|c| c.object.as_str()).collect();
        let held_on = if held_on.is_empty() { String::new() } else { format!("; {held_on:?} holds on") };
        format!("{by} withdrew {:?} before it began ({}): it never holds{held_on}{because}", claim.object, valid_to.to_iso())
    } else {
        format!("{by} retracted {:?}, no longer holding from {}{because}", claim.object, valid_to.to_iso())
    };
    let mut ids = vec![claim_id];
    ids.extend(record.revived.iter().map(String::as_str));
    txn.log_change("retract", &ids, Some((claim.confidence, claim.confidence)), None, what);
    Ok(record)
}

/// Undoes retraction `id` inside `txn`, refusing with UNDO_STALE when the
/// slot moved on since.
pub(super) fn revert_retraction(txn: &mut SlotTxn, ctx: &WriteCtx, id: &str) -> Result<RetractionRecord> {
    let record = txn.slot.retractions.iter().find(|r| r.id == id).cloned().ok_or_else(|| retraction_not_found(id))?;
    if record.undone_at.is_some() {
        return Err(stale(id, "it was already undone".into()));
    }
    if let Some(change) = later_change(&txn.slot, &record) {
        return Err(stale(id, change));
    }
    for change in record.changes.iter().rev() {
        let status = change.before;
        txn.update_claim(&change.claim_id, |c| c.status = status);
    }
    let valid_to = record.valid_to_before;
    txn.update_claim(&record.claim_id, |c| c.restore_valid_to(valid_to));
    for id in &record.revived {
        txn.update_claim(id, |c| c.end_as_history(&record.claim_id, Some(record.at)));
    }
    for cf in &record.mooted {
        txn.update_conflict(cf, |c| c.status = ConflictStatus::Open);
    }
    // Belief is recomputed from the evidence now, so an observation that
    // arrived after the retraction still counts.
    strategy::reweigh_claims(txn, ctx);
    let now = txn.now;
    if let Some(r) = txn.slot.retractions.iter_mut().find(|r| r.id == id) {
        r.undone_at = Some(now);
    }
    let ids: Vec<&str> = record.changes.iter().map(|c| c.claim_id.as_str()).collect();
    txn.log_change("undo_retract", &ids, None, None, format!("retraction {id} undone; claim {} holds again", record.claim_id));
    Ok(record)
}

impl Engine {
    pub async fn retract(&self, claim_id: &str, options: &RetractOptions) -> Result<Retraction> {
        let now = self.now()?;
        let at = options.at.as_deref().map(|t| Timestamp::parse(t, "at")).transpose()?.unwrap_or(now);
        if at > now {
            return Err(Error::new(ErrorCode::InvalidTime, "at: must not be in the future; to end a fact later, write it with validTo").with_field("at"));
        }
        let reason = options.reason.as_deref().map(str::trim).filter(|r| !r.is_empty()).map(str::to_string);
        let by = options.by.as_deref().map(str::trim).filter(|b| !b.is_empty()).unwrap_or("user").to_string();
        let slot_ref = self.claim_home(claim_id).await?.ok_or_else(|| claim_not_found(claim_id))?;
        let cause = LogCause { op: "retract".into(), by: Some(by.clone()), ..Default::default() };
        let spec = self.spec_of(&slot_ref.predicate);
        let (record, slot) = self
            .commit_with_retry(&slot_ref, cause, |txn| {
                apply_retraction(txn, &WriteCtx { spec: &spec, settings: &self.settings }, claim_id, at, &by, reason.as_deref(), None)
            })
            .await?;
        let dependents = if record.withdrew(&slot) {
            // The value that held before holds on: nothing it depends on changed.
            let why = format!("{} withdrew the scheduled change before it began", record.by);
            self.withdraw_dependents(&slot_ref, &record.claim_id, &why, Timestamp(i64::MIN)).await?;
            Vec::new()
        } else {
            self.flag_dependents(&slot_ref, std::slice::from_ref(&record.claim_id), &slot, &[]).await?
        };
        let mut out = view(&slot, &record)?;
        out.dependents = dependents;
        Ok(out)
    }

    /// Undoes the retraction `id` names (`rt:<n>:<claimId>`).
    pub async fn undo_retraction(&self, id: &str) -> Result<Retraction> {
        let claim_id = RetractionRecord::claim_of(id).ok_or_else(|| retraction_not_found(id))?;
        let slot_ref: SlotRef = self.claim_home(claim_id).await?.ok_or_else(|| retraction_not_found(id))?;
        let cause = LogCause { op: "undo".into(), ..Default::default() };
        let spec = self.spec_of(&slot_ref.predicate);
        let multi = spec.is_multi();
        let (record, slot) = self
            .commit_with_log(&slot_ref, cause, |txn, log| {
                let facts = SlotFacts { slot_ref: &slot_ref, log, multi };
                let before = invariants::check_slot(&txn.slot, &facts);
                let record = revert_retraction(txn, &WriteCtx { spec: &spec, settings: &self.settings }, id)?;
                // Restored beside a claim that came since by another way than a write here (an
                // entity merge moved in a copy of its value: concurrency seed 780142611).
                let clash = invariants::check_slot(&txn.slot, &facts)
                    .into_iter()
                    .find(|v| matches!(v.rule.as_str(), "two_current_values" | "duplicate_value") && !before.contains(v));
                match clash {
                    Some(v) => Err(stale(id, format!("restored, it would break an invariant: {}", v.message))),
                    None => Ok(record),
                }
            })
            .await?;
        self.withdraw_dependents(&slot_ref, &record.claim_id, &format!("{id} was undone"), record.recorded_at).await?;
        if record.withdrew(&slot) {
            // The scheduled change is back: what depends on the value it ends is asked again.
            self.reopen_dependents(&slot_ref, &record.claim_id, id).await?;
        }
        let record = slot.retractions.iter().find(|r| r.id == record.id).unwrap_or(&record);
        view(&slot, record)
    }
}

/// `undo(id)` answers with what it undid: a settlement or a retraction.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Undone {
    Conflict(Box<crate::model::Conflict>),
    Retraction(Box<Retraction>),
}

impl Engine {
    /// `undo` for any id: a retraction id undoes that retraction, anything else a settlement.
    pub async fn undo_any(&self, id: &str) -> Result<Undone> {
        // A retraction's id, well-formed or not: an unknown "rt:…" is no retraction, not no conflict.
        if id.starts_with(RetractionRecord::ID_PREFIX) {
            return self.undo_retraction(id).await.map(|r| Undone::Retraction(Box::new(r)));
        }
        self.undo(id).await.map(|c| Undone::Conflict(Box::new(c)))
    }
}
