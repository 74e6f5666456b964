//! Orchestration: one write from candidate to committed slot, with optimistic
//! concurrency, idempotency and hooks. Reads live in `read.rs`, settlement in
//! `settle.rs`, the review pass in `review.rs`.

mod prepare;
mod read;
mod import;
mod review;
mod settle;

pub use read::{RecallOptions, Why};
pub use review::ReviewReport;

use std::rc::Rc;

use serde::{Deserialize, Serialize};

use crate::config::{EngineConfig, Settings};
use crate::error::{Error, ErrorCode, Result};
use crate::hooks::{Clock, IdSource, Judge, MergeHook, RandomIds};
use crate::model::{Action, Candidate, Claim, LogCause, Outcome, Relation, Slot, SlotRef, StrategySource, WriteRecord};
use crate::predicates::PredicateSpec;
use crate::store::Store;
use crate::strategy::{self, Strategy};
use crate::txn::SlotTxn;

/// What strategies see besides the slot.
pub struct WriteCtx<'a> {
    pub spec: &'a PredicateSpec,
    pub settings: &'a Settings,
}

/// What a strategy did, by claim id; the engine turns it into an `Outcome`.
#[derive(Debug, Clone)]
pub struct Applied {
    pub action: Action,
    pub relation: Option<Relation>,
    pub claim_id: String,
    pub affected: Vec<String>,
    pub conflicts: Vec<String>,
    pub stored: bool,
    /// A merge that waits for approval instead of being applied.
    pub pending: bool,
}

impl Applied {
    pub fn stored(action: Action, relation: Option<Relation>, claim_id: String, affected: Vec<String>) -> Self {
        Applied { action, relation, claim_id, affected, conflicts: Vec::new(), stored: true, pending: false }
    }
    pub fn skipped(claim_id: String) -> Self {
        Applied { action: Action::Skipped, relation: None, claim_id, affected: Vec::new(), conflicts: Vec::new(), stored: false, pending: false }
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct WriteOptions {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strategy: Option<String>,
    /// Compare-and-swap: fail with `CONCURRENCY` unless the slot is at this version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_version: Option<u64>,
}

pub struct Engine {
    store: Rc<dyn Store>,
    settings: Settings,
    clock: Rc<dyn Clock>,
    ids: Rc<dyn IdSource>,
    merge: Option<Rc<dyn MergeHook>>,
    judge: Option<Rc<dyn Judge>>,
}

pub struct Hooks {
    pub clock: Rc<dyn Clock>,
    pub ids: Option<Rc<dyn IdSource>>,
    pub merge: Option<Rc<dyn MergeHook>>,
    pub judge: Option<Rc<dyn Judge>>,
}

impl Engine {
    pub fn new(store: Rc<dyn Store>, config: &EngineConfig, hooks: Hooks) -> Result<Self> {
        Ok(Engine {
            store,
            settings: Settings::new(config)?,
            clock: hooks.clock,
            ids: hooks.ids.unwrap_or_else(|| Rc::new(RandomIds)),
            merge: hooks.merge,
            judge: hooks.judge,
        })
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    pub fn store(&self) -> &Rc<dyn Store> {
        &self.store
    }

    pub fn now(&self) -> Result<crate::time::Timestamp> {
        self.clock.now()
    }

    pub fn spec_of(&self, predicate: &str) -> PredicateSpec {
        self.settings.registry.resolve(predicate)
    }

    pub async fn remember(&self, candidate: &Candidate, options: &WriteOptions) -> Result<Outcome> {
        let now = self.clock.now()?;
        let call_strategy = options.strategy.as_deref().map(Strategy::parse).transpose()?;
        let prepared = prepare::prepare(candidate, &self.settings, now, self.ids.next_id("cl"))?;
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
        let ctx = WriteCtx { spec: &prepared.spec, settings: &self.settings };
        let cause = LogCause {
            op: "remember".into(),
            write_id: prepared.write_id.clone(),
            object: Some(prepared.draft.object.clone()),
            source_id: prepared.draft.provenance.first().map(|p| p.source_id.clone()),
            strategy: Some(strategy.name().into()),
            by: None,
        };
        let mut attempts = 0;
        loop {
            attempts += 1;
            let slot = self.store.load_slot(&prepared.slot).await?;
            if let Some(expected) = options.expected_version {
                if slot.version != expected {
                    return Err(stale(&prepared.slot, expected, slot.version));
                }
            }
            if let Some(write_id) = &prepared.write_id {
                if let Some(record) = slot.writes.iter().find(|w| &w.id == write_id) {
                    return replay(&slot, record, strategy, source);
                }
            }
            let occupied = slot.claims.iter().any(|c| c.status.is_current());
            let merged = match (strategy, occupied, &self.merge) {
                (Strategy::LlmMerge, true, Some(hook)) => {
                    let actives: Vec<Claim> = slot.claims.iter().filter(|c| c.status.is_current()).cloned().collect();
                    Some(hook.merge(&actives, &prepared.draft).await?)
                }
                _ => None,
            };
            let mut txn = SlotTxn::new(slot, now, cause.clone(), self.ids.clone());
            let applied = if occupied {
                strategy::apply_entries(&mut txn, &ctx, strategy, prepared.draft.clone(), merged)
            } else {
                first_write(&mut txn, &ctx, prepared.draft.clone())
            };
            if !applied.stored {
                let slot_version = txn.slot.version;
                return Ok(outcome(&txn.slot, &prepared.slot, &applied, Some(&prepared.draft), strategy, source, slot_version, attempts));
            }
            if let Some(write_id) = &prepared.write_id {
                txn.slot.writes.push(WriteRecord { id: write_id.clone(), claim_id: applied.claim_id.clone(), action: applied.action });
            }
            let commit = txn.into_commit(prepared.slot.clone());
            if self.store.commit_slot(&commit).await? {
                return Ok(outcome(&commit.slot, &prepared.slot, &applied, None, strategy, source, commit.slot.version, attempts));
            }
            if let Some(expected) = options.expected_version {
                return Err(stale(&prepared.slot, expected, expected + 1));
            }
            if attempts > self.settings.retries {
                return Err(Error::new(
                    ErrorCode::Concurrency,
                    format!("slot {}/{} kept changing under this write; gave up after {attempts} attempts", prepared.slot.subject, prepared.slot.predicate),
                ));
            }
        }
    }

    /// Commits a change built by `build` against a freshly loaded slot, retrying on lost races.
    pub(crate) async fn commit_with_retry<T>(
        &self,
        slot_ref: &SlotRef,
        cause: LogCause,
        mut build: impl FnMut(&mut SlotTxn) -> Result<T>,
    ) -> Result<(T, Slot)> {
        let now = self.clock.now()?;
        let mut attempts = 0;
        loop {
            attempts += 1;
            let slot = self.store.load_slot(slot_ref).await?;
            let mut txn = SlotTxn::new(slot, now, cause.clone(), self.ids.clone());
            let value = build(&mut txn)?;
            if txn.is_empty() {
                return Ok((value, txn.slot));
            }
            let commit = txn.into_commit(slot_ref.clone());
            if self.store.commit_slot(&commit).await? {
                return Ok((value, commit.slot));
            }
            if attempts > self.settings.retries {
                return Err(Error::new(ErrorCode::Concurrency, format!("slot {}/{} kept changing; gave up after {attempts} attempts", slot_ref.subject, slot_ref.predicate)));
            }
        }
    }
}

/// The first write to an empty slot is always `added`, whatever the strategy.
fn first_write(txn: &mut SlotTxn, ctx: &WriteCtx, draft: Claim) -> Applied {
    let id = draft.id.clone();
    let object = draft.object.clone();
    txn.add_claim(draft);
    strategy::refresh_beliefs(txn, ctx);
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

fn replay(slot: &Slot, record: &WriteRecord, strategy: Strategy, source: StrategySource) -> Result<Outcome> {
    let claim = slot
        .claim(&record.claim_id)
        .cloned()
        .ok_or_else(|| Error::new(ErrorCode::MalformedStoreData, format!("write {} points at unknown claim {}", record.id, record.claim_id)))?;
    Ok(Outcome {
        action: record.action,
        relation: None,
        strategy: strategy.name().into(),
        strategy_source: source,
        claim,
        affected: Vec::new(),
        conflicts: Vec::new(),
        slot_version: slot.version,
        attempts: 1,
        replayed: true,
    })
}

#[allow(clippy::too_many_arguments)]
fn outcome(
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
        recorded_at: crate::time::Timestamp(0),
        provenance: Vec::new(),
        superseded_by: None,
        supersedes: None,
        conflict_ids: Vec::new(),
    }
}
