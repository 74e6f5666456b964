//! Entity resolution (SPEC §9): one entity behind many names. Pure functions;
//! the engine keeps the registry in one slot per entity type.
//!
//! A name resolves in this order: an exact alias hit (after normalization and,
//! per type, legal-suffix or honorific stripping) → that entity; otherwise the
//! best token similarity ≥ `SIMILARITY_THRESHOLD` → that entity, unless two
//! entities tie for best, which is ambiguous and never merges silently (a new
//! entity is made and the near matches are reported); otherwise a new entity.

use serde::{Deserialize, Serialize};

use crate::normalize::tokens;

/// Token similarity at or above which two names are the same entity. "Acme"
/// vs "Acme Bank" scores 0.5 and stays apart; "Jonathan Smith" vs "Jonathon
/// Smith" scores 1.0 (a one-letter typo in a long token still matches).
pub const SIMILARITY_THRESHOLD: f64 = 0.8;

const LEGAL_SUFFIXES: [&str; 18] = [
    "inc", "incorporated", "corp", "corporation", "co", "company", "ltd", "limited", "llc", "llp", "plc", "gmbh", "ag", "sa",
    "sarl", "bv", "nv", "oy",
];
const HONORIFICS: [&str; 10] = ["mr", "mrs", "ms", "miss", "dr", "prof", "sir", "madam", "mx", "dame"];

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

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct NearMatch {
    pub entity_id: String,
    pub name: String,
    pub score: f64,
}

/// How a name was resolved, for the outcome and `memory.entity()`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct Resolution {
    pub name: String,
    pub entity_id: String,
    /// `alias` (exact hit after normalization), `similar`, `new`, or `ambiguous` (a new entity because two were equally close).
    pub rule: String,
    pub score: f64,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub near_matches: Vec<NearMatch>,
}

/// The comparable tokens of a name for an entity type.
pub fn name_tokens(name: &str, entity_type: &str) -> Vec<String> {
    let mut t = tokens(name);
    let strip: &[&str] = match entity_type {
        "org" | "organization" | "company" => &LEGAL_SUFFIXES,
        "person" | "people" => &HONORIFICS,
        _ => &[],
    };
    match entity_type {
        "person" | "people" => {
            while t.len() > 1 && strip.contains(&t[0].as_str()) {
                t.remove(0);
            }
        }
        _ => {
            while t.len() > 1 && t.last().is_some_and(|l| strip.contains(&l.as_str())) {
                t.pop();
            }
        }
    }
    t
}

fn close(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    // Length check first, without allocating: most token pairs fail it.
    let (la, lb) = (a.chars().count(), b.chars().count());
    if la.min(lb) < 5 || la.abs_diff(lb) > 1 {
        return false;
    }
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    // Levenshtein distance ≤ 1, for typos in long tokens.
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != cb)).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()] <= 1
}

/// Matched tokens over the longer name's token count, 0..1.
pub fn similarity(a: &[String], b: &[String]) -> f64 {
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let mut used = vec![false; b.len()];
    let mut matched = 0;
    for ta in a {
        if let Some(j) = (0..b.len()).find(|&j| !used[j] && close(ta, &b[j])) {
            used[j] = true;
            matched += 1;
        }
    }
    matched as f64 / a.len().max(b.len()) as f64
}

fn best_score(alias_tokens: &[Vec<String>], wanted: &[String]) -> f64 {
    alias_tokens.iter().map(|t| similarity(t, wanted)).fold(0.0, f64::max)
}

/// Finds the entity a name denotes among `entities` (one type), following merges.
/// Returns the index of the match, or `None` when a new entity is needed.
pub fn resolve(entities: &[Entity], name: &str, entity_type: &str) -> (Option<usize>, Resolution) {
    let wanted = name_tokens(name, entity_type);
    let follow = |mut i: usize| {
        for _ in 0..entities.len() {
            match entities[i].merged_into.as_ref().and_then(|t| entities.iter().position(|e| &e.id == t)) {
                Some(next) => i = next,
                None => break,
            }
        }
        i
    };
    // Each alias is tokenized once per call, and a name seen before (an
    // exact alias hit, the common case) returns before any scoring.
    let mut tokenized: Vec<Vec<Vec<String>>> = Vec::with_capacity(entities.len());
    for (i, e) in entities.iter().enumerate() {
        let tokens: Vec<Vec<String>> = e.aliases.iter().map(|a| name_tokens(a, entity_type)).collect();
        if tokens.contains(&wanted) {
            let i = follow(i);
            return (Some(i), Resolution { name: name.into(), entity_id: entities[i].id.clone(), rule: "alias".into(), score: 1.0, near_matches: vec![] });
        }
        tokenized.push(tokens);
    }
    // Merged entities only ever matched exactly. A registry holds one type;
    // an entity of another type is scored by its own type's tokens.
    let mut scored: Vec<(usize, f64)> = entities
        .iter()
        .enumerate()
        .filter(|(_, e)| e.merged_into.is_none())
        .map(|(i, e)| {
            let score = if e.entity_type == entity_type {
                best_score(&tokenized[i], &wanted)
            } else {
                best_score(&e.aliases.iter().map(|a| name_tokens(a, &e.entity_type)).collect::<Vec<_>>(), &wanted)
            };
            (i, score)
        })
        .filter(|(_, s)| *s > 0.0)
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let near: Vec<NearMatch> = scored
        .iter()
        .take(3)
        .map(|(i, s)| NearMatch { entity_id: entities[*i].id.clone(), name: entities[*i].name.clone(), score: *s })
        .collect();
    match scored.as_slice() {
        [(i, s), rest @ ..] if *s >= SIMILARITY_THRESHOLD => {
            if rest.first().is_some_and(|(j, t)| t == s && follow(*j) != follow(*i)) {
                return (None, Resolution { name: name.into(), entity_id: String::new(), rule: "ambiguous".into(), score: *s, near_matches: near });
            }
            let i = follow(*i);
            (Some(i), Resolution { name: name.into(), entity_id: entities[i].id.clone(), rule: "similar".into(), score: *s, near_matches: vec![] })
        }
        _ => (None, Resolution { name: name.into(), entity_id: String::new(), rule: "new".into(), score: 0.0, near_matches: near }),
    }
}

/// A readable, unique id for a new entity: `type:slug`, suffixed on collision.
pub fn new_id(entities: &[Entity], name: &str, entity_type: &str) -> String {
    let slug = name_tokens(name, entity_type).join("-");
    let slug = if slug.is_empty() { "entity".to_string() } else { slug };
    let base = format!("{entity_type}:{slug}");
    let mut id = base.clone();
    let mut n = 2;
    while entities.iter().any(|e| e.id == id) {
        id = format!("{base}-{n}");
        n += 1;
    }
    id
}

#[cfg(test)]
mod tests {
    use super::*;

    fn org(id: &str, names: &[&str]) -> Entity {
        Entity { id: id.into(), entity_type: "org".into(), name: names[0].into(), aliases: names.iter().map(|s| s.to_string()).collect(), merged_into: None }
    }

    #[test]
    fn legal_suffixes_and_punctuation_collapse() {
        let reg = vec![org("org:acme", &["Acme"])];
        for name in ["Acme Corp", "ACME, Inc.", "acme ltd", "  Acme  "] {
            let (hit, r) = resolve(&reg, name, "org");
            assert_eq!((hit, r.rule.as_str()), (Some(0), "alias"), "{name}");
        }
    }

    #[test]
    fn different_names_stay_apart_at_the_threshold() {
        let reg = vec![org("org:acme", &["Acme"])];
        let (hit, r) = resolve(&reg, "Acme Bank", "org");
        assert_eq!(hit, None);
        assert_eq!(r.rule, "new");
        assert_eq!(r.near_matches[0].score, 0.5);
    }

    #[test]
    fn typos_in_long_tokens_are_similar() {
        let people = vec![Entity { id: "person:jonathan-smith".into(), entity_type: "person".into(), name: "Jonathan Smith".into(), aliases: vec!["Jonathan Smith".into()], merged_into: None }];
        let (hit, r) = resolve(&people, "Dr. Jonathon Smith", "person");
        assert_eq!((hit, r.rule.as_str(), r.score), (Some(0), "similar", 1.0));
    }

    #[test]
    fn two_equally_close_entities_are_ambiguous() {
        let reg = vec![org("a", &["Acme Widgets International Group Blue"]), org("b", &["Acme Widgets International Group Red"])];
        let (hit, r) = resolve(&reg, "Acme Widgets International Group", "org");
        assert_eq!((hit, r.rule.as_str()), (None, "ambiguous"));
        assert_eq!(r.near_matches.iter().map(|m| m.score).collect::<Vec<_>>(), vec![0.8, 0.8]);
    }

    #[test]
    fn ids_are_readable_and_unique() {
        let reg = vec![org("org:acme", &["Acme"])];
        assert_eq!(new_id(&reg, "ACME, Inc.", "org"), "org:acme-2");
        assert_eq!(new_id(&[], "Globex Corporation", "org"), "org:globex");
    }
}

/// The subject of the entity-registry slots (one per entity type).
pub const ENTITY_REGISTRY: &str = "\u{1f}entities";

/// A person's merge of `from` into `into`, with what `undo` must restore.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct EntityMerge {
    pub id: String,
    pub into: String,
    pub from: String,
    pub aliases_added: Vec<String>,
    /// Claims the merge touched, as they were before it.
    pub reverts: Vec<ClaimRevert>,
    #[serde(default)]
    pub undone: bool,
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
}
