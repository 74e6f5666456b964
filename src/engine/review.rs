//! The review pass (SPEC §6): a judge names candidate pairs per slot in one
//! call, then up to three are confirmed one at a time. Every judge call counts
//! against the budget; a slot is marked reviewed only when it was finished.

use serde::{Deserialize, Serialize};

use super::Engine;
use crate::error::{Error, ErrorCode, Result};
use crate::hooks::{Judge, PairRef};
use crate::model::{Claim, Conflict, ConflictKind, LogCause};

pub const PAIRS_PER_SLOT: usize = 3;

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct ReviewReport {
    pub calls: u32,
    pub pairs_named: u32,
    pub pairs_confirmed: u32,
    pub conflicts: Vec<Conflict>,
    /// Slots with new entries this pass did not finish.
    pub slots_left: u32,
    /// Why the pass ended early: `budget`, or the judge's error message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
}

/// Pairs that name two known claims, older first, with at least one new.
fn valid_pairs(claims: &[Claim], first_new: &dyn Fn(&Claim) -> bool, pairs: Vec<PairRef>) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    for p in pairs {
        let e = claims.iter().position(|c| c.id == p.earlier);
        let n = claims.iter().position(|c| c.id == p.newer);
        if let (Some(e), Some(n)) = (e, n) {
            if e < n && (first_new(&claims[e]) || first_new(&claims[n])) && !out.contains(&(e, n)) {
                out.push((e, n));
            }
        }
    }
    out
}

impl Engine {
    pub async fn review(&self, judge: Option<&dyn Judge>, budget: u32) -> Result<ReviewReport> {
        let judge: &dyn Judge = match (judge, &self.judge) {
            (Some(j), _) => j,
            (None, Some(j)) => j.as_ref(),
            (None, None) => return Err(Error::new(ErrorCode::JudgeMissing, "review needs a judge: pass { judge } to review() or new Memory()").with_field("judge")),
        };
        let mut report = ReviewReport::default();
        let mut stopped = false;
        // Each slot commits on its own; a store failure later in the pass keeps
        // earlier slots' progress (the next pass resumes) and says so.
        let mut committed = 0u32;
        let partial = |mut e: Error, committed: u32| {
            if committed > 0 {
                e.message = format!("{} (the review pass had already committed {committed} slot(s); the next pass resumes)", e.message);
            }
            e
        };
        // Only the slots the index says have unreviewed entries, a page at a time.
        let mut after: Option<String> = None;
        loop {
            let page = self.dirty_page(after.take()).await.map_err(|e| partial(e, committed))?;
            let full = page.len() >= super::listing::PAGE as usize;
            after = page.last().map(|r| r.key.clone());
            for slot_ref in page {
                if super::is_reserved_subject(&slot_ref.subject) {
                    continue; // entity names are judged as same_entity questions, below; the calibration record is no entry
                }
                let slot = self.store.load_slot(&slot_ref).await.map_err(|e| partial(e, committed))?;
                if slot.claims.len() <= slot.reviewed {
                    continue;
                }
                if stopped || report.calls >= budget {
                    report.slots_left += 1;
                    report.stopped.get_or_insert_with(|| "budget".into());
                    continue;
                }
                let new_ids: Vec<String> = slot.claims.iter().skip(slot.reviewed).map(|c| c.id.clone()).collect();
                let is_new = |c: &Claim| new_ids.contains(&c.id);
                let claims = slot.current_claims();
                let mut confirmed: Vec<(String, String, String)> = Vec::new();
                let mut finished = true;
                if claims.iter().any(is_new) && claims.len() > 1 {
                    report.calls += 1;
                    match judge.find_pairs(&claims).await {
                        Err(e) => {
                            report.stopped = Some(e.message);
                            stopped = true;
                            finished = false;
                        }
                        Ok(pairs) => {
                            let pairs: Vec<(usize, usize)> = valid_pairs(&claims, &is_new, pairs)
                                .into_iter()
                                .filter(|(e, n)| !slot.conflicts.iter().any(|c| c.names_pair(&claims[*e].id, &claims[*n].id)))
                                .collect();
                            report.pairs_named += pairs.len() as u32;
                            for (e, n) in pairs.into_iter().take(PAIRS_PER_SLOT) {
                                if report.calls >= budget {
                                    finished = false;
                                    report.stopped.get_or_insert_with(|| "budget".into());
                                    break;
                                }
                                report.calls += 1;
                                match judge.confirm_pair(&claims[e], &claims[n]).await {
                                    Err(err) => {
                                        report.stopped = Some(err.message);
                                        stopped = true;
                                        finished = false;
                                        break;
                                    }
                                    Ok(v) if v.same_thing && v.newer_invalidates_earlier => {
                                        report.pairs_confirmed += 1;
                                        confirmed.push((claims[e].id.clone(), claims[n].id.clone(), v.reason));
                                    }
                                    Ok(_) => {}
                                }
                            }
                        }
                    }
                }
                if !finished {
                    report.slots_left += 1;
                }
                if confirmed.is_empty() && !finished {
                    continue;
                }
                let (seen, archived_then) = (slot.claims.len(), slot.archived_claims);
                let cause = LogCause { op: "review".into(), ..Default::default() };
                let (opened, saved) = self
                    .commit_with_retry(&slot_ref, cause, |txn| {
                        // Claims a write moved to the archive since: positions moved down by as many.
                        let moved = txn.slot.archived_claims.saturating_sub(archived_then) as usize;
                        let reviewed_through = seen.saturating_sub(moved);
                        let mut opened = Vec::new();
                        for (e, n, reason) in &confirmed {
                            if let Some(id) = txn.open_conflict(ConflictKind::Review, e, n, reason.clone()) {
                                opened.push(id);
                            }
                        }
                        if finished && txn.slot.reviewed < reviewed_through {
                            txn.slot.reviewed = reviewed_through;
                            txn.log_change("reviewed", &[], None, None, format!("review pass looked at {reviewed_through} entries"));
                        }
                        Ok(opened)
                    })
                    .await
                    .map_err(|e| partial(e, committed))?;
                committed += 1;
                report.conflicts.extend(
                    opened.iter().filter_map(|id| saved.conflict(id)).filter_map(|r| super::read::conflict_view(&saved, &slot_ref, r)),
                );
            }
            if !full {
                break;
            }
        }
        if !stopped {
            self.judge_same_entity(judge, budget, &mut report).await.map_err(|e| partial(e, committed))?;
        }
        Ok(report)
    }
}
