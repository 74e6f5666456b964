//! The `reconcile` strategy: the relations of SPEC §3, decided mechanically
//! against the slot's claims, with the forward filter's posterior (§4)
//! deciding between a newer value and the current one, and contradictions.
//! The posterior plumbing lives in `beliefs.rs`, the confirm relation in
//! `confirm.rs`.

use super::align::{align, close_disputes, close_moot_disputes, end_as_stated, flips_back, move_conflicts, pinned, refinement_end, take_the_place_of, EPS};
use super::beliefs::{posterior, reweigh_claims, set_beliefs_from, set_history_belief};
use super::posterior::SlotPosterior;
use super::arrival::{self, EarlierStart};
use super::{evidence_within, held, refines, same_value};
use crate::invariants::overlap;
use crate::model::{Action, Claim, ConflictKind, Relation, Shared, Status};
use crate::time::Timestamp;
use crate::txn::SlotTxn;

use super::ctx::{Applied, WriteCtx};

/// The claims a same-valued draft may corroborate, best first: the history
/// claim whose period covers the draft's time, then the live (or
/// person-retired) claims of that value — the same value before a more
/// specific form of it, active before the rest, oldest first.
fn corroborated<'a>(txn: &'a SlotTxn, ctx: &WriteCtx, draft: &Claim) -> Vec<&'a Claim> {
    // Values are corroborated by values only: a free-text entry of the same
    // text is not one (SPEC §5). Only the same value: a less specific form is
    // a report of its own value, which supports the more specific one only
    // discounted (SPEC §3 refine).
    let matches = |c: &Claim| c.kind.is_entry() == draft.kind.is_entry() && same_value(c, draft);
    let mut out: Vec<&Claim> = held::value_history_covering(txn, draft, matches).into_iter().collect();
    // Where valid time tells periods apart, a report of a period the claim
    // does not reach is another period of the value, not a confirmation: one
    // that ended as stated before the report begins (the report would vanish
    // from a read of now), or one stated to end before a claim begins (its end
    // would cut that claim short).
    let periods_apart = |c: &Claim| {
        let draft_period = (draft.effective_from(), draft.valid_to.unwrap_or(Timestamp(i64::MAX)));
        (ctx.spec.time_varying || ctx.spec.is_multi()) && !overlap(txn.slot.validity(c), draft_period)
    };
    let mut held: Vec<&Claim> = txn
        .slot
        .value_candidates(draft)
        .into_iter()
        .map(|i| &*txn.slot.claims[i])
        .filter(|c| c.status.is_live() || (c.status == Status::Retired && pinned(txn, &c.id)))
        .filter(|c| matches(c) && !periods_apart(c))
        .collect();
    crate::sort::sort_by(&mut held, |a, b| {
        let rank = |c: &Claim| (!same_value(c, draft), c.status != Status::Active, c.recorded_at);
        rank(a).cmp(&rank(b))
    });
    out.extend(held);
    out
}

/// The claim the draft corroborates and how its start is read: the first
/// candidate for which the draft does not state an earlier period of its own
/// (`arrival::earlier_start`). Seed 720231: "Oslo" from 2025-06 beside an
/// active "oslo" from 2025-03 and an active "Oslo, Norway" from 2026 was
/// judged against the latter only, and stored as history over "oslo".
fn to_confirm(txn: &SlotTxn, ctx: &WriteCtx, draft: &Claim) -> Option<(Claim, EarlierStart)> {
    corroborated(txn, ctx, draft).into_iter().find_map(|existing| match arrival::earlier_start(txn, ctx, existing, draft) {
        EarlierStart::Separate => None,
        how => Some((existing.clone(), how)),
    })
}

pub fn apply_reconcile(txn: &mut SlotTxn, ctx: &WriteCtx, mut draft: Claim) -> Applied {
    // confirm: the same value, or a less specific form of a value already held.
    if let Some((existing, how)) = to_confirm(txn, ctx, &draft) {
        return arrival::confirm_at(txn, ctx, &existing, draft, how);
    }
    // A retracted value holds again only after its retraction; a draft moved
    // past one may now meet history of its value.
    let stated_from = draft.valid_from;
    if let Some(retracted) = held::after_retractions(txn, &mut draft) {
        return held::corroborate_retracted(txn, &retracted, draft);
    }
    if draft.valid_from != stated_from {
        if let Some((existing, how)) = to_confirm(txn, ctx, &draft) {
            return arrival::confirm_at(txn, ctx, &existing, draft, how);
        }
    }
    // The general forms the draft may refine, found by their tokens (the first in slot order).
    let general = txn.slot.general_candidates(&draft).into_iter().map(|i| txn.slot.claims[i].clone()).find(|c| {
        c.status.is_live() && c.kind.is_entry() == draft.kind.is_entry() && c.status.is_current() && refines(c, &draft)
    });
    if let Some(general) = general {
        return refine(txn, ctx, &general, draft);
    }
    // Free-text entries sharing the slot are no rivals of a value (SPEC §5): they stay as they are.
    let rival = |c: &Claim| c.status.is_live() && c.kind.is_entry() == draft.kind.is_entry();
    if ctx.spec.is_multi() {
        // Counted per chunk (a scan of 10,000 values per write was most of its cost).
        let others = txn.slot.claims.count_flagged();
        let id = draft.id.clone();
        txn.add_claim(draft);
        reweigh_claims(txn, ctx);
        let after = txn.claim(&id).map(|c| c.confidence).unwrap_or(0.0);
        txn.log_change("independent", &[&id], Some((0.0, after)), None,
            format!("{} is multi-valued: the new value coexists with {others} current values", ctx.spec.name));
        return Applied::stored(Action::Added, Some(Relation::Independent), id, vec![]);
    }
    // Shared copies: the txn changes the slot's claims while these are read.
    let live: Vec<Shared<Claim>> = txn.slot.claims.iter().filter(|c| rival(c)).cloned().collect();
    let current: Vec<&Claim> = live.iter().map(|c| &**c).filter(|c| c.status.is_current()).collect();
    // Current claims whose stated validTo ended them all by the draft's start
    // are no rivals: nothing held then, so the draft follows without a contest.
    // (Beside a claim still running, they are superseded with it, as before.)
    let from = draft.effective_from();
    if ctx.spec.time_varying && !current.is_empty() && current.iter().all(|c| c.valid_to.is_some_and(|end| end <= from)) {
        return after_expiry(txn, ctx, draft, &current);
    }
    if current.is_empty() {
        let id = draft.id.clone();
        txn.add_claim(draft);
        let post = posterior(txn, ctx, None, None);
        set_beliefs_from(txn, &post);
        let affected = align(txn, ctx, &post);
        let after = txn.claim(&id).map(|c| c.confidence).unwrap_or(0.0);
        txn.log_change("add", &[&id], Some((0.0, after)), None, "no current claim in the slot".into());
        return Applied::stored(Action::Added, None, id, affected);
    }
    if ctx.spec.time_varying {
        let from = draft.effective_from();
        let latest = current.iter().map(|c| c.effective_from()).max().unwrap_or(from);
        // Reports of one instant are weighed together (SPEC §3): a same-instant
        // rival is a contradiction the posterior decides, never "last writer
        // wins". Writes that stated no time at all are the exception: their
        // time is when they were written, so a later write is a later report
        // even within one millisecond (a frozen test clock, two awaits in a row).
        let at_write = |c: &Claim| c.valid_from.is_none() && c.provenance.iter().all(|p| p.at_write);
        let written_after = from == latest && at_write(&draft) && current.iter().all(|c| at_write(c));
        if from > latest || written_after {
            if let [only] = current.as_slice() {
                if let Some(again) = arrival::reported_again_after(txn, only, &draft) {
                    return arrival::split_between_reports(txn, ctx, draft, only, again);
                }
            }
            return newer_value(txn, ctx, draft, &current);
        }
        if from < latest {
            return historical(txn, ctx, draft);
        }
    }
    contradict(txn, ctx, draft, &current)
}

/// A more specific form of a current value is a hypothesis of its own (SPEC
/// §3): reports of the general form support it only discounted, so it takes
/// the general claim's place only when its own evidence carries it to at
/// least the general one's belief; otherwise it is kept, outweighed, until
/// later evidence lifts it (`align`). When it takes the place, any open or
/// settled conflict about the general claim moves to it (a person's
/// keep_both or keep decision keeps holding for the same value).
fn refine(txn: &mut SlotTxn, ctx: &WriteCtx, general: &Claim, mut draft: Claim) -> Applied {
    let gid = general.id.clone();
    let post = posterior(txn, ctx, Some(&draft), None);
    let mine = post.log_odds(&draft.id).unwrap_or(f64::MIN);
    let theirs = post.log_odds(&gid).unwrap_or(f64::MIN);
    if mine + EPS < theirs || pinned(txn, &gid) {
        let id = draft.id.clone();
        draft.status = Status::Outweighed;
        txn.add_claim(draft);
        set_beliefs_from(txn, &post);
        let (object, after) = txn.claim(&id).map(|c| (c.object.clone(), c.confidence)).unwrap_or_default();
        txn.log_change("outweighed", &[&id, &gid], Some((0.0, after)), None,
            format!("{object:?} is a more specific form of {:?} but less believed ({mine:.2} vs {theirs:.2} log-odds): kept inactive until its own evidence carries it", general.object));
        let affected = align(txn, ctx, &post);
        return Applied::stored(Action::Outweighed, Some(Relation::Refine), id, affected);
    }
    // It holds from the general claim's start when it states none: the same
    // value, said more precisely. Never over a retraction of its value nor
    // over history of it: then it keeps its own start.
    let own_from = draft.valid_from;
    draft.valid_from = draft.valid_from.or(general.valid_from);
    if let Some(retracted) = held::after_retractions(txn, &mut draft) {
        return held::corroborate_retracted(txn, &retracted, draft);
    }
    let carried_from = draft.valid_from;
    if !held::after_its_value(txn, &mut draft) {
        draft.valid_from = own_from;
    } else if draft.valid_from != carried_from {
        if let Some(retracted) = held::after_retractions(txn, &mut draft) {
            return held::corroborate_retracted(txn, &retracted, draft);
        }
    }
    draft.valid_to = refinement_end(general, &draft);
    draft.status = general.status;
    draft.kind = general.kind;
    draft.supersedes = Some(gid.clone());
    let new_id = draft.id.clone();
    txn.add_claim(draft);
    take_the_place_of(txn, &gid, &new_id);
    reweigh_claims(txn, ctx);
    let after = txn.claim(&new_id).map(|c| c.confidence).unwrap_or(0.0);
    let object = txn.claim(&new_id).map(|c| c.object.clone()).unwrap_or_default();
    // Logged before the conflicts move: the first entry naming the refined
    // claim says what it is (a refinement carries on its claim's kind).
    txn.log_change("refine", &[&new_id, &gid], Some((general.confidence, after)), None,
        format!("{object:?} is a more specific form of {:?} and at least as well believed ({mine:.2} vs {theirs:.2} log-odds): it takes its place", general.object));
    move_conflicts(txn, &gid, &new_id);
    let affected = align(txn, ctx, &post);
    let mut affected: Vec<String> = std::iter::once(gid).chain(affected).filter(|a| a != &new_id).collect();
    crate::sort::sort(&mut affected);
    affected.dedup();
    Applied::stored(Action::Refined, Some(Relation::Refine), new_id, affected)
}

/// A different value with a newer valid time: it supersedes the current claim
/// when its belief reaches the current one's, is outweighed when it falls more
/// than `disputeMargin` short, and is disputed in between.
fn newer_value(txn: &mut SlotTxn, ctx: &WriteCtx, mut draft: Claim, current: &[&Claim]) -> Applied {
    let post = posterior(txn, ctx, Some(&draft), None);
    let mine = post.log_odds(&draft.id).unwrap_or(f64::MIN);
    let Some((rival, theirs)) = strongest(&post, current) else { return Applied::skipped(draft.id) };
    let id = draft.id.clone();
    let margin = ctx.settings.dispute_margin;
    let relation = general_form_of(&draft, current).unwrap_or(Relation::Supersede);
    // A value coming back after its successor began supersedes only when
    // ahead by more than the margin (SPEC §3): persistent disagreement is a
    // dispute, not a sawtooth. So does one reported at the same instant as a
    // current value: the two reports are weighed together, as they are when
    // written the other way round (then the second is a contradiction).
    let needed = if flips_back(txn, &draft) || reported_at_its_instant(&draft, current) { margin } else { -EPS };
    if mine < theirs - margin {
        draft.status = Status::Outweighed;
        txn.add_claim(draft);
        set_beliefs_from(txn, &post);
        let after = txn.claim(&id).map(|c| c.confidence).unwrap_or(0.0);
        txn.log_change("outweighed", &[&id, &rival.id], Some((0.0, after)), None,
            format!("newer but less believed ({mine:.2} vs {theirs:.2} log-odds) than the current claim {:?}: kept inactive", rival.object));
        let affected = align(txn, ctx, &post);
        return Applied::stored(Action::Outweighed, Some(relation), id, affected);
    }
    if mine <= theirs + needed {
        return dispute(txn, &post, draft, current, relation, (mine, theirs));
    }
    let from = draft.effective_from();
    draft.supersedes = current.first().map(|c| c.id.clone());
    txn.add_claim(draft);
    let mut affected = Vec::new();
    for old in current {
        txn.update_claim(&old.id, |c| c.end_as_history(&id, Some(from)));
        close_disputes(txn, &old.id, "superseded by a newer claim");
        let object = txn.claim(&id).map(|c| c.object.clone()).unwrap_or_default();
        txn.log_change("supersede", &[&old.id, &id], None, None,
            format!("{object:?} replaces {:?} from {} ({mine:.2} vs {theirs:.2} log-odds): the world changed, the old claim is history", old.object, from.to_iso()));
        affected.push(old.id.clone());
    }
    set_beliefs_from(txn, &post);
    affected.extend(align(txn, ctx, &post));
    Applied::stored(Action::Superseded, Some(relation), id, affected)
}

/// Whether a current claim holds a report that is evidence at the draft's
/// own instant (a write that stated no time is later than any before it).
fn reported_at_its_instant(draft: &Claim, current: &[&Claim]) -> bool {
    let Some(mine) = draft.provenance.first().filter(|p| !p.at_write) else { return false };
    let at = evidence_within(mine, draft, || draft.effective_from());
    current.iter().any(|c| {
        let begins = c.effective_from();
        c.provenance.iter().any(|p| !p.at_write && evidence_within(p, c, || begins) == at)
    })
}

/// The draft begins once the current claims' stated ends have passed: it is
/// added as current with no contest, and they become history as stated
/// (`end_as_stated`), so no claim of theirs stays current for a refinement to
/// meet (wide model seed 8018).
fn after_expiry(txn: &mut SlotTxn, ctx: &WriteCtx, draft: Claim, ended: &[&Claim]) -> Applied {
    let id = draft.id.clone();
    txn.add_claim(draft);
    let mut affected = Vec::new();
    for old in ended {
        end_as_stated(txn, &old.id, &id);
        affected.push(old.id.clone());
    }
    let post = posterior(txn, ctx, None, None);
    set_beliefs_from(txn, &post);
    affected.extend(align(txn, ctx, &post));
    crate::sort::sort(&mut affected);
    affected.dedup();
    let after = txn.claim(&id).map(|c| c.confidence).unwrap_or(0.0);
    txn.log_change("add", &[&id], Some((0.0, after)), None, "the current claims had ended as stated before it begins".into());
    Applied::stored(Action::Added, None, id, affected)
}

/// `Refine` when the draft is a less specific form of a current value: a
/// report of its own value that supports that one only discounted (SPEC §3).
fn general_form_of(draft: &Claim, current: &[&Claim]) -> Option<Relation> {
    current.iter().any(|c| refines(draft, c)).then_some(Relation::Refine)
}

fn strongest<'a>(post: &SlotPosterior, current: &[&'a Claim]) -> Option<(&'a Claim, f64)> {
    current
        .iter()
        .map(|c| (*c, post.log_odds(&c.id).unwrap_or(f64::MIN)))
        .max_by(|a, b| a.1.total_cmp(&b.1))
}

/// Both sides disputed, a `dispute` conflict per current claim.
fn dispute(txn: &mut SlotTxn, post: &SlotPosterior, mut draft: Claim, current: &[&Claim], relation: Relation, (mine, theirs): (f64, f64)) -> Applied {
    let id = draft.id.clone();
    draft.status = Status::Disputed;
    txn.add_claim(draft);
    let object = txn.claim(&id).map(|d| d.object.clone()).unwrap_or_default();
    let mut conflicts = Vec::new();
    for c in current {
        txn.update_claim(&c.id, |c| c.status = Status::Disputed);
        let reason = format!("{:?} and {object:?} contradict with belief too close to call ({theirs:.2} vs {mine:.2} log-odds)", c.object);
        conflicts.extend(txn.open_conflict(ConflictKind::Dispute, &c.id, &id, reason));
    }
    set_beliefs_from(txn, post);
    let mut applied = Applied::stored(Action::Disputed, Some(relation), id, current.iter().map(|c| c.id.clone()).collect());
    applied.conflicts = conflicts;
    applied
}

fn historical(txn: &mut SlotTxn, ctx: &WriteCtx, mut draft: Claim) -> Applied {
    let from = draft.effective_from();
    // History of another value stated again after this start splits around it (its later part follows).
    let splitting: Vec<(Claim, Timestamp)> = txn
        .slot
        .claims
        .iter()
        .filter(|c| c.kind.is_value() && !same_value(c, &draft))
        .filter_map(|c| arrival::splits_at(c, from).map(|again| (Claim::clone(c), again)))
        .collect();
    let mut late_parts = Vec::new();
    for (h, again) in &splitting {
        late_parts.push(arrival::split_history(txn, ctx, h, from, *again));
    }
    let next = txn
        .slot
        .claims
        .iter()
        .filter(|c| c.kind.is_value() && c.status != Status::Retired && c.effective_from() > from)
        .min_by_key(|c| c.effective_from())
        .map(|c| (c.id.clone(), c.effective_from()));
    draft.status = Status::Superseded;
    if let Some((next_id, next_from)) = &next {
        // History ends where the next claim begins, even when its stated
        // `validTo` reaches further: it never overlaps what follows it. One
        // that ends as stated by then has no successor to revert: later
        // evidence for it never undoes an end someone stated.
        let ended_as_stated = draft.valid_to.is_some_and(|to| to <= *next_from);
        draft.valid_to = Some(draft.valid_to.map_or(*next_from, |to| to.min(*next_from)));
        if !ended_as_stated {
            draft.superseded_by = Some(next_id.clone());
        }
    }
    // History already covering this start (recorded before this earlier
    // report arrived) ends where it begins: a timeline without overlaps. A
    // claim a refinement replaced (no `validTo`) is not history of a period.
    let covering: Vec<String> = txn
        .slot
        .claims
        .iter()
        .filter(|c| c.kind.is_value() && c.status == Status::Superseded && c.effective_from() < from && c.valid_to.is_some_and(|end| end > from) && !same_value(c, &draft))
        .map(|c| c.id.clone())
        .collect();
    let id = draft.id.clone();
    let object = draft.object.clone();
    txn.add_claim(draft);
    txn.log_change("historical", &[&id], None, None,
        format!("{object:?} holds from {}, before the current claim: recorded as history", from.to_iso()));
    for earlier in &covering {
        txn.update_claim(earlier, |c| c.end_as_history(&id, Some(from)));
        txn.log_change("supersede", &[earlier, &id], None, None,
            format!("{object:?} held from {}: this earlier history ends there", from.to_iso()));
    }
    for late in &late_parts {
        txn.update_claim(late, |c| c.supersedes = Some(id.clone()));
    }
    set_history_belief(txn, ctx, &id);
    let post = posterior(txn, ctx, None, None);
    set_beliefs_from(txn, &post);
    let mut affected = covering;
    affected.extend(late_parts);
    affected.extend(align(txn, ctx, &post));
    crate::sort::sort(&mut affected);
    affected.dedup();
    Applied::stored(Action::Historical, Some(Relation::Supersede), id, affected)
}

fn contradict(txn: &mut SlotTxn, ctx: &WriteCtx, mut draft: Claim, current: &[&Claim]) -> Applied {
    let post = posterior(txn, ctx, Some(&draft), None);
    let mine = post.log_odds(&draft.id).unwrap_or(f64::MIN);
    let Some((rival, theirs)) = strongest(&post, current) else { return Applied::skipped(draft.id) };
    let id = draft.id.clone();
    let relation = general_form_of(&draft, current).unwrap_or(Relation::Contradict);
    if current.iter().any(|c| pinned(txn, &c.id)) {
        // A person chose the current value(s): evidence alone never overturns
        // them. The newcomer is disputed against every current claim, so a
        // later keep_both with one of them never leaves it unasked beside another.
        draft.status = Status::Outweighed;
        txn.add_claim(draft);
        set_beliefs_from(txn, &post);
        let object = txn.claim(&id).map(|c| c.object.clone()).unwrap_or_default();
        let mut conflicts = Vec::new();
        for kept in current {
            let reason = format!("{object:?} contradicts {:?}, which a person kept when settling a conflict", kept.object);
            conflicts.extend(txn.open_conflict(ConflictKind::Dispute, &kept.id, &id, reason));
        }
        let mut applied = Applied::stored(Action::Outweighed, Some(relation), id, vec![]);
        applied.conflicts = conflicts;
        return applied;
    }
    if (mine - theirs).abs() <= ctx.settings.dispute_margin {
        return dispute(txn, &post, draft, current, relation, (mine, theirs));
    }
    if mine > theirs {
        txn.add_claim(draft);
        let mut affected = Vec::new();
        for c in current {
            txn.update_claim(&c.id, |c| c.status = Status::Outweighed);
            txn.log_change("contradiction_lost", &[&c.id, &id], None, None,
                format!("{:?} is contradicted by a better-believed value ({mine:.2} vs {theirs:.2} log-odds)", c.object));
            affected.push(c.id.clone());
        }
        close_moot_disputes(txn);
        set_beliefs_from(txn, &post);
        affected.extend(align(txn, ctx, &post));
        return Applied::stored(Action::Added, Some(relation), id, affected);
    }
    draft.status = Status::Outweighed;
    txn.add_claim(draft);
    set_beliefs_from(txn, &post);
    txn.log_change("outweighed", &[&id, &rival.id], None, None,
        format!("contradicts {:?}, which is better believed ({theirs:.2} vs {mine:.2} log-odds): kept inactive", rival.object));
    let affected = align(txn, ctx, &post);
    Applied::stored(Action::Outweighed, Some(relation), id, affected)
}
