//! The `reconcile` strategy: the relations of SPEC §3, decided mechanically
//! against the slot's claims, with the forward filter's posterior (§4)
//! deciding between a newer value and the current one, and contradictions.

use super::align::{align, align_confirmed, close_disputes, close_moot_disputes, end_as_stated, flips_back, pinned, EPS};
use super::posterior::SlotPosterior;
use super::arrival::{self, EarlierStart};
use super::{held, refines, same_value};
use crate::invariants::overlap;
use crate::model::{Action, Chunked, Claim, ConflictKind, ConflictStatus, Relation, Shared, Status};
use crate::time::Timestamp;
use crate::txn::SlotTxn;

use super::ctx::{Applied, WriteCtx};

/// The change half-life, or `None` when the predicate does not vary in time:
/// a calibrated one when a calibration estimated it, else the configured one.
pub fn decay_of(ctx: &WriteCtx) -> Option<f64> {
    if ctx.spec.time_varying {
        let calibrated = ctx.settings.calibration.get().and_then(|c| c.half_life(&ctx.spec.name));
        calibrated.or(ctx.spec.half_life_days).or(ctx.settings.belief.half_life_days)
    } else {
        None
    }
}

/// The filter's parameters: the configured prior, or the one a calibration
/// learned for a predicate of a closed domain.
pub fn belief_params(ctx: &WriteCtx) -> crate::belief::BeliefParams {
    let learned = ctx.settings.calibration.get().and_then(|c| c.prior(&ctx.spec.name));
    crate::belief::BeliefParams { prior: learned.unwrap_or(ctx.settings.belief.prior), ..ctx.settings.belief }
}

/// When relations are weighed: now, or the start of a scheduled change.
pub fn weigh_time(claims: &[&Claim], now: Timestamp) -> Timestamp {
    SlotPosterior::latest_observation(claims).map_or(now, |t| t.max(now))
}

/// The slot's posterior with `extra` (a draft not yet stored) counted, at
/// `at` or else at the slot's latest observation: relations are weighed on
/// the evidence, so the passage of time alone (which draws every belief
/// toward uniform) never opens or settles a dispute.
pub fn posterior(txn: &SlotTxn, ctx: &WriteCtx, extra: Option<&Claim>, at: Option<Timestamp>) -> SlotPosterior {
    let claims: Vec<&Claim> = txn.slot.claims.iter().map(|c| &**c).chain(extra).collect();
    let calibration = ctx.settings.calibration.get();
    let params = belief_params(ctx);
    let (params, half_life, time_varying) = (&params, decay_of(ctx), ctx.spec.time_varying);
    match at {
        Some(at) => SlotPosterior::of_rivals(&claims, params, half_life, time_varying, at, calibration.as_deref()),
        None => SlotPosterior::of_rivals_at_latest(&claims, params, half_life, time_varying, txn.now, calibration.as_deref()),
    }
}

/// Recomputes the belief of every live claim: as rivals in a single-valued
/// slot, each on its own evidence in a multi-valued one.
pub fn refresh_beliefs(txn: &mut SlotTxn, ctx: &WriteCtx) {
    refresh(txn, ctx, !ctx.spec.is_multi());
}

/// Entries of a log-like slot (append, replace, merges) do not compete: each
/// stands alone on its own evidence.
pub fn refresh_entry_beliefs(txn: &mut SlotTxn, ctx: &WriteCtx) {
    refresh(txn, ctx, false);
}

/// Sets every live claim's belief from the slot posterior `post`, carried forward to now.
pub fn refresh_from(txn: &mut SlotTxn, post: &SlotPosterior) {
    let at = post.time().map_or(txn.now, |t| t.max(txn.now));
    let now = post.advanced_to(at);
    // Only the claims whose belief moves are touched: an update copies a shared claim.
    let live: Vec<(usize, f64)> = txn
        .slot
        .claims
        .iter()
        .enumerate()
        .filter(|(_, c)| c.status.is_live())
        .filter_map(|(i, c)| now.log_odds(&c.id).filter(|l| belief_moves(c, *l)).map(|l| (i, l)))
        .collect();
    for (i, l) in live {
        txn.update_belief_at(i, l);
    }
}

/// Brings a single-valued slot in line with its posterior (after a
/// calibration changed the filter): beliefs refreshed, statuses aligned;
/// returns the claims whose status changed.
pub fn realign(txn: &mut SlotTxn, ctx: &WriteCtx) -> Vec<String> {
    let post = posterior(txn, ctx, None, None);
    refresh_from(txn, &post);
    align(txn, ctx, &post)
}

/// A new belief differs from the claim's by more than rounding.
fn belief_moves(claim: &Claim, log_odds: f64) -> bool {
    (claim.log_odds - log_odds).abs() > 1e-12
}

/// The slot posterior a single-valued slot's statuses follow (`None` for a multi-valued one).
fn rivals_posterior(txn: &SlotTxn, ctx: &WriteCtx) -> Option<SlotPosterior> {
    (!ctx.spec.is_multi()).then(|| posterior(txn, ctx, None, None))
}

/// Beliefs from `post` when there is one, else each claim on its own evidence.
fn refresh_with(txn: &mut SlotTxn, ctx: &WriteCtx, post: Option<&SlotPosterior>) {
    match post {
        Some(p) => refresh_from(txn, p),
        None => refresh_beliefs(txn, ctx),
    }
}

fn refresh(txn: &mut SlotTxn, ctx: &WriteCtx, rivals: bool) {
    if rivals {
        let post = posterior(txn, ctx, None, None);
        refresh_from(txn, &post);
        return;
    }
    // One belief per live claim, in slot order (`beliefs_at` without rivals maps every wanted claim).
    let live: Vec<usize> = txn.slot.claims.iter().enumerate().filter(|(_, c)| c.status.is_live()).map(|(i, _)| i).collect();
    let beliefs = beliefs_at(&txn.slot.claims, ctx, false, None, txn.now, |c| c.status.is_live());
    for (i, (_, l)) in live.into_iter().zip(beliefs) {
        if belief_moves(&txn.slot.claims[i], l) {
            txn.update_belief_at(i, l);
        }
    }
}

/// Belief at `at` (default: now, or a scheduled change's start) of the claims `wanted` picks.
pub fn beliefs_at(claims: &Chunked<Claim>, ctx: &WriteCtx, rivals: bool, at: Option<Timestamp>, now: Timestamp, wanted: impl Fn(&Claim) -> bool) -> Vec<(String, f64)> {
    let refs: Vec<&Claim> = claims.iter().map(|c| &**c).collect();
    let at = at.unwrap_or_else(|| weigh_time(&refs, now));
    let params = belief_params(ctx);
    let (params, half_life, tv) = (&params, decay_of(ctx), ctx.spec.time_varying);
    let calibration = ctx.settings.calibration.get();
    let calibration = calibration.as_deref();
    if rivals {
        let post = SlotPosterior::of_rivals(&refs, params, half_life, tv, at, calibration);
        claims.iter().filter(|c| wanted(c)).filter_map(|c| post.log_odds(&c.id).map(|l| (c.id.clone(), l))).collect()
    } else {
        claims.iter().filter(|c| wanted(c)).map(|c| (c.id.clone(), SlotPosterior::of_one(c, params, half_life, tv, at, calibration))).collect()
    }
}

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
    let mut out: Vec<&Claim> = held::history_covering(txn, draft, matches).into_iter().collect();
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
        .claims
        .iter()
        .map(|c| &**c)
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
    // Shared copies: the txn changes the slot's claims while these are read.
    // Free-text entries sharing the slot are no rivals of a value (SPEC §5): they stay as they are.
    let live: Vec<Shared<Claim>> = txn.slot.claims.iter().filter(|c| c.status.is_live() && c.kind.is_entry() == draft.kind.is_entry()).cloned().collect();
    if let Some(general) = live.iter().find(|c| c.status.is_current() && refines(c, &draft)) {
        return refine(txn, ctx, general, draft);
    }
    if ctx.spec.is_multi() {
        let id = draft.id.clone();
        txn.add_claim(draft);
        refresh_beliefs(txn, ctx);
        let after = txn.claim(&id).map(|c| c.confidence).unwrap_or(0.0);
        txn.log_change("independent", &[&id], Some((0.0, after)), None,
            format!("{} is multi-valued: the new value coexists with {} others", ctx.spec.name, live.len()));
        return Applied::stored(Action::Added, Some(Relation::Independent), id, vec![]);
    }
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
        refresh_from(txn, &post);
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
                    return arrival::between_reports(txn, ctx, draft, only, again);
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
    refresh_with(txn, ctx, post.as_ref());
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
        refresh_from(txn, &post);
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
    draft.status = general.status;
    draft.kind = general.kind;
    draft.supersedes = Some(gid.clone());
    let new_id = draft.id.clone();
    txn.add_claim(draft);
    take_the_place_of(txn, &gid, &new_id);
    refresh_beliefs(txn, ctx);
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

/// The general claim `general` makes way for its refinement `specific`: it is
/// superseded without an end (the same value, said more precisely).
pub(super) fn take_the_place_of(txn: &mut SlotTxn, general: &str, specific: &str) {
    txn.update_claim(general, |c| {
        c.status = Status::Superseded;
        c.superseded_by = Some(specific.to_string());
    });
}

/// Open or settled conflicts about `from` now name `to` (its refinement).
pub(super) fn move_conflicts(txn: &mut SlotTxn, from: &str, to: &str) {
    let moving: Vec<String> = txn
        .slot
        .conflicts
        .iter()
        .filter(|c| matches!(c.status, ConflictStatus::Open | ConflictStatus::Settled) && (c.earlier_id == from || c.newer_id == from))
        .map(|c| c.id.clone())
        .collect();
    for cf in moving {
        txn.update_conflict(&cf, |c| c.rename_claim(from, to));
        txn.update_claim(to, |c| c.note_conflict(&cf));
        txn.log_change("conflict_moved", &[from, to], None, Some(&cf),
            "the claim in conflict was refined: the conflict now names the refined claim".into());
    }
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
    // dispute, not a sawtooth.
    let needed = if flips_back(txn, &draft) { margin } else { -EPS };
    if mine < theirs - margin {
        draft.status = Status::Outweighed;
        txn.add_claim(draft);
        refresh_from(txn, &post);
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
    refresh_from(txn, &post);
    affected.extend(align(txn, ctx, &post));
    Applied::stored(Action::Superseded, Some(relation), id, affected)
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
    refresh_from(txn, &post);
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
    refresh_from(txn, post);
    let mut applied = Applied::stored(Action::Disputed, Some(relation), id, current.iter().map(|c| c.id.clone()).collect());
    applied.conflicts = conflicts;
    applied
}

/// A history claim's belief is its value's at the start of its period.
pub(super) fn set_history_belief(txn: &mut SlotTxn, ctx: &WriteCtx, id: &str) {
    let Some(from) = txn.claim(id).map(|c| c.effective_from()) else { return };
    let post = posterior(txn, ctx, None, Some(from));
    if let Some(l) = post.log_odds(id) {
        txn.update_belief(id, l);
    }
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
    refresh_from(txn, &post);
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
        refresh_from(txn, &post);
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
        refresh_from(txn, &post);
        affected.extend(align(txn, ctx, &post));
        return Applied::stored(Action::Added, Some(relation), id, affected);
    }
    draft.status = Status::Outweighed;
    txn.add_claim(draft);
    refresh_from(txn, &post);
    txn.log_change("outweighed", &[&id, &rival.id], None, None,
        format!("contradicts {:?}, which is better believed ({theirs:.2} vs {mine:.2} log-odds): kept inactive", rival.object));
    let affected = align(txn, ctx, &post);
    Applied::stored(Action::Outweighed, Some(relation), id, affected)
}
