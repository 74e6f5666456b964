//! Resolving a name from the key rows a store answers (`keys`): pure, so the
//! engine (rows from the store, entities loaded by id) and `resolve_with` (rows
//! of a list of entities in memory) decide alike.

use super::keys::{EntityKeyRow, Lookup};
use super::names::name_form;
use super::near::evidence;
use super::{filed_under, root_of, Entities, KnownAliases, NearMatch, Resolution, MAX_NEAR_MATCHES};

/// The entities the first round's rows name, and the rule: the name's own
/// key (`alias`) before its declared alias group's (`known_alias`). Ids sorted.
pub fn key_hits(lookup: &Lookup, rows: &[EntityKeyRow]) -> Option<(Vec<String>, &'static str)> {
    let named = |want: &dyn Fn(&str) -> bool| {
        let mut ids: Vec<String> = rows.iter().filter(|r| want(&r.key)).map(|r| r.entity.clone()).collect();
        crate::sort::sort(&mut ids);
        ids.dedup();
        ids
    };
    if let Some(exact) = &lookup.exact {
        let ids = named(&|k| k == exact);
        if !ids.is_empty() {
            return Some((ids, "alias"));
        }
    }
    let ids = named(&|k| lookup.known.iter().any(|x| x == k));
    (!ids.is_empty()).then_some((ids, "known_alias"))
}

/// Each entity the near round's rows name with evidence, as a near match:
/// its name that looks most like the wanted one (ties: the first name in
/// text order, so the answer does not depend on the order rows come in).
pub fn near_candidates(lookup: &Lookup, rows: &[EntityKeyRow], entity_type: &str) -> Vec<NearMatch> {
    let mut pairs: Vec<(&str, &str)> = rows.iter().map(|r| (r.entity.as_str(), r.name.as_str())).collect();
    pairs.sort_unstable();
    pairs.dedup();
    let mut out: Vec<NearMatch> = Vec::new();
    for (entity, name) in pairs {
        let Some(ev) = evidence(&lookup.wanted, &name_form(name, entity_type), entity_type) else { continue };
        let candidate = NearMatch { entity_id: entity.to_string(), name: name.to_string(), score: ev.score, why: ev.why };
        match out.last_mut() {
            Some(m) if m.entity_id == entity => {
                if candidate.score > m.score {
                    *m = candidate;
                }
            }
            _ => out.push(candidate),
        }
    }
    out
}

/// The resolution of a name no entity has. `near` holds near matches with
/// merged entities already counted as their root: the best per entity,
/// best first, at most `MAX_NEAR_MATCHES`.
pub fn near_resolution(name: &str, near: Vec<NearMatch>) -> Resolution {
    let mut best: Vec<NearMatch> = Vec::new();
    for m in near {
        match best.iter_mut().find(|b| b.entity_id == m.entity_id) {
            Some(b) if b.score < m.score => *b = m,
            Some(_) => {}
            None => best.push(m),
        }
    }
    crate::sort::sort_by(&mut best, |a, b| b.score.total_cmp(&a.score).then_with(|| a.entity_id.cmp(&b.entity_id)));
    best.truncate(MAX_NEAR_MATCHES);
    let (rule, score) = match best.first() {
        Some(m) => ("near", m.score),
        None => ("new", 0.0),
    };
    Resolution::new(name, String::new(), rule, score, best)
}

/// `resolve_with` and no declared aliases.
pub fn resolve(entities: &Entities, name: &str, entity_type: &str) -> (Option<usize>, Resolution) {
    resolve_with(entities, name, entity_type, &KnownAliases::default())
}

/// Finds the entity a name denotes among `entities` (one type, in memory),
/// following merges, as the engine does from a store's rows. Returns its
/// index, or `None` when a new entity is needed; then the resolution lists
/// the near matches a person should be asked about.
pub fn resolve_with(entities: &Entities, name: &str, entity_type: &str, known: &KnownAliases) -> (Option<usize>, Resolution) {
    if let Some(hit) = super::by_id(entities, name, entity_type) {
        return (Some(hit.0), hit.1);
    }
    let rows: Vec<EntityKeyRow> = entities
        .iter()
        .flat_map(|e| filed_under(e, entity_type).into_iter().map(|k| EntityKeyRow { key: k.key, entity: e.id.clone(), name: k.name }))
        .collect();
    let position = |id: &str| entities.iter().position(|e| e.id == id);
    let lookup = Lookup::new(name, entity_type, known);
    let first_round: Vec<String> = lookup.key_round();
    let hits: Vec<EntityKeyRow> = rows.iter().filter(|r| first_round.contains(&r.key)).cloned().collect();
    if let Some((ids, rule)) = key_hits(&lookup, &hits) {
        // The first entity (in the order they were added) with the key, at its root.
        let Some(i) = ids.iter().filter_map(|id| position(id)).min() else { return (None, Resolution::new(name, String::new(), "new", 0.0, Vec::new())) };
        let root = root_of(entities, i);
        return (Some(root), Resolution::new(name, entities[root].id.clone(), rule, 1.0, Vec::new()));
    }
    let near_keys = lookup.near();
    let near_rows: Vec<EntityKeyRow> = rows.into_iter().filter(|r| near_keys.binary_search(&r.key).is_ok()).collect();
    let near = near_candidates(&lookup, &near_rows, entity_type)
        .into_iter()
        .filter_map(|mut m| {
            let root = root_of(entities, position(&m.entity_id)?);
            m.entity_id = entities[root].id.clone();
            Some(m)
        })
        .collect();
    (None, near_resolution(name, near))
}
