//! Runs the SPEC §6 invariant checker over every slot of the store, plus the
//! store-level rule that its id indexes point at the slot that holds each id.

use super::Engine;
use crate::error::Result;
use crate::invariants::{check_slot, SlotFacts, Violation};

impl Engine {
    /// Every violation found in the store; empty when memory is sound. Reads
    /// every slot, so it is a test and diagnostics tool, not a hot path.
    pub async fn check_invariants(&self) -> Result<Vec<Violation>> {
        let mut out = Vec::new();
        for slot_ref in self.store.list_slots(None).await? {
            let slot = self.store.load_slot(&slot_ref).await?;
            let log = self.store.read_log(&slot_ref).await?;
            let multi = self.spec_of(&slot_ref.predicate).is_multi();
            // A claim chunk is checked as part of its slot's full history (below); its
            // claims need only be found (a lost race's copy may not be the one indexed).
            if crate::archive::is_archive_subject(&slot_ref.subject) && crate::archive::is_claim_chunk(&slot_ref.predicate) {
                for c in &slot.claims {
                    if self.store.find_claim(&c.id).await?.is_none() {
                        out.push(Violation {
                            rule: "index_mismatch".into(),
                            subject: slot_ref.subject.clone(),
                            predicate: slot_ref.predicate.clone(),
                            message: format!("the store's claim index does not know archived claim {}", c.id),
                            ids: vec![c.id.clone()],
                        });
                    }
                }
                continue;
            }
            let full = self.with_archived_claims(&slot_ref, slot.clone()).await?;
            out.extend(check_slot(&full, &SlotFacts { slot_ref: &slot_ref, log: &log, multi }));
            out.extend(self.check_archive(&slot_ref, &slot).await?);
            let mut unknown_links = Vec::new();
            let mut index_miss = |kind: &str, id: &str| {
                out.push(Violation {
                    rule: "index_mismatch".into(),
                    subject: slot_ref.subject.clone(),
                    predicate: slot_ref.predicate.clone(),
                    message: format!("the store's {kind} index does not lead {id} to this slot"),
                    ids: vec![id.to_string()],
                })
            };
            for c in &slot.claims {
                // A chunk a lost race left may hold an id the slot still holds.
                let found = self.store.find_claim(&c.id).await?;
                let here = found.as_ref().is_some_and(|r| r.key == slot_ref.key || crate::archive::home_of(r).is_some_and(|h| h.key == slot_ref.key));
                if !here {
                    index_miss("claim", &c.id);
                }
                for link in [&c.superseded_by, &c.supersedes].into_iter().flatten() {
                    if slot.claim(link).is_none() && self.store.find_claim(link).await?.is_none() {
                        unknown_links.push((format!("claim {} links to claim {link}, which does not exist", c.id), vec![c.id.clone(), link.clone()]));
                    }
                }
            }
            for cf in &slot.conflicts {
                if self.store.find_conflict(&cf.id).await?.is_none_or(|r| r.key != slot_ref.key) {
                    index_miss("conflict", &cf.id);
                }
            }
            out.extend(unknown_links.into_iter().map(|(message, ids)| Violation {
                rule: "claim_names_unknown_claim".into(),
                subject: slot_ref.subject.clone(),
                predicate: slot_ref.predicate.clone(),
                message,
                ids,
            }));
        }
        Ok(out)
    }

    /// Every observation a claim counts as archived is in a chunk the slot references.
    async fn check_archive(&self, slot_ref: &crate::model::SlotRef, slot: &crate::model::Slot) -> Result<Vec<Violation>> {
        let mut held: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
        for chunk_id in &slot.archive {
            let chunk = self.store.load_slot(&crate::archive::chunk_ref(&slot_ref.key, chunk_id)).await?;
            for c in &slot.claims {
                if let Some(copy) = chunk.claim(&crate::archive::copy_id(chunk_id, &c.id)) {
                    *held.entry(c.id.as_str()).or_default() += copy.provenance.len();
                }
            }
        }
        Ok(slot
            .claims
            .iter()
            .filter(|c| held.get(c.id.as_str()).copied().unwrap_or(0) != c.archived_observations as usize)
            .map(|c| Violation {
                rule: "archive_mismatch".into(),
                subject: slot_ref.subject.clone(),
                predicate: slot_ref.predicate.clone(),
                message: format!("claim {} counts {} archived observation(s); its slot's archive holds {}", c.id, c.archived_observations, held.get(c.id.as_str()).copied().unwrap_or(0)),
                ids: vec![c.id.clone()],
            })
            .collect())
    }
}
