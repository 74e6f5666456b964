//! Strategies that treat a slot as a list of entries rather than one belief:
//! append, merge_on_read, replace, confidence_gated, llm_merge, reject, ask_user.

use crate::hooks::MergeResult;
use crate::model::{Action, Claim, ConflictKind, ConflictStatus, Relation, Shared, Status};
use crate::txn::SlotTxn;

use super::beliefs::{reweigh_claims, reweigh_entries};
use super::reconcile::apply_reconcile;
use super::{held, Strategy};
use super::ctx::{Applied, WriteCtx};

fn actives(txn: &SlotTxn) -> Vec<Shared<Claim>> {
    txn.slot.claims.iter().filter(|c| c.status.is_current()).cloned().collect()
}

/// Moves `ids` out of the active set, superseded by `by`.
fn supersede_all(txn: &mut SlotTxn, ids: &[String], by: &str, rule: &str) {
    for old in ids {
        txn.update_claim(old, |c| {
            c.status = Status::Superseded;
            c.superseded_by = Some(by.to_string());
        });
    }
    if !ids.is_empty() {
        let mut all: Vec<&str> = vec![by];
        all.extend(ids.iter().map(String::as_str));
        txn.log_change(rule, &all, None, None, format!("{} earlier entr{} left the active set", ids.len(), if ids.len() == 1 { "y" } else { "ies" }));
    }
}

fn add(txn: &mut SlotTxn, ctx: &WriteCtx, draft: Claim, rule: &str, note: String) -> String {
    let id = draft.id.clone();
    txn.add_claim(draft);
    // Only an ask_user pair is a genuine rivalry; other entries stand alone.
    if rule == "ask_user" {
        reweigh_claims(txn, ctx);
    } else {
        reweigh_entries(txn, ctx);
    }
    let after = txn.claim(&id).map(|c| c.confidence).unwrap_or(0.0);
    txn.log_change(rule, &[&id], Some((0.0, after)), None, note);
    id
}

/// Applies every strategy but `reconcile` to an occupied slot. `merged` is the
/// merge hook's answer for `llm_merge`.
pub fn apply_entries(txn: &mut SlotTxn, ctx: &WriteCtx, strategy: Strategy, draft: Claim, merged: Option<MergeResult>) -> Applied {
    match strategy {
        Strategy::Reconcile => apply_reconcile(txn, ctx, draft),
        Strategy::Append | Strategy::MergeOnRead => append(txn, ctx, strategy, draft),
        _ => against_current(txn, ctx, strategy, draft, merged),
    }
}

/// The strategies that weigh the draft against the slot's active entries.
fn against_current(txn: &mut SlotTxn, ctx: &WriteCtx, strategy: Strategy, draft: Claim, merged: Option<MergeResult>) -> Applied {
    let current = actives(txn);
    let current_ids: Vec<String> = current.iter().map(|c| c.id.clone()).collect();
    match strategy {
        Strategy::Replace => replace(txn, ctx, draft, &current_ids),
        Strategy::ConfidenceGated => {
            let best = current.iter().map(|c| c.stated_confidence).fold(f64::MIN, f64::max);
            if draft.stated_confidence >= best {
                replace(txn, ctx, draft, &current_ids)
            } else {
                let mut a = Applied::skipped(draft.id);
                a.affected = current_ids;
                a
            }
        }
        Strategy::LlmMerge => merge(txn, ctx, draft, merged.unwrap_or_default(), &current),
        // reject, ask_user (`apply_entries` sends the others elsewhere).
        _ => {
            // A retracted value holds again only after its retraction.
            let mut draft = draft;
            if let Some(retracted) = held::after_retractions(txn, &mut draft) {
                return held::corroborate_retracted(txn, &retracted, draft);
            }
            // A value the slot already holds (even outweighed, or as history
            // for the draft's time), or a less specific form of one, is
            // corroborated, never copied (as `reconcile` confirms it).
            let same = |c: &Claim| super::same_value(c, &draft) || super::refines(&draft, c);
            if txn.slot.claims.iter().any(|c| c.status.is_live() && c.kind.is_value() && same(c)) || held::history_covering(txn, &draft, same).is_some() {
                return apply_reconcile(txn, ctx, draft);
            }
            if strategy == Strategy::Reject {
                let mut a = Applied::skipped(draft.id);
                a.action = Action::Rejected;
                a.relation = Some(if ctx.spec.is_multi() { Relation::Independent } else { Relation::Contradict });
                a.affected = current_ids;
                return a;
            }
            let object = draft.object.clone();
            let id = add(txn, ctx, draft, "ask_user", "stored; waits for a person beside the earlier entries".into());
            let mut conflicts = Vec::new();
            for c in &current {
                let reason = format!("{:?} differs from {:?}: asking the user which holds", object, c.object);
                if let Some(cf) = txn.open_conflict(ConflictKind::AskUser, &c.id, &id, reason) {
                    conflicts.push(cf);
                }
            }
            let mut a = Applied::stored(Action::Added, Some(Relation::Contradict), id, current_ids);
            a.conflicts = conflicts;
            a
        }
    }
}

/// A new active entry beside the others; the oldest beyond `maxEntries`
/// leave the active set and are what the write affected (the entries that
/// stay were not touched: listing them all made each write of an uncapped
/// log cost O(entries), issue #43).
fn append(txn: &mut SlotTxn, ctx: &WriteCtx, strategy: Strategy, draft: Claim) -> Applied {
    let active = txn.slot.claims.count_flagged();
    let id = add(txn, ctx, draft, strategy.name(), format!("appended beside {active} active entries"));
    let cap = ctx.settings.max_entries;
    let excess = if cap > 0 { (active + 1).saturating_sub(cap) } else { 0 };
    let leaving: Vec<String> = txn.slot.claims.iter().filter(|c| c.status.is_current() && c.id != id).take(excess).map(|c| c.id.clone()).collect();
    supersede_all(txn, &leaving, &id, "cap");
    Applied::stored(Action::Appended, None, id, leaving)
}

fn replace(txn: &mut SlotTxn, ctx: &WriteCtx, draft: Claim, current_ids: &[String]) -> Applied {
    let id = add(txn, ctx, draft, "replace", "the new entry becomes the only active one".into());
    supersede_all(txn, current_ids, &id, "replaced");
    Applied::stored(Action::Replaced, None, id, current_ids.to_vec())
}

/// The ids of active entries a person approved by settling a conflict.
fn approved(txn: &SlotTxn, current: &[Shared<Claim>]) -> Vec<String> {
    current
        .iter()
        .filter(|c| {
            txn.slot.conflicts.iter().any(|cf| {
                cf.status == ConflictStatus::Settled
                    && match cf.settlement {
                        Some(crate::model::Settlement::KeepNewer) => cf.newer_id == c.id,
                        Some(crate::model::Settlement::KeepEarlier) => cf.earlier_id == c.id,
                        Some(crate::model::Settlement::KeepBoth) => cf.earlier_id == c.id || cf.newer_id == c.id,
                        Some(crate::model::Settlement::Same | crate::model::Settlement::Different) | None => false,
                    }
            })
        })
        .map(|c| c.id.clone())
        .collect()
}

fn merge(txn: &mut SlotTxn, ctx: &WriteCtx, mut draft: Claim, merged: MergeResult, current: &[Shared<Claim>]) -> Applied {
    let incoming = draft.object.clone();
    draft.object = merged.content;
    let mut prov: Vec<_> = current.iter().flat_map(|c| c.provenance.iter().cloned()).collect();
    prov.append(&mut draft.provenance);
    draft.provenance = prov.into();
    draft.stated_confidence = current.iter().map(|c| c.stated_confidence).fold(draft.stated_confidence, f64::max);
    let current_ids: Vec<String> = current.iter().map(|c| c.id.clone()).collect();
    let approved = approved(txn, current);
    if merged.contradicts && !approved.is_empty() {
        draft.status = Status::Outweighed;
        let id = draft.id.clone();
        txn.add_claim(draft);
        reweigh_entries(txn, ctx);
        let reason = merged.reason.unwrap_or_else(|| format!("merging {incoming:?} rewrites an entry the user approved"));
        let mut conflicts = Vec::new();
        for a in &approved {
            if let Some(cf) = txn.open_conflict(ConflictKind::MergeProposal, a, &id, reason.clone()) {
                conflicts.push(cf);
            }
        }
        let mut applied = Applied::stored(Action::Merged, None, id, approved);
        applied.conflicts = conflicts;
        applied.pending = true;
        return applied;
    }
    let id = add(txn, ctx, draft, "llm_merge", format!("the merge hook consolidated {} entries with {incoming:?}", current.len()));
    supersede_all(txn, &current_ids, &id, "merged");
    Applied::stored(Action::Merged, None, id, current_ids)
}
