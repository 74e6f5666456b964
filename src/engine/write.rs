//! One write from candidate to committed slot (`remember`), with optimistic
//! concurrency, idempotency and hooks: the candidate is planned (validated,
//! its strategy chosen), applied to its loaded slot by the strategy, and
//! committed, or answered with the outcome recorded when it first landed.

use serde::{Deserialize, Serialize};

use super::{dependent, entity, gave_up, prepare, read, AutoCalibrate, Engine};
use crate::error::{Error, ErrorCode, Result};
use crate::model::{Action, Candidate, Claim, LogCause, Outcome, Slot, SlotRef, StrategySource, WriteRecord};
use crate::store::Store;
use crate::strategy::{self, Applied, Strategy, WriteCtx};
use crate::time::Timestamp;
use crate::txn::SlotTxn;

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct WriteOptions {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strategy: Option<String>,
    /// Compare-and-swap: fail with `CONCURRENCY` unless the slot is at this version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_version: Option<u64>,
}

/// A validated write with its strategy, ready to apply to a loaded slot.
pub(crate) struct Planned {
    pub(super) prepared: prepare::Prepared,
    pub(super) strategy: Strategy,
    pub(super) source: StrategySource,
    pub(super) cause: LogCause,
    /// The same predicate's slots of entities merged into the subject's: a
    /// write that landed there before the merge is found there (SPEC §8).
    pub(super) merged_slots: Vec<SlotRef>,
    /// The known entity the subject's name resolved to, at its slot's version
    /// then: a merge of it since planning sends the write to its new home.
    pub(super) subject_entity: Option<entity::ResolvedAt>,
}

impl Planned {
    pub(super) fn replayed_in<'s>(&self, slot: &'s Slot) -> Option<&'s WriteRecord> {
        let id = self.prepared.write_id.as_ref()?;
        slot.writes.iter().find(|w| &w.id == id)
    }
}

impl Engine {
    /// Validates a candidate and picks its strategy; nothing is loaded yet.
    pub(super) fn plan(&self, candidate: &Candidate, call_strategy: Option<Strategy>, now: Timestamp) -> Result<Planned> {
        let mut prepared = prepare::prepare(candidate, &self.settings, now, self.ids.next_id("cl"))?;
        let (strategy, source) = strategy::choose(
            call_strategy,
            self.settings.strategy,
            &prepared.spec,
            &self.settings.type_defaults,
            self.merge.is_some(),
        )?;
        if strategy == Strategy::LlmMerge && self.merge.is_none() {
            return Err(Error::new(
                ErrorCode::MergeHookMissing,
                format!("strategy llm_merge for {:?} needs a merge hook; pass `merge` to new Memory()", prepared.spec.name),
            ));
        }
        // What the claim is: a free-text entry of a log-like slot, or a value.
        prepared.draft.kind = strategy.kind();
        let cause = LogCause {
            op: "remember".into(),
            write_id: prepared.write_id.clone(),
            object: Some(prepared.draft.object.clone()),
            source_id: prepared.draft.provenance.first().map(|p| p.source_id.clone()),
            strategy: Some(strategy.name().into()),
            by: None,
        };
        Ok(Planned { prepared, strategy, source, cause, merged_slots: Vec::new(), subject_entity: None })
    }

    /// Applies one planned write to a loaded slot (calling the merge hook when
    /// the strategy needs it) and records its idempotency key.
    pub(super) async fn apply_planned(&self, txn: &mut SlotTxn, planned: &Planned) -> Result<Applied> {
        let ctx = WriteCtx { spec: &planned.prepared.spec, settings: &self.settings };
        // A slot whose only live claims are outweighed (its current one was
        // retracted) still holds values: the relation engine must see them,
        // or a re-sent value would be added as a second copy.
        let occupied = txn.slot.claims.iter().any(|c| c.status.is_current())
            || (matches!(planned.strategy, Strategy::Reconcile | Strategy::AskUser | Strategy::Reject) && txn.slot.claims.iter().any(|c| c.status.is_live()));
        let merged = match (planned.strategy, occupied, &self.merge) {
            (Strategy::LlmMerge, true, Some(hook)) => {
                let actives = txn.slot.current_claims();
                Some(hook.merge(&actives, &planned.prepared.draft).await?)
            }
            _ => None,
        };
        txn.cause = planned.cause.clone();
        let draft = planned.prepared.draft.clone();
        let valued = matches!(planned.strategy, Strategy::Reconcile | Strategy::AskUser | Strategy::Reject);
        let applied = if occupied {
            strategy::apply_entries(txn, &ctx, planned.strategy, draft, merged)
        } else if valued && strategy::meets_past(txn, &draft) {
            // History or a retraction of this value: the relation engine decides.
            strategy::apply_reconcile(txn, &ctx, draft)
        } else {
            first_write(txn, &ctx, draft)
        };
        if applied.stored {
            dependent::resolve_by_write(txn, &applied);
        }
        if let (true, Some(write_id)) = (applied.stored, &planned.prepared.write_id) {
            txn.record_write(WriteRecord { id: write_id.clone(), claim_id: applied.claim_id.clone(), action: applied.action });
        }
        Ok(applied)
    }

    /// Writes one candidate (SPEC §7), then counts it toward the next
    /// automatic calibration (run here when `calibrate: "inline"`).
    pub async fn remember(&self, candidate: &Candidate, options: &WriteOptions) -> Result<Outcome> {
        let outcome = self.remember_one(candidate, options).await?;
        if outcome.stored() {
            self.after_writes(1).await.map_err(|mut e| {
                e.message = format!("{} (the write itself was committed, claim {}; the automatic calibration it started failed)", e.message, outcome.claim.id);
                e
            })?;
        }
        Ok(outcome)
    }

    /// Counts `n` stored writes; runs the automatic calibration when it is due and inline.
    pub(crate) async fn after_writes(&self, n: u64) -> Result<()> {
        self.note_writes(n);
        if self.auto_calibrate == AutoCalibrate::Inline {
            self.calibrate_if_due().await?;
        }
        Ok(())
    }

    async fn remember_one(&self, candidate: &Candidate, options: &WriteOptions) -> Result<Outcome> {
        self.ids.health()?;
        let now = self.clock.now()?;
        let call_strategy = options.strategy.as_deref().map(Strategy::parse).transpose()?;
        self.ensure_defined(now, std::iter::once(candidate.predicate.as_str())).await?;
        let mut hops = 0;
        loop {
            let mut planned = self.plan(candidate, call_strategy, now)?;
            let names = self.resolve_planned(&mut planned, candidate.subject_type.as_deref(), &mut entity::BatchIds::default()).await?;
            let (mut outcome, kept) = match self.write_planned(&planned, options, now).await? {
                Landed::Kept(o) => (o, true),
                Landed::Answered(o) => (o, false),
                Landed::EntityMerged => {
                    // The subject's entity was merged after its name was resolved: resolve it again.
                    hops += 1;
                    if hops > self.settings.retries {
                        return Err(gave_up(&planned.prepared.slot, hops));
                    }
                    continue;
                }
            };
            // A replay of a write sent with other content changed nothing (SPEC §8):
            // the names of this candidate are not the write's (model seed 33).
            let kept = kept && !(outcome.replayed && outcome.claim.object != planned.prepared.draft.object);
            if kept {
                // The fact is committed; its names reach their entity slots in commits of their own.
                let stood = |e: Error| committed_before(e, &outcome.claim.id, ", to record its names");
                outcome.resolutions = self.record_names(&names).await.map_err(stood)?;
                outcome.conflicts.extend(self.conflicts_of(&outcome.resolutions).await.map_err(stood)?);
            } else {
                outcome.resolutions = names.into_iter().map(|n| n.resolution).collect();
            }
            outcome.spec = self.spec_used(&outcome.claim.predicate);
            return Ok(outcome);
        }
    }

    /// One planned write against its slot, retrying lost races.
    async fn write_planned(&self, planned: &Planned, options: &WriteOptions, now: Timestamp) -> Result<Landed> {
        let slot_ref = &planned.prepared.slot;
        self.ensure_calibration().await?;
        let mut attempts = 0;
        let mut held = Held::Allowed;
        loop {
            attempts += 1;
            let slot = held.load(&*self.store, slot_ref).await?;
            let opens_slot = slot.version == 0;
            // A write that already landed answers with its recorded outcome,
            // whatever version the caller last read (SPEC §8), and with its
            // claim as the slot holds it now (superseded, retracted or erased
            // since, perhaps): not from a held snapshot.
            if let Some(record) = planned.replayed_in(&slot) {
                if held.reload_if_served(&mut attempts) {
                    continue;
                }
                return replay(&slot, record, planned.strategy, planned.source).map(Landed::Kept);
            }
            if let Some(replayed) = self.replayed_before_merge(planned).await? {
                return Ok(Landed::Kept(replayed));
            }
            // Checked after the slot is read: a merge that seals the slot later changes its version.
            if self.merged_since(planned).await? {
                return Ok(Landed::EntityMerged);
            }
            if let Some(expected) = options.expected_version {
                if slot.version != expected {
                    if held.reload_if_served(&mut attempts) {
                        continue;
                    }
                    return Err(stale(slot_ref, expected, slot.version));
                }
            }
            let slot = self.with_history_reached(slot_ref, slot, std::iter::once(&planned.prepared.draft)).await?;
            let current_before = self.current_before(slot_ref, &slot);
            let mut txn = SlotTxn::new(slot, now, planned.cause.clone(), self.ids.clone()).single_valued(!planned.prepared.spec.is_multi()).calibrated(self.calibration_version());
            let applied = self.apply_planned(&mut txn, planned).await?;
            if !applied.stored {
                // An answer without a commit: only from the slot as it is now.
                if held.reload_if_served(&mut attempts) {
                    continue;
                }
                if let Some(replayed) = self.replayed_elsewhere(planned).await? {
                    return Ok(Landed::Answered(replayed));
                }
                let version = txn.slot.version;
                return Ok(Landed::Answered(outcome(&txn.slot, slot_ref, &applied, Some(&planned.prepared.draft), planned.strategy, planned.source, version, attempts)));
            }
            // An archive chunk is committed before the slot: a keyed write
            // whose id another slot holds would leave it behind when its commit
            // is refused, though it changes nothing (model seed 53). Asked first
            // only then, so a write keeps its one round trip otherwise.
            if planned.prepared.write_id.is_some() && self.archive_due(&txn, slot_ref) {
                if let Some(replayed) = self.replayed_elsewhere(planned).await? {
                    return Ok(Landed::Answered(replayed));
                }
            }
            self.archive_overflow(&mut txn, slot_ref).await?;
            let commit = txn.into_commit(slot_ref.clone());
            if let Ok(slot) = self.store.commit_slot_owned(commit).await? {
                if opens_slot {
                    self.follow_merge_after(planned).await.map_err(|e| committed_before(e, &applied.claim_id, ""))?;
                }
                let flagged = self.flag_dependents(slot_ref, &current_before, &slot, &[]).await?;
                let mut done = outcome(&slot, slot_ref, &applied, None, planned.strategy, planned.source, slot.version, attempts);
                done.conflicts.extend(flagged);
                return Ok(Landed::Kept(done));
            }
            // Refused: the version moved on, or the candidate id was written to another slot.
            if let Some(replayed) = self.replayed_elsewhere(planned).await? {
                // Its names are not this candidate's: none are recorded.
                return Ok(Landed::Answered(replayed));
            }
            if held.reload_if_served(&mut attempts) {
                continue;
            }
            if let Some(expected) = options.expected_version {
                return Err(stale(slot_ref, expected, expected + 1));
            }
            if attempts > self.settings.retries {
                return Err(gave_up(slot_ref, attempts));
            }
        }
    }

    /// The recorded outcome of a keyed write that landed on an entity since
    /// merged into the subject's (a claim the merge did not move keeps its
    /// record where it was written).
    pub(super) async fn replayed_before_merge(&self, planned: &Planned) -> Result<Option<Outcome>> {
        if planned.prepared.write_id.is_none() {
            return Ok(None);
        }
        for slot_ref in &planned.merged_slots {
            let slot = self.store.load_slot(slot_ref).await?;
            if let Some(record) = planned.replayed_in(&slot) {
                return replay(&slot, record, planned.strategy, planned.source).map(Some);
            }
        }
        Ok(None)
    }

    /// The recorded outcome of a keyed write that landed in another slot (the
    /// same candidate id sent with another subject or predicate), where the
    /// store indexes candidate ids: an id changes memory once (SPEC §8).
    pub(crate) async fn replayed_elsewhere(&self, planned: &Planned) -> Result<Option<Outcome>> {
        let Some(id) = planned.prepared.write_id.as_ref() else {
            return Ok(None);
        };
        let Some(home) = self.store.find_write(id).await? else {
            return Ok(None);
        };
        if home.key == planned.prepared.slot.key {
            return Ok(None);
        }
        let slot = self.store.load_slot(&home).await?;
        match slot.writes.iter().find(|w| &w.id == id) {
            Some(record) => replay(&slot, record, planned.strategy, planned.source).map(Some),
            None => Ok(None),
        }
    }
}

/// A failure after the write's fact was committed: the message says so, and
/// how a retry finishes the rest (`then`).
fn committed_before(mut e: Error, claim_id: &str, then: &str) -> Error {
    e.message = format!("{} (the fact itself was committed, claim {claim_id}; retry the write, with the same candidate id if it has one{then})", e.message);
    e
}

/// What one planned write came to.
enum Landed {
    /// Memory keeps the write (stored now, or replayed from before): its names are recorded.
    Kept(Outcome),
    /// An answer that changed nothing of this candidate's (skipped, rejected,
    /// or another write's replay): its names are not recorded.
    Answered(Outcome),
    /// The subject's entity was merged away since planning: plan again.
    EntityMerged,
}

/// Whether a write's slot may come from a snapshot the store holds
/// (`Store::load_slot_to_write`). Once a held snapshot turned out stale, or an
/// answer must not rest on one, the write reloads from the store; that reload
/// is not counted as another attempt (no other writer was involved).
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Held {
    Allowed,
    /// The last load came from a snapshot the store held.
    Served,
    Refused,
}

impl Held {
    pub(super) async fn load(&mut self, store: &dyn Store, slot_ref: &SlotRef) -> Result<Slot> {
        if *self == Held::Refused {
            return store.load_slot(slot_ref).await;
        }
        let (slot, held) = store.load_slot_to_write(slot_ref).await?;
        *self = if held { Held::Served } else { Held::Refused };
        Ok(slot)
    }

    /// `true` when the slot came from a held snapshot: from now on it is
    /// loaded from the store, and the attempt is given back.
    pub(super) fn reload_if_served(&mut self, attempts: &mut u32) -> bool {
        let served = *self == Held::Served;
        *self = Held::Refused;
        if served {
            *attempts -= 1;
        }
        served
    }
}

/// The first write to an empty slot is always `added`, whatever the strategy.
fn first_write(txn: &mut SlotTxn, ctx: &WriteCtx, draft: Claim) -> Applied {
    let id = draft.id.clone();
    let object = draft.object.clone();
    txn.add_claim(draft);
    strategy::reweigh_claims(txn, ctx);
    let after = txn.claim(&id).map(|c| c.confidence).unwrap_or(0.0);
    txn.log_change("add", &[&id], Some((0.0, after)), None, format!("first value of the slot: {object:?}"));
    Applied::stored(Action::Added, None, id, Vec::new())
}

fn stale(slot: &SlotRef, expected: u64, actual: u64) -> Error {
    Error::new(
        ErrorCode::Concurrency,
        format!("expectedVersion {expected} is stale: slot {}/{} is at version {actual}", slot.subject, slot.predicate),
    )
    .with_field("expectedVersion")
}

pub(super) fn replay(slot: &Slot, record: &WriteRecord, strategy: Strategy, source: StrategySource) -> Result<Outcome> {
    let claim = slot
        .claim(&record.claim_id)
        .cloned()
        .ok_or_else(|| Error::new(ErrorCode::MalformedStoreData, format!("write {} points at unknown claim {}", record.id, record.claim_id)))?;
    Ok(replayed_outcome(slot, claim, record.action, strategy, source))
}

/// What a write that changed nothing answers: the claim it found, `replayed`.
pub(crate) fn replayed_outcome(slot: &Slot, claim: Claim, action: Action, strategy: Strategy, source: StrategySource) -> Outcome {
    Outcome {
        action,
        relation: None,
        strategy: strategy.name().into(),
        strategy_source: source,
        claim,
        affected: Vec::new(),
        conflicts: Vec::new(),
        slot_version: slot.version,
        attempts: 1,
        replayed: true,
        resolutions: Vec::new(),
        spec: Default::default(),
    }
}

#[allow(clippy::too_many_arguments)]
pub(super) fn outcome(
    slot: &Slot,
    slot_ref: &SlotRef,
    applied: &Applied,
    unstored: Option<&Claim>,
    strategy: Strategy,
    source: StrategySource,
    slot_version: u64,
    attempts: u32,
) -> Outcome {
    let claim = unstored
        .cloned()
        .or_else(|| slot.claim(&applied.claim_id).cloned())
        .unwrap_or_else(|| unreachable_claim(&applied.claim_id));
    Outcome {
        action: applied.action,
        relation: applied.relation,
        strategy: strategy.name().into(),
        strategy_source: source,
        claim,
        affected: applied.affected.iter().filter_map(|id| slot.claim(id).cloned()).collect(),
        conflicts: applied
            .conflicts
            .iter()
            .filter_map(|id| slot.conflict(id))
            .filter_map(|r| read::conflict_view(slot, slot_ref, r))
            .collect(),
        slot_version,
        attempts,
        replayed: false,
        resolutions: Vec::new(),
        spec: Default::default(),
    }
}

/// Strategies only name claims they stored; this keeps a bug visible without panicking.
fn unreachable_claim(id: &str) -> Claim {
    Claim {
        id: id.to_string(),
        subject: String::new(),
        predicate: String::new(),
        object: String::new(),
        status: crate::model::Status::Retired,
        confidence: 0.5,
        log_odds: 0.0,
        stated_confidence: 0.0,
        valid_from: None,
        valid_to: None,
        stated_valid_to: None,
        recorded_at: crate::time::Timestamp(0),
        provenance: Vec::new().into(),
        superseded_by: None,
        supersedes: None,
        conflict_ids: Vec::new(),
        object_entity: None,
        archived_observations: 0,
        kind: crate::model::ClaimKind::Value,
    }
}
