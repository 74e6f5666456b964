//! Reports that arrive out of valid-time order (SPEC §3: the timeline reads
//! the same whatever order the reports came in). Two cases the relations
//! alone would settle by arrival: a report of a claim's value stated to start
//! before the claim (`earlier_start`), and a newer value that begins between
//! two reports of the current claim's value (`split_between_reports`). Measured on
//! Wikidata's temporal statements (RELIABILITY.md): 2.9% of as-of reads wrong
//! in shuffled order before, 0.04% after.

use super::align::align;
use super::beliefs::{posterior, set_beliefs_from, set_history_belief};
use super::confirm::confirm;
use super::{refines, same_value};
use crate::belief::observation_quality;
use crate::model::{Action, Claim, Provenance, Relation, Status};
use crate::time::Timestamp;
use crate::txn::SlotTxn;

use super::ctx::{Applied, WriteCtx};

/// What a report of a claim's value means when it states an earlier start
/// than the claim's (time-varying, single-valued; the claim current or
/// history), so the timeline reads as if the reports had come in order.
pub enum EarlierStart {
    /// The claim's start stands (nothing earlier was stated, or the period
    /// between holds what a move could not tidily end).
    Stands,
    /// Nothing else held between the two starts: the claim begins at the
    /// report's, and history its old start ended now ends there.
    MovesBack,
    /// Another value began between the two starts: the report is history of
    /// its own period (X since 2016, Y since 2010, then X since 2001: X, Y, X).
    Separate,
}

pub fn earlier_start(txn: &SlotTxn, ctx: &WriteCtx, existing: &Claim, draft: &Claim) -> EarlierStart {
    if !(ctx.spec.time_varying || ctx.spec.is_multi()) || !(existing.status.is_current() || existing.status == Status::Superseded) {
        return EarlierStart::Stands;
    }
    // A report without a stated start holds from when it was observed: before
    // a scheduled claim of its value begins, the value holds from then.
    let (mine, Some(theirs)) = (draft.effective_from(), existing.valid_from) else { return EarlierStart::Stands };
    if mine >= theirs {
        return EarlierStart::Stands;
    }
    let between = |c: &Claim| {
        let (from, to) = txn.slot.validity(c);
        from < theirs && mine < to
    };
    // Never over another claim of the value (a retracted one says it did not hold then).
    let value_between = txn.slot.claims.iter().any(|c| c.id != existing.id && (same_value(c, draft) || same_value(c, existing)) && between(c));
    if ctx.spec.is_multi() {
        // Values coexist: only the value's own claims bound the move.
        return if value_between || existing.status == Status::Superseded { EarlierStart::Stands } else { EarlierStart::MovesBack };
    }
    // Values only: a free-text entry sharing the slot is no value of its timeline (SPEC §5).
    let other = |c: &Claim| c.kind.is_value() && c.id != existing.id && !same_value(c, draft) && !same_value(c, existing) && (c.status.is_live() || c.status == Status::Superseded);
    let others: Vec<&Claim> = txn.slot.claims.iter().map(|c| &**c).filter(|c| other(c)).collect();
    if others.iter().any(|c| c.effective_from() > mine && c.effective_from() < theirs) {
        // History of its own only where the draft will be history: a current claim starts after it, and no
        // live claim is a general form the draft would refine instead.
        let later_current = txn.slot.claims.iter().any(|c| c.kind.is_value() && c.status.is_current() && c.effective_from() > mine);
        let refining = txn.slot.claims.iter().any(|c| c.kind.is_value() && c.status.is_live() && refines(c, draft));
        return if later_current && !refining { EarlierStart::Separate } else { EarlierStart::Stands };
    }
    // Inside history of another value that was stated again after the report's start: that history
    // splits around the report, which is history of its own period (`historical`).
    if others.iter().any(|c| splits_at(c, mine).is_some()) {
        let later_current = txn.slot.claims.iter().any(|c| c.kind.is_value() && c.status.is_current() && c.effective_from() > mine);
        let refining = txn.slot.claims.iter().any(|c| c.kind.is_value() && c.status.is_live() && refines(c, draft));
        if later_current && !refining {
            return EarlierStart::Separate;
        }
    }
    if value_between {
        return EarlierStart::Stands;
    }
    // Moving back may only end history the claim itself ended, where that history began before the report
    // and was not reported after it (its later reports say it still held then).
    let reported_after = |c: &Claim| c.provenance.iter().any(|p| reported_from(p).is_some_and(|t| t > mine));
    let tidy = others.iter().filter(|c| between(c)).all(|c| {
        c.status == Status::Superseded && c.superseded_by.as_deref() == Some(existing.id.as_str()) && c.effective_from() < mine && !reported_after(c)
    });
    if tidy { EarlierStart::MovesBack } else { EarlierStart::Stands }
}

/// Confirms `existing`, moving its start back first when `earlier_start` says so.
pub fn confirm_at(txn: &mut SlotTxn, ctx: &WriteCtx, existing: &Claim, draft: Claim, how: EarlierStart) -> Applied {
    let EarlierStart::MovesBack = how else { return confirm(txn, ctx, existing, draft) };
    let from = draft.effective_from();
    let ended: Vec<String> = txn
        .slot
        .claims
        .iter()
        .filter(|c| c.status == Status::Superseded && c.superseded_by.as_deref() == Some(existing.id.as_str()) && !same_value(c, &draft))
        .filter(|c| txn.slot.validity(c).1 > from)
        .map(|c| c.id.clone())
        .collect();
    for id in &ended {
        txn.update_claim(id, |c| c.end_as_history(&existing.id, Some(from)));
    }
    txn.update_claim(&existing.id, |c| c.valid_from = Some(from));
    txn.log_change("extend", &[&existing.id], None, None, format!("{:?} reported from {}: the claim begins there", existing.object, from.to_iso()));
    let moved = txn.claim(&existing.id).cloned().unwrap_or_else(|| existing.clone());
    confirm(txn, ctx, &moved, draft)
}

/// A newer value that begins between two reports of the current claim's
/// value (X since 2001 and X since 2016 in one claim; then Y since 2010) is
/// history between them: the claim keeps the reports made after the draft's
/// start and begins at the first of them; those from before go to a history
/// copy of the value (a new claim) that the draft ends; the draft ends where
/// the value was reported again. The timeline the reports would have given
/// had they come in order: X, Y, X. Returns when the value was reported
/// again; `None` when it was not reported after the draft's start, or by a
/// better source than the draft's (a weak guess of a change in between is
/// outweighed, as a newer value would be), or a start is not stated, or the
/// claim carries what a split could not divide (archived observations,
/// conflicts, a stated end).
pub fn reported_again_after(txn: &SlotTxn, current: &Claim, draft: &Claim) -> Option<Timestamp> {
    // Stated starts on both sides: a split of a claim whose start is only its first observation would cut
    // history it never stated.
    let (Some(start), Some(_)) = (current.valid_from, draft.valid_from) else { return None };
    if current.status != Status::Active || current.archived_observations > 0 || !current.conflict_ids.is_empty() || current.valid_to.is_some() {
        return None;
    }
    let from = draft.effective_from();
    let times: Vec<Option<Timestamp>> = current.provenance.iter().map(reported_from).collect();
    // Most newer values come after every report of the current one: nothing to split (checked first, this
    // runs on every newer value).
    let again = times.iter().flatten().filter(|t| **t > from).min().copied()?;
    // Only a clean timeline splits: every report of the claim inside its period (a merged entry carries the
    // observations of what it replaced)...
    if times.iter().any(|t| t.is_none_or(|t| t < start)) {
        return None;
    }
    // ...some report before the draft's start, and none after it from a better source than the draft's (a
    // weak guess of a change in between is outweighed, as a newer value would be)...
    let draft_quality = draft.provenance.iter().map(observation_quality).fold(0.0, f64::max);
    let later = |t: &Option<Timestamp>| t.is_some_and(|t| t > from);
    let reports = current.provenance.iter().zip(&times);
    if !times.iter().any(|t| !later(t)) || reports.filter(|(_, t)| later(t)).any(|(p, _)| observation_quality(p) > draft_quality) {
        return None;
    }
    // ...and nothing else in the slot holding during the part that becomes history.
    let occupied = txn.slot.claims.iter().any(|c| {
        let (f, t) = txn.slot.validity(c);
        c.id != current.id && f < from && start < t
    });
    (!occupied).then_some(again)
}

/// Splits the current claim around the draft (in the room
/// `reported_again_after` found): its reports from before the draft's start
/// become a history claim of their own, the draft is history until `again`
/// (when the current claim's value was reported again), and the current
/// claim holds from then.
pub fn split_between_reports(txn: &mut SlotTxn, ctx: &WriteCtx, mut draft: Claim, current: &Claim, again: Timestamp) -> Applied {
    let from = draft.effective_from();
    let (later, earlier): (Vec<Provenance>, Vec<Provenance>) = current.provenance.iter().cloned().partition(|p| reported_from(p).is_some_and(|t| t > from));
    let id = draft.id.clone();
    let mut early = current.clone();
    early.id = txn.new_id("cl");
    early.provenance = earlier.into();
    early.status = Status::Superseded;
    early.valid_to = Some(from);
    early.superseded_by = Some(id.clone());
    let early_id = early.id.clone();
    // History the claim followed is followed by its early part now (by link, or by the
    // period it ended at: history recorded later names the claim that was current then).
    // So is history it replaced that held for no time (recorded after the claim's start):
    // still naming the claim, it would hold until the claim's new, later start (seed 730691).
    let ended_before = |c: &Claim| {
        let (f, t) = txn.slot.validity(c);
        t <= from || f >= t
    };
    let before: Vec<String> = txn
        .slot
        .claims
        .iter()
        .filter(|c| current.supersedes.as_deref() == Some(c.id.as_str()) || (c.superseded_by.as_deref() == Some(current.id.as_str()) && ended_before(c)))
        .map(|c| c.id.clone())
        .collect();
    for b in &before {
        txn.update_claim(b, |c| c.superseded_by = Some(early_id.clone()));
    }
    txn.update_claim(&current.id, |c| {
        c.provenance = later.into();
        c.valid_from = Some(again);
        c.supersedes = Some(id.clone());
    });
    // A draft whose stated end comes first ends as stated, with no successor
    // to revert (as `historical` keeps it): stretched to `again`, it could
    // overlap a later claim of its value (wide model seed 960000027).
    let ended_as_stated = draft.valid_to.filter(|to| *to <= again);
    if ended_as_stated.is_some() {
        draft.status = Status::Superseded;
    } else {
        draft.end_as_history(&current.id, Some(again));
    }
    draft.supersedes = Some(early_id.clone());
    let object = draft.object.clone();
    txn.add_claim(early);
    txn.add_claim(draft);
    txn.log_change("split", &[&current.id, &early_id], None, None,
        format!("{:?} was reported again from {}: its reports from before {} are history of their own", current.object, again.to_iso(), from.to_iso()));
    let until = match ended_as_stated {
        Some(to) => format!("until {} as stated ({:?} was reported again at {})", to.to_iso(), current.object, again.to_iso()),
        None => format!("until {:?} was reported again at {}", current.object, again.to_iso()),
    };
    txn.log_change("historical", &[&id], None, None, format!("{object:?} holds from {} {until}: recorded as history", from.to_iso()));
    set_history_belief(txn, ctx, &early_id);
    set_history_belief(txn, ctx, &id);
    let post = posterior(txn, ctx, None, None);
    set_beliefs_from(txn, &post);
    let mut affected = vec![current.id.clone(), early_id];
    affected.extend(align(txn, ctx, &post));
    crate::sort::sort(&mut affected);
    affected.dedup();
    Applied::stored(Action::Historical, Some(Relation::Supersede), id, affected)
}

/// When a report said its value held: the start it stated, else when it was observed.
fn reported_from(p: &Provenance) -> Option<Timestamp> {
    p.stated().or_else(|| p.observed())
}

/// Where history `h` of another value splits around a report starting at
/// `at`: some of its reports stated a start after `at` (X from 2001 and from
/// 2003 in one claim, then Y from 2002), so it held again from the first of
/// them — the timeline the reports would have given in order: X, Y, X.
/// `None` when nothing of it was stated after `at`, or before it, or it
/// carries what a split could not divide (archived observations, conflicts).
pub fn splits_at(h: &Claim, at: Timestamp) -> Option<Timestamp> {
    if h.status != Status::Superseded || h.archived_observations > 0 || !h.conflict_ids.is_empty() {
        return None;
    }
    let (Some(from), Some(to)) = (h.valid_from, h.valid_to) else { return None };
    if !(from < at && at < to) {
        return None;
    }
    let starts: Vec<Option<Timestamp>> = h.provenance.iter().map(Provenance::stated).collect();
    let again = starts.iter().flatten().filter(|s| **s > at && **s < to).min().copied()?;
    starts.iter().any(|s| s.is_none_or(|s| s <= at)).then_some(again)
}

/// The split `splits_at` found: `h` keeps its reports up to `at`; those stated
/// after it go to a copy that holds from `again` to `h`'s end (and is followed
/// by what followed `h`). Returns the copy's id; the caller ends `h` at `at`.
pub fn split_history(txn: &mut SlotTxn, ctx: &WriteCtx, h: &Claim, at: Timestamp, again: Timestamp) -> String {
    let (late_reports, early_reports): (Vec<Provenance>, Vec<Provenance>) = h.provenance.iter().cloned().partition(|p| p.stated().is_some_and(|s| s > at));
    let mut late = h.clone();
    late.id = txn.new_id("cl");
    late.provenance = late_reports.into();
    late.valid_from = Some(again);
    let late_id = late.id.clone();
    if let Some(next) = &h.superseded_by {
        txn.update_claim(next, |c| {
            if c.supersedes.as_deref() == Some(h.id.as_str()) {
                c.supersedes = Some(late_id.clone());
            }
        });
    }
    txn.update_claim(&h.id, |c| c.provenance = early_reports.into());
    txn.add_claim(late);
    txn.log_change("split", &[&h.id, &late_id], None, None,
        format!("{:?} was stated again from {}: its reports from then are history of their own", h.object, again.to_iso()));
    set_history_belief(txn, ctx, &h.id);
    set_history_belief(txn, ctx, &late_id);
    late_id
}
