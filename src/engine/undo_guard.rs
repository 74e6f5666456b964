//! When an undo is stale (SPEC §6): `undo` restores only while what it
//! restores is as the change left it, and never removes a later observation.
//! These read the slot's log to name the later change.

use crate::error::{Error, ErrorCode};
use crate::model::{ConflictKind, ConflictRecord, ConflictStatus, LogEntry, Settlement};
use crate::txn::SlotTxn;

/// `UNDO_STALE` naming the later change when a claim the settlement changed
/// (or a conflict it made moot) is no longer as the settlement left it.
pub(super) fn stale_change(txn: &SlotTxn, record: &ConflictRecord, log: &[LogEntry]) -> Option<Error> {
    if let Some(cf) = record.opened.iter().chain(&record.reopened).chain(&record.reopened_moot).filter_map(|id| txn.slot.conflict(id)).find(|c| c.status != ConflictStatus::Open) {
        return Some(
            Error::new(
                ErrorCode::UndoStale,
                format!("cannot undo conflict {:?}: conflict {} it opened is {:?} since; undo that first; nothing was changed", record.id, cf.id, cf.status),
            )
            .with_field("conflictId"),
        );
    }
    // A claim the settlement kept that left the live set since (superseded,
    // moved by an entity merge): the conflict would only reopen as moot, and
    // what restores the claim later would find its question gone.
    let kept: Vec<&String> = match record.settlement {
        Some(Settlement::KeepBoth) => vec![&record.earlier_id, &record.newer_id],
        Some(Settlement::KeepNewer) => vec![&record.newer_id],
        Some(Settlement::KeepEarlier) => vec![&record.earlier_id],
        _ => Vec::new(),
    };
    let plain = !matches!(record.kind, ConflictKind::Dependent | ConflictKind::MergeProposal);
    if let Some(gone) = kept.iter().filter(|_| plain).find_map(|id| txn.claim(id).filter(|c| !c.status.is_live())) {
        return Some(
            Error::new(
                ErrorCode::UndoStale,
                format!("cannot undo conflict {:?}: claim {} it kept is {} since; nothing was changed", record.id, gone.id, gone.status.as_str()),
            )
            .with_field("conflictId"),
        );
    }
    let moved = record.changes.iter().find_map(|ch| {
        let claim = txn.claim(&ch.claim_id)?;
        (claim.status != ch.after).then_some((claim, ch.after))
    })?;
    let (claim, left) = moved;
    let later = log
        .iter()
        .rev()
        .find(|e| e.claim_ids.iter().any(|id| id == &claim.id) && e.conflict_id.as_deref() != Some(record.id.as_str()))
        .map(|e| format!(" by `{}` at {} ({})", e.rule, e.at.to_iso(), e.note))
        .unwrap_or_default();
    Some(
        Error::new(
            ErrorCode::UndoStale,
            format!(
                "cannot undo conflict {:?}: claim {} was left {} by the settlement but is now {}{later}; nothing was changed",
                record.id, claim.id, left.as_str(), claim.status.as_str()
            ),
        )
        .with_field("conflictId"),
    )
}

/// Conflicts the latest (not yet undone) entity merge closed as moot in a slot.
pub(super) fn mooted_by_merge(log: &[LogEntry]) -> Vec<String> {
    let since = log.iter().rposition(|e| e.cause.op == "undo_merge").map_or(0, |i| i + 1);
    log[since..]
        .iter()
        .filter(|e| e.rule == "conflict_moot" && e.cause.op == "merge_entities")
        .filter_map(|e| e.conflict_id.clone())
        .collect()
}

/// Claims named by log entries after the latest settlement of `conflict_id`.
pub(super) fn touched_since_settlement(log: &[LogEntry], conflict_id: &str) -> Vec<String> {
    let Some(at) = log.iter().rposition(|e| e.rule == "settle" && e.conflict_id.as_deref() == Some(conflict_id)) else {
        return Vec::new();
    };
    let version = log[at].version;
    // Entries of the settlement's own commit (moot closings, questions it asked) are not later.
    log[at + 1..].iter().filter(|e| e.version > version).flat_map(|e| e.claim_ids.iter().cloned()).collect()
}
