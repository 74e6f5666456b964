//! Loading Memoir-style blobs into a slot (SPEC §5).
//!
//! Into an empty slot the blob loads as it is: each entry becomes a claim of
//! kind `import` with the entry's status (a free-text log later writes merge
//! against). Into an occupied slot each active entry is a write like any
//! other — its timestamp as `observedAt`, its confidence as the writer's
//! stated confidence — applied by the slot's strategy and §3, so it confirms,
//! supersedes, contradicts or is recorded as history; entries of another
//! status (history of the memory that exported the blob) are not written
//! there (`skipped`). Every entry the slot already holds (a blob of this
//! memory imported back) is answered as held and writes nothing, and each
//! entry written carries an idempotency key of its own, so importing the same
//! blob again changes memory once. One import is one atomic commit.

use std::rc::Rc;

use serde_json::Value;

use super::write::{outcome, replay, replayed_outcome, Planned};
use super::Engine;
use crate::blob::{blob_time, entries_of, BlobEntry};
use crate::error::{Error, ErrorCode, Result};
use crate::model::{Action, Candidate, Claim, ClaimKind, LogCause, Outcome, Provenance, Slot, SlotRef, Status, StrategySource};
use crate::strategy::{self, Applied, Strategy, WriteCtx};
use crate::time::Timestamp;
use crate::txn::SlotTxn;

/// The source id an imported entry's observation carries.
pub const IMPORT_SOURCE: &str = "import";

/// What became of one entry inside the import's transaction.
enum Entry {
    /// The slot holds it already (claim id).
    Held(String),
    /// Loaded as it is into an empty slot (claim id, action).
    Loaded(String, Action),
    /// A write through the slot's strategy.
    Written(Applied),
    /// Its idempotency key was written before: its recorded outcome.
    Replayed(Box<Outcome>),
    /// Not written: an inactive entry meeting an occupied slot.
    Skipped,
}

impl Engine {
    /// One outcome per blob entry, in the blob's order.
    pub async fn import_blob(&self, blob: &Value, subject: Option<&str>) -> Result<Vec<Outcome>> {
        let (key, entries) = entries_of(blob)?;
        if let Some(s) = subject {
            if s.trim().is_empty() {
                return Err(Error::invalid("options.subject", "must not be empty when given"));
            }
            crate::model::no_key_separator(s, "options.subject")?;
        }
        self.ids.health()?;
        self.ensure_calibration().await?;
        let subject = subject.unwrap_or(&self.settings.default_subject).to_string();
        let spec = self.spec_of(&key);
        let slot_ref = SlotRef::new(&subject, &spec.name);
        let now = self.now()?;
        let (slot_strategy, source) = strategy::choose(None, self.settings.strategy, &spec, &self.settings.type_defaults, self.merge.is_some())?;
        let mut times = Vec::with_capacity(entries.len());
        for (i, e) in entries.iter().enumerate() {
            times.push(blob_time(e.timestamp, &format!("blob.entries[{i}].timestamp"))?.unwrap_or(now));
        }
        let drafts: Vec<Claim> = entries.iter().zip(&times).map(|(e, at)| self.loaded_draft(&subject, &spec.name, e, *at)).collect();
        // Each active entry planned as a write, validated before anything is loaded.
        let mut planned: Vec<Option<Planned>> = Vec::with_capacity(entries.len());
        for (i, (e, at)) in entries.iter().zip(&times).enumerate() {
            if e.status != Status::Active {
                planned.push(None);
                continue;
            }
            let mut p = self.plan(&import_candidate(&subject, &key, e, *at), None, now).map_err(|mut err| {
                err.message = format!("blob.entries[{i}]: {}", err.message);
                err.field = Some(format!("blob.entries[{i}]"));
                err
            })?;
            p.cause.op = "import".into();
            p.cause.object = Some(key.clone());
            planned.push(Some(p));
        }
        let cause = LogCause { op: "import".into(), object: Some(key.clone()), ..Default::default() };
        let mut attempts = 0;
        loop {
            attempts += 1;
            let slot = self.store.load_slot(&slot_ref).await?;
            let slot = self.with_history_reached(&slot_ref, slot, planned.iter().flatten().map(|p| &p.prepared.draft)).await?;
            // Entries the slot moved to its archive are held too (a blob of this memory imported back).
            let archived: Vec<Claim> = if slot.archived_claims > 0 {
                let full = self.with_archived_claims(&slot_ref, slot.clone()).await?;
                full.claims.iter().take(full.claims.len() - slot.claims.len()).map(|c| Claim::clone(c)).collect()
            } else {
                Vec::new()
            };
            let current_before = self.current_before(&slot_ref, &slot);
            let mut txn = SlotTxn::new(slot, now, cause.clone(), self.ids.clone()).single_valued(!spec.is_multi()).calibrated(self.calibration_version());
            let ctx = WriteCtx { spec: &spec, settings: &self.settings };
            let empty = !txn.slot.claims.iter().any(|c| !c.object.is_empty());
            let mut done: Vec<Entry> = Vec::with_capacity(drafts.len());
            if empty {
                load_as_is(&mut txn, &ctx, &drafts, &key, &mut done);
            } else {
                for (d, p) in drafts.iter().zip(&planned) {
                    // An entry the slot already holds (a blob of this memory
                    // imported back, or the same blob twice) is not a new one.
                    if let Some(held) = txn.slot.claims.iter().map(|c| &**c).chain(&archived).find(|c| same_entry(c, d)) {
                        done.push(Entry::Held(held.id.clone()));
                        continue;
                    }
                    let Some(p) = p else {
                        done.push(Entry::Skipped);
                        continue;
                    };
                    if let Some(record) = p.replayed_in(&txn.slot) {
                        done.push(Entry::Replayed(Box::new(replay(&txn.slot, record, p.strategy, p.source)?)));
                        continue;
                    }
                    done.push(Entry::Written(self.apply_planned(&mut txn, p).await?));
                }
            }
            let changed = !txn.is_empty();
            if changed {
                self.archive_overflow(&mut txn, &slot_ref).await?;
            }
            let (slot, committed): (Rc<Slot>, bool) = if !changed {
                (Rc::new(txn.slot), false)
            } else {
                match self.store.commit_slot_owned(txn.into_commit(slot_ref.clone())).await? {
                    Ok(slot) => (slot, true),
                    Err(_) if attempts <= self.settings.retries => continue,
                    Err(_) => return Err(super::gave_up(&slot_ref, attempts)),
                }
            };
            let version = slot.version;
            let mut out = Vec::with_capacity(done.len());
            for ((entry, d), p) in done.into_iter().zip(&drafts).zip(&planned) {
                let (strategy, source) = p.as_ref().map_or((slot_strategy, source), |p| (p.strategy, p.source));
                out.push(match entry {
                    Entry::Written(applied) => {
                        let unstored = (!applied.stored).then(|| p.as_ref().map(|p| &p.prepared.draft)).flatten();
                        outcome(&slot, &slot_ref, &applied, unstored, strategy, source, version, attempts)
                    }
                    Entry::Replayed(o) => *o,
                    Entry::Held(id) => held_outcome(&slot, &archived, &id, strategy, source)?,
                    Entry::Loaded(id, action) => {
                        let applied = Applied::stored(action, None, id, Vec::new());
                        outcome(&slot, &slot_ref, &applied, None, strategy, source, version, attempts)
                    }
                    Entry::Skipped => {
                        let applied = Applied::skipped(d.id.clone());
                        outcome(&slot, &slot_ref, &applied, Some(d), strategy, source, version, attempts)
                    }
                });
            }
            if committed {
                let flagged = self.flag_dependents(&slot_ref, &current_before, &slot, &[]).await?;
                if let Some(last) = out.last_mut() {
                    last.conflicts.extend(flagged);
                }
                let written = out.iter().filter(|o| o.stored()).count();
                self.after_writes(written as u64).await?;
            }
            for o in &mut out {
                o.spec = self.spec_used(&o.claim.predicate);
            }
            return Ok(out);
        }
    }

    /// An entry as it loads into an empty slot: a claim of kind `import`.
    fn loaded_draft(&self, subject: &str, predicate: &str, e: &BlobEntry, at: Timestamp) -> Claim {
        Claim {
            id: self.ids.next_id("cl"),
            subject: subject.to_string(),
            predicate: predicate.to_string(),
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
                source_id: IMPORT_SOURCE.into(),
                source_trust: Some(crate::model::DEFAULT_SOURCE_TRUST),
                extractor_conf: Some(e.confidence),
                observed_at: Some(at.to_iso()),
                stated_from: None,
                reported_at: None,
                at_write: false,
            }]
            .into(),
            superseded_by: None,
            supersedes: None,
            conflict_ids: Vec::new(),
            object_entity: None,
            archived_observations: 0,
            kind: ClaimKind::Import,
        }
    }
}

/// An active entry as a write: its timestamp is when it was observed, its
/// confidence the writer's stated one. The idempotency key names the slot and
/// the entry, so the same entry imported again replays.
fn import_candidate(subject: &str, key: &str, e: &BlobEntry, at: Timestamp) -> Candidate {
    let digest = crate::model::key_hash((subject, key, e.content.as_str(), at.millis(), e.confidence.to_bits()));
    Candidate {
        subject: Some(subject.to_string()),
        subject_type: None,
        predicate: key.to_string(),
        object: e.content.clone(),
        valid_from: None,
        valid_to: None,
        confidence: Some(e.confidence),
        provenance: Some(Provenance { source_id: IMPORT_SOURCE.into(), source_trust: None, extractor_conf: None, observed_at: Some(at.to_iso()), stated_from: None, reported_at: None, at_write: false }),
        id: Some(format!("import:{digest:016x}")),
    }
}

/// Loads every entry as it is (the slot is empty): the blob's log becomes the slot's.
fn load_as_is(txn: &mut SlotTxn, ctx: &WriteCtx, drafts: &[Claim], key: &str, done: &mut Vec<Entry>) {
    let mut added = Vec::new();
    for d in drafts {
        if let Some(held) = txn.slot.claims.iter().find(|c| same_entry(c, d)) {
            done.push(Entry::Held(held.id.clone()));
            continue;
        }
        let action = match (d.status, added.is_empty()) {
            (Status::Active, true) => Action::Added,
            (Status::Active, false) => Action::Appended,
            _ => Action::Historical,
        };
        txn.add_claim(d.clone());
        added.push(d.id.clone());
        done.push(Entry::Loaded(d.id.clone(), action));
    }
    if added.is_empty() {
        return;
    }
    // Imported entries are a log: each stands on its own evidence.
    strategy::reweigh_entries(txn, ctx);
    let ids: Vec<&str> = added.iter().map(String::as_str).collect();
    txn.log_change("import", &ids, None, None, format!("{} entries imported from blob {key:?} into an empty slot", added.len()));
}

/// The answer for an entry the slot already holds: nothing was written.
fn held_outcome(slot: &Slot, archived: &[Claim], id: &str, strategy: Strategy, source: StrategySource) -> Result<Outcome> {
    let claim = slot.claim(id).or_else(|| archived.iter().find(|c| c.id == id)).cloned().ok_or_else(|| Error::new(ErrorCode::MalformedStoreData, format!("held claim {id} is gone")))?;
    Ok(replayed_outcome(slot, claim, Action::Confirmed, strategy, source))
}

/// What a blob entry says of a claim: its text, status, stated confidence
/// and time (a blob keeps milliseconds).
fn same_entry(held: &Claim, entry: &Claim) -> bool {
    held.object == entry.object && held.status == entry.status && held.recorded_at == entry.recorded_at && held.stated_confidence == entry.stated_confidence
}
