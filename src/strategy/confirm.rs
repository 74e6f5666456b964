//! The `confirm` relation (SPEC §3): a report of a value the slot already
//! holds corroborates its claim. The claim gains the report's observation
//! (which may move its start back, never over a retraction of its value nor
//! over history of it) and a stated end it lacked; `arrival::confirm_at`
//! decides first how the report's start is read.

use super::align::align_confirmed;
use super::beliefs::{reweigh_with, rivals_posterior, set_history_belief};
use super::ctx::{Applied, WriteCtx};
use super::{held, same_value};
use crate::invariants::overlap;
use crate::model::{Action, Claim, Relation, Status};
use crate::time::Timestamp;
use crate::txn::SlotTxn;

pub(super) fn confirm(txn: &mut SlotTxn, ctx: &WriteCtx, existing: &Claim, draft: Claim) -> Applied {
    let id = existing.id.clone();
    let before = existing.confidence;
    let obs = draft.provenance;
    let stated = draft.stated_confidence;
    let start = existing.effective_from();
    // A report that states when a running value ended tells what the first
    // did not: the claim ends there (as it would had that report come first).
    let ends = draft.valid_to.filter(|end| existing.status.is_current() && existing.valid_to.is_none() && *end > start);
    txn.update_claim(&id, |c| {
        c.provenance.extend(obs);
        c.stated_confidence = c.stated_confidence.max(stated);
        c.valid_to = c.valid_to.or(ends);
    });
    keep_clear_of_retractions(txn, &id);
    keep_clear_of_its_value(txn, &id, start);
    if existing.status == Status::Superseded {
        set_history_belief(txn, ctx, &id);
    }
    let post = rivals_posterior(txn, ctx);
    reweigh_with(txn, ctx, post.as_ref());
    let after = txn.claim(&id).map(|c| c.confidence).unwrap_or(before);
    let period = if existing.status == Status::Superseded { " for the period it already covers" } else { "" };
    let until = ends.map(|end| format!(", and says it ended at {}", end.to_iso())).unwrap_or_default();
    txn.log_change("confirm", &[&id], Some((before, after)), None,
        format!("{:?} corroborates {:?}{period}{until}", draft.object, existing.object));
    let mut affected = post.map(|p| align_confirmed(txn, ctx, &p, &id)).unwrap_or_default();
    affected.retain(|a| a != &id);
    Applied::stored(Action::Confirmed, Some(Relation::Confirm), id, affected)
}

/// A claim without `validFrom` starts at its earliest observation, so evidence
/// observed earlier moves its start back: never into the period a retraction
/// of its value covers (the start is pinned where that retraction ends, as a
/// new claim's would be; otherwise two claims would carry one value at once).
fn keep_clear_of_retractions(txn: &mut SlotTxn, id: &str) {
    let Some(mut probe) = txn.claim(id).filter(|c| c.valid_from.is_none()).map(|c| (*c).clone()) else { return };
    if held::after_retractions(txn, &mut probe).is_none() && probe.valid_from.is_some() {
        let pinned = probe.valid_from;
        txn.update_claim(id, |c| c.valid_from = pinned);
    }
}

/// Likewise never into the period another claim of its value covers (history
/// of the value from before a change): the start stays where it was (model
/// seed 8040: a back-dated confirmation stretched a claim over its own
/// value's history, two claims of one value at once).
fn keep_clear_of_its_value(txn: &mut SlotTxn, id: &str, start: Timestamp) {
    let Some(claim) = txn.claim(id).filter(|c| c.valid_from.is_none() && c.effective_from() < start) else { return };
    let (from, to) = txn.slot.validity(claim);
    let overlaps = txn.slot.claims.iter().any(|o| {
        o.id != id && o.status != Status::Retired && !o.object.is_empty() && same_value(o, claim) && overlap(txn.slot.validity(o), (from, to))
    });
    if overlaps {
        txn.update_claim(id, |c| c.valid_from = Some(start));
    }
}
