//! Memory's own records (the calibration in force, user-defined predicates)
//! kept as one active claim in a reserved slot: a new record ends the last as
//! history, so `why` shows every version and nothing is lost.

use crate::belief::{set_belief, to_log_odds};
use crate::model::{Claim, ClaimKind, Provenance, Status};
use crate::txn::SlotTxn;

/// Where a record lives and who wrote it.
pub(crate) struct RecordSlot {
    pub id_prefix: &'static str,
    pub subject: &'static str,
    pub predicate: &'static str,
    pub source: &'static str,
}

/// Adds `object` as the slot's one active record, ending the previous ones
/// as history; returns the new claim's id for the caller's log entry.
pub(crate) fn replace_record(txn: &mut SlotTxn, at: &RecordSlot, object: String) -> String {
    let id = txn.new_id(at.id_prefix);
    let previous: Vec<String> = txn.slot.claims.iter().filter(|c| c.status == Status::Active).map(|c| c.id.clone()).collect();
    let mut claim = Claim {
        id: id.clone(),
        subject: at.subject.into(),
        predicate: at.predicate.into(),
        object,
        status: Status::Active,
        confidence: 1.0,
        log_odds: 0.0,
        stated_confidence: 1.0,
        valid_from: Some(txn.now),
        valid_to: None,
        stated_valid_to: None,
        recorded_at: txn.now,
        provenance: vec![Provenance { source_id: at.source.into(), source_trust: None, extractor_conf: None, observed_at: None, stated_from: None, reported_at: None, at_write: false }].into(),
        superseded_by: None,
        supersedes: previous.last().cloned(),
        conflict_ids: Vec::new(),
        object_entity: None,
        archived_observations: 0,
        kind: ClaimKind::Value,
    };
    set_belief(&mut claim, to_log_odds(0.99));
    txn.add_claim(claim);
    let now = txn.now;
    for old in &previous {
        txn.update_claim(old, |c| c.end_as_history(&id, Some(now)));
    }
    id
}
