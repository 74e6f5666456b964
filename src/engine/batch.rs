//! `remember_many`: many candidates, one load and one commit per slot. Every
//! candidate is validated before anything is loaded; each slot's writes
//! commit atomically. Slots are independent (the store contract is per slot),
//! so a failure part-way leaves earlier slots committed; the error says so,
//! and candidate ids make the retry idempotent.

use std::collections::BTreeMap;
use std::rc::Rc;

use foldhash::HashMap;

use super::entity::{BatchIds, PendingName};
use super::write::{outcome, replay, Held, Planned, WriteOptions};
use super::Engine;
use crate::error::{Error, ErrorCode, Result};
use crate::model::{Action, Candidate, Outcome};
use crate::strategy::{Applied, Strategy};
use crate::txn::SlotTxn;

enum Done {
    Replayed(Box<Outcome>),
    Applied(Applied),
}

impl Engine {
    pub async fn remember_many(&self, candidates: &[Candidate], options: &WriteOptions) -> Result<Vec<Outcome>> {
        if options.expected_version.is_some() {
            return Err(Error::invalid("expectedVersion", "applies to one slot; use remember() for compare-and-swap"));
        }
        self.ids.health()?;
        self.ensure_calibration().await?;
        let now = self.clock.now()?;
        self.ensure_defined(now, candidates.iter().map(|c| c.predicate.as_str())).await?;
        let call_strategy = options.strategy.as_deref().map(Strategy::parse).transpose()?;
        let mut planned: Vec<Planned> = Vec::with_capacity(candidates.len());
        for (i, c) in candidates.iter().enumerate() {
            let p = self.plan(c, call_strategy, now).map_err(|mut e| {
                e.message = format!("candidates[{i}].{}", e.message);
                e.field = e.field.map(|f| format!("candidates[{i}].{f}"));
                e
            })?;
            planned.push(p);
        }
        let mut resolutions = Vec::with_capacity(planned.len());
        let mut batch_ids = BatchIds::batch();
        for (p, c) in planned.iter_mut().zip(candidates) {
            resolutions.push(self.resolve_planned(p, c.subject_type.as_deref(), &mut batch_ids).await?);
        }
        // One commit per slot, in key order. A candidate id sent again within
        // the batch goes in a later round: it lands where it came first, and a
        // later copy replays that write (SPEC §8: an id changes memory once).
        let mut seen: HashMap<&str, usize> = HashMap::default();
        let mut groups: BTreeMap<(usize, &str), Vec<usize>> = BTreeMap::new();
        for (i, p) in planned.iter().enumerate() {
            let round = p.prepared.write_id.as_deref().map_or(0, |id| {
                let n = seen.entry(id).or_insert(0);
                *n += 1;
                *n - 1
            });
            groups.entry((round, p.prepared.slot.key.as_str())).or_default().push(i);
        }
        let mut outcomes: Vec<Option<Outcome>> = vec![None; planned.len()];
        // Replayed from another slot (the id was written there): not this candidate's names.
        let mut elsewhere = vec![false; planned.len()];
        let mut committed = 0;
        for indices in groups.values() {
            let result = self.commit_group(&planned, indices, now, &mut outcomes, &mut elsewhere).await;
            if let Err(mut e) = result {
                if committed > 0 {
                    e.message = format!(
                        "{} ({committed} of {} candidates were already committed, slot by slot; retry with the same candidate ids to finish idempotently)",
                        e.message,
                        planned.len()
                    );
                }
                return Err(e);
            }
            committed += indices.len();
        }
        // Names reach their entity slots only for the writes memory kept, in
        // the batch's order.
        let already = |mut e: Error| {
            e.message = format!("{} (all {} candidates were already committed, slot by slot; retry with the same candidate ids to finish idempotently)", e.message, candidates.len());
            e
        };
        let written: Vec<(Outcome, Vec<PendingName>, bool)> =
            outcomes.into_iter().zip(resolutions).zip(elsewhere).filter_map(|((o, names), away)| o.map(|o| (o, names, away))).collect();
        let kept = |o: &Outcome, away: bool| !away && !matches!(o.action, Action::Skipped | Action::Rejected);
        let to_record: Vec<&[PendingName]> = written.iter().filter(|(o, _, away)| kept(o, *away)).map(|(_, names, _)| names.as_slice()).collect();
        let mut recorded = self.record_names_of(&to_record).await.map_err(already)?.into_iter();
        let mut out = Vec::with_capacity(written.len());
        for (mut o, names, away) in written {
            if kept(&o, away) {
                o.resolutions = recorded.next().unwrap_or_default();
                o.conflicts.extend(self.conflicts_of(&o.resolutions).await.map_err(already)?);
            } else {
                o.resolutions = names.into_iter().map(|n| n.resolution).collect();
            }
            o.spec = self.spec_used(&o.claim.predicate);
            out.push(o);
        }
        let stored = out.iter().filter(|o| o.stored()).count();
        self.after_writes(stored as u64).await.map_err(already)?;
        Ok(out)
    }

    /// Applies one slot's share of a batch in one commit (retrying lost races).
    async fn commit_group(
        &self,
        planned: &[Planned],
        indices: &[usize],
        now: crate::time::Timestamp,
        outcomes: &mut [Option<Outcome>],
        elsewhere: &mut [bool],
    ) -> Result<()> {
        {
            let slot_ref = planned[indices[0]].prepared.slot.clone();
            let mut attempts = 0;
            let mut held = Held::Allowed;
            loop {
                attempts += 1;
                let slot = held.load(&*self.store, &slot_ref).await?;
                let opens_slot = slot.version == 0;
                let slot = self.with_history_reached(&slot_ref, slot, indices.iter().map(|&i| &planned[i].prepared.draft)).await?;
                let first = &planned[indices[0]];
                // Checked after the slot is read: a merge that seals the slot later changes its version.
                if self.merged_since(first).await? {
                    return Err(Error::new(
                        ErrorCode::Concurrency,
                        format!("{} was merged into another entity while this batch was written; retry with the same candidate ids", slot_ref.subject),
                    ));
                }
                let current_before = self.current_before(&slot_ref, &slot);
                let mut txn = SlotTxn::new(slot, now, first.cause.clone(), self.ids.clone()).single_valued(!first.prepared.spec.is_multi()).calibrated(self.calibration_version());
                let mut results = Vec::with_capacity(indices.len());
                for &i in indices {
                    let p = &planned[i];
                    if outcomes[i].is_some() {
                        continue; // replayed from the slot its id was written to
                    }
                    if let Some(record) = p.replayed_in(&txn.slot) {
                        results.push((i, Done::Replayed(Box::new(replay(&txn.slot, record, p.strategy, p.source)?))));
                        continue;
                    }
                    if let Some(replayed) = self.replayed_before_merge(p).await? {
                        results.push((i, Done::Replayed(Box::new(replayed))));
                        continue;
                    }
                    results.push((i, Done::Applied(self.apply_planned(&mut txn, p).await?)));
                }
                let dirty = !txn.is_empty();
                if dirty {
                    self.archive_overflow(&mut txn, &slot_ref).await?;
                }
                let commit = txn.into_commit(slot_ref.clone());
                let changed = dirty || !commit.log.is_empty() || !commit.changed_conflicts.is_empty();
                let (slot, version) = if !changed {
                    // Answers without a commit: only from the slot as it is now.
                    if held.reload_if_served(&mut attempts) {
                        continue;
                    }
                    let version = commit.expected_version;
                    (Rc::new(commit.slot), version)
                } else if let Ok(slot) = self.store.commit_slot_owned(commit).await? {
                    if opens_slot {
                        self.follow_merge_after(&planned[indices[0]]).await?;
                    }
                    let version = slot.version;
                    (slot, version)
                } else {
                    // Refused: the version moved on, or a candidate id was written to another slot.
                    for &i in indices {
                        if outcomes[i].is_none() {
                            outcomes[i] = self.replayed_elsewhere(&planned[i]).await?;
                            elsewhere[i] = outcomes[i].is_some();
                        }
                    }
                    if !held.reload_if_served(&mut attempts) && attempts > self.settings.retries {
                        return Err(super::gave_up(&slot_ref, attempts));
                    }
                    continue;
                };
                for (i, r) in results {
                    let p = &planned[i];
                    outcomes[i] = Some(match r {
                        Done::Replayed(replayed) => *replayed,
                        Done::Applied(applied) => {
                            let unstored = (!applied.stored).then_some(&p.prepared.draft);
                            outcome(&slot, &slot_ref, &applied, unstored, p.strategy, p.source, version, attempts)
                        }
                    });
                }
                // Flags on dependent facts go with the slot's last outcome.
                // Claims this batch already wrote (earlier slots) went with the change.
                let has_dependents = !self.settings.registry.dependents_of(&slot_ref.predicate).is_empty();
                let written: Vec<String> = if has_dependents { outcomes.iter().flatten().map(|o| o.claim.id.clone()).collect() } else { Vec::new() };
                let flagged = self.flag_dependents(&slot_ref, &current_before, &slot, &written).await?;
                if let Some(last) = indices.last().and_then(|&i| outcomes[i].as_mut()) {
                    last.conflicts.extend(flagged);
                }
                return Ok(());
            }
        }
    }
}
