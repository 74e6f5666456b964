//! Privacy erasure (SPEC §7): the text of the matched claims leaves every
//! record the store keeps — slot documents, conflicts that quote it, log
//! entries — and a tombstone (claim id, slot, when, by, why) remains so
//! history stays consistent. It cannot be undone.
//!
//! Erasure works slot by slot over the subject's slots (the matched claims'
//! slots, and every other slot of the subject that quotes them, such as a
//! dependent flag's reason). Each slot is erased in one atomic store step;
//! erasing again is harmless, so a run cut short is finished by running it
//! again.

use serde::{Deserialize, Serialize};

use super::Engine;
use crate::error::{Error, ErrorCode, Result};
use crate::model::{Claim, LogCause, LogEntry, Slot, SlotRef, Status, Tombstone, ERASED};
use crate::time::Timestamp;
use crate::txn::SlotTxn;

/// What to erase: a subject's claims, narrowed to a predicate or one claim.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct EraseTarget {
    pub subject: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub predicate: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claim_id: Option<String>,
}

/// Who asked, and why: both required, both kept on the tombstone.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct EraseOptions {
    pub reason: String,
    pub by: String,
}

/// What an erasure did.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct Erasure {
    /// One per erased claim.
    pub tombstones: Vec<Tombstone>,
    /// Slots rewritten (the erased claims' and those that quoted them).
    pub slots: usize,
}

fn required(value: &str, field: &str) -> Result<String> {
    let v = value.trim();
    if v.is_empty() {
        return Err(Error::invalid(field, "is required for an erasure and must not be empty"));
    }
    Ok(v.to_string())
}

/// Replaces every occurrence of an erased text (longest first) in `text`; `None` when untouched.
/// The texts an erasure removes, longest first (the order they are
/// replaced in), with each length's set: a text is searched once per
/// position and length, not once per text erased. Searching per text made
/// an erase quadratic in the claims it erased (10,000 archived entries:
/// 13.8 s; 20,000: 55.6 s, issue #43).
struct Secrets {
    list: Vec<String>,
    by_length: Vec<(usize, foldhash::HashSet<Vec<u8>>)>,
}

impl Secrets {
    fn new(list: Vec<String>) -> Self {
        let mut by_length: Vec<(usize, foldhash::HashSet<Vec<u8>>)> = Vec::new();
        for s in &list {
            let len = s.len();
            match by_length.iter_mut().find(|(l, _)| *l == len) {
                Some((_, set)) => {
                    set.insert(s.as_bytes().to_vec());
                }
                None => by_length.push((len, std::iter::once(s.as_bytes().to_vec()).collect())),
            }
        }
        Secrets { list, by_length }
    }

    /// The secrets `text` contains.
    fn found_in(&self, text: &str) -> foldhash::HashSet<&[u8]> {
        let bytes = text.as_bytes();
        let mut found = foldhash::HashSet::default();
        for (len, set) in &self.by_length {
            for window in bytes.windows(*len) {
                if let Some(s) = set.get(window) {
                    found.insert(s.as_slice());
                }
            }
        }
        found
    }

    /// `text` with every secret it contains replaced, or `None` when it contains none.
    fn scrub(&self, text: &str) -> Option<String> {
        let found = self.found_in(text);
        (!found.is_empty()).then(|| {
            self.list.iter().filter(|s| found.contains(s.as_bytes())).fold(text.to_string(), |t, s| t.replace(s.as_str(), ERASED))
        })
    }
}

/// Claim ids looked up by an erasure (a list made it quadratic).
type IdSet<'a> = foldhash::HashSet<&'a str>;


fn tombstone_claim(c: &mut Claim, now: Timestamp) {
    c.object = String::new();
    c.object_entity = None;
    for p in &mut c.provenance {
        p.source_id = ERASED.to_string();
    }
    if c.status.is_live() {
        c.status = Status::Retracted;
        c.valid_to = Some(c.valid_to.map_or(now, |end| end.min(now)));
    }
}

/// Scrubs one log entry that names an erased claim or quotes its text; true when it changed.
fn scrub_entry(e: &mut LogEntry, ids: &IdSet, secrets: &Secrets) -> bool {
    let before = e.clone();
    if let Some(note) = secrets.scrub(&e.note) {
        e.note = note;
    }
    let names = e.claim_ids.iter().any(|id| ids.contains(id.as_str()));
    if names || e.cause.object.as_deref().is_some_and(|o| secrets.scrub(o).is_some()) {
        e.cause.object = None;
        e.cause.source_id = None;
    }
    *e != before
}

/// Scrubs a slot: tombstones its matched claims (`ids`) and removes the
/// erased texts from what quotes them. True when anything changed.
fn scrub_slot(txn: &mut SlotTxn, ids: &IdSet, secrets: &Secrets) -> bool {
    let now = txn.now;
    let mut changed = false;
    // The slot's claims looked up in the set: an archive chunk holds a few
    // dozen of the thousands an erasure may name.
    let hits: Vec<String> = txn.slot.claims.iter().filter(|c| ids.contains(c.id.as_str()) && !c.object.is_empty()).map(|c| c.id.clone()).collect();
    for id in &hits {
        txn.update_claim(id, |c| tombstone_claim(c, now));
        changed = true;
    }
    let conflict_ids: Vec<String> = txn.slot.conflicts.iter().map(|c| c.id.clone()).collect();
    for cid in conflict_ids {
        let Some(record) = txn.slot.conflict(&cid).cloned() else { continue };
        let names = ids.contains(record.earlier_id.as_str()) || ids.contains(record.newer_id.as_str());
        let reason = secrets.scrub(&record.reason);
        let proposed = record.proposed.as_deref().and_then(|p| secrets.scrub(p));
        let snapshot = record.changed.as_ref().is_some_and(|c| ids.contains(c.id.as_str()) && !c.object.is_empty());
        if reason.is_none() && proposed.is_none() && !snapshot && !(names && record.proposed.is_some()) {
            continue;
        }
        txn.update_conflict(&cid, |c| {
            if let Some(r) = reason {
                c.reason = r;
            }
            if let Some(p) = proposed {
                c.proposed = Some(p);
            }
            if let Some(snap) = c.changed.as_deref_mut().filter(|s| ids.contains(s.id.as_str())) {
                tombstone_claim(snap, now);
            }
        });
        changed = true;
    }
    for r in &mut txn.slot.retractions {
        if let Some(reason) = r.reason.as_deref().and_then(|t| secrets.scrub(t)) {
            r.reason = Some(reason);
            changed = true;
        }
    }
    changed
}

/// What an erasure did in a slot's archive chunks: claims tombstoned there,
/// and chunks rewritten.
#[derive(Clone, Copy, Default)]
struct Chunks {
    claims: usize,
    rewritten: usize,
}

/// What an erasure takes out of every record: the erased claims' ids and
/// texts, and who erased them why.
#[derive(Clone, Copy)]
struct Scrub<'a> {
    all: &'a IdSet<'a>,
    secrets: &'a Secrets,
    by: &'a str,
    reason: &'a str,
}

impl Engine {
    pub async fn erase(&self, target: &EraseTarget, options: &EraseOptions) -> Result<Erasure> {
        let subject = required(&target.subject, "subject")?;
        let reason = required(&options.reason, "reason")?;
        let by = required(&options.by, "by")?;
        let predicate = target.predicate.as_deref().map(|p| self.spec_of(p).name);
        let slots = self.store.list_slots(Some(&subject)).await?;
        // The claims to erase, and their texts (what must leave every record).
        let mut matched: Vec<(SlotRef, Vec<String>)> = Vec::new();
        let mut secrets: Vec<String> = Vec::new();
        for slot_ref in &slots {
            if predicate.as_ref().is_some_and(|p| p != &slot_ref.predicate) {
                continue;
            }
            let slot = self.store.load_slot(slot_ref).await?;
            // Archived claims too (SPEC §8): their text leaves the chunks as well.
            let slot = self.with_archived_claims(slot_ref, slot).await?;
            let hits: Vec<&Claim> = slot.claims.iter().filter(|c| target.claim_id.as_ref().is_none_or(|id| id == &c.id)).map(|c| &**c).collect();
            for c in &hits {
                // Notes quote objects with `{:?}`, which escapes quotes and backslashes.
                let quoted = format!("{:?}", c.object);
                secrets.push(quoted[1..quoted.len() - 1].to_string());
                secrets.push(c.object.clone());
                secrets.extend(c.object_entity.clone());
            }
            if !hits.is_empty() {
                matched.push((slot_ref.clone(), hits.iter().map(|c| c.id.clone()).collect()));
            }
        }
        if let Some(id) = &target.claim_id {
            if matched.is_empty() {
                return Err(Error::new(ErrorCode::ClaimNotFound, format!("no claim with id {id:?} about {subject:?}")).with_field("claimId"));
            }
        }
        secrets.retain(|s| !s.is_empty() && s != ERASED);
        crate::sort::sort_by_key(&mut secrets, |s| std::cmp::Reverse(s.len()));
        secrets.dedup();
        // The person's own words may quote what they want forgotten.
        let secrets = Secrets::new(secrets);
        let reason = secrets.scrub(&reason).unwrap_or(reason);
        let ids: Vec<String> = matched.iter().flat_map(|(_, ids)| ids.clone()).collect();
        let ids: IdSet = ids.iter().map(String::as_str).collect();
        let scrub = Scrub { all: &ids, secrets: &secrets, by: &by, reason: &reason };
        let mut tombstones = Vec::new();
        let mut rewritten = 0;
        for slot_ref in &slots {
            let own: Vec<String> = matched.iter().find(|(r, _)| r == slot_ref).map(|(_, ids)| ids.clone()).unwrap_or_default();
            // A claim moved to a claim chunk gets its tombstone there: the slot stays bounded.
            let held = if own.is_empty() { None } else { Some(self.store.load_slot(slot_ref).await?) };
            let (here, moved): (Vec<String>, Vec<String>) = own.iter().cloned().partition(|id| held.as_ref().is_some_and(|s| s.claim(id).is_some() || s.archived_claims == 0));
            // The chunks first, the slot itself last: its `erase_slot` is where a
            // store purges what earlier commits left elsewhere (OkfStore's
            // journals), chunks' ordinary commits included.
            let mut chunks = Chunks::default();
            if !own.is_empty() {
                let (made, wrote) = self.erase_archived_claims(slot_ref, &moved, &scrub).await?;
                chunks.claims = made.len();
                tombstones.extend(made);
                let own: IdSet = own.iter().map(String::as_str).collect();
                chunks.rewritten = wrote + self.erase_archive(slot_ref, &own, &scrub).await?;
                rewritten += chunks.rewritten;
            }
            let (made, wrote) = self.erase_in_slot(slot_ref, &here, &scrub, Some(chunks)).await?;
            tombstones.extend(made);
            rewritten += usize::from(wrote);
        }
        // A claim a lost race left in two chunks is erased in both, tombstoned once.
        let mut seen = std::collections::HashSet::new();
        tombstones.retain(|t| seen.insert(t.claim_id.clone()));
        Ok(Erasure { tombstones, slots: rewritten })
    }

    /// Erases the claims `moved` (archived whole from `slot_ref`) in every
    /// claim chunk of the slot that holds them, a lost race's included.
    async fn erase_archived_claims(&self, slot_ref: &SlotRef, moved: &[String], scrub: &Scrub<'_>) -> Result<(Vec<Tombstone>, usize)> {
        let (mut made, mut rewritten) = (Vec::new(), 0);
        if moved.is_empty() {
            return Ok((made, rewritten));
        }
        let moved: IdSet = moved.iter().map(String::as_str).collect();
        for chunk in self.store.list_slots(Some(&crate::archive::archive_subject(&slot_ref.key))).await? {
            if !crate::archive::is_claim_chunk(&chunk.predicate) {
                continue;
            }
            let held = self.store.load_slot(&chunk).await?;
            // The chunk's own claims looked up in the set (not every moved id in every chunk).
            let own: Vec<String> = held.claims.iter().filter(|c| moved.contains(c.id.as_str())).map(|c| c.id.clone()).collect();
            if own.is_empty() {
                continue;
            }
            let (t, wrote) = self.erase_in_slot(&chunk, &own, scrub, None).await?;
            made.extend(t);
            rewritten += usize::from(wrote);
        }
        Ok((made, rewritten))
    }

    /// Erases the archived observations of `own` (claims of `slot_ref`) from
    /// every archive chunk of the slot, referenced or left over by a lost race.
    async fn erase_archive(&self, slot_ref: &SlotRef, own: &IdSet<'_>, scrub: &Scrub<'_>) -> Result<usize> {
        let mut rewritten = 0;
        for chunk in self.store.list_slots(Some(&crate::archive::archive_subject(&slot_ref.key))).await? {
            let held = self.store.load_slot(&chunk).await?;
            // A copy's id is `copy_id(chunk, claim)`: the chunk's copies of `own`, read off the chunk.
            let prefix = crate::archive::copy_id(&chunk.predicate, "");
            let copies: Vec<String> =
                held.claims.iter().filter(|c| c.id.strip_prefix(prefix.as_str()).is_some_and(|id| own.contains(id))).map(|c| c.id.clone()).collect();
            if copies.is_empty() {
                continue;
            }
            let copied: IdSet = copies.iter().map(String::as_str).collect();
            let (_, wrote) = self.erase_in_slot(&chunk, &copies, &Scrub { all: &copied, ..*scrub }, None).await?;
            rewritten += usize::from(wrote);
        }
        Ok(rewritten)
    }

    /// Erases in one slot, atomically with its log; retries lost races.
    /// `home`: the slot itself (not an archive chunk), with what was erased in
    /// its chunks. A home slot is always rewritten with `erase_slot`, and is
    /// rewritten whenever a chunk was; a chunk whose log holds none of the
    /// text takes an ordinary commit, so erasing 100,000 archived claims does
    /// not rewrite a bundle's log.md once per chunk.
    async fn erase_in_slot(&self, slot_ref: &SlotRef, own: &[String], scrub: &Scrub<'_>, home: Option<Chunks>) -> Result<(Vec<Tombstone>, bool)> {
        let Scrub { all, secrets, by, reason } = *scrub;
        let Chunks { claims: archived, rewritten: chunks } = home.unwrap_or_default();
        let mut attempts = 0;
        loop {
            attempts += 1;
            let slot: Slot = self.store.load_slot(slot_ref).await?;
            let mut log = self.store.read_log(slot_ref).await?;
            let cause = LogCause { op: "erase".into(), by: Some(by.to_string()), ..Default::default() };
            let mut txn = SlotTxn::new(slot, self.now()?, cause, self.ids.clone()).single_valued(!self.spec_of(&slot_ref.predicate).is_multi());
            let slot_changed = scrub_slot(&mut txn, all, secrets);
            let mut log_changed = false;
            for e in &mut log {
                log_changed |= scrub_entry(e, all, secrets);
            }
            let mut made = Vec::new();
            let mut tombstoned: foldhash::HashSet<String> = txn.slot.erasures.iter().map(|t| t.claim_id.clone()).collect();
            for id in own {
                if !tombstoned.insert(id.clone()) {
                    continue;
                }
                // An archive chunk's tombstone names the slot its claim belongs to.
                let home = crate::archive::home_of(slot_ref).unwrap_or_else(|| slot_ref.clone());
                let t = Tombstone { claim_id: id.clone(), subject: home.subject, predicate: home.predicate, erased_at: txn.now, by: by.to_string(), reason: reason.to_string() };
                txn.slot.erasures.push(t.clone());
                made.push(t);
            }
            if !slot_changed && !log_changed && made.is_empty() && chunks == 0 {
                return Ok((Vec::new(), false));
            }
            if !made.is_empty() || archived > 0 {
                let ids: Vec<&str> = made.iter().map(|t| t.claim_id.as_str()).collect();
                let chunks = if archived > 0 { format!(" ({archived} more in archive chunks)") } else { String::new() };
                txn.log_change("erase", &ids, None, None, format!("{by} erased {} claim(s) for privacy{chunks}: {reason}", made.len()));
            }
            let commit = txn.into_commit(slot_ref.clone());
            let landed = if home.is_some() || log_changed { self.store.erase_slot(&commit, &log).await? } else { self.store.commit_slot(&commit).await? };
            if landed {
                return Ok((made, true));
            }
            if attempts > self.settings.retries {
                return Err(super::gave_up(slot_ref, attempts));
            }
        }
    }
}
