//! The lifecycle invariants of SPEC §6, stated once as code.
//!
//! `check_slot` is pure: it looks at one slot (with its log, which says which
//! claims are free-text entries) and returns every violation it finds. The
//! engine runs it over a whole store (`Engine::check_invariants`, exposed to JS
//! as `memory.checkInvariants()`); the random tests run it after every step.
//!
//! Entries written by `append`, `merge_on_read` or an import are a log, not
//! one belief: several of them may be current at once and repeat a value, so
//! the single-value and no-duplicate rules skip them. `replace`,
//! `confidence_gated` and `llm_merge` rewrite the active set regardless of
//! valid time, so only the single-value rule applies to what they wrote.

use serde::{Deserialize, Serialize};

use crate::model::{Claim, ConflictKind, ConflictStatus, LogEntry, Settlement, Slot, SlotRef, Status, NAME_PREDICATE};
use crate::strategy::same_value;
use crate::time::Timestamp;

/// Strategies whose writes are free-text entries, not competing values.
const ENTRY_STRATEGIES: [&str; 2] = ["append", "merge_on_read"];
/// Strategies that rewrite the active set whatever the valid times say.
const REWRITE_STRATEGIES: [&str; 3] = ["replace", "confidence_gated", "llm_merge"];

/// How a claim came to be, read from the first log entry that names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// Decided by the relation engine (reconcile, ask_user, reject).
    Valued,
    /// An entry of a log-like slot: append, merge_on_read, an import.
    Entry,
    /// Written by replace / confidence_gated / llm_merge, which ignore valid time.
    Rewrite,
}

/// The origin of every claim the log names (claims it does not name are `Valued`).
pub fn origins(log: &[LogEntry]) -> std::collections::HashMap<&str, Origin> {
    let mut out = std::collections::HashMap::new();
    for e in log {
        let strategy = e.cause.strategy.as_deref().unwrap_or("");
        // An import into an empty slot loads entries (no strategy); into an
        // occupied one each entry is a write by the slot's strategy.
        let origin = if (e.cause.op == "import" && e.cause.strategy.is_none()) || ENTRY_STRATEGIES.contains(&strategy) {
            Origin::Entry
        } else if REWRITE_STRATEGIES.contains(&strategy) {
            Origin::Rewrite
        } else {
            Origin::Valued
        };
        // A refinement carries on the claim it refines (an entry stays an entry).
        let inherited = (e.rule == "refine").then(|| e.claim_ids.get(1).and_then(|g| out.get(g.as_str()).copied())).flatten();
        for id in &e.claim_ids {
            out.entry(id.as_str()).or_insert(inherited.unwrap_or(origin));
        }
    }
    out
}

/// Ids of claims written as free-text entries.
pub fn entry_claims(log: &[LogEntry]) -> Vec<&str> {
    origins(log).into_iter().filter(|(_, o)| *o == Origin::Entry).map(|(id, _)| id).collect()
}

/// One broken invariant. `rule` is a stable name; `message` names the ids.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct Violation {
    pub rule: String,
    pub subject: String,
    pub predicate: String,
    pub message: String,
    /// The claims (or conflict) involved, when the rule is about specific ones.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ids: Vec<String>,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "[{}] {}/{}: {}", self.rule, self.subject, self.predicate, self.message)
    }
}

/// What the checker needs besides the slot itself.
pub struct SlotFacts<'a> {
    pub slot_ref: &'a SlotRef,
    pub log: &'a [LogEntry],
    /// The predicate is multi-valued: values coexist by design.
    pub multi: bool,
}

/// The first violation, if any.
pub fn check(slot: &Slot, facts: &SlotFacts) -> Result<(), Violation> {
    match check_slot(slot, facts).into_iter().next() {
        Some(v) => Err(v),
        None => Ok(()),
    }
}

/// Every violation of SPEC §6 in one slot.
pub fn check_slot(slot: &Slot, facts: &SlotFacts) -> Vec<Violation> {
    let mut out = Vec::new();
    let mut fail = |rule: &str, message: String, ids: Vec<String>| {
        out.push(Violation {
            rule: rule.to_string(),
            subject: facts.slot_ref.subject.clone(),
            predicate: facts.slot_ref.predicate.clone(),
            message,
            ids,
        })
    };
    if crate::archive::is_archive_subject(&facts.slot_ref.subject) {
        // An archive chunk holds retired copies of claims' old observations,
        // not values; the store-level check matches it to its slot.
        return out;
    }
    check_links(slot, facts.slot_ref, &mut fail);
    check_conflicts_close(slot, &mut fail);
    for c in &slot.claims {
        // A stated end is kept only while something ended the claim earlier.
        if c.stated_end_uncut() {
            fail("stated_end_not_cut", format!("claim {} keeps a stated end it is not cut short of", c.id), vec![c.id.clone()]);
        }
    }
    let origins = origins(facts.log);
    // A claim's own kind says it is an entry; a record from before claims
    // knew their kind reads it from the log.
    let origin = |c: &Claim| if c.kind.is_entry() { Origin::Entry } else { origins.get(c.id.as_str()).copied().unwrap_or(Origin::Valued) };
    if crate::model::is_entity_subject(&facts.slot_ref.subject) {
        // Names are not values of one slot: several names of several entities
        // are current at once by design; only the links and conflicts above apply.
        return out;
    }
    let not_entries: Vec<&Claim> = slot.claims.iter().map(|c| &**c).filter(|c| origin(c) != Origin::Entry).collect();
    if !facts.multi {
        check_one_current(slot, &not_entries, &mut fail);
        check_overtaken_conflicts_close(slot, &mut fail);
    }
    let valued: Vec<&Claim> = slot.claims.iter().map(|c| &**c).filter(|c| origin(c) == Origin::Valued).collect();
    check_no_duplicate_values(slot, &valued, &mut fail);
    out
}

/// A slot document a store answered for `slot_ref`, checked before the engine
/// builds on it: claims of another slot, dangling ids (a document missing its
/// claims or conflicts) or beliefs out of range would be written back as
/// they are, or lose what they name (SPEC §11: malformed store data is
/// refused before anything is written). Only the structural rules: a rule
/// about lifecycle is `checkInvariants`' to report, never a reason to refuse.
pub fn check_loaded(slot: &Slot, slot_ref: &SlotRef) -> Result<(), String> {
    if crate::archive::is_archive_subject(&slot_ref.subject) {
        return Ok(());
    }
    const STRUCTURAL: [&str; 6] =
        ["duplicate_claim_id", "claim_in_wrong_slot", "claim_names_unknown_conflict", "belief_out_of_range", "conflict_names_unknown_claim", "write_names_unknown_claim"];
    let mut first: Option<String> = None;
    check_links(slot, slot_ref, &mut |rule: &str, message: String, _| {
        if first.is_none() && STRUCTURAL.contains(&rule) {
            first = Some(format!("[{rule}] {message}"));
        }
    });
    first.map_or(Ok(()), Err)
}

/// Every id a record names resolves inside the slot. (`supersededBy` and
/// `supersedes` may cross slots after an entity merge: the store-level check
/// resolves them.)
fn check_links(slot: &Slot, slot_ref: &SlotRef, fail: &mut impl FnMut(&str, String, Vec<String>)) {
    let mut seen = std::collections::HashSet::new();
    for c in &slot.claims {
        if !seen.insert(c.id.as_str()) {
            fail("duplicate_claim_id", format!("claim id {} appears twice", c.id), vec![c.id.clone()]);
        }
        // A registry slot holds entity names as claims about each entity id.
        let registry = crate::model::is_entity_subject(&slot_ref.subject);
        let misplaced = if registry { c.predicate != NAME_PREDICATE } else { c.subject != slot_ref.subject || c.predicate != slot_ref.predicate };
        if misplaced {
            fail("claim_in_wrong_slot", format!("claim {} says {}/{}", c.id, c.subject, c.predicate), vec![c.id.clone()]);
        }
        for cf in &c.conflict_ids {
            if slot.conflict(cf).is_none() {
                fail("claim_names_unknown_conflict", format!("claim {} names conflict {cf}, which does not exist", c.id), vec![c.id.clone(), cf.clone()]);
            }
        }
        if !(0.0..=1.0).contains(&c.confidence) || !c.log_odds.is_finite() {
            fail("belief_out_of_range", format!("claim {} has confidence {} / logOdds {}", c.id, c.confidence, c.log_odds), vec![c.id.clone()]);
        }
    }
    for cf in &slot.conflicts {
        if cf.kind == ConflictKind::Dependent && cf.changed.is_none() {
            fail("dependent_without_change", format!("dependent conflict {} does not carry the fact that changed", cf.id), vec![cf.id.clone()]);
        }
        for id in cf.local_claim_ids() {
            if slot.claim(id).is_none() {
                fail("conflict_names_unknown_claim", format!("conflict {} names claim {id}, which does not exist", cf.id), vec![cf.id.clone(), id.clone()]);
            } else if slot.claim(id).is_some_and(|c| !c.conflict_ids.contains(&cf.id)) {
                fail("conflict_not_noted", format!("conflict {} is not noted on its claim {id}", cf.id), vec![cf.id.clone(), id.clone()]);
            }
        }
        let settled = cf.status == ConflictStatus::Settled;
        if settled != cf.settlement.is_some() || settled != cf.settled_at.is_some() {
            fail("settlement_stamp", format!("conflict {} is {:?} with settlement {:?}", cf.id, cf.status, cf.settlement), vec![cf.id.clone()]);
        }
    }
    for w in &slot.writes {
        if slot.claim(&w.claim_id).is_none() {
            fail("write_names_unknown_claim", format!("idempotency record {} names claim {}, which does not exist", w.id, w.claim_id), vec![w.claim_id.clone()]);
        }
    }
}

/// An open conflict whose claims left the live set must have closed itself.
fn check_conflicts_close(slot: &Slot, fail: &mut impl FnMut(&str, String, Vec<String>)) {
    for cf in slot.conflicts.iter().filter(|c| c.status == ConflictStatus::Open) {
        for id in cf.local_claim_ids() {
            if let Some(c) = slot.claim(id).filter(|c| !c.status.is_live()) {
                fail("open_conflict_on_dead_claim", format!("conflict {} is open but its claim {id} is {}", cf.id, c.status.as_str()), vec![cf.id.clone(), id.clone()]);
            }
        }
    }
}

/// In a single-valued slot, an open question between two values that both
/// lost to a third must have closed itself (moot): settling it could change nothing.
fn check_overtaken_conflicts_close(slot: &Slot, fail: &mut impl FnMut(&str, String, Vec<String>)) {
    let Some(winner) = slot.claims.iter().find(|c| c.status.is_current()) else { return };
    for cf in slot.conflicts.iter().filter(|c| c.status == ConflictStatus::Open && c.kind != ConflictKind::Dependent) {
        if ![&cf.earlier_id, &cf.newer_id].iter().any(|id| slot.claim(id).is_some_and(|c| c.status.is_current())) {
            fail("open_conflict_overtaken", format!("conflict {} is open but neither of its claims is current: {} won", cf.id, winner.id),
                vec![cf.id.clone(), winner.id.clone()]);
        }
    }
}

/// Two half-open periods share a moment (an empty period shares none).
pub(crate) fn overlap(a: (Timestamp, Timestamp), b: (Timestamp, Timestamp)) -> bool {
    a.0 < a.1 && b.0 < b.1 && a.0 < b.1 && b.0 < a.1
}

/// A pair a person or an open question allows to be current together.
fn pair_allowed(slot: &Slot, a: &Claim, b: &Claim) -> bool {
    if a.status == Status::Disputed && b.status == Status::Disputed {
        return true;
    }
    slot.conflicts.iter().filter(|cf| cf.names_pair(&a.id, &b.id)).any(|cf| {
        cf.status == ConflictStatus::Open || (cf.status == ConflictStatus::Settled && cf.settlement == Some(Settlement::KeepBoth))
    })
}

fn check_one_current(slot: &Slot, valued: &[&Claim], fail: &mut impl FnMut(&str, String, Vec<String>)) {
    let current: Vec<&&Claim> = valued.iter().filter(|c| c.status.is_current()).collect();
    for (i, a) in current.iter().enumerate() {
        for b in &current[i + 1..] {
            if overlap(slot.validity(a), slot.validity(b)) && !pair_allowed(slot, a, b) {
                fail("two_current_values", format!(
                    "claims {} ({:?}, {}) and {} ({:?}, {}) are both current for the same time",
                    a.id, a.object, a.status.as_str(), b.id, b.object, b.status.as_str()
                ), vec![a.id.clone(), b.id.clone()]);
            }
        }
    }
}

fn check_no_duplicate_values(slot: &Slot, valued: &[&Claim], fail: &mut impl FnMut(&str, String, Vec<String>)) {
    // A claim a person retired is kept as a record of that decision, not as a
    // value; an erased claim (a tombstone, its object emptied) says nothing.
    let held: Vec<&&Claim> = valued.iter().filter(|c| c.status != Status::Retired && !c.object.is_empty()).collect();
    for (i, a) in held.iter().enumerate() {
        for b in &held[i + 1..] {
            if same_value(a, b) && overlap(slot.validity(a), slot.validity(b)) {
                fail("duplicate_value", format!(
                    "claims {} ({}) and {} ({}) both carry {:?} for overlapping times",
                    a.id, a.status.as_str(), b.id, b.status.as_str(), a.object
                ), vec![a.id.clone(), b.id.clone()]);
            }
        }
    }
}
