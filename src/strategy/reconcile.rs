//! The `reconcile` strategy: the five relations of SPEC §3, decided
//! mechanically against the live claims of the slot, with evidence deciding
//! contradictions and ties left as disputes.

use crate::belief::{self, set_belief};
use crate::model::{Action, Claim, ConflictKind, ConflictStatus, Relation, Status};
use super::{refines, same_value};
use crate::txn::SlotTxn;

use super::super::engine::{Applied, WriteCtx};

/// Half-life used for decay, or `None` when the predicate does not vary in time.
pub fn decay_of(ctx: &WriteCtx) -> Option<f64> {
    if ctx.spec.time_varying {
        ctx.spec.half_life_days.or(ctx.settings.belief.half_life_days)
    } else {
        None
    }
}

pub fn support_of(ctx: &WriteCtx, claim: &Claim, now: crate::time::Timestamp) -> f64 {
    belief::support(claim, &ctx.settings.belief, decay_of(ctx), now)
}

/// Claims pinned by a user's settlement: evidence never changes their status.
fn pinned(txn: &SlotTxn, id: &str) -> bool {
    txn.slot
        .conflicts
        .iter()
        .any(|c| c.status == ConflictStatus::Settled && (c.earlier_id == id || c.newer_id == id))
}

/// Recomputes the belief of every live claim: competing in a single-valued
/// slot, standing alone in a multi-valued one.
pub fn refresh_beliefs(txn: &mut SlotTxn, ctx: &WriteCtx) {
    refresh(txn, ctx, !ctx.spec.is_multi());
}

/// Entries of a log-like slot (append, replace, merges) do not compete: each
/// stands alone on its own evidence.
pub fn refresh_entry_beliefs(txn: &mut SlotTxn, ctx: &WriteCtx) {
    refresh(txn, ctx, false);
}

fn refresh(txn: &mut SlotTxn, ctx: &WriteCtx, rivals: bool) {
    let now = txn.now;
    let live: Vec<(String, f64)> = txn
        .slot
        .claims
        .iter()
        .filter(|c| c.status.is_live())
        .map(|c| (c.id.clone(), support_of(ctx, c, now)))
        .collect();
    let params = &ctx.settings.belief;
    let beliefs: Vec<f64> = if !rivals {
        live.iter().map(|(_, s)| belief::alone(*s, params)).collect()
    } else {
        belief::competing(&live.iter().map(|(_, s)| *s).collect::<Vec<_>>(), params)
    };
    for ((id, _), l) in live.iter().zip(beliefs) {
        txn.update_claim(id, |c| {
            if (c.log_odds - l).abs() > 1e-12 {
                set_belief(c, l);
            }
        });
    }
}

pub fn apply_reconcile(txn: &mut SlotTxn, ctx: &WriteCtx, mut draft: Claim) -> Applied {
    let live: Vec<Claim> = txn.slot.claims.iter().filter(|c| c.status.is_live()).cloned().collect();
    // A value a person retired stays retired: new evidence for it corroborates
    // the retired claim instead of bringing the value back.
    let settled_away: Vec<Claim> = txn
        .slot
        .claims
        .iter()
        .filter(|c| c.status == Status::Retired && pinned(txn, &c.id))
        .cloned()
        .collect();

    // confirm: the same value, or a less specific form of a value already held.
    let same = live
        .iter()
        .chain(settled_away.iter())
        .filter(|c| same_value(c, &draft) || refines(&draft, c))
        .min_by_key(|c| (c.status != Status::Active, c.recorded_at));
    if let Some(existing) = same {
        return confirm(txn, ctx, existing, draft);
    }

    // refine: a more specific form of a value already held.
    if let Some(general) = live.iter().find(|c| refines(c, &draft)) {
        let gid = general.id.clone();
        let mut prov = general.provenance.clone();
        prov.append(&mut draft.provenance);
        draft.provenance = prov;
        draft.status = general.status;
        draft.supersedes = Some(gid.clone());
        draft.valid_from = draft.valid_from.or(general.valid_from);
        let new_id = draft.id.clone();
        txn.add_claim(draft);
        txn.update_claim(&gid, |c| {
            c.status = Status::Superseded;
            c.superseded_by = Some(new_id.clone());
        });
        refresh_beliefs(txn, ctx);
        let after = txn.claim(&new_id).map(|c| c.confidence).unwrap_or(0.0);
        txn.log_change("refine", &[&new_id, &gid], Some((general.confidence, after)), None,
            format!("{:?} is a more specific form of {:?}; it carries that claim's evidence", txn.claim(&new_id).map(|c| c.object.clone()).unwrap_or_default(), general.object));
        return Applied::stored(Action::Refined, Some(Relation::Refine), new_id, vec![gid]);
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

    let current: Vec<&Claim> = live.iter().filter(|c| c.status.is_current()).collect();
    if current.is_empty() {
        let id = draft.id.clone();
        txn.add_claim(draft);
        refresh_beliefs(txn, ctx);
        let after = txn.claim(&id).map(|c| c.confidence).unwrap_or(0.0);
        txn.log_change("add", &[&id], Some((0.0, after)), None, "no current claim in the slot".into());
        return Applied::stored(Action::Added, None, id, vec![]);
    }

    if ctx.spec.time_varying {
        let from = draft.effective_from();
        let latest = current.iter().map(|c| c.effective_from()).max().unwrap_or(from);
        // With no stated valid times, arrival order breaks a same-instant tie:
        // only two explicitly equal valid times make a genuine contradiction.
        let implicit_tie = from == latest && draft.valid_from.is_none() && current.iter().all(|c| c.valid_from.is_none());
        if from > latest || implicit_tie {
            return supersede(txn, ctx, draft, &current);
        }
        if from < latest {
            return historical(txn, ctx, draft);
        }
    }
    contradict(txn, ctx, draft, &current)
}

fn confirm(txn: &mut SlotTxn, ctx: &WriteCtx, existing: &Claim, draft: Claim) -> Applied {
    let id = existing.id.clone();
    let before = existing.confidence;
    let obs = draft.provenance;
    let stated = draft.stated_confidence;
    txn.update_claim(&id, |c| {
        c.provenance.extend(obs);
        c.stated_confidence = c.stated_confidence.max(stated);
    });
    refresh_beliefs(txn, ctx);
    let after = txn.claim(&id).map(|c| c.confidence).unwrap_or(before);
    txn.log_change("confirm", &[&id], Some((before, after)), None,
        format!("{:?} corroborates {:?}", draft.object, existing.object));
    let mut affected = reassess(txn, ctx, &id);
    affected.retain(|a| a != &id);
    Applied::stored(Action::Confirmed, Some(Relation::Confirm), id, affected)
}

fn supersede(txn: &mut SlotTxn, ctx: &WriteCtx, mut draft: Claim, current: &[&Claim]) -> Applied {
    let now = txn.now;
    let params = &ctx.settings.belief;
    let mine = belief::alone(support_of(ctx, &draft, now), params);
    let strongest = current
        .iter()
        .map(|c| belief::alone(support_of(ctx, c, now), params))
        .fold(f64::MIN, f64::max);
    let id = draft.id.clone();
    if mine < strongest - ctx.settings.outweigh_margin {
        draft.status = Status::Outweighed;
        txn.add_claim(draft);
        refresh_beliefs(txn, ctx);
        let after = txn.claim(&id).map(|c| c.confidence).unwrap_or(0.0);
        txn.log_change("outweighed", &[&id], Some((belief::logistic(mine), after)), None,
            format!("newer but far weaker ({:.2} vs {:.2} log-odds) than the current claim: kept inactive", mine, strongest));
        return Applied::stored(Action::Outweighed, Some(Relation::Supersede), id, vec![]);
    }
    let from = draft.effective_from();
    draft.supersedes = current.first().map(|c| c.id.clone());
    txn.add_claim(draft);
    let mut affected = Vec::new();
    for old in current {
        txn.update_claim(&old.id, |c| {
            c.status = Status::Superseded;
            c.valid_to = Some(from);
            c.superseded_by = Some(id.clone());
        });
        close_disputes(txn, &old.id, "superseded by a newer claim");
        txn.log_change("supersede", &[&old.id, &id], None, None,
            format!("{:?} replaces {:?} from {}: the world changed, the old claim is history", txn.claim(&id).map(|c| c.object.clone()).unwrap_or_default(), old.object, from.to_iso()));
        affected.push(old.id.clone());
    }
    refresh_beliefs(txn, ctx);
    Applied::stored(Action::Superseded, Some(Relation::Supersede), id, affected)
}

fn historical(txn: &mut SlotTxn, ctx: &WriteCtx, mut draft: Claim) -> Applied {
    let from = draft.effective_from();
    let next = txn
        .slot
        .claims
        .iter()
        .filter(|c| c.status != Status::Retired && c.effective_from() > from)
        .min_by_key(|c| c.effective_from())
        .map(|c| (c.id.clone(), c.effective_from()));
    draft.status = Status::Superseded;
    if let Some((next_id, next_from)) = &next {
        draft.valid_to = draft.valid_to.or(Some(*next_from));
        draft.superseded_by = Some(next_id.clone());
    }
    let id = draft.id.clone();
    let object = draft.object.clone();
    let params = &ctx.settings.belief;
    let l = belief::alone(support_of(ctx, &draft, txn.now), params);
    belief::set_belief(&mut draft, l);
    txn.add_claim(draft);
    txn.log_change("historical", &[&id], None, None,
        format!("{object:?} holds from {}, before the current claim: recorded as history", from.to_iso()));
    Applied::stored(Action::Historical, Some(Relation::Supersede), id, vec![])
}

fn contradict(txn: &mut SlotTxn, ctx: &WriteCtx, mut draft: Claim, current: &[&Claim]) -> Applied {
    let now = txn.now;
    let margin = ctx.settings.dispute_margin;
    let mine = support_of(ctx, &draft, now);
    let Some(rival) = current
        .iter()
        .max_by(|a, b| support_of(ctx, a, now).total_cmp(&support_of(ctx, b, now)))
    else {
        return Applied::skipped(draft.id);
    };
    let theirs = support_of(ctx, rival, now);
    let id = draft.id.clone();
    if current.iter().any(|c| pinned(txn, &c.id)) {
        // A person chose the current value(s): evidence alone never overturns
        // them. The newcomer is disputed against every current claim, so a
        // later keep_both with one of them never leaves it unasked beside another.
        draft.status = Status::Outweighed;
        txn.add_claim(draft);
        refresh_beliefs(txn, ctx);
        let object = txn.claim(&id).map(|c| c.object.clone()).unwrap_or_default();
        let mut conflicts = Vec::new();
        for kept in current {
            let reason = format!("{object:?} contradicts {:?}, which a person kept when settling a conflict", kept.object);
            conflicts.extend(txn.open_conflict(ConflictKind::Dispute, &kept.id, &id, reason));
        }
        let mut applied = Applied::stored(Action::Outweighed, Some(Relation::Contradict), id, vec![]);
        applied.conflicts = conflicts;
        return applied;
    }
    if (mine - theirs).abs() <= margin {
        draft.status = Status::Disputed;
        txn.add_claim(draft);
        let mut conflicts = Vec::new();
        for c in current {
            txn.update_claim(&c.id, |c| c.status = Status::Disputed);
            let reason = format!("{:?} and {:?} contradict with evidence too close to call ({:.2} vs {:.2})",
                c.object, txn.claim(&id).map(|d| d.object.clone()).unwrap_or_default(), support_of(ctx, c, now), mine);
            if let Some(cf) = txn.open_conflict(ConflictKind::Dispute, &c.id, &id, reason) {
                conflicts.push(cf);
            }
        }
        refresh_beliefs(txn, ctx);
        let mut applied = Applied::stored(Action::Disputed, Some(Relation::Contradict), id, current.iter().map(|c| c.id.clone()).collect());
        applied.conflicts = conflicts;
        return applied;
    }
    if mine > theirs {
        txn.add_claim(draft);
        let mut affected = Vec::new();
        for c in current {
            if pinned(txn, &c.id) {
                continue;
            }
            txn.update_claim(&c.id, |c| c.status = Status::Outweighed);
            txn.log_change("contradiction_lost", &[&c.id, &id], None, None,
                format!("{:?} is contradicted by stronger evidence ({:.2} vs {:.2})", c.object, mine, theirs));
            affected.push(c.id.clone());
        }
        close_moot_disputes(txn);
        refresh_beliefs(txn, ctx);
        return Applied::stored(Action::Added, Some(Relation::Contradict), id, affected);
    }
    draft.status = Status::Outweighed;
    txn.add_claim(draft);
    refresh_beliefs(txn, ctx);
    txn.log_change("outweighed", &[&id, &rival.id], None, None,
        format!("contradicts {:?}, which has stronger evidence ({:.2} vs {:.2}): kept inactive", rival.object, theirs, mine));
    Applied::stored(Action::Outweighed, Some(Relation::Contradict), id, vec![])
}

fn close_disputes(txn: &mut SlotTxn, claim_id: &str, why: &str) {
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
fn close_moot_disputes(txn: &mut SlotTxn) {
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

/// After a claim gained evidence: settle disputes it is part of, or revive it
/// if it was outweighed. Returns the ids of claims whose status changed.
pub fn reassess(txn: &mut SlotTxn, ctx: &WriteCtx, id: &str) -> Vec<String> {
    if ctx.spec.is_multi() || pinned(txn, id) {
        return Vec::new();
    }
    let now = txn.now;
    let margin = ctx.settings.dispute_margin;
    let Some(claim) = txn.claim(id).cloned() else { return Vec::new() };
    let mut changed = Vec::new();
    match claim.status {
        Status::Disputed => {
            let open: Vec<(String, String)> = txn
                .slot
                .conflicts
                .iter()
                .filter(|c| c.kind == ConflictKind::Dispute && c.status == ConflictStatus::Open)
                .filter_map(|c| {
                    if c.earlier_id == id { Some((c.id.clone(), c.newer_id.clone())) }
                    else if c.newer_id == id { Some((c.id.clone(), c.earlier_id.clone())) }
                    else { None }
                })
                .collect();
            let mine = support_of(ctx, &claim, now);
            for (cf, other_id) in open {
                let Some(other) = txn.claim(&other_id).cloned() else { continue };
                let theirs = support_of(ctx, &other, now);
                if (mine - theirs).abs() <= margin {
                    continue;
                }
                let (winner, loser) = if mine > theirs { (id.to_string(), other_id.clone()) } else { (other_id.clone(), id.to_string()) };
                if pinned(txn, &loser) {
                    // Evidence never overrides a person: the dispute waits for one.
                    continue;
                }
                txn.update_conflict(&cf, |c| c.status = ConflictStatus::ResolvedByEvidence);
                txn.update_claim(&loser, |c| c.status = Status::Outweighed);
                changed.push(loser.clone());
                txn.update_claim(&winner, |c| c.status = Status::Active);
                changed.push(winner.clone());
                txn.log_change("dispute_resolved", &[&winner, &loser], None, Some(&cf),
                    format!("new evidence breaks the tie ({:.2} vs {:.2})", mine.max(theirs), mine.min(theirs)));
            }
        }
        Status::Outweighed => {
            let actives: Vec<Claim> = txn.slot.claims.iter().filter(|c| c.status == Status::Active).cloned().collect();
            let mine = support_of(ctx, &claim, now);
            let params = &ctx.settings.belief;
            // An outweighed claim must contest the strongest current claim; what
            // it does then applies to every current claim (an ask_user pair, say).
            let theirs = actives.iter().map(|a| support_of(ctx, a, now)).fold(f64::MIN, f64::max);
            for active in actives {
                if pinned(txn, &active.id) {
                    continue;
                }
                let newer = ctx.spec.time_varying && claim.effective_from() > active.effective_from();
                if newer && belief::alone(mine, params) >= belief::alone(theirs, params) - ctx.settings.outweigh_margin {
                    let from = claim.effective_from();
                    txn.update_claim(&active.id, |c| {
                        c.status = Status::Superseded;
                        c.valid_to = Some(from);
                        c.superseded_by = Some(id.to_string());
                    });
                    txn.update_claim(id, |c| {
                        c.status = Status::Active;
                        c.supersedes = Some(active.id.clone());
                    });
                    txn.log_change("revived_supersede", &[id, &active.id], None, None,
                        "new evidence makes the newer claim credible: it now supersedes the older one".into());
                    changed.extend([id.to_string(), active.id.clone()]);
                } else if !newer && mine > theirs + margin {
                    txn.update_claim(&active.id, |c| c.status = Status::Outweighed);
                    txn.update_claim(id, |c| c.status = Status::Active);
                    txn.log_change("revived", &[id, &active.id], None, None,
                        format!("new evidence outweighs the current claim ({mine:.2} vs {theirs:.2})"));
                    changed.extend([id.to_string(), active.id.clone()]);
                } else if !newer && (mine - theirs).abs() <= margin {
                    txn.update_claim(&active.id, |c| c.status = Status::Disputed);
                    txn.update_claim(id, |c| c.status = Status::Disputed);
                    let reason = format!("{:?} regained enough evidence to contest {:?}", claim.object, active.object);
                    txn.open_conflict(ConflictKind::Dispute, &active.id, id, reason);
                    changed.extend([id.to_string(), active.id.clone()]);
                }
            }
        }
        _ => {}
    }
    if !changed.is_empty() {
        close_moot_disputes(txn);
        refresh_beliefs(txn, ctx);
    }
    changed.dedup();
    changed
}
