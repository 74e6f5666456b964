//! Later evidence settles a single-valued slot (SPEC §3): after each write the
//! posterior decides whether an outweighed newer value now reaches the
//! current one (it supersedes), whether a dispute's gap has passed
//! `disputeMargin`, whether history the filter now believes more than the
//! claim that ended it takes the slot back (within the margin: both
//! disputed), and whether a corroborated outweighed report of the past
//! becomes the history of its period.

use super::posterior::SlotPosterior;
use super::beliefs::{posterior, set_beliefs_from};
use super::{refines, same_value};
use crate::invariants::overlap;
use crate::model::{Claim, ConflictKind, ConflictStatus, Shared, Status};
use crate::time::Timestamp;
use crate::txn::SlotTxn;

use super::ctx::WriteCtx;

/// Log-odds closer than this are equal ("at least equals" survives rounding).
pub const EPS: f64 = 1e-9;

/// Status changes stop after this many steps; each step moves the slot toward
/// the posterior's order, so a real slot settles in one or two.
const MAX_STEPS: usize = 8;

/// Claims pinned by a user's settlement: evidence never changes their status.
pub fn pinned(txn: &SlotTxn, id: &str) -> bool {
    txn.slot
        .conflicts
        .iter()
        .any(|c| c.status == ConflictStatus::Settled && (c.earlier_id == id || c.newer_id == id))
}

enum Step {
    /// `later` becomes current, `earlier` history (with the dispute between them, if any).
    Supersede { later: String, earlier: String, dispute: Option<String> },
    /// `winner` becomes current, `loser` is outweighed.
    Outweigh { winner: String, loser: String, dispute: Option<String> },
    /// A history claim takes the slot back from the claim that ended it (the
    /// mirror of `Supersede`): outright (`disputed: false`, the newer claim is
    /// outweighed), or, within the margin, both disputed — the state the same
    /// two reports reach when they arrive in time order.
    Revert { history: String, current: String, disputed: bool },
    /// A rival lifted to within the margin of the current claims: it is
    /// disputed against each of them, as a write of it would be (`reconcile::dispute`).
    Dispute { current: Vec<String>, newer: String },
    /// A dispute resolved by evidence whose two claims are back within the
    /// margin: it opens again and both are disputed.
    Reopen { conflict: String, current: String, rival: String },
    /// An outweighed more specific form of the current value that its
    /// evidence now carries to at least the general one's belief takes its
    /// place (SPEC §3 refine).
    Refine { specific: String, general: String },
    /// The mirror of `Refine`: a general form a refinement took the place of,
    /// which the evidence now believes more than it (a calibration learned
    /// that sources say more than the truth), takes its place back.
    /// `end`: where it ends once it holds again (`revived_end`); `folded`:
    /// later reports of its value stored as history within its period (they
    /// came while it was replaced), now part of it again.
    Unrefine { general: String, specific: String, end: Option<Timestamp>, folded: Vec<String> },
    /// A disputed claim whose disputes all closed and that nothing beats.
    Activate { id: String },
    /// `id` (outweighed) begins after every current claim ended as stated:
    /// it is current, they are history as stated (no successor link).
    FollowEnded { id: String, ended: Vec<String> },
    /// An outweighed value of the past that evidence now lifts past the
    /// history claim whose period it fell in: it becomes that period's history.
    LiftHistory { lifted: String, history: String, until: Option<(String, Timestamp)> },
}

/// A value that held before and was ended by a change (history of it with an
/// end): reported again after its successor began, it flips back (SPEC §3).
pub fn flips_back(txn: &SlotTxn, claim: &Claim) -> bool {
    txn.slot.claims.iter().any(|c| c.id != claim.id && c.status == Status::Superseded && c.valid_to.is_some() && same_value(c, claim) && c.effective_from() < claim.effective_from())
}

/// Current claims that are disputed among themselves and in no open
/// conflict of another kind (an `ask_user` pair waits for its person).
fn only_disputed(txn: &SlotTxn, currents: &[&Claim]) -> bool {
    currents.iter().all(|c| c.status == Status::Disputed && in_open_dispute(txn, &c.id))
        && !txn.slot.conflicts.iter().any(|cf| cf.kind != ConflictKind::Dispute && cf.status == ConflictStatus::Open && currents.iter().any(|c| cf.earlier_id == c.id || cf.newer_id == c.id))
}

/// Whether a dispute between `a` and `b` can open: the pair was never
/// noted, or only in a dispute that evidence resolved.
fn can_dispute(txn: &SlotTxn, a: &str, b: &str) -> bool {
    txn.slot.conflicts.iter().filter(|c| c.names_pair(a, b)).all(|c| c.kind == ConflictKind::Dispute && c.status == ConflictStatus::ResolvedByEvidence)
}

fn in_open_dispute(txn: &SlotTxn, id: &str) -> bool {
    txn.slot.conflicts.iter().any(|c| {
        c.kind == ConflictKind::Dispute && c.status == ConflictStatus::Open && (c.earlier_id == id || c.newer_id == id)
    })
}

/// Applies status changes until the slot agrees with its posterior `post`
/// (statuses do not move the posterior, so one serves every step); returns
/// the claims changed.
pub fn align(txn: &mut SlotTxn, ctx: &WriteCtx, post: &SlotPosterior) -> Vec<String> {
    align_with(txn, ctx, post, None)
}

/// `align` after a write corroborated `confirmed`: an outweighed report of
/// the past it lifts may also become its period's history (`lifted_history`;
/// only then, as only new evidence for it can lift it, and weighing a past
/// moment costs a filter pass).
pub fn align_confirmed(txn: &mut SlotTxn, ctx: &WriteCtx, post: &SlotPosterior, confirmed: &str) -> Vec<String> {
    align_with(txn, ctx, post, Some(confirmed))
}

/// Brings a single-valued slot in line with its posterior (after a
/// calibration changed the filter): beliefs refreshed, statuses aligned;
/// returns the claims whose status changed.
pub fn realign(txn: &mut SlotTxn, ctx: &WriteCtx) -> Vec<String> {
    let post = posterior(txn, ctx, None, None);
    set_beliefs_from(txn, &post);
    align(txn, ctx, &post)
}

fn align_with(txn: &mut SlotTxn, ctx: &WriteCtx, post: &SlotPosterior, confirmed: Option<&str>) -> Vec<String> {
    let mut changed = Vec::new();
    if ctx.spec.is_multi() {
        return changed;
    }
    for _ in 0..MAX_STEPS {
        let Some(step) = next_step(txn, ctx, post, confirmed) else { break };
        changed.extend(apply(txn, step, post, ctx.spec.time_varying));
    }
    if !changed.is_empty() {
        close_moot_disputes(txn);
        set_beliefs_from(txn, post);
    }
    crate::sort::sort(&mut changed);
    changed.dedup();
    changed
}

fn belief(post: &SlotPosterior, c: &Claim) -> f64 {
    post.log_odds(&c.id).unwrap_or(f64::MIN)
}

fn next_step(txn: &SlotTxn, ctx: &WriteCtx, post: &SlotPosterior, confirmed: Option<&str>) -> Option<Step> {
    let margin = ctx.settings.dispute_margin;
    let tv = ctx.spec.time_varying;
    let free = |c: &Claim| !pinned(txn, &c.id);
    // Open disputes between current claims resolve once the gap is decisive.
    for cf in txn.slot.conflicts.iter().filter(|c| c.kind == ConflictKind::Dispute && c.status == ConflictStatus::Open) {
        let (Some(a), Some(b)) = (txn.claim(&cf.earlier_id), txn.claim(&cf.newer_id)) else { continue };
        if !(a.status.is_current() && b.status.is_current() && free(a) && free(b)) {
            continue;
        }
        let dispute = Some(cf.id.clone());
        let (earlier, later) = if a.effective_from() <= b.effective_from() { (a, b) } else { (b, a) };
        let (be, bl) = (belief(post, earlier), belief(post, later));
        if tv && later.effective_from() > earlier.effective_from() {
            // A flip back needs more than the margin, as on a write.
            let needed = if flips_back(txn, later) { margin + EPS } else { -EPS };
            if bl >= be + needed {
                return Some(Step::Supersede { later: later.id.clone(), earlier: earlier.id.clone(), dispute });
            }
            if bl < be - margin {
                return Some(Step::Outweigh { winner: earlier.id.clone(), loser: later.id.clone(), dispute });
            }
        } else if (be - bl).abs() > margin {
            let (winner, loser) = if be > bl { (earlier, later) } else { (later, earlier) };
            return Some(Step::Outweigh { winner: winner.id.clone(), loser: loser.id.clone(), dispute });
        }
    }
    if txn.slot.claims.iter().any(|c| c.status.is_current() && c.kind.is_value() && !free(c)) {
        return None;
    }
    // Values only: free-text entries sharing the slot never compete with them (SPEC §5).
    let currents: Vec<&Claim> = txn.slot.claims.iter().map(|c| &**c).filter(|c| c.status.is_current() && c.kind.is_value()).collect();
    // A claim left disputed after its disputes closed: current if nothing beats it.
    if let Some(d) = currents.iter().find(|c| c.status == Status::Disputed && !in_open_dispute(txn, &c.id)) {
        let better = currents
            .iter()
            .filter(|c| c.id != d.id && belief(post, c) > belief(post, d))
            .max_by(|a, b| belief(post, a).total_cmp(&belief(post, b)));
        return Some(match better {
            Some(w) => Step::Outweigh { winner: w.id.clone(), loser: d.id.clone(), dispute: None },
            None => Step::Activate { id: d.id.clone() },
        });
    }
    let current = currents.iter().copied().max_by(|a, b| belief(post, a).total_cmp(&belief(post, b)))?;
    let bc = belief(post, current);
    // An outweighed value that evidence has lifted.
    // Each belief looked up once: sorting by a look-up per comparison was
    // most of a write to a slot with thousands of outweighed values.
    let mut outweighed: Vec<(f64, &Claim)> =
        txn.slot.claims.iter().map(|c| &**c).filter(|c| c.status == Status::Outweighed && c.kind.is_value() && free(c)).map(|c| (belief(post, c), c)).collect();
    crate::sort::sort_by(&mut outweighed, |(ba, a), (bb, b)| bb.total_cmp(ba).then(a.id.cmp(&b.id)));
    for (bo, o) in outweighed {
        // Beside a later current claim (the newer side of an open ask_user
        // pair) a lifted value would overlap it: it waits for that question.
        if tv && currents.iter().any(|c| c.id != current.id && c.effective_from() > o.effective_from()) {
            continue;
        }
        // A more specific form takes its general form's place or waits: it
        // neither disputes it nor ends it as a change of the world.
        if refines(current, o) {
            if bo >= bc - EPS {
                return Some(Step::Refine { specific: o.id.clone(), general: current.id.clone() });
            }
            continue;
        }
        if tv && o.effective_from() > current.effective_from() && !flips_back(txn, o) {
            if bo >= bc - EPS {
                return Some(Step::Supersede { later: o.id.clone(), earlier: current.id.clone(), dispute: None });
            }
        } else if tv && o.effective_from() > current.effective_from() && bo > bc + margin {
            return Some(Step::Supersede { later: o.id.clone(), earlier: current.id.clone(), dispute: None });
        } else if bo > bc + margin {
            return Some(Step::Outweigh { winner: o.id.clone(), loser: current.id.clone(), dispute: None });
        } else if (bo - bc).abs() <= margin {
            // Beside claims disputed among themselves it joins their dispute,
            // as a write of it would (`reconcile::dispute`): an exact tie of
            // three values is one dispute of three, whichever two came first.
            if currents.len() > 1 && only_disputed(txn, &currents) {
                if currents.iter().any(|c| can_dispute(txn, &c.id, &o.id)) {
                    return Some(Step::Dispute { current: currents.iter().map(|c| c.id.clone()).collect(), newer: o.id.clone() });
                }
                continue;
            }
            // Beside a second current claim (an open ask_user pair) a dispute
            // with one of them would leave the other current with it: the
            // value waits, outweighed, until it wins outright.
            let noted = txn.slot.conflicts.iter().find(|c| c.names_pair(&current.id, &o.id));
            match noted {
                None if currents.len() > 1 => continue,
                None => return Some(Step::Dispute { current: currents.iter().map(|c| c.id.clone()).collect(), newer: o.id.clone() }),
                // A pair is noted once (SPEC §6): a dispute evidence resolved
                // opens again when the evidence comes back within the margin,
                // so the slot's state follows its posterior, not the order
                // its reports came in (SPEC §3).
                Some(cf) if cf.kind == ConflictKind::Dispute && cf.status == ConflictStatus::ResolvedByEvidence && currents.len() == 1 => {
                    return Some(Step::Reopen { conflict: cf.id.clone(), current: current.id.clone(), rival: o.id.clone() });
                }
                Some(_) if bo > bc + EPS => return Some(Step::Outweigh { winner: o.id.clone(), loser: current.id.clone(), dispute: None }),
                Some(_) => {}
            }
        }
    }
    if currents.len() == 1 {
        let replaced = txn.slot.claims.iter().filter(|g| {
            g.status == Status::Superseded && g.kind.is_value() && free(g) && g.superseded_by.as_deref() == Some(current.id.as_str()) && refines(g, current) && belief(post, g) > bc + EPS
        });
        // Of two claims of one value (a report of the general form after it
        // was replaced), the better-corroborated one.
        if let Some(g) = replaced.max_by(|a, b| belief(post, a).total_cmp(&belief(post, b)).then(a.provenance.len().cmp(&b.provenance.len()))) {
            let end = revived_end(txn, g);
            if let Some(folded) = absorbed_on_revival(txn, g, end) {
                return Some(Step::Unrefine { general: g.id.clone(), specific: current.id.clone(), end, folded });
            }
        }
    }
    // Every current claim has ended as stated: an outweighed value that
    // begins by then has no rival left (`after_expiry` on a write).
    if tv {
        let ended_by = |t: Timestamp| currents.iter().all(|c| c.valid_to.is_some_and(|end| end <= t));
        let waiting = txn.slot.claims.iter().filter(|o| o.status == Status::Outweighed && o.kind.is_value() && free(o) && ended_by(o.effective_from()));
        if let Some(o) = waiting.max_by(|a, b| belief(post, a).total_cmp(&belief(post, b)).then(a.effective_from().cmp(&b.effective_from()))) {
            return Some(Step::FollowEnded { id: o.id.clone(), ended: currents.iter().map(|c| c.id.clone()).collect() });
        }
    }
    // History that the evidence now prefers to the claim that ended it. Only
    // while that claim is the slot's one current value: beside another current
    // claim (an open ask_user pair, a dispute, a scheduled change) the revived
    // history would overlap it with nothing allowing both.
    if tv && currents.len() == 1 {
        let history = txn.slot.claims.iter().filter(|s| {
            s.status == Status::Superseded
                && s.kind.is_value()
                && free(s)
                && s.superseded_by.as_deref() == Some(current.id.as_str())
                && s.valid_to == Some(current.effective_from())
                && !txn.slot.claims.iter().any(|o| o.id != s.id && same_value(o, s) && o.effective_from() > s.effective_from())
                && belief(post, s) > bc + EPS
        });
        if let Some(s) = history.max_by(|a, b| belief(post, a).total_cmp(&belief(post, b))) {
            // A pair is disputed once; after that the better-believed value is current.
            let disputed = belief(post, s) <= bc + margin && !txn.slot.conflicts.iter().any(|c| c.names_pair(&current.id, &s.id));
            return Some(Step::Revert { history: s.id.clone(), current: current.id.clone(), disputed });
        }
    }
    match confirmed {
        Some(id) if tv => lifted_history(txn, ctx, current, id),
        _ => None,
    }
}

/// An outweighed report of the past (it arrived while another value was
/// current and lost to it) that later evidence lifts past the history claim
/// covering its start, weighed at that start: the history claim ends there
/// and the lifted value holds until the next claim begins (a report that came
/// too weak and was corroborated after the slot had moved on).
fn lifted_history(txn: &SlotTxn, ctx: &WriteCtx, current: &Claim, confirmed: &str) -> Option<Step> {
    let claims = &txn.slot.claims;
    let o = txn.claim(confirmed).filter(|c| c.status == Status::Outweighed && !pinned(txn, &c.id) && c.effective_from() < current.effective_from())?;
    let from = o.effective_from();
    let covering = |h: &&Shared<Claim>| {
        h.status == Status::Superseded && !pinned(txn, &h.id) && h.effective_from() < from && h.valid_to.is_some_and(|end| end > from) && !same_value(h, o)
    };
    let history = claims.iter().find(covering)?;
    let then = posterior(txn, ctx, None, Some(from));
    if belief(&then, o) < belief(&then, history) - EPS {
        return None;
    }
    let until = claims
        .iter()
        .filter(|c| c.id != o.id && c.status != Status::Retired && c.status != Status::Outweighed && c.effective_from() > from)
        .min_by_key(|c| c.effective_from())
        .map(|c| (c.id.clone(), c.effective_from()));
    let end = match (o.valid_to, until.as_ref().map(|u| u.1)) {
        (Some(a), Some(b)) => a.min(b),
        (a, b) => a.or(b).unwrap_or(current.effective_from()),
    };
    let own_value_then = claims.iter().any(|c| c.id != o.id && c.status != Status::Retired && same_value(c, o) && overlap(txn.slot.validity(c), (from, end)));
    (!own_value_then).then(|| Step::LiftHistory { lifted: o.id.clone(), history: history.id.clone(), until })
}

/// Where a general form a refinement took the place of ends once it holds
/// again: its stated end. Taking its place left `validTo` as stated (unlike
/// history a newer value cut short, whose stated end, if any, is kept aside).
fn revived_end(txn: &SlotTxn, g: &Claim) -> Option<Timestamp> {
    let successor_from = g.superseded_by.as_deref().and_then(|id| txn.claim(id)).map(|n| n.effective_from().max(g.effective_from()));
    g.stated_valid_to.or(g.valid_to.filter(|end| Some(*end) != successor_from))
}

/// The claims of `g`'s value that its revival would overlap, when each is a
/// later report of it kept as history (it came while `g` was replaced and
/// ended at another value's start; no stated end) and can fold into it;
/// `None` when another claim of its value holds part of its period (the
/// revival would leave the value twice). Seed 691788968: "Oslo" replaced by
/// "Oslo, Norway", then "oslo" from a later date stored as history before
/// "Lima"; evidence revived "Oslo" over both.
fn absorbed_on_revival(txn: &SlotTxn, g: &Claim, end: Option<Timestamp>) -> Option<Vec<String>> {
    let period = (g.effective_from(), end.unwrap_or(Timestamp(i64::MAX)));
    let mut folded = Vec::new();
    for s in txn.slot.claims.iter().filter(|s| s.id != g.id && s.status != Status::Retired && !s.object.is_empty() && same_value(s, g)) {
        if !overlap(txn.slot.validity(s), period) {
            continue;
        }
        let report_of_it = s.status == Status::Superseded && !pinned(txn, &s.id) && s.stated_end().is_none() && s.effective_from() >= g.effective_from();
        if !report_of_it {
            return None;
        }
        folded.push(s.id.clone());
    }
    Some(folded)
}

fn resolve(txn: &mut SlotTxn, dispute: Option<String>, ids: [&str; 2], note: String) {
    if let Some(cf) = dispute {
        txn.update_conflict(&cf, |c| c.status = ConflictStatus::ResolvedByEvidence);
        txn.log_change("dispute_resolved", &ids, None, Some(&cf), note);
    }
}

/// Active unless another open dispute still holds it.
fn activate(txn: &mut SlotTxn, id: &str) {
    let disputed = in_open_dispute(txn, id);
    txn.update_claim(id, |c| c.status = if disputed { Status::Disputed } else { Status::Active });
}

fn apply(txn: &mut SlotTxn, step: Step, post: &SlotPosterior, tv: bool) -> Vec<String> {
    let b = |txn: &SlotTxn, id: &str| txn.claim(id).map_or(f64::MIN, |c| belief(post, c));
    match step {
        Step::Supersede { later, earlier, dispute } => {
            let (bl, be) = (b(txn, &later), b(txn, &earlier));
            resolve(txn, dispute, [&later, &earlier], format!("the newer value's belief reached the older one's ({bl:.2} vs {be:.2})"));
            let from = txn.claim(&later).map(|c| c.effective_from());
            txn.update_claim(&earlier, |c| c.end_as_history(&later, from));
            txn.update_claim(&later, |c| c.supersedes = Some(earlier.clone()));
            activate(txn, &later);
            close_disputes(txn, &earlier, "superseded by a newer claim");
            txn.log_change("supersede", &[&earlier, &later], None, None,
                format!("later evidence lifts the newer value to the current one's belief ({bl:.2} vs {be:.2} log-odds): it supersedes it"));
            // Every other claim current before it becomes history too, as on a
            // write (`newer_value`): one left current (an ask_user pair's other
            // side) would overlap the new value once its conflict goes moot.
            // One that starts when it does cannot be its history: it is its
            // rival for the same time, a contradiction the lifted value wins
            // (`later` was at least as well believed as the best current
            // claim; found beside an appended entry).
            let mut changed = vec![later.clone(), earlier];
            let not_later: Vec<(String, bool)> = match from {
                Some(from) => txn
                    .slot
                    .claims
                    .iter()
                    .filter(|c| !changed.contains(&c.id) && c.status.is_current() && c.effective_from() <= from)
                    .map(|c| (c.id.clone(), c.effective_from() < from))
                    .collect(),
                None => Vec::new(),
            };
            let (older, rivals): (Vec<_>, Vec<_>) = not_later.into_iter().partition(|(_, before)| *before);
            for (old, _) in older {
                txn.update_claim(&old, |c| c.end_as_history(&later, from));
                close_disputes(txn, &old, "superseded by a newer claim");
                txn.log_change("supersede", &[&old, &later], None, None,
                    "the newer value became current: this earlier claim is history".into());
                changed.push(old);
            }
            for (rival, _) in rivals {
                txn.update_claim(&rival, |c| c.status = Status::Outweighed);
                close_disputes(txn, &rival, "another value is better believed");
                txn.log_change("outweighed", &[&rival, &later], None, None,
                    "the value lifted to current is better believed for the same time; this one is kept inactive".into());
                changed.push(rival);
            }
            changed
        }
        Step::Outweigh { winner, loser, dispute } => {
            let (bw, bl) = (b(txn, &winner), b(txn, &loser));
            let settles_dispute = dispute.is_some();
            // A value lifted from outweighed joins the current set: every
            // other current claim it overlaps (the other side of an ask_user
            // pair) loses to it as well, or two values would be current.
            let lifted = txn.claim(&winner).is_some_and(|c| !c.status.is_current());
            let winner_from = txn.claim(&winner).map(|c| c.effective_from());
            let mut losers = vec![loser.clone()];
            if lifted {
                losers.extend(
                    txn.slot
                        .claims
                        .iter()
                        .filter(|c| c.id != winner && c.id != loser && c.status.is_current())
                        .filter(|c| !(tv && winner_from.is_some_and(|w| c.effective_from() > w)))
                        .map(|c| c.id.clone()),
                );
            }
            resolve(txn, dispute, [&winner, &losers[0]], format!("new evidence breaks the tie ({bw:.2} vs {bl:.2})"));
            for loser in &losers {
                txn.update_claim(loser, |c| c.status = Status::Outweighed);
                close_disputes(txn, loser, "another value is better believed");
            }
            activate(txn, &winner);
            if !settles_dispute {
                for loser in &losers {
                    txn.log_change("outweighed", &[loser, &winner], None, None,
                        format!("better-believed value ({bw:.2} vs {bl:.2} log-odds) is current; this one is kept inactive"));
                }
            }
            losers.push(winner);
            losers
        }
        Step::Revert { history, current, disputed } => {
            let (bh, bc) = (b(txn, &history), b(txn, &current));
            let (status, outcome) = if disputed {
                (Status::Disputed, "too close to call: both are disputed")
            } else {
                (Status::Outweighed, "the newer one is kept inactive")
            };
            txn.update_claim(&history, |c| c.hold_again(if disputed { Status::Disputed } else { Status::Active }));
            txn.update_claim(&current, |c| c.status = status);
            txn.log_change("supersede_reverted", &[&history, &current], None, None,
                format!("later evidence says the earlier value still holds ({bh:.2} vs {bc:.2} log-odds): {outcome}"));
            if disputed {
                let reason = format!("late evidence for the earlier value brings it within the margin of the newer one ({bh:.2} vs {bc:.2} log-odds)");
                txn.open_conflict(ConflictKind::Dispute, &history, &current, reason);
            }
            vec![history, current]
        }
        Step::LiftHistory { lifted, history, until } => {
            let from = txn.claim(&lifted).map(|c| c.effective_from());
            txn.update_claim(&history, |c| c.end_as_history(&lifted, from));
            txn.update_claim(&lifted, |c| {
                c.status = Status::Superseded;
                c.supersedes = Some(history.clone());
                if let Some((next, start)) = &until {
                    c.end_as_history(next, Some(*start));
                }
            });
            txn.log_change("history_lifted", &[&lifted, &history], None, None,
                "later evidence lifts this value past the history it fell inside, as of its start: it is that period's history".into());
            vec![lifted, history]
        }
        Step::FollowEnded { id, mut ended } => {
            for old in &ended {
                end_as_stated(txn, old, &id);
            }
            activate(txn, &id);
            txn.log_change("active", &[&id], None, None, "every current claim ended as stated before it begins: no rival left".into());
            ended.push(id);
            ended
        }
        Step::Activate { id } => {
            txn.update_claim(&id, |c| c.status = Status::Active);
            txn.log_change("active", &[&id], None, None, "its disputes closed and no other value is better believed".into());
            vec![id]
        }
        Step::Reopen { conflict, current, rival } => {
            let (bc, br) = (b(txn, &current), b(txn, &rival));
            txn.update_conflict(&conflict, |c| c.status = ConflictStatus::Open);
            txn.update_claim(&current, |c| c.status = Status::Disputed);
            txn.update_claim(&rival, |c| c.status = Status::Disputed);
            txn.log_change("dispute_reopened", &[&current, &rival], None, Some(&conflict),
                format!("evidence brings the two values back within the margin ({bc:.2} vs {br:.2} log-odds): disputed again"));
            vec![current, rival]
        }
        Step::Refine { specific, general } => {
            let (bs, bg) = (b(txn, &specific), b(txn, &general));
            let end = txn.claim(&general).zip(txn.claim(&specific)).and_then(|(g, s)| refinement_end(g, s));
            take_the_place_of(txn, &general, &specific);
            txn.update_claim(&specific, |c| {
                c.supersedes = Some(general.clone());
                c.valid_to = end;
            });
            let (s, g) = (object_of(txn, &specific), object_of(txn, &general));
            txn.log_change("refine", &[&specific, &general], None, None,
                format!("later evidence carries {s:?}, a more specific form of {g:?}, to at least its belief ({bs:.2} vs {bg:.2} log-odds): it takes its place"));
            move_conflicts(txn, &general, &specific);
            activate(txn, &specific);
            vec![specific, general]
        }
        Step::Unrefine { general, specific, end, folded } => {
            let (bg, bs) = (b(txn, &general), b(txn, &specific));
            txn.update_claim(&general, |c| {
                c.hold_again(Status::Active);
                c.valid_to = end;
            });
            // Its later reports end where they begin, history of it: the
            // value holds once, in the revived claim.
            for id in &folded {
                txn.update_claim(id, |c| {
                    c.superseded_by = Some(general.clone());
                    c.valid_to = Some(c.effective_from());
                });
            }
            txn.update_claim(&specific, |c| {
                c.status = Status::Outweighed;
                if c.supersedes.as_deref() == Some(general.as_str()) {
                    c.supersedes = None;
                }
            });
            let (g, s) = (object_of(txn, &general), object_of(txn, &specific));
            txn.log_change("refine_reverted", &[&general, &specific], None, None,
                format!("the evidence now believes {g:?} more than {s:?}, the more specific form that took its place ({bg:.2} vs {bs:.2} log-odds): it holds again, the more specific form is kept inactive"));
            if !folded.is_empty() {
                let ids: Vec<&str> = std::iter::once(general.as_str()).chain(folded.iter().map(String::as_str)).collect();
                txn.log_change("superseded", &ids, None, None,
                    format!("{} later report(s) of {g:?}, kept as history while it was replaced, are part of it again: each ends where it begins", folded.len()));
            }
            move_conflicts(txn, &specific, &general);
            activate(txn, &general);
            [general, specific].into_iter().chain(folded).collect()
        }
        Step::Dispute { current, newer } => {
            let bn = b(txn, &newer);
            for earlier in &current {
                let be = b(txn, earlier);
                // A pair is noted once (SPEC §6): a dispute of it that evidence resolved opens again.
                let resolved = txn.slot.conflicts.iter().find(|c| c.names_pair(earlier, &newer) && c.kind == ConflictKind::Dispute && c.status == ConflictStatus::ResolvedByEvidence);
                let opened = match resolved.map(|c| c.id.clone()) {
                    Some(cf) => {
                        txn.update_conflict(&cf, |c| c.status = ConflictStatus::Open);
                        txn.log_change("dispute_reopened", &[earlier, &newer], None, Some(&cf),
                            format!("evidence brings the two values back within the margin ({be:.2} vs {bn:.2} log-odds): disputed again"));
                        true
                    }
                    None => {
                        let reason = format!("evidence lifts a rival to within the margin of the current value ({bn:.2} vs {be:.2} log-odds)");
                        txn.open_conflict(ConflictKind::Dispute, earlier, &newer, reason).is_some()
                    }
                };
                if opened {
                    txn.update_claim(earlier, |c| c.status = Status::Disputed);
                    txn.update_claim(&newer, |c| c.status = Status::Disputed);
                }
            }
            current.into_iter().chain([newer]).collect()
        }
    }
}

/// A claim's value, for a log note.
fn object_of(txn: &SlotTxn, id: &str) -> String {
    txn.claim(id).map(|c| c.object.clone()).unwrap_or_default()
}

/// Where a refinement ends: where it says, else where its general form was
/// stated to end (the same value, said more precisely, SPEC §3: an "until
/// 2030" keeps holding once the more precise form takes the place), on every
/// path a refinement takes it.
pub(super) fn refinement_end(general: &Claim, specific: &Claim) -> Option<Timestamp> {
    specific.valid_to.or_else(|| general.stated_end().filter(|end| *end > specific.effective_from()))
}

/// The general claim `general` makes way for its refinement `specific`: it is
/// superseded without an end (the same value, said more precisely).
pub(super) fn take_the_place_of(txn: &mut SlotTxn, general: &str, specific: &str) {
    txn.update_claim(general, |c| {
        c.status = Status::Superseded;
        c.superseded_by = Some(specific.to_string());
    });
}

/// Open or settled conflicts about `from` now name `to` (its refinement, or
/// the general form a refinement gives its place back to).
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
            "the claim in conflict gave its place to another form of its value: the conflict now names that claim".into());
    }
}

/// A current claim whose stated `validTo` has passed before `next` begins
/// becomes history as stated: no successor link, so later evidence for it
/// never reverts the slot to it and undoes that end.
pub fn end_as_stated(txn: &mut SlotTxn, id: &str, next: &str) {
    txn.update_claim(id, |c| c.status = Status::Superseded);
    close_disputes(txn, id, "ended as stated");
    let (object, end) = txn.claim(id).map(|c| (c.object.clone(), c.valid_to.map(Timestamp::to_iso).unwrap_or_default())).unwrap_or_default();
    txn.log_change("expired", &[id, next], None, None, format!("{object:?} ended as stated ({end}) before the next claim begins: history"));
}

pub fn close_disputes(txn: &mut SlotTxn, claim_id: &str, why: &str) {
    let open: Vec<String> = txn
        .slot
        .conflicts
        .iter()
        .filter(|c| c.kind == ConflictKind::Dispute && c.status == ConflictStatus::Open && (c.earlier_id == claim_id || c.newer_id == claim_id))
        .map(|c| c.id.clone())
        .collect();
    for cf in open {
        txn.update_conflict(&cf, |c| c.status = ConflictStatus::ResolvedByEvidence);
        txn.log_change("dispute_resolved", &[claim_id], None, Some(&cf), why.to_string());
    }
}

/// Open disputes between claims that are both no longer current (a third
/// value won on evidence) are moot: they are resolved by that evidence.
pub fn close_moot_disputes(txn: &mut SlotTxn) {
    let moot: Vec<(String, String, String)> = txn
        .slot
        .conflicts
        .iter()
        .filter(|c| c.kind == ConflictKind::Dispute && c.status == ConflictStatus::Open)
        .filter(|c| {
            [&c.earlier_id, &c.newer_id]
                .iter()
                .all(|id| txn.claim(id).is_none_or(|claim| !claim.status.is_current()))
        })
        .map(|c| (c.id.clone(), c.earlier_id.clone(), c.newer_id.clone()))
        .collect();
    for (cf, earlier, newer) in moot {
        txn.update_conflict(&cf, |c| c.status = ConflictStatus::ResolvedByEvidence);
        txn.log_change("dispute_resolved", &[&earlier, &newer], None, Some(&cf),
            "neither claim is current any more: another value won on evidence".into());
    }
}
