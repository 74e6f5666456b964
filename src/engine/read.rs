//! Reads: recall, why, conflicts, and the Memoir-compatible blob view.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use super::Engine;
use crate::belief;
use crate::blob::{project, Blob};
use crate::error::{Error, ErrorCode, Result};
use crate::model::{Claim, Conflict, ConflictRecord, ConflictStatus, LogEntry, Slot, SlotRef, Status};
use crate::strategy::{self, Strategy, WriteCtx};
use crate::time::Timestamp;

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct RecallOptions {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub predicate: Option<String>,
    /// As-of view: the claims whose valid time covers this moment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
    #[serde(default)]
    pub include_history: bool,
    /// Run the merge hook over `merge_on_read` slots.
    #[serde(default)]
    pub consolidate: bool,
    /// Read `subject` as a name of this entity type ("Acme Corp" → `org:acme`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject_type: Option<String>,
}

/// The answer to "why does memory believe this?".
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct Why {
    pub claim: Claim,
    /// Claims linked by supersession, oldest first (including `claim`).
    pub lineage: Vec<Claim>,
    /// Every log entry that names a claim of the lineage, oldest first.
    pub log: Vec<LogEntry>,
    /// Set when the claim was erased for privacy: its text is gone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tombstone: Option<crate::model::Tombstone>,
    /// The calibration version in force (`calibrate()`), which beliefs computed now use
    /// (each log entry names the version its own belief change used); absent
    /// when this memory was never calibrated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calibration_version: Option<u64>,
}

pub fn conflict_view(slot: &Slot, slot_ref: &SlotRef, r: &ConflictRecord) -> Option<Conflict> {
    let newer = slot.claim(&r.newer_id).or(r.changed.as_deref())?;
    // A same_entity conflict lives in an entity slot; it reads as being about the new entity's name.
    let (subject, predicate) = if r.kind == crate::model::ConflictKind::SameEntity {
        (newer.subject.clone(), newer.predicate.clone())
    } else {
        (slot_ref.subject.clone(), slot_ref.predicate.clone())
    };
    let earlier = slot.claim(&r.earlier_id)?;
    let reason = if r.kind == crate::model::ConflictKind::SameEntity { super::entity::same_entity_question(earlier, newer, &r.reason) } else { r.reason.clone() };
    Some(Conflict {
        id: r.id.clone(),
        kind: r.kind,
        subject,
        predicate,
        earlier: earlier.clone(),
        newer: newer.clone(),
        reason,
        status: r.status,
        opened_at: r.opened_at,
        settled_at: r.settled_at,
        settled_by: r.settled_by.clone(),
        settlement: r.settlement,
        proposed: r.proposed.clone(),
    })
}

/// The claims a read shows. With `at` (default now), those whose validity
/// interval contains it: a scheduled change is not current before its
/// `validFrom`, a stated `validTo` ends a claim, and the claim a scheduled
/// change will end stays visible until then. `includeHistory` without `at`
/// shows every claim.
fn visible(c: &Claim, at: Option<Timestamp>, history: bool, now: Timestamp) -> bool {
    let covers = |t: Timestamp| c.effective_from() <= t && c.valid_to.is_none_or(|end| t < end);
    match at {
        Some(t) => matches!(c.status, Status::Active | Status::Disputed | Status::Superseded | Status::Retracted) && covers(t),
        None if history => true,
        None => {
            let started = c.valid_from.is_none_or(|from| from <= now);
            let ongoing = c.valid_to.is_none_or(|end| now < end);
            let current = c.status.is_current() && started && ongoing;
            let ends_later = c.status == Status::Superseded && c.valid_to.is_some_and(|end| now < end) && covers(now);
            current || ends_later
        }
    }
}

/// An as-of view of a single-valued slot shows what held then: one value at a
/// time (SPEC §6), not every claim whose interval covers the moment.
///
/// - A history claim (superseded, retracted) gives way to a visible claim that
///   superseded it, followed through claims not visible themselves (a claim
///   superseded by one that was then refined gives way to the refinement,
///   which may start earlier than the claim it refined, by carried
///   observations).
/// - A superseded claim has given way once its successor started, even when
///   the successor is not visible itself (merged claims keep no `validTo`; the
///   merge that replaced them may since have been retracted).
/// - A history claim gives way to any visible claim that started later: the
///   world changed then (a value stated from 2024 ends, for reads, a claim
///   retracted only in 2026). On the same start a current claim wins, then
///   the later recorded, then the later to arrive.
/// - An active claim gives way to a history claim still shown that started
///   later (history recorded inside its period).
///
/// Disputed claims are always kept, so disputes stay visible; two active
/// claims (kept together by a person) are both kept.
fn one_value_at_a_time(claims: Vec<Claim>, slot: &Slot, at: Timestamp) -> Vec<Claim> {
    let history = |c: &Claim| matches!(c.status, Status::Superseded | Status::Retracted);
    let visible_successor = |c: &Claim| {
        let mut next = c.superseded_by.as_deref();
        for _ in 0..slot.claims.len() {
            let Some(id) = next else { return false };
            if id == c.id {
                return false;
            }
            if claims.iter().any(|o| o.id == id) {
                return true;
            }
            next = slot.claim(id).and_then(|o| o.superseded_by.as_deref());
        }
        false
    };
    let successor_started = |c: &Claim| {
        let successor = c.superseded_by.as_deref().and_then(|id| slot.claim(id));
        successor.is_some_and(|n| n.effective_from() <= at)
    };
    // The slot keeps claims in arrival order: the last tie-break.
    let order: Vec<_> = claims.iter().enumerate().map(|(i, c)| (c.effective_from(), c.status.is_current(), c.recorded_at, i)).collect();
    let history_shadowed: Vec<bool> = claims
        .iter()
        .enumerate()
        .map(|(i, c)| {
            history(c)
                && ((c.status == Status::Superseded && (visible_successor(c) || successor_started(c)))
                    || order.iter().any(|o| *o > order[i]))
        })
        .collect();
    let kept_history_after = |c: &Claim| {
        claims.iter().zip(&history_shadowed).any(|(o, shadowed)| history(o) && !shadowed && o.effective_from() > c.effective_from())
    };
    let keep: Vec<bool> = claims
        .iter()
        .zip(&history_shadowed)
        .map(|(c, &shadowed)| if c.status == Status::Active { !kept_history_after(c) } else { !shadowed })
        .collect();
    claims.into_iter().zip(keep).filter_map(|(c, k)| k.then_some(c)).collect()
}

impl Engine {
    pub async fn recall(&self, subject: Option<&str>, options: &RecallOptions) -> Result<Vec<Claim>> {
        if let Some(s) = subject {
            if s.trim().is_empty() {
                return Err(Error::invalid("subject", "must not be empty when given"));
            }
            // A reserved slot (an entity) holds no facts about anyone: a caller
            // recalling every subject `listSlots` names gets nothing for it, not an error.
            if super::is_reserved_subject(s) {
                return Ok(Vec::new());
            }
            crate::model::no_key_separator(s, "subject")?;
        }
        if let Some(p) = &options.predicate {
            crate::model::no_key_separator(p, "options.predicate")?;
        }
        let mut subject = subject.map(str::trim).unwrap_or(&self.settings.default_subject).to_string();
        if let Some(t) = &options.subject_type {
            subject = self.resolve_name(&subject, t).await?.entity_id;
            if subject.is_empty() {
                return Ok(Vec::new());
            }
        }
        let at = options.at.as_deref().map(|t| Timestamp::parse(t, "at")).transpose()?;
        self.ensure_calibration().await?;
        let slots = match &options.predicate {
            Some(p) => vec![SlotRef::new(&subject, &self.spec_of(p).name)],
            None => self.store.list_slots(Some(&subject)).await?,
        };
        let mut out = Vec::new();
        for slot_ref in slots {
            let mut slot = self.store.load_slot(&slot_ref).await?;
            if at.is_some() || options.include_history {
                slot = self.with_archived_claims(&slot_ref, slot).await?;
            }
            let now = self.now()?;
            let slot = self.believed_at(&slot_ref, slot, at.unwrap_or(now))?;
            // An erased claim is a tombstone: `why` shows it, recall does not.
            let erased: std::collections::HashSet<&str> = slot.erasures.iter().map(|t| t.claim_id.as_str()).collect();
            let mut claims: Vec<Claim> = slot.claims.iter()
                .filter(|c| visible(c, at, options.include_history, now) && !erased.contains(c.id.as_str()))
                .map(|c| Claim::clone(c)).collect();
            let scheduled = at.is_none() && !options.include_history && claims.iter().any(|c| c.status == Status::Superseded);
            if (at.is_some() || scheduled) && !self.spec_of(&slot_ref.predicate).is_multi() {
                claims = one_value_at_a_time(claims, &slot, at.unwrap_or(now));
            }
            if options.consolidate && at.is_none() && !options.include_history && claims.len() > 1 {
                claims = self.consolidate_merged(&slot_ref, claims).await?;
            }
            out.extend(claims);
        }
        Ok(out)
    }

    /// Belief at `at` (SPEC §4) for a read, without writing: a time-varying
    /// fact nobody re-observed loses belief even if its slot is never written
    /// again, and a past `at` counts only what had been observed by then.
    /// Reconcile slots, and the free-text entries of other slots of a
    /// time-varying predicate (each on its own evidence); the values of
    /// other strategies keep the belief their last write gave them.
    fn believed_at(&self, slot_ref: &SlotRef, mut slot: Slot, at: Timestamp) -> Result<Slot> {
        let spec = self.spec_of(&slot_ref.predicate);
        let reconciles = strategy::choose(None, self.settings.strategy, &spec, &self.settings.type_defaults, self.merge.is_some())
            .map(|(s, _)| s == Strategy::Reconcile)
            .unwrap_or(false);
        let now = self.now()?;
        // Fixed predicates too: a calibration changes their belief without a write (SPEC §4).
        if slot.claims.is_empty() || !(reconciles || spec.time_varying) {
            return Ok(slot);
        }
        let ctx = WriteCtx { spec: &spec, settings: &self.settings };
        let beliefs = if reconciles {
            strategy::beliefs_at(&slot.claims, &ctx, !spec.is_multi(), Some(at), now, |c| c.status != Status::Retired)
        } else {
            strategy::beliefs_at(&slot.claims, &ctx, false, Some(at), now, |c| c.kind.is_entry() && c.status.is_live())
        };
        for (i, l) in beliefs {
            if let Some(c) = slot.claims.get_mut(i) {
                belief::set_belief(c, l);
            }
        }
        Ok(slot)
    }

    /// Folds the entries stored by `merge_on_read` into one consolidated
    /// claim, whichever level chose that strategy (call, config, predicate or
    /// memory type): the log records the strategy each entry was written with.
    async fn consolidate_merged(&self, slot_ref: &SlotRef, claims: Vec<Claim>) -> Result<Vec<Claim>> {
        let log = self.store.read_log(slot_ref).await?;
        let stored_for_merge = |id: &str| {
            log.iter()
                .find(|e| e.claim_ids.iter().any(|c| c == id))
                .is_some_and(|e| e.cause.strategy.as_deref() == Some(Strategy::MergeOnRead.name()))
        };
        let (merged, mut rest): (Vec<Claim>, Vec<Claim>) = claims.into_iter().partition(|c| stored_for_merge(&c.id));
        if merged.len() > 1 {
            rest.push(self.consolidate(&merged).await);
        } else {
            rest.extend(merged);
        }
        Ok(rest)
    }

    /// One consolidated claim from the merge hook, or the deterministic
    /// projection when the hook is missing or fails: a read never fails on a hook.
    async fn consolidate(&self, claims: &[Claim]) -> Claim {
        let (earlier, newest) = claims.split_at(claims.len() - 1);
        let mut merged = newest[0].clone();
        let text = match &self.merge {
            Some(hook) => hook.merge(earlier, &newest[0]).await.ok().map(|r| r.content),
            None => None,
        };
        merged.object = text.unwrap_or_else(|| project(claims).content);
        merged.id = format!("consolidated:{}", newest[0].id);
        merged.provenance = claims.iter().flat_map(|c| c.provenance.iter().cloned()).collect();
        merged
    }

    pub async fn why(&self, claim_id: &str) -> Result<Why> {
        let slot_ref = self.claim_home(claim_id).await?.ok_or_else(|| not_found(claim_id))?;
        let slot = self.store.load_slot(&slot_ref).await?;
        let slot = self.with_archived_claims(&slot_ref, slot).await?;
        let claim = slot.claim(claim_id).cloned().ok_or_else(|| not_found(claim_id))?;
        let mut lineage = vec![claim.clone()];
        let mut cursor = claim.supersedes.clone();
        while let Some(id) = cursor.filter(|id| !lineage.iter().any(|c| &c.id == id)) {
            let Some(c) = slot.claim(&id) else { break };
            lineage.insert(0, c.clone());
            cursor = c.supersedes.clone();
        }
        let mut cursor = claim.superseded_by.clone();
        while let Some(id) = cursor.filter(|id| !lineage.iter().any(|c| &c.id == id)) {
            let Some(c) = slot.claim(&id) else { break };
            lineage.push(c.clone());
            cursor = c.superseded_by.clone();
        }
        self.with_archived(&slot_ref, &slot, &mut lineage).await?;
        let claim = lineage.iter().find(|c| c.id == claim_id).cloned().unwrap_or(claim);
        let log = self
            .store
            .read_log(&slot_ref)
            .await?
            .into_iter()
            .filter(|e| e.claim_ids.iter().any(|id| lineage.iter().any(|c| &c.id == id)))
            .collect();
        let tombstone = slot.tombstone(claim_id).cloned();
        // Beliefs read now (recall) use the calibration in force; each log
        // entry names the one its belief change used.
        let calibration_version = self.calibration().await?.map(|c| c.version);
        Ok(Why { claim, lineage, log, tombstone, calibration_version })
    }

    /// Every subject memory holds facts about, sorted (entity ids included).
    pub async fn subjects(&self) -> Result<Vec<String>> {
        let mut out: Vec<String> = self
            .store
            .list_slots(None)
            .await?
            .into_iter()
            .map(|r| r.subject)
            .filter(|s| !super::is_reserved_subject(s))
            .collect();
        crate::sort::sort(&mut out);
        out.dedup();
        Ok(out)
    }

    /// Open first, then oldest first: from the store's conflict index, loading
    /// only the slots that hold the conflicts listed.
    pub async fn conflicts(&self, status: Option<ConflictStatus>) -> Result<Vec<Conflict>> {
        let mut slots: HashMap<String, Slot> = HashMap::new();
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        for entry in self.indexed_conflicts(status).await? {
            if !seen.insert(entry.id.clone()) {
                continue;
            }
            if !slots.contains_key(&entry.slot_ref.key) {
                let slot = self.store.load_slot(&entry.slot_ref).await?;
                slots.insert(entry.slot_ref.key.clone(), slot);
            }
            let Some(slot) = slots.get(&entry.slot_ref.key) else { continue };
            // The slot is the truth; an index row that disagrees is skipped.
            let record = slot.conflict(&entry.id).filter(|r| status.is_none_or(|s| r.status == s));
            out.extend(record.and_then(|r| conflict_view(slot, &entry.slot_ref, r)));
        }
        // Open first by the slots' word, even where a custom store's index
        // row lags behind a settlement (stable: index order kept otherwise).
        crate::sort::sort_by_key(&mut out, |c| c.status != ConflictStatus::Open);
        Ok(out)
    }

    pub async fn blob(&self, predicate: &str, subject: Option<&str>) -> Result<Blob> {
        if predicate.trim().is_empty() {
            return Err(Error::invalid("predicate", "is required and must not be empty"));
        }
        let subject = subject.unwrap_or(&self.settings.default_subject);
        let slot_ref = SlotRef::new(subject, &self.spec_of(predicate).name);
        let slot = self.store.load_slot(&slot_ref).await?;
        let slot = self.with_archived_claims(&slot_ref, slot).await?;
        Ok(crate::blob::blob_of(predicate, &slot))
    }
}

fn not_found(id: &str) -> Error {
    Error::new(ErrorCode::ClaimNotFound, format!("no claim with id {id:?}")).with_field("claimId")
}
