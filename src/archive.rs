//! Bounded slot records (SPEC §8): a claim observed very often keeps in its
//! slot only the observations belief can still count, plus the latest ones;
//! the others move to an archive chunk — an ordinary slot under a reserved
//! subject of its own, so every store keeps it with no new method — and
//! `why` reads them back.
//!
//! What must stay in the slot, so belief is exactly what it was:
//! - per source, the observation(s) `belief::counted` could pick: on a
//!   time-varying predicate those at the source's latest time; on a fixed one
//!   the strongest by stated quality and the strongest by extractor confidence
//!   (a calibration replaces stated trust by one reliability per source, which
//!   orders a source's observations by extractor confidence alone);
//! - the earliest and the latest observation (a claim's first-observed time and
//!   the slot's latest observation are read from them), and the first listed;
//! - the newest quarter of the limit by arrival.
//!
//! A later observation can displace a counted one, never revive an archived
//! one, so what is archived never matters to belief again.

use crate::belief::observation_quality;
use crate::strategy::observed_at;
use crate::model::{Claim, Provenance, Slot, SlotRef, Status, WriteRecord};
use crate::time::Timestamp;

/// A claim is compacted when it holds more observations than this.
pub const ARCHIVE_AFTER: usize = 128;

/// Idempotency records a slot keeps: past `WRITES_AFTER`, all but the newest
/// `WRITES_KEEP` expire into the archive. A candidate id re-sent after its
/// record expired is a new write: the window is the slot's last 256–512 keyed
/// writes, far longer than any retry.
pub const WRITES_AFTER: usize = 512;
pub const WRITES_KEEP: usize = 256;

/// Dead claims (see `dead_prefix`) move whole to a claim chunk once the slot
/// holds this many of them in a row from its oldest, beyond its newest
/// `CLAIMS_KEEP` claims, which always stay (`keep_for`).
pub const CLAIMS_AFTER: usize = 96;
pub const CLAIMS_KEEP: usize = 16;

/// Claim chunks are named `ac_…`, observation chunks `ar_…`.
pub const CLAIM_CHUNK_PREFIX: &str = "ac";

pub fn is_claim_chunk(chunk_id: &str) -> bool {
    chunk_id.starts_with("ac_")
}

/// The slot a chunk of `archive_subject(key)` belongs to.
pub fn home_of(chunk: &SlotRef) -> Option<SlotRef> {
    let key = chunk.subject.strip_prefix(SUBJECT_PREFIX)?;
    let (subject, predicate) = key.split_once(crate::model::KEY_SEPARATOR)?;
    Some(SlotRef::new(subject, predicate))
}

/// How many of `slot`'s oldest claims are dead and may move whole to a claim
/// chunk: a run from the oldest claim, each of which
/// - left the live set by supersession (`superseded`: replaced, capped,
///   merged), before `now`, and is no value a scheduled change still shows;
/// - is a free-text entry (append, merge_on_read, an import), which no write
///   weighs, corroborates or matches once superseded (SPEC §5); or a value
///   when `values_dead` (the slot's strategy in force and the write's are not
///   `reconcile`: belief weighs no history there and no history is matched);
/// - takes part in no conflict, retraction, erasure, entity merge or
///   idempotency record (what settlement, undo and replay read from the slot);
/// - is not among the newest `keep_for(after)` claims nor `changed` by the
///   transaction at hand.
///
/// The run is a prefix, so the full history is the chunks in order, then the
/// slot. Zero until the run reaches `after`.
pub fn dead_prefix(slot: &Slot, now: Timestamp, after: usize, values_dead: bool, changed: impl Fn(&str) -> bool) -> usize {
    let n = slot.claims.len();
    let keep = keep_for(after);
    if n < after.saturating_add(keep) {
        return 0;
    }
    let dead = |c: &Claim| {
        c.status == Status::Superseded
            && (values_dead || c.kind.is_entry())
            && c.conflict_ids.is_empty()
            && c.object_entity.is_none()
            && c.archived_observations == 0
            && c.effective_from() <= now
            && c.valid_to.is_none_or(|end| end <= now)
            && c.recorded_at <= now
            && !changed(&c.id)
    };
    let run = slot.claims.iter().take(n - keep).take_while(|c| dead(c)).count();
    if run < after {
        return 0;
    }
    // What the slot's own records name (asked only once the run is long enough).
    let mut named: std::collections::HashSet<&str> = std::collections::HashSet::new();
    for c in slot.conflicts.iter() {
        named.insert(c.earlier_id.as_str());
        named.insert(c.newer_id.as_str());
    }
    named.extend(slot.retractions.iter().map(|r| r.claim_id.as_str()));
    named.extend(slot.erasures.iter().map(|t| t.claim_id.as_str()));
    named.extend(slot.writes.iter().map(|w| w.claim_id.as_str()));
    let run = slot.claims.iter().take(run).take_while(|c| !named.contains(c.id.as_str())).count();
    if run >= after { run } else { 0 }
}

/// The newest claims that always stay: `CLAIMS_KEEP` at the default threshold.
pub fn keep_for(after: usize) -> usize {
    (after.saturating_mul(CLAIMS_KEEP) / CLAIMS_AFTER).max(1)
}

const SUBJECT_PREFIX: &str = "\u{1f}archive\u{1f}";

/// The reserved subject under which one slot's archive chunks live: one
/// subject per slot, so a store's subject index lists a slot's chunks.
pub fn archive_subject(slot_key: &str) -> String {
    format!("{SUBJECT_PREFIX}{slot_key}")
}

pub fn is_archive_subject(subject: &str) -> bool {
    subject.starts_with(SUBJECT_PREFIX)
}

pub fn chunk_ref(slot_key: &str, chunk_id: &str) -> SlotRef {
    SlotRef::new(&archive_subject(slot_key), chunk_id)
}

/// The id a claim's archived observations carry inside chunk `chunk_id`
/// (claim ids are indexed store-wide, so the copy must not reuse the claim's).
pub fn copy_id(chunk_id: &str, claim_id: &str) -> String {
    format!("{chunk_id}:{claim_id}")
}

/// Splits a claim's observations into (kept, archived), in their order, when
/// it holds more than `after`; `None` when nothing needs to move.
pub fn split(claim: &Claim, time_varying: bool, after: usize) -> Option<(Vec<Provenance>, Vec<Provenance>)> {
    let n = claim.provenance.len();
    if n <= after {
        return None;
    }
    let at: Vec<Timestamp> = claim.provenance.iter().map(|p| observed_at(p, claim)).collect();
    let mut keep = vec![false; n];
    keep[0] = true;
    for k in keep.iter_mut().skip(n.saturating_sub(after / 4)) {
        *k = true;
    }
    let extreme = |better: &dyn Fn(usize, usize) -> bool| (1..n).fold(0, |best, i| if better(i, best) { i } else { best });
    keep[extreme(&|i, b| at[i] < at[b])] = true;
    keep[extreme(&|i, b| at[i] > at[b])] = true;
    let mut sources: Vec<&str> = claim.provenance.iter().map(|p| p.source_id.as_str()).collect();
    sources.sort_unstable();
    sources.dedup();
    for source in sources {
        let mut of: Vec<usize> = (0..n).filter(|&i| claim.provenance[i].source_id == source).collect();
        if time_varying {
            // `counted` takes the latest (ties: the strongest, then the first listed).
            let latest = of.iter().map(|&i| at[i]).max();
            for &i in &of {
                keep[i] |= Some(at[i]) == latest;
            }
            continue;
        }
        // `counted` takes the strongest, ties to the earliest, then the first listed.
        // Strength is stated quality, or under a calibration a non-decreasing
        // function of extractor confidence (clamped, so ties can widen): the
        // winner is then the earliest at or above some level, which is always
        // a running record in time order. Keep every record of both orders.
        crate::sort::sort_by_key(&mut of, |&i| (at[i], i));
        let (mut best_q, mut best_e) = (f64::NEG_INFINITY, f64::NEG_INFINITY);
        for &i in &of {
            let (q, e) = (observation_quality(&claim.provenance[i]), claim.provenance[i].extractor());
            if q > best_q {
                best_q = q;
                keep[i] = true;
            }
            if e > best_e {
                best_e = e;
                keep[i] = true;
            }
        }
    }
    let (mut kept, mut archived) = (Vec::new(), Vec::new());
    for (p, k) in claim.provenance.iter().zip(keep) {
        if k { kept.push(p.clone()) } else { archived.push(p.clone()) }
    }
    (!archived.is_empty()).then_some((kept, archived))
}

/// The idempotency records that expire now (oldest first), leaving the newest
/// `WRITES_KEEP`. An entity merge's own records (`em_…:cl_…`, what lets a cut
/// merge resume without moving a claim twice) never expire.
pub fn expired_writes(writes: &[WriteRecord]) -> Vec<usize> {
    if writes.len() <= WRITES_AFTER {
        return Vec::new();
    }
    let is_merge_key = |w: &WriteRecord| w.id.starts_with("em_") && w.id.contains(":cl_");
    (0..writes.len() - WRITES_KEEP).filter(|&i| !is_merge_key(&writes[i])).collect()
}

/// The record a chunk keeps of one claim's archived observations: the claim
/// as it was, retired (it is a copy, never a belief), with those observations.
pub fn chunk_copy(chunk_id: &str, claim: &Claim, archived: Vec<Provenance>) -> Claim {
    Claim {
        id: copy_id(chunk_id, &claim.id),
        status: Status::Retired,
        provenance: archived.into(),
        archived_observations: 0,
        superseded_by: None,
        supersedes: None,
        conflict_ids: Vec::new(),
        ..claim.clone()
    }
}

/// A claim with its archived observations put back, oldest observation first.
pub fn restore_observations(claim: &mut Claim, archived: Vec<Provenance>) {
    if archived.is_empty() {
        return;
    }
    // Keys while the claim is whole (`observed_at` may read its first observation), then one stable sort.
    let at: Vec<Timestamp> = archived.iter().chain(&claim.provenance).map(|p| observed_at(p, claim)).collect();
    let mut all: Vec<(Timestamp, Provenance)> = at.into_iter().zip(archived.into_iter().chain(std::mem::take(&mut claim.provenance))).collect();
    crate::sort::sort_by_key(&mut all, |(at, _)| *at);
    claim.provenance = all.into_iter().map(|(_, p)| p).collect();
    claim.archived_observations = 0;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claim(obs: &[(&str, i64, f64)]) -> Claim {
        let provenance = obs
            .iter()
            .map(|(s, day, conf)| Provenance {
                source_id: s.to_string(),
                source_trust: Some(0.8),
                extractor_conf: Some(*conf),
                observed_at: Some(Timestamp(day * 86_400_000).to_iso()),
                stated_from: None,
                reported_at: None,
                at_write: false,
            })
            .collect();
        Claim {
            id: "cl_1".into(),
            subject: "u".into(),
            predicate: "located_in".into(),
            object: "Paris".into(),
            status: Status::Active,
            confidence: 0.5,
            log_odds: 0.0,
            stated_confidence: 1.0,
            valid_from: None,
            valid_to: None,
            stated_valid_to: None,
            recorded_at: Timestamp(0),
            provenance,
            archived_observations: 0,
            kind: crate::model::ClaimKind::Value,
            superseded_by: None,
            supersedes: None,
            conflict_ids: Vec::new(),
            object_entity: None,
        }
    }

    #[test]
    fn small_claims_are_left_alone() {
        let c = claim(&[("a", 1, 1.0), ("a", 2, 1.0)]);
        assert!(split(&c, true, 4).is_none());
    }

    #[test]
    fn keeps_what_belief_counts_and_the_latest() {
        // Source a 200 times, b once early with the strongest report, a late arrival observed first.
        let mut obs: Vec<(&str, i64, f64)> = (0..200).map(|d| ("a", 10 + d, 0.7)).collect();
        obs.insert(5, ("b", 11, 0.95));
        obs.push(("a", 1, 0.6));
        let c = claim(&obs);
        let (kept, archived) = split(&c, true, 64).expect("compacts");
        assert_eq!(kept.len() + archived.len(), obs.len());
        let has = |s: &str, day: i64| kept.iter().any(|p| p.source_id == s && p.observed_at == Some(Timestamp(day * 86_400_000).to_iso()));
        assert!(has("b", 11), "a source's only observation counts");
        assert!(has("a", 209), "a's latest counts");
        assert!(has("a", 1), "the earliest observation stays (first observed)");
        assert!(has("a", 10), "the first listed stays");
        assert!(kept.len() <= 64 / 4 + 4, "kept {}", kept.len());
        // Fixed predicate: the strongest report of each source stays.
        let (kept, _) = split(&c, false, 64).expect("compacts");
        assert!(kept.iter().any(|p| p.source_id == "b"));
    }

    #[test]
    fn restoring_gives_every_observation_in_time_order() {
        let obs: Vec<(&str, i64, f64)> = (0..100).rev().map(|d| ("a", d, 0.7)).collect();
        let mut c = claim(&obs);
        let (kept, archived) = split(&c, true, 10).expect("compacts");
        c.provenance = kept.into();
        c.archived_observations = archived.len() as u32;
        restore_observations(&mut c, archived);
        assert_eq!(c.provenance.len(), 100);
        assert_eq!(c.archived_observations, 0);
        assert!(c.provenance.windows(2).all(|w| w[0].observed_at <= w[1].observed_at));
    }
}
