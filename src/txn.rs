//! A pending change to one loaded slot. Every mutation goes through here so
//! that what changed, and why, is recorded for the commit and the log.

use std::rc::Rc;

use foldhash::HashMap;

use crate::hooks::IdSource;
use crate::model::{
    is_reserved_subject, Claim, ConflictKind, ConflictRecord, ConflictStatus, LogCause, LogEntry, Slot, SlotCommit, SlotIndex, SlotRef, Shared, Status, WriteRecord,
};
use crate::time::Timestamp;

pub struct SlotTxn {
    pub slot: Slot,
    pub now: Timestamp,
    pub cause: LogCause,
    expected_version: u64,
    changed_claims: Vec<String>,
    /// Some claim's belief moved (`update_belief`): the slot document carries
    /// it, but the claim is not listed as changed, so no per-claim row is
    /// rewritten for it (belief is a snapshot that time moves anyway).
    beliefs_moved: bool,
    changed_conflicts: Vec<String>,
    log: Vec<LogEntry>,
    ids: Rc<dyn IdSource>,
    /// The slot holds one value at a time (its predicate is single-valued).
    single_valued: bool,
    /// The calibration version beliefs are computed with, stamped on the log.
    calibration: Option<u64>,
    /// The slot's claim count when the transaction began.
    claims_at_start: usize,
    /// Candidate ids recorded (`record_write`) and dropped (`drop_writes`), for the commit's index.
    new_writes: Vec<String>,
    dropped_writes: Vec<String>,
}

impl SlotTxn {
    pub fn new(slot: Slot, now: Timestamp, cause: LogCause, ids: Rc<dyn IdSource>) -> Self {
        SlotTxn {
            expected_version: slot.version,
            claims_at_start: slot.claims.len(),
            slot,
            now,
            cause,
            changed_claims: Vec::new(),
            beliefs_moved: false,
            changed_conflicts: Vec::new(),
            log: Vec::new(),
            ids,
            single_valued: false,
            calibration: None,
            new_writes: Vec::new(),
            dropped_writes: Vec::new(),
        }
    }

    /// Records a keyed write (its candidate id), which the store indexes to this
    /// slot: the same id sent to another slot then replays instead of writing.
    pub fn record_write(&mut self, record: WriteRecord) {
        self.new_writes.push(record.id.clone());
        self.slot.writes.push(record);
    }

    /// Drops the idempotency records `drop` picks; the store unindexes their ids.
    pub fn drop_writes(&mut self, mut drop: impl FnMut(usize, &WriteRecord) -> bool) {
        let mut i = 0;
        let dropped = &mut self.dropped_writes;
        self.slot.writes.retain(|w| {
            let gone = drop(i, w);
            i += 1;
            if gone {
                dropped.push(w.id.clone());
            }
            !gone
        });
    }

    /// Names the calibration in force, for the log entries that change belief.
    pub fn calibrated(mut self, version: Option<u64>) -> Self {
        self.calibration = version;
        self
    }

    /// Marks the slot as single-valued, so a conflict between two values that
    /// both lost to a third closes as moot.
    pub fn single_valued(mut self, yes: bool) -> Self {
        self.single_valued = yes;
        self
    }

    pub fn is_empty(&self) -> bool {
        self.changed_claims.is_empty() && !self.beliefs_moved && self.changed_conflicts.is_empty() && self.log.is_empty()
    }

    pub fn new_id(&self, prefix: &str) -> String {
        self.ids.next_id(prefix)
    }

    /// The entity of an entity slot, to change; None in any other slot.
    pub fn entity_mut(&mut self) -> Option<&mut crate::entities::Entity> {
        self.slot.entities.get_mut(0).map(|e| &mut **e)
    }

    fn mark_claim(&mut self, id: &str) {
        if !self.changed_claims.iter().any(|c| c == id) {
            self.changed_claims.push(id.to_string());
        }
    }

    fn mark_conflict(&mut self, id: &str) {
        if !self.changed_conflicts.iter().any(|c| c == id) {
            self.changed_conflicts.push(id.to_string());
        }
    }

    /// Whether this transaction changed (or added) claim `id`.
    pub fn changed_claim(&self, id: &str) -> bool {
        self.changed_claims.iter().any(|c| c == id)
    }

    /// The positions of the claims this transaction changed or added, in slot order.
    pub fn changed_positions(&self) -> Vec<usize> {
        let mut at: Vec<usize> = self.changed_claims.iter().filter_map(|id| self.claim_position(id)).collect();
        at.sort_unstable();
        at
    }

    /// Moves the slot's `n` oldest claims out (to the archive, see
    /// `crate::archive::dead_prefix`); the review position follows them.
    pub fn take_oldest_claims(&mut self, n: usize) -> Vec<Shared<Claim>> {
        let moved: Vec<Shared<Claim>> = self.slot.claims.iter().take(n).cloned().collect();
        self.slot.claims = self.slot.claims.iter_from(n).cloned().collect();
        self.slot.archived_claims += n as u64;
        let until = moved.iter().map(|c| c.valid_to.unwrap_or_else(|| c.effective_from())).max();
        self.slot.archived_until = self.slot.archived_until.max(until);
        self.slot.reviewed = self.slot.reviewed.saturating_sub(n);
        moved
    }

    pub fn add_claim(&mut self, claim: Claim) {
        self.mark_claim(&claim.id);
        self.slot.claims.push(claim.into());
    }

    pub fn claim(&self, id: &str) -> Option<&Claim> {
        self.claim_position(id).map(|i| &*self.slot.claims[i])
    }

    /// Where claim `id` is in the slot (by the key hashes each chunk of claims keeps).
    pub fn claim_position(&self, id: &str) -> Option<usize> {
        self.slot.claim_position(id)
    }

    /// Changes a claim in place and marks it for the commit. Unknown ids are ignored.
    pub fn update_claim(&mut self, id: &str, f: impl FnOnce(&mut Claim)) {
        let Some(i) = self.claim_position(id) else { return };
        // The claim as it was, shared: `f` changes a copy (copy on write), and
        // a change that changed nothing puts the shared one back.
        let before = self.slot.claims[i].clone();
        f(&mut self.slot.claims[i]);
        let now = &self.slot.claims[i];
        if !Shared::same(now, &before) && **now != *before {
            self.mark_claim(id);
        } else {
            self.slot.claims[i] = before;
        }
    }

    /// Sets a claim's belief (and nothing else): the slot changes, but the
    /// claim is not listed among the commit's changed claims unless something
    /// else about it changed too.
    pub fn update_belief(&mut self, id: &str, log_odds: f64) {
        if let Some(i) = self.claim_position(id) {
            self.update_belief_at(i, log_odds);
        }
    }

    /// `update_belief` of the slot's claim `i`: a write that refreshes every
    /// live claim's belief does it by position (by id it cost a search per
    /// claim, quadratic in a slot of thousands of values).
    pub fn update_belief_at(&mut self, i: usize, log_odds: f64) {
        if self.slot.claims[i].log_odds != log_odds {
            crate::belief::set_belief(&mut self.slot.claims[i], log_odds);
            self.beliefs_moved = true;
        }
    }

    pub fn update_conflict(&mut self, id: &str, f: impl FnOnce(&mut ConflictRecord)) {
        if let Some(c) = self.slot.conflict_mut(id) {
            f(c);
            self.mark_conflict(id);
        }
    }

    /// Opens a conflict between two claims unless that pair was ever noted
    /// before (settled or not). Returns the new conflict's id.
    pub fn open_conflict(&mut self, kind: ConflictKind, earlier: &str, newer: &str, reason: String) -> Option<String> {
        let note = reason.clone();
        self.open_conflict_noted(kind, earlier, newer, reason, note)
    }

    /// `open_conflict` with a log note other than the stored reason.
    pub fn open_conflict_noted(&mut self, kind: ConflictKind, earlier: &str, newer: &str, reason: String, note: String) -> Option<String> {
        if earlier == newer || self.pair_noted(earlier, newer) {
            return None;
        }
        let id = self.new_id("cf");
        self.slot.conflicts.push(Shared::new(ConflictRecord {
            id: id.clone(),
            kind,
            earlier_id: earlier.to_string(),
            newer_id: newer.to_string(),
            reason,
            status: ConflictStatus::Open,
            opened_at: self.now,
            settled_at: None,
            settled_by: None,
            settlement: None,
            changes: Vec::new(),
            settled_from: None,
            mooted: Vec::new(),
            opened: Vec::new(),
            reopened: Vec::new(),
            reopened_moot: Vec::new(),
            proposed: None,
            changed: None,
            retraction: None,
        }));
        self.mark_conflict(&id);
        for claim_id in [earlier, newer] {
            let cid = id.clone();
            self.update_claim(claim_id, |c| c.note_conflict(&cid));
        }
        let rule = format!("{}_opened", kind_name(kind));
        self.log_change(&rule, &[earlier, newer], None, Some(&id), note);
        Some(id)
    }

    /// Adds a conflict record as it is (one moved from another slot, its id kept).
    pub fn add_conflict_record(&mut self, record: ConflictRecord) {
        let id = record.id.clone();
        self.slot.conflicts.push(Shared::new(record));
        self.mark_conflict(&id);
    }

    /// Some conflict ever named the pair. Every conflict is noted on its local
    /// claims (an invariant), so only the conflicts both claims note are
    /// candidates: no scan of a registry's every question per new one. A
    /// claim not in the slot falls back to the scan.
    fn pair_noted(&self, a: &str, b: &str) -> bool {
        let (Some(ca), Some(cb)) = (self.claim(a), self.claim(b)) else {
            return self.slot.conflicts.iter().any(|c| c.names_pair(a, b));
        };
        ca.conflict_ids
            .iter()
            .filter(|cf| cb.conflict_ids.contains(cf))
            .any(|cf| self.slot.conflict(cf).is_some_and(|c| c.names_pair(a, b)))
    }

    /// Records one state change. `belief` is the first claim's (before, after).
    pub fn log_change(&mut self, rule: &str, claim_ids: &[&str], belief: Option<(f64, f64)>, conflict: Option<&str>, note: String) {
        self.log.push(LogEntry {
            version: self.expected_version + 1,
            at: self.now,
            rule: rule.to_string(),
            claim_ids: claim_ids.iter().map(|s| s.to_string()).collect(),
            confidence_before: belief.map(|b| b.0),
            confidence_after: belief.map(|b| b.1),
            conflict_id: conflict.map(str::to_string),
            cause: self.cause.clone(),
            note,
            calibration_version: self.calibration,
        });
    }

    /// Closes (as `moot`, logged) every open conflict one of whose claims has
    /// left the live set: the question it asked no longer exists (SPEC §6).
    /// Returns the ids it closed. Runs before every commit.
    pub fn close_moot_conflicts(&mut self) -> Vec<String> {
        self.close_moot_in(false)
    }

    /// `close_moot_conflicts`; `reserved`: the slot is a reserved one (see `may_moot`).
    fn close_moot_in(&mut self, reserved: bool) -> Vec<String> {
        if (reserved && !self.may_moot()) || !self.slot.conflicts.iter().any(|cf| cf.status == ConflictStatus::Open) {
            return Vec::new();
        }
        // One look-up table per commit: a registry slot holds hundreds of open
        // conflicts over its name claims, and a scan per claim id was quadratic.
        let status_of: HashMap<&str, Status> = self.slot.claims.iter().map(|c| (c.id.as_str(), c.status)).collect();
        let current = self.slot.claims.iter().find(|c| c.status.is_current()).map(|c| c.id.clone());
        let moot: Vec<(String, String, String)> = self
            .slot
            .conflicts
            .iter()
            .filter(|cf| cf.status == ConflictStatus::Open)
            .filter_map(|cf| {
                if let Some(gone) = cf.local_claim_ids().find(|id| status_of.get(id.as_str()).is_none_or(|s| !s.is_live())) {
                    let status = status_of.get(gone.as_str()).map(|s| s.as_str()).unwrap_or("missing");
                    return Some((cf.id.clone(), gone.clone(), format!("claim {gone} is {status}")));
                }
                if cf.kind == ConflictKind::Dependent || !self.single_valued {
                    return None;
                }
                // A single-valued slot where neither claim is current any more: a third value won.
                let pair_current = [&cf.earlier_id, &cf.newer_id].iter().any(|id| status_of.get(id.as_str()).is_some_and(|s| s.is_current()));
                let winner = current.as_ref().filter(|_| !pair_current)?;
                Some((cf.id.clone(), cf.earlier_id.clone(), format!("neither claim is current: {winner} won on evidence")))
            })
            .collect();
        for (cf, gone, why) in &moot {
            self.update_conflict(cf, |c| c.status = ConflictStatus::Moot);
            // Both claims are named so `why` of either shows it; the one that left comes first.
            let other = self.slot.conflict(cf).map(|c| if &c.earlier_id == gone { c.newer_id.clone() } else { c.earlier_id.clone() }).unwrap_or_default();
            self.log_change("conflict_moot", &[gone, &other], None, Some(cf), format!("{why}: the conflict has nothing left to settle"));
        }
        moot.into_iter().map(|(cf, _, _)| cf).collect()
    }

    /// Whether a transaction on a reserved slot can have left an open conflict
    /// with nothing to settle. Not when it kept every claim and every claim is
    /// current (an entity registry: its claims are names, always active):
    /// neither rule can then find a conflict, so a new name skips the pass
    /// over every open question.
    fn may_moot(&self) -> bool {
        self.slot.claims.len() < self.claims_at_start || !self.slot.claims.all_flagged()
    }

    /// In a single-valued slot, the current claim when neither claim of a pair
    /// is current any more (both outweighed by a third value).
    pub fn third_value_won(&self, pair: &[&String; 2]) -> Option<String> {
        if !self.single_valued || pair.iter().any(|id| self.slot.claim(id).is_some_and(|c| c.status.is_current())) {
            return None;
        }
        self.slot.claims.iter().find(|c| c.status.is_current()).map(|c| c.id.clone())
    }

    pub fn into_commit(mut self, slot_ref: SlotRef) -> SlotCommit {
        self.close_moot_in(is_reserved_subject(&slot_ref.subject));
        self.slot.version = self.expected_version + 1;
        if is_reserved_subject(&slot_ref.subject) {
            // The review pass never reads entity registries or the calibration record: kept
            // reviewed, so the index of slots to review never lists them (a store would read
            // the whole registry on every pass only to skip it).
            self.slot.reviewed = self.slot.claims.len();
        }
        SlotCommit {
            // Derived where it leaves the engine (`SlotIndex::of`): the in-memory
            // store reads the slot itself, and a registry holds thousands of conflicts.
            index: SlotIndex { writes: self.new_writes, dropped_writes: self.dropped_writes, ..SlotIndex::default() },
            slot_ref,
            expected_version: self.expected_version,
            slot: self.slot,
            changed_claims: self.changed_claims,
            changed_conflicts: self.changed_conflicts,
            log: self.log,
        }
    }
}

pub fn kind_name(kind: ConflictKind) -> &'static str {
    match kind {
        ConflictKind::Dispute => "dispute",
        ConflictKind::AskUser => "ask_user",
        ConflictKind::Review => "review",
        ConflictKind::MergeProposal => "merge_proposal",
        ConflictKind::SameEntity => "same_entity",
        ConflictKind::Dependent => "dependent",
    }
}
