//! What a valued write meets in the slot's past (SPEC §3, §6): a value
//! re-asserted for a period that overlaps a history claim of that value
//! corroborates it instead of copying it, and a value a person retracted is never revived
//! by evidence for the period the retraction covers.
//!
//! The retraction rule is ours (the SPEC is silent): the part of the new
//! claim's period the retracted claim already covers corroborates nothing
//! new, so the new claim starts where the retraction ended it (`validTo`); if
//! nothing of its period remains, the write is recorded as `historical`
//! corroboration of the retracted claim, which stays retracted.

use super::same_value;
use crate::model::{Action, Claim, Relation, Status};
use crate::time::Timestamp;
use crate::txn::SlotTxn;

use super::ctx::Applied;

/// The superseded claim matching the draft whose period meets the draft's:
/// the one covering the draft's start, else the earliest that overlaps it.
pub fn history_covering<'a>(txn: &'a SlotTxn, draft: &Claim, matches: impl Fn(&Claim) -> bool) -> Option<&'a Claim> {
    covering_of(txn, draft, txn.slot.claims.iter().map(|c| &**c), matches)
}

/// `history_covering` of the draft's own value: only the claims that may
/// say it are looked at (`Slot::value_candidates`).
pub fn value_history_covering<'a>(txn: &'a SlotTxn, draft: &Claim, matches: impl Fn(&Claim) -> bool) -> Option<&'a Claim> {
    covering_of(txn, draft, of_value(txn, draft), |c| same_value(c, draft) && matches(c))
}

/// The slot's claims that may say the draft's value, in slot order.
fn of_value<'a>(txn: &'a SlotTxn, draft: &Claim) -> impl Iterator<Item = &'a Claim> {
    txn.slot.value_candidates(draft).into_iter().map(|i| &*txn.slot.claims[i])
}

fn covering_of<'a>(txn: &'a SlotTxn, draft: &Claim, claims: impl Iterator<Item = &'a Claim>, matches: impl Fn(&Claim) -> bool) -> Option<&'a Claim> {
    let (from, to) = (draft.effective_from(), draft.valid_to.unwrap_or(Timestamp(i64::MAX)));
    let history: Vec<(&Claim, (Timestamp, Timestamp))> = claims
        .filter(|c| c.status == Status::Superseded && c.kind.is_value() && !c.object.is_empty() && matches(c))
        .map(|c| (c, txn.slot.validity(c)))
        .filter(|(_, (hf, ht))| hf < ht && *hf < to && from < *ht)
        .collect();
    let covering = history.iter().find(|(_, (hf, _))| *hf <= from);
    covering.or_else(|| history.iter().min_by_key(|(_, (hf, _))| *hf)).map(|(c, _)| *c)
}

/// A retracted claim of the draft's value whose validity overlaps the draft's period.
fn retracted_overlap<'a>(txn: &'a SlotTxn, draft: &Claim) -> Option<&'a Claim> {
    let (from, to) = (draft.effective_from(), draft.valid_to.unwrap_or(Timestamp(i64::MAX)));
    of_value(txn, draft).find(|c| {
        c.status == Status::Retracted && same_value(c, draft) && {
            let (rf, rt) = txn.slot.validity(c);
            rf < to && from < rt
        }
    })
}

/// The slot's past bears on this draft: a history claim of its value (which
/// a confirmation would meet — as `corroborated` does) or a retraction of
/// its value overlaps its period.
pub fn meets_past(txn: &SlotTxn, draft: &Claim) -> bool {
    value_history_covering(txn, draft, |_| true).is_some() || retracted_overlap(txn, draft).is_some()
}

/// Moves the draft's start past every retracted claim of its value it
/// overlaps; `Some(retracted claim id)` when nothing of its period remains.
pub fn after_retractions(txn: &SlotTxn, draft: &mut Claim) -> Option<String> {
    // Each step moves the start strictly later, past one retracted claim.
    for _ in 0..=txn.slot.claims.len() {
        let retracted = retracted_overlap(txn, draft)?;
        let (_, end) = txn.slot.validity(retracted);
        if draft.valid_to.is_some_and(|to| to <= end) {
            return Some(retracted.id.clone());
        }
        draft.valid_from = Some(end);
    }
    None
}

/// Another claim of the draft's value (neither retracted, which
/// `after_retractions` handles, nor retired, nor erased) whose period overlaps the draft's.
fn its_value_overlap<'a>(txn: &'a SlotTxn, draft: &Claim) -> Option<&'a Claim> {
    let (from, to) = (draft.effective_from(), draft.valid_to.unwrap_or(Timestamp(i64::MAX)));
    of_value(txn, draft).find(|c| {
        c.id != draft.id && !matches!(c.status, Status::Retracted | Status::Retired) && !c.object.is_empty() && same_value(c, draft) && {
            let (cf, ct) = txn.slot.validity(c);
            cf < ct && cf < to && from < ct
        }
    })
}

/// Moves the draft's start past every other claim of its value it overlaps
/// (a refinement carrying its general claim's start back over history of the
/// refined value: wide model seed 1648511668); `false` when nothing of its
/// period remains clear of them.
pub fn after_its_value(txn: &SlotTxn, draft: &mut Claim) -> bool {
    // Each step moves the start strictly later, past one claim.
    for _ in 0..=txn.slot.claims.len() {
        let Some(other) = its_value_overlap(txn, draft) else { return true };
        let (_, end) = txn.slot.validity(other);
        if end == Timestamp(i64::MAX) || draft.valid_to.is_some_and(|to| to <= end) {
            return false;
        }
        draft.valid_from = Some(end);
    }
    its_value_overlap(txn, draft).is_none()
}

/// Records the draft's observations on a retracted claim of its value without
/// reviving it: a person's retraction is never overridden by evidence.
pub fn corroborate_retracted(txn: &mut SlotTxn, retracted_id: &str, draft: Claim) -> Applied {
    let before = txn.claim(retracted_id).map(|c| c.confidence).unwrap_or(0.0);
    let (obs, stated) = (draft.provenance, draft.stated_confidence);
    txn.update_claim(retracted_id, |c| {
        // The period the retraction covers stays as it was: earlier
        // observations never stretch its start back over another claim of the value.
        let start = c.effective_from();
        c.provenance.extend(obs);
        c.stated_confidence = c.stated_confidence.max(stated);
        if c.effective_from() < start {
            c.valid_from = Some(start);
        }
    });
    txn.log_change("confirm_retracted", &[retracted_id], Some((before, before)), None,
        format!("{:?} is stated for a period a person retracted it for: recorded as history, it stays retracted", draft.object));
    Applied::stored(Action::Historical, Some(Relation::Confirm), retracted_id.to_string(), Vec::new())
}
