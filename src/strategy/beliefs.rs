//! The posterior plumbing every strategy shares: the filter's parameters
//! for a predicate (`decay_of`, `belief_params`), the slot posterior
//! (`posterior`, `beliefs_at`) and the claims' beliefs set from it
//! (`reweigh_*`, `set_beliefs_from`, `set_history_belief`). The relations that act on it live in
//! `reconcile.rs`, `align.rs`, `arrival.rs` and `confirm.rs`.

use super::ctx::WriteCtx;
use super::posterior::SlotPosterior;
use crate::model::{Chunked, Claim};
use crate::time::Timestamp;
use crate::txn::SlotTxn;

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
/// learned for a predicate of a closed domain; the weights of forms of a
/// value (`δ`, `ε`) a calibration learned for the predicate.
pub fn belief_params(ctx: &WriteCtx) -> crate::belief::BeliefParams {
    let calibration = ctx.settings.calibration.get();
    let mut params = ctx.settings.belief;
    if let Some(c) = calibration {
        params.prior = c.prior(&ctx.spec.name).unwrap_or(params.prior);
        if let Some((refined_support, embellished)) = c.forms(&ctx.spec.name) {
            params.refined_support = refined_support;
            params.embellished = embellished;
        }
    }
    params
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

/// Recomputes the beliefs of live claims: every one as rivals in a
/// single-valued slot; in a multi-valued one, each changed claim on its own evidence.
pub fn reweigh_claims(txn: &mut SlotTxn, ctx: &WriteCtx) {
    reweigh(txn, ctx, !ctx.spec.is_multi(), true);
}

/// Entries of a log-like slot (append, replace, merges) do not compete: each
/// stands alone on its own evidence.
pub fn reweigh_entries(txn: &mut SlotTxn, ctx: &WriteCtx) {
    reweigh(txn, ctx, false, false);
}

/// Sets every live claim's belief from the slot posterior `post`, carried forward to now.
pub fn set_beliefs_from(txn: &mut SlotTxn, post: &SlotPosterior) {
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

/// A new belief differs from the claim's by more than rounding.
fn belief_moves(claim: &Claim, log_odds: f64) -> bool {
    (claim.log_odds - log_odds).abs() > 1e-12
}

/// The slot posterior a single-valued slot's statuses follow (`None` for a multi-valued one).
pub(super) fn rivals_posterior(txn: &SlotTxn, ctx: &WriteCtx) -> Option<SlotPosterior> {
    (!ctx.spec.is_multi()).then(|| posterior(txn, ctx, None, None))
}

/// Beliefs from `post` when there is one, else each claim on its own evidence.
pub(super) fn reweigh_with(txn: &mut SlotTxn, ctx: &WriteCtx, post: Option<&SlotPosterior>) {
    match post {
        Some(p) => set_beliefs_from(txn, p),
        None => reweigh_claims(txn, ctx),
    }
}

fn reweigh(txn: &mut SlotTxn, ctx: &WriteCtx, rivals: bool, believed_at_read: bool) {
    if rivals {
        let post = posterior(txn, ctx, None, None);
        set_beliefs_from(txn, &post);
        return;
    }
    // Each live claim stands on its own evidence. Only the claims this write
    // changed need a new belief when the others' cannot have moved: a fixed
    // predicate's belief does not depend on when it is weighed (once all its
    // evidence is in), and a multi-valued reconcile slot is believed again
    // at read time (`read.rs`, `believed_at`). Refreshing all of them made
    // each write cost O(values): `likes` with 10,000 values, 55x (issue #43).
    // Values in an entry slot of a time-varying predicate keep their stored
    // belief at read, so each is carried to now; free-text entries are
    // believed again at read (`read.rs`, `believed_at`), so only the changed
    // ones are: carrying all of them made an uncapped log O(entries) per
    // write (10,000 entries, 40x; issue #43).
    let every = ctx.spec.time_varying && !believed_at_read;
    let changed = txn.changed_positions();
    let claims = &txn.slot.claims;
    let live: Vec<usize> = if every { (0..claims.len()).filter(|&i| claims[i].kind.is_value() || changed.binary_search(&i).is_ok()).collect() } else { changed };
    let live: Vec<usize> = live.into_iter().filter(|&i| claims[i].status.is_live()).collect();
    if live.is_empty() {
        return;
    }
    let weighed: Vec<&Claim> = live.iter().map(|&i| &*txn.slot.claims[i]).collect();
    let at = weigh_time(&weighed, txn.now);
    let params = belief_params(ctx);
    let (params, half_life, tv) = (&params, decay_of(ctx), ctx.spec.time_varying);
    let calibration = ctx.settings.calibration.get();
    for i in live {
        let l = SlotPosterior::of_one(&txn.slot.claims[i], params, half_life, tv, at, calibration.as_deref());
        if belief_moves(&txn.slot.claims[i], l) {
            txn.update_belief_at(i, l);
        }
    }
}

/// Belief at `at` (default: now, or a scheduled change's start) of the
/// claims `wanted` picks, by position (a look-up by id per claim made a read
/// of 100,000 archived claims quadratic: 14 s, issue #43).
pub fn beliefs_at(claims: &Chunked<Claim>, ctx: &WriteCtx, rivals: bool, at: Option<Timestamp>, now: Timestamp, wanted: impl Fn(&Claim) -> bool) -> Vec<(usize, f64)> {
    let refs: Vec<&Claim> = claims.iter().map(|c| &**c).collect();
    let at = at.unwrap_or_else(|| weigh_time(&refs, now));
    let params = belief_params(ctx);
    let (params, half_life, tv) = (&params, decay_of(ctx), ctx.spec.time_varying);
    let calibration = ctx.settings.calibration.get();
    let calibration = calibration.as_deref();
    if rivals {
        let post = SlotPosterior::of_rivals(&refs, params, half_life, tv, at, calibration);
        claims.iter().enumerate().filter(|(_, c)| wanted(c)).filter_map(|(i, c)| post.log_odds(&c.id).map(|l| (i, l))).collect()
    } else {
        claims.iter().enumerate().filter(|(_, c)| wanted(c)).map(|(i, c)| (i, SlotPosterior::of_one(c, params, half_life, tv, at, calibration))).collect()
    }
}

/// A history claim's belief is its value's at the start of its period.
pub(super) fn set_history_belief(txn: &mut SlotTxn, ctx: &WriteCtx, id: &str) {
    let Some(from) = txn.claim(id).map(|c| c.effective_from()) else { return };
    let post = posterior(txn, ctx, None, Some(from));
    if let Some(l) = post.log_odds(id) {
        txn.update_belief(id, l);
    }
}
