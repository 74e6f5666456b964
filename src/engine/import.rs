//! Loading Memoir-style blobs into a slot so later writes merge against them.

use serde_json::Value;

use super::Engine;
use crate::blob::{blob_time, entries_of};
use crate::error::{Error, Result};
use crate::model::{Claim, LogCause, Provenance, SlotRef};
use crate::strategy;

impl Engine {
    /// Returns the claims created from the blob's entries.
    pub async fn import_blob(&self, blob: &Value, subject: Option<&str>) -> Result<Vec<Claim>> {
        let (key, entries) = entries_of(blob)?;
        if let Some(s) = subject {
            if s.trim().is_empty() {
                return Err(Error::invalid("options.subject", "must not be empty when given"));
            }
            super::prepare::no_key_separator(s, "options.subject")?;
        }
        let subject = subject.unwrap_or(&self.settings.default_subject).to_string();
        let spec = self.spec_of(&key);
        let slot_ref = SlotRef::new(&subject, &spec.name);
        let now = self.now()?;
        let drafts: Vec<Claim> = entries
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let at = blob_time(e.timestamp, &format!("blob.entries[{i}].timestamp"))?.unwrap_or(now);
                Ok(Claim {
                    id: self.ids.next_id("cl"),
                    subject: subject.clone(),
                    predicate: spec.name.clone(),
                    object: e.content.clone(),
                    status: e.status,
                    confidence: 0.5,
                    log_odds: 0.0,
                    stated_confidence: e.confidence,
                    valid_from: None,
                    valid_to: None,
                    stated_valid_to: None,
                    recorded_at: at,
                    provenance: vec![Provenance {
                        source_id: "import".into(),
                        source_trust: Some(crate::model::DEFAULT_SOURCE_TRUST),
                        extractor_conf: Some(e.confidence),
                        observed_at: Some(at.to_iso()),
                        stated_from: None,
                        reported_at: None,
                    }].into(),
                    superseded_by: None,
                    supersedes: None,
                    conflict_ids: Vec::new(),
                    object_entity: None,
                    archived_observations: 0,
                })
            })
            .collect::<Result<_>>()?;
        let ctx = super::WriteCtx { spec: &spec, settings: &self.settings };
        let cause = LogCause { op: "import".into(), object: Some(key.clone()), ..Default::default() };
        let (ids, slot) = self
            .commit_with_retry(&slot_ref, cause, |txn| {
                let mut ids = Vec::new();
                let mut added = Vec::new();
                for d in &drafts {
                    // An entry the slot already holds (a blob of this memory
                    // imported back, or the same blob twice) is not a new one.
                    if let Some(held) = txn.slot.claims.iter().find(|c| c.id == d.id || same_entry(c, d)) {
                        ids.push(held.id.clone());
                        continue;
                    }
                    txn.add_claim(d.clone());
                    ids.push(d.id.clone());
                    added.push(d.id.as_str());
                }
                if added.is_empty() {
                    return Ok(ids);
                }
                // Imported entries are a log: each stands on its own evidence.
                strategy::refresh_entry_beliefs(txn, &ctx);
                let held = ids.len() - added.len();
                let note = match held {
                    0 => format!("{} entries imported from blob {key:?}", added.len()),
                    _ => format!("{} entries imported from blob {key:?} ({held} already held)", added.len()),
                };
                txn.log_change("import", &added, None, None, note);
                Ok(ids)
            })
            .await?;
        Ok(ids.iter().filter_map(|id| slot.claim(id).cloned()).collect())
    }
}

/// What a blob entry says of a claim: its text, status, stated confidence
/// and time (a blob keeps milliseconds).
fn same_entry(held: &Claim, entry: &Claim) -> bool {
    held.object == entry.object && held.status == entry.status && held.recorded_at == entry.recorded_at && held.stated_confidence == entry.stated_confidence
}
