//! Entity resolution (SPEC §9): one entity behind many names. Pure functions;
//! the engine keeps the registry in one slot per entity type.
//!
//! Precision first. A name resolves to an entity automatically only when its
//! key (see `names`) equals the key of one of the entity's names, or of a
//! name the user declared an alias of it (`KnownAliases`). A name that merely
//! looks like one (see `near`: a typo, a shared word, an abbreviation) gets
//! its own entity, and the engine opens a `same_entity` conflict per near
//! match so a person decides: "Iceland" is never silently "Ireland".

mod names;
mod near;
mod near_index;

use std::rc::Rc;

use foldhash::HashMap;

use crate::model::{Chunked, Shared};
use serde::{Deserialize, Serialize};

pub use names::{fold_accents, name_form, name_key, name_tokens, KnownAliases, NameForm};
pub use near::Evidence;

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
    fn new(name: &str, entity_id: String, rule: &str, score: f64, near_matches: Vec<NearMatch>) -> Self {
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

/// `resolve_with` and no declared aliases.
pub fn resolve(entities: &Entities, name: &str, entity_type: &str) -> (Option<usize>, Resolution) {
    resolve_with(entities, name, entity_type, &KnownAliases::default())
}

/// Finds the entity a name denotes among `entities` (one type), following
/// merges. Returns its index, or `None` when a new entity is needed; then the
/// resolution lists the near matches a person should be asked about.
pub fn resolve_with(entities: &Entities, name: &str, entity_type: &str, known: &KnownAliases) -> (Option<usize>, Resolution) {
    NameIndex::new(entities, entity_type, known).resolve(entities, name, entity_type, known)
}

/// The names of one registry snapshot by key, so a name the registry knows
/// resolves with one look-up; only a name it does not know is compared with
/// every name (the near matches). Valid for the `entities` it was built from.
#[derive(Default, Clone)]
pub struct NameIndex {
    /// Name key → the first entity with a name of that key.
    exact: HashMap<String, usize>,
    /// Declared-alias canonical key → the first entity with a name in that group.
    canonical: HashMap<String, usize>,
    /// Each entity's names, tokenized, in `aliases` order.
    forms: Vec<Vec<Rc<NameForm>>>,
    /// Each entity's root (`root_of`).
    roots: Vec<usize>,
    /// Which entities a name the index does not know may be near.
    near: near_index::NearIndex,
    /// Every entity's id → its first position: a new id is checked free,
    /// and a `merged_into` link followed, with one look-up.
    ids: HashMap<String, usize>,
    /// The entities merged into another.
    merged: Vec<usize>,
    /// The merged entities whose root still names another (a link to an id
    /// no entity has, or a cycle): the only roots a new entity may move.
    unrooted: Vec<usize>,
}

impl NameIndex {
    pub fn new(entities: &Entities, entity_type: &str, known: &KnownAliases) -> Self {
        let mut index = NameIndex { forms: Vec::with_capacity(entities.len()), ..Default::default() };
        for i in 0..entities.len() {
            index.add_entity(entities, i, entity_type, known);
        }
        index.roots = (0..entities.len()).map(|i| index.root_in(entities, i)).collect();
        index.unrooted = index.merged.iter().copied().filter(|&j| entities[index.roots[j]].merged_into.is_some()).collect();
        index
    }

    /// `root_of` with the links followed through `ids` (the same first
    /// position `root_of` finds by a pass over the entities, and the same
    /// bound on the walk): a registry of thousands of merges is not walked
    /// once per merged entity.
    fn root_in(&self, entities: &Entities, i: usize) -> usize {
        root_by(entities, i, |id| self.ids.get(id).copied())
    }

    /// Indexes entity `i` (the next one): its names, id and whether it is merged.
    fn add_entity(&mut self, entities: &Entities, i: usize, entity_type: &str, known: &KnownAliases) {
        let e = &entities[i];
        let forms: Vec<Rc<NameForm>> = e.aliases.iter().map(|a| name_form(a, e.name_type(entity_type))).collect();
        for form in &forms {
            self.note_form(i, form, entity_type, known);
        }
        self.forms.push(forms);
        self.ids.entry(e.id.clone()).or_insert(i);
        if e.merged_into.is_some() {
            self.merged.push(i);
        }
    }

    /// Whether this index was built for (or kept in step with) `entities`
    /// (as far as a count can tell; `resolve` checks the same).
    pub fn covers(&self, entities: &Entities) -> bool {
        self.forms.len() == entities.len()
    }

    /// The entities merged, directly or through others, into entity `i`.
    pub fn merged_into(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        self.merged.iter().copied().filter(move |&j| j != i && self.roots[j] == i)
    }

    /// Whether an entity of the indexed registry has this id.
    pub fn id_taken(&self, id: &str) -> bool {
        self.ids.contains_key(id)
    }

    /// Indexes one name of entity `i`: the first entity with a key keeps it,
    /// exactly as `new` over the changed entities would.
    fn note_form(&mut self, i: usize, form: &NameForm, entity_type: &str, known: &KnownAliases) {
        if form.key.is_empty() {
            return;
        }
        let first = |held: &mut usize| *held = (*held).min(i);
        self.exact.entry(form.key.clone()).and_modify(first).or_insert(i);
        self.canonical.entry(known.canonical(entity_type, &form.key).to_string()).and_modify(first).or_insert(i);
        self.near.add(form, i, entity_type);
    }

    /// Keeps the index in step with `entities` after `aliases.push(name)` on entity `i`.
    pub fn alias_added(&mut self, entities: &Entities, i: usize, entity_type: &str, known: &KnownAliases) {
        let e = &entities[i];
        let Some(name) = e.aliases.get(self.forms[i].len()) else { return };
        let form = name_form(name, e.name_type(entity_type));
        self.note_form(i, &form, entity_type, known);
        self.forms[i].push(form);
    }

    /// Brings an index built from `before` up to `after` when `after` only
    /// added to it (names appended to entities, new entities at the end:
    /// what recording names does); `false`, changing nothing, for any other
    /// change (a merge, an undo, an erasure). Cheaper than `new` by far: the
    /// common registry commit adds one name to hundreds of entities.
    pub fn follow(&mut self, before: &Entities, after: &Entities, entity_type: &str, known: &KnownAliases) -> bool {
        // Items of chunks both versions share are the same: only the rest is compared.
        let shared = Chunked::shared_prefix(before, after);
        let only_added = before.len() == self.forms.len()
            && after.len() >= before.len()
            && before.iter().zip(after.iter()).skip(shared).all(|(b, a)| {
                Shared::same(a, b)
                    || a.id == b.id && a.entity_type == b.entity_type && a.merged_into == b.merged_into && a.aliases.get(..b.aliases.len()) == Some(&b.aliases[..])
            });
        if !only_added {
            return false;
        }
        for (i, (b, a)) in before.iter().zip(after.iter()).enumerate().skip(shared) {
            for _ in b.aliases.len()..a.aliases.len() {
                self.alias_added(after, i, entity_type, known);
            }
        }
        for _ in before.len()..after.len() {
            self.entity_added(after, entity_type, known);
        }
        true
    }

    /// Keeps the index in step with `entities` after a new entity was
    /// pushed: indexes the first entity it does not index yet.
    pub fn entity_added(&mut self, entities: &Entities, entity_type: &str, known: &KnownAliases) {
        let i = self.forms.len();
        self.add_entity(entities, i, entity_type, known);
        self.roots.push(self.root_in(entities, i));
        if entities[i].merged_into.is_some() && entities[self.roots[i]].merged_into.is_some() {
            self.unrooted.push(i);
        }
        // Only a root that still names another may move: its link may name
        // the new entity (store data is not trusted), and the walk is bounded
        // by the number of entities (a cycle). Every other root stays.
        let unrooted = std::mem::take(&mut self.unrooted);
        for &j in &unrooted {
            self.roots[j] = self.root_in(entities, j);
        }
        self.unrooted = unrooted.into_iter().filter(|&j| entities[self.roots[j]].merged_into.is_some()).collect();
    }

    /// `resolve_with` against the entities this index was built from.
    pub fn resolve(&self, entities: &Entities, name: &str, entity_type: &str, known: &KnownAliases) -> (Option<usize>, Resolution) {
        if entities.len() != self.forms.len() {
            // Not the entities this index was built from: answer from theirs.
            return NameIndex::new(entities, entity_type, known).resolve(entities, name, entity_type, known);
        }
        let wanted = name_form(name, entity_type);
        if !wanted.key.is_empty() {
            if let Some(&i) = self.exact.get(&wanted.key) {
                let i = self.roots[i];
                return (Some(i), Resolution::new(name, entities[i].id.clone(), "alias", 1.0, vec![]));
            }
            if let Some(&i) = self.canonical.get(known.canonical(entity_type, &wanted.key)) {
                let i = self.roots[i];
                return (Some(i), Resolution::new(name, entities[i].id.clone(), "known_alias", 1.0, vec![]));
            }
        }
        // Near matches, best alias per entity, merged entities counted as their
        // root; only the entities the near index names can have any.
        let mut near: Vec<NearMatch> = Vec::new();
        for i in self.near.candidates(&wanted, entity_type) {
            let (e, root) = (&entities[i], self.roots[i]);
            let best = e
                .aliases
                .iter()
                .zip(&self.forms[i])
                .filter_map(|(alias, t)| near::evidence(&wanted, t, entity_type).map(|ev| (alias, ev)))
                .reduce(|best, x| if x.1.score > best.1.score { x } else { best }); // ties: the earliest name
            let Some((alias, ev)) = best else { continue };
            let candidate = NearMatch { entity_id: entities[root].id.clone(), name: alias.clone(), score: ev.score, why: ev.why };
            match near.iter_mut().find(|m| m.entity_id == candidate.entity_id) {
                Some(m) if m.score < candidate.score => *m = candidate,
                Some(_) => {}
                None => near.push(candidate),
            }
        }
        crate::sort::sort_by(&mut near, |a, b| b.score.total_cmp(&a.score).then_with(|| a.entity_id.cmp(&b.entity_id)));
        near.truncate(MAX_NEAR_MATCHES);
        let (rule, score) = match near.first() {
            Some(m) => ("near", m.score),
            None => ("new", 0.0),
        };
        (None, Resolution::new(name, String::new(), rule, score, near))
    }
}

/// Whether a name `added` to a registry may change how `wanted` resolves
/// against it: the same key, the same declared-alias group, or evidence that
/// they look alike (`NameIndex::resolve` reads nothing else of a name).
pub fn may_change(added: &NameForm, wanted: &NameForm, entity_type: &str, known: &KnownAliases) -> bool {
    added.key == wanted.key || known.canonical(entity_type, &added.key) == known.canonical(entity_type, &wanted.key) || near::evidence(wanted, added, entity_type).is_some()
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

// proptest is a native dev-dependency.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod index_matches_scan;

#[cfg(test)]
mod tests {
    use super::*;

    fn entity(id: &str, ty: &str, names: &[&str]) -> Shared<Entity> {
        Entity { id: id.into(), entity_type: ty.into(), name: names[0].into(), aliases: names.iter().map(|s| s.to_string()).collect(), merged_into: None }.into()
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

