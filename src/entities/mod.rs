//! Entity resolution (SPEC §9): one entity behind many names. Pure functions;
//! the engine keeps each entity in a slot of its own, and a store finds the
//! entities sharing a key with a name from rows it keeps beside them (`keys`).
//!
//! Precision first. A name resolves to an entity automatically only when its
//! key (see `names`) equals the key of one of the entity's names, or of a
//! name the user declared an alias of it (`KnownAliases`). A name that merely
//! looks like one (see `near`: a typo, a shared word, an abbreviation) gets
//! its own entity, and the engine opens a `same_entity` conflict per near
//! match so a person decides: "Iceland" is never silently "Ireland".

mod keys;
mod names;
mod near;
mod resolve;

use crate::model::Chunked;
use serde::{Deserialize, Serialize};

pub use keys::{filed_under, EntityKey, EntityKeyRow, Lookup};
pub use names::{fold_accents, name_form, name_key, name_tokens, KnownAliases, NameForm};
pub use near::Evidence;
pub use resolve::{key_hits, near_candidates, near_resolution, resolve, resolve_with};

/// The entities of one registry, in the order they were added.
pub type Entities = Chunked<Entity>;

/// At most this many near matches are reported (and asked about) per name.
pub const MAX_NEAR_MATCHES: usize = 3;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct Entity {
    /// `type:slug`, e.g. `org:acme`.
    pub id: String,
    #[serde(rename = "type")]
    pub entity_type: String,
    /// The first name it was seen under.
    pub name: String,
    /// Every name it was seen under, including `name`.
    pub aliases: Vec<String>,
    /// Set when a person merged this entity into another.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merged_into: Option<String>,
    /// The entities merged into this one (their names and facts are here now).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(target_arch = "wasm32", tsify(optional))]
    pub merged_from: Vec<String>,
    /// Entities this one was merged into by merges since undone: a keyed
    /// write sent while merged landed there, and is found there again.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(target_arch = "wasm32", tsify(optional))]
    pub was_merged_into: Vec<String>,
}

impl Entity {
    /// The type its names are read as: its own, or (for records without one) the registry's.
    pub fn name_type<'a>(&'a self, registry_type: &'a str) -> &'a str {
        if self.entity_type.is_empty() { registry_type } else { &self.entity_type }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct NearMatch {
    pub entity_id: String,
    /// The entity's name that looks like the one resolved.
    pub name: String,
    pub score: f64,
    /// Why they look alike ("1 letter(s) apart", "they share \"acme\"", …).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub why: String,
}

/// How a name was resolved, for the outcome and `memory.entity()`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct Resolution {
    pub name: String,
    pub entity_id: String,
    /// `alias` (same key as a name of the entity), `known_alias` (a declared
    /// alias), `id` (the name is the entity's id), `new` (nothing alike), or
    /// `near` (a new entity that looks like others: a `same_entity` conflict
    /// asks about each near match).
    pub rule: String,
    pub score: f64,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub near_matches: Vec<NearMatch>,
    /// The `same_entity` conflicts this resolution opened.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conflict_ids: Vec<String>,
}

impl Resolution {
    pub(crate) fn new(name: &str, entity_id: String, rule: &str, score: f64, near_matches: Vec<NearMatch>) -> Self {
        Resolution { name: name.into(), entity_id, rule: rule.into(), score, near_matches, conflict_ids: Vec::new() }
    }
}

/// A name that is the id of an entity of its type ("org:acme", as outcomes
/// report it) resolves to that entity, or the one it was merged into — never
/// to a new entity named after the id. Only names of that form are looked up.
pub fn by_id(entities: &Entities, name: &str, entity_type: &str) -> Option<(usize, Resolution)> {
    let rest = name.strip_prefix(entity_type)?.strip_prefix(':')?;
    if rest.is_empty() {
        return None;
    }
    let i = entities.iter().position(|e| e.id == name)?;
    let root = root_of(entities, i);
    Some((root, Resolution::new(name, entities[root].id.clone(), "id", 1.0, Vec::new())))
}

/// The resolution of a name that is the id of a new entity not recorded yet
/// (an earlier write of the same batch creates it).
pub fn by_new_id(name: &str) -> Resolution {
    Resolution::new(name, name.to_string(), "id", 1.0, Vec::new())
}

/// Follows `merged_into` links to the entity that now holds the names.
pub fn root_of(entities: &Entities, i: usize) -> usize {
    root_by(entities, i, |id| entities.iter().position(|e| e.id == id))
}

/// `root_of` with `position` naming the first entity of an id; the walk is
/// bounded by the number of entities (store data may hold a cycle).
fn root_by(entities: &Entities, mut i: usize, position: impl Fn(&str) -> Option<usize>) -> usize {
    for _ in 0..entities.len() {
        match entities[i].merged_into.as_deref().and_then(&position) {
            Some(next) => i = next,
            None => break,
        }
    }
    i
}

/// A readable, unique id for a new entity: `type:slug`, suffixed on collision.
pub fn new_id(taken: impl Fn(&str) -> bool, name: &str, entity_type: &str) -> String {
    let slug = name_tokens(name, entity_type).join("-");
    let slug = if slug.is_empty() { "entity".to_string() } else { slug };
    let base = format!("{entity_type}:{slug}");
    let mut id = base.clone();
    let mut n = 2;
    while taken(&id) {
        id = format!("{base}-{n}");
        n += 1;
    }
    id
}

// Kept with memory's other reserved names (`crate::model::reserved`).
pub use crate::model::ENTITY_REGISTRY;

/// Where an entity merge stands. A merge is recorded (`pending`) before it
/// changes any fact, so a crash part-way can be resumed or rolled back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub enum MergeState {
    Pending,
    #[default]
    Done,
    /// An undo started and did not finish; undo again to finish it.
    Undoing,
    Undone,
}

/// A merge of entity `from` into `into`, with what `undo` must restore.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct EntityMerge {
    pub id: String,
    pub into: String,
    pub from: String,
    pub aliases_added: Vec<String>,
    /// Claims the merge changed: written here before each change is committed.
    pub reverts: Vec<ClaimRevert>,
    #[serde(default)]
    pub undone: bool,
    /// The `same_entity` conflict whose "same" settlement made this merge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conflict_id: Option<String>,
    #[serde(default)]
    pub state: MergeState,
    /// Predicates of `from` whose facts have moved.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub slots_done: Vec<String>,
    /// Who merged (for the settlement a "same" merge completes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
}

/// The parts of a claim a merge changes, to check that nothing changed since.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct ClaimMark {
    pub status: crate::model::Status,
    pub provenance_len: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub superseded_by: Option<String>,
}

impl ClaimMark {
    pub fn of(c: &crate::model::Claim) -> Self {
        ClaimMark { status: c.status, provenance_len: c.observation_count(), superseded_by: c.superseded_by.clone() }
    }
}

/// A claim's mutable parts before a merge: undo puts them back; a claim the
/// merge created (`created`) is retired instead, so nothing is deleted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct ClaimRevert {
    pub subject: String,
    pub predicate: String,
    pub claim_id: String,
    pub created: bool,
    pub status: crate::model::Status,
    pub provenance_len: usize,
    pub log_odds: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub superseded_by: Option<String>,
    /// The claim as the merge left it; undo refuses (`UNDO_STALE`) if it changed since.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<ClaimMark>,
    /// The idempotency key the move wrote into the target slot: the change
    /// happened if and only if the target slot holds it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_id: Option<String>,
    /// The claim's `validTo` before the merge (a claim the move superseded
    /// was ended by it): `null` when it had none; absent in records written
    /// before this was kept (undo then leaves `validTo` as it finds it).
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    #[cfg_attr(target_arch = "wasm32", tsify(optional, type = "string | null"))]
    pub valid_to: Option<Option<crate::time::Timestamp>>,
}

/// A field that may be `null`: present (even as `null`) is `Some`, absent is `None` (`#[serde(default)]`).
fn present<'de, D: serde::Deserializer<'de>, T: Deserialize<'de>>(d: D) -> std::result::Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(d).map(Some)
}


#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Shared;

    fn entity(id: &str, ty: &str, names: &[&str]) -> Shared<Entity> {
        Entity { id: id.into(), entity_type: ty.into(), name: names[0].into(), aliases: names.iter().map(|s| s.to_string()).collect(), merged_into: None, merged_from: Vec::new(), was_merged_into: Vec::new() }.into()
    }

    #[test]
    fn legal_suffixes_and_punctuation_collapse() {
        let reg: Entities = vec![entity("org:acme", "org", &["Acme"])].into();
        for name in ["Acme Corp", "ACME, Inc.", "acme ltd", "  Acme  ", "Acme S.A."] {
            let (hit, r) = resolve(&reg, name, "org");
            assert_eq!((hit, r.rule.as_str()), (Some(0), "alias"), "{name}");
        }
    }

    #[test]
    fn a_near_name_is_a_new_entity_with_the_near_match_named() {
        let reg: Entities = vec![entity("org:acme", "org", &["Acme"])].into();
        let (hit, r) = resolve(&reg, "Acme Bank", "org");
        assert_eq!((hit, r.rule.as_str()), (None, "near"));
        assert_eq!((r.near_matches[0].entity_id.as_str(), r.near_matches[0].score), ("org:acme", 0.5));
        let countries: Entities = vec![entity("country:ireland", "country", &["Ireland"])].into();
        let (hit, r) = resolve(&countries, "Iceland", "country");
        assert_eq!((hit, r.rule.as_str(), r.near_matches[0].name.as_str()), (None, "near", "Ireland"));
    }

    #[test]
    fn a_typo_asks_instead_of_merging() {
        let people: Entities = vec![entity("person:jonathan-smith", "person", &["Jonathan Smith"])].into();
        let (hit, r) = resolve(&people, "Dr. Jonathon Smith", "person");
        assert_eq!((hit, r.rule.as_str()), (None, "near"));
        let (hit, r) = resolve(&people, "Dr. Jonathan Smith", "person");
        assert_eq!((hit, r.rule.as_str()), (Some(0), "alias"));
    }

    #[test]
    fn declared_aliases_merge_and_merges_are_followed() {
        let groups = std::collections::HashMap::from([("country".to_string(), vec![vec!["Germany".to_string(), "Deutschland".to_string()]])]);
        let known = KnownAliases::new(&groups).unwrap_or_default();
        let mut reg: Entities = vec![entity("country:germany", "country", &["Germany"]), entity("country:brd", "country", &["BRD"])].into();
        let (hit, r) = resolve_with(&reg, "Deutschland", "country", &known);
        assert_eq!((hit, r.rule.as_str()), (Some(0), "known_alias"));
        reg[1].merged_into = Some("country:germany".into());
        assert_eq!(resolve(&reg, "brd", "country").0, Some(0));
    }

    #[test]
    fn near_matches_are_capped_best_first() {
        let reg: Entities = ["Acme One", "Acme Two", "Acme Three", "Acme Four Five"].iter().enumerate().map(|(i, n)| entity(&format!("org:{i}"), "org", &[n])).collect();
        let (_, r) = resolve(&reg, "Acme", "org");
        assert_eq!(r.near_matches.len(), MAX_NEAR_MATCHES);
        assert!(r.near_matches.windows(2).all(|w| w[0].score >= w[1].score));
    }

    #[test]
    fn ids_are_readable_and_unique() {
        let reg = [entity("org:acme", "org", &["Acme"])];
        assert_eq!(new_id(|id| reg.iter().any(|e| e.id == id), "ACME, Inc.", "org"), "org:acme-2");
        assert_eq!(new_id(|_| false, "Globex Corporation", "org"), "org:globex");
    }
}

