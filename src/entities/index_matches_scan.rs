//! `NameIndex` answers exactly as the pass over every name it replaced.
use super::*;
use proptest::prelude::*;

/// The resolution before the index: every entity's names scanned in order.
fn by_scan(entities: &Entities, name: &str, entity_type: &str, known: &KnownAliases) -> (Option<usize>, Resolution) {
    let wanted = name_form(name, entity_type);
    let wanted_canonical = known.canonical(entity_type, &wanted.key);
    let mut via_known = None;
    for (i, e) in entities.iter().enumerate() {
        for a in &e.aliases {
            let key = &name_form(a, entity_type).key;
            if !wanted.key.is_empty() && *key == wanted.key {
                let i = root_of(entities, i);
                return (Some(i), Resolution::new(name, entities[i].id.clone(), "alias", 1.0, vec![]));
            }
            if via_known.is_none() && !key.is_empty() && known.canonical(entity_type, key) == wanted_canonical {
                via_known = Some(i);
            }
        }
    }
    match via_known {
        Some(i) => {
            let i = root_of(entities, i);
            (Some(i), Resolution::new(name, entities[i].id.clone(), "known_alias", 1.0, vec![]))
        }
        // Near matches never came from the keyed part: the index runs the same pass.
        None => NameIndex::new(entities, entity_type, known).resolve(entities, name, entity_type, known),
    }
}

const WORDS: &[&str] = &["Acme", "ACME Inc.", "Acme Bank", "Globex", "Globex Corp", "Initech", "Inetech", "Umbrella", "the Umbrella Co", "Hooli", "Hooli Ltd", "", "!!"];

/// Names near one another by every rule: typos of whole names and of
/// words, prefixes, abbreviations, shared and generic words, initials,
/// accents.
const NEAR_WORDS: &[&str] = &[
    "Iceland", "Ireland", "Initech", "Inetech", "Initech Bank", "Niger", "Nigeria", "German", "Germany", "IBM",
    "International Business Machines", "USA", "U.S.A.", "United States of America", "Groupe Alpha", "Group Beta", "Alpha Group",
    "J. Smith", "John Smith", "Jon Smith", "Jonathan Smyth", "Smith", "J S", "Ludwig van Beethoven", "L. v. Beethoven", "van Dyke",
    "Zürich Versicherung", "Zurich", "Zurick", "Müller", "Mueller", "Muller", "Globex", "Globexx Corporation", "Acme", "Acme Bank",
    "the Umbrella Co", "Umbrela", "Hooli", "Hooli XYZ", "Mary Ann Lee", "M A Lee", "Ann", "Anne-Marie", "Annemarie",
];

fn registry() -> impl Strategy<Value = Entities> {
    // A link names an entity of the registry (cycles included), or one
    // a later edit may add ("org:n…", as `kept_in_step` names them).
    prop::collection::vec((prop::collection::vec(0..WORDS.len(), 1..4), prop::option::of(0..12usize)), 0..8).prop_map(|rows| {
        let n = rows.len();
        rows.into_iter()
            .enumerate()
            .map(|(i, (names, merged))| Entity {
                id: format!("org:e{i}"),
                entity_type: "org".into(),
                name: WORDS[names[0]].into(),
                aliases: names.iter().map(|&w| WORDS[w].to_string()).collect(),
                merged_into: merged.filter(|&m| m != i && (m < n || m >= 8)).map(|m| if m < n { format!("org:e{m}") } else { format!("org:n{}", n + m - 8) }),
            }.into())
            .collect()
    })
}

/// Names of `near_index::LONG` chars or more are scanned from their own
/// list: a whole-key typo between two such names (no shared word, no
/// shared first four chars, no word a single edit apart) is still found.
#[test]
fn long_names_keep_their_typos() {
    let base = "ab".repeat(150);
    let typo = format!("xy{}ba", &base[2..base.len() - 2]);
    let shorter = format!("xy{}", &base[2..base.len() - 1]);
    let known = KnownAliases::default();
    let entities: Entities = [&base, &"q".repeat(400), &"ab".repeat(120)]
        .iter()
        .enumerate()
        .map(|(i, n)| Shared::new(Entity { id: format!("org:l{i}"), entity_type: "org".into(), name: n.to_string(), aliases: vec![n.to_string()], merged_into: None }))
        .collect();
    let index = NameIndex::new(&entities, "org", &known);
    for wanted in [&typo, &shorter] {
        let (hit, r) = index.resolve(&entities, wanted, "org", &known);
        assert_eq!((hit, r.rule.as_str(), r.near_matches[0].entity_id.as_str()), (None, "near", "org:l0"), "{r:?}");
        assert_eq!(index.resolve(&entities, wanted, "org", &known), by_scan(&entities, wanted, "org", &known));
    }
}

proptest! {
    #[test]
    fn same_answer(entities in registry(), wanted in 0..WORDS.len(), declared in any::<bool>()) {
        let groups = if declared {
            std::collections::HashMap::from([("org".to_string(), vec![vec!["Initech".to_string(), "Hooli".to_string()]])])
        } else {
            std::collections::HashMap::new()
        };
        let known = KnownAliases::new(&groups).unwrap();
        let name = WORDS[wanted];
        let index = NameIndex::new(&entities, "org", &known);
        prop_assert_eq!(index.resolve(&entities, name, "org", &known), by_scan(&entities, name, "org", &known));
    }

    /// The near index names every entity a comparison with every name
    /// finds near, for each kind of name (organizations, people, places).
    #[test]
    fn near_matches_as_every_name_compared(rows in prop::collection::vec(prop::collection::vec(0..NEAR_WORDS.len(), 1..3), 0..12), wanted in 0..NEAR_WORDS.len(), ty in 0..3usize) {
        let ty = ["org", "person", "country"][ty];
        let known = KnownAliases::default();
        let entities: Entities = rows.iter().enumerate().map(|(i, names)| Shared::new(Entity {
            id: format!("{ty}:e{i}"),
            entity_type: ty.into(),
            name: NEAR_WORDS[names[0]].into(),
            aliases: names.iter().map(|&w| NEAR_WORDS[w].to_string()).collect(),
            merged_into: None,
        })).collect();
        let name = NEAR_WORDS[wanted];
        let (hit, resolution) = NameIndex::new(&entities, ty, &known).resolve(&entities, name, ty, &known);
        if hit.is_none() {
            let wanted = name_form(name, ty);
            let mut every: Vec<NearMatch> = Vec::new();
            for e in &entities {
                let best = e.aliases.iter().filter_map(|a| near::evidence(&wanted, &name_form(a, ty), ty).map(|ev| (a, ev))).reduce(|best, x| if x.1.score > best.1.score { x } else { best });
                if let Some((alias, ev)) = best {
                    every.push(NearMatch { entity_id: e.id.clone(), name: alias.clone(), score: ev.score, why: ev.why });
                }
            }
            crate::sort::sort_by(&mut every, |a, b| b.score.total_cmp(&a.score).then_with(|| a.entity_id.cmp(&b.entity_id)));
            every.truncate(MAX_NEAR_MATCHES);
            prop_assert_eq!(resolution.near_matches, every);
        }
    }

    /// An index that followed a registry from one version to the next
    /// answers as one built afresh, and refuses any change but additions.
    #[test]
    fn follows_additions_only(before in registry(), after_edits in prop::collection::vec((0..4u8, 0..8usize, 0..WORDS.len()), 0..8)) {
        let known = KnownAliases::default();
        let mut after = before.clone();
        let mut added_only = true;
        for (kind, target, word) in after_edits {
            match (kind, after.len()) {
                (0, _) | (_, 0) => after.push(Entity { id: format!("org:n{}", after.len()), entity_type: "org".into(), name: WORDS[word].into(), aliases: vec![WORDS[word].into()], merged_into: None }.into()),
                (1, n) => after[target % n].aliases.push(WORDS[word].into()),
                (2, n) => {
                    // A merge or its undo: not an addition.
                    let i = target % n;
                    after[i].merged_into = if after[i].merged_into.is_some() { None } else { Some(after[(i + 1) % n].id.clone()) };
                    added_only = false;
                }
                (_, n) => {
                    let i = target % n;
                    if after[i].aliases.pop().is_some() {
                        added_only = false;
                    }
                }
            }
        }
        let mut index = NameIndex::new(&before, "org", &known);
        let followed = index.follow(&before, &after, "org", &known);
        let fresh = NameIndex::new(&after, "org", &known);
        if followed {
            for name in WORDS {
                prop_assert_eq!(index.resolve(&after, name, "org", &known), fresh.resolve(&after, name, "org", &known));
            }
        }
        // Additions are always followed; anything else only when it changed nothing visible.
        prop_assert!(followed || !added_only);
        if !followed {
            prop_assert!(before.len() > after.len() || before.iter().zip(&after).any(|(b, a)| a.merged_into != b.merged_into || a.aliases.get(..b.aliases.len()) != Some(&b.aliases[..])));
        }
    }

    /// An index kept in step with added names and entities answers as one
    /// built afresh (what recording a batch's names relies on).
    #[test]
    fn kept_in_step(mut entities in registry(), edits in prop::collection::vec((any::<bool>(), 0..8usize, 0..WORDS.len()), 1..12)) {
        let known = KnownAliases::default();
        let mut index = NameIndex::new(&entities, "org", &known);
        for (new_entity, target, word) in edits {
            if new_entity || entities.is_empty() {
                let id = format!("org:n{}", entities.len());
                entities.push(Entity { id, entity_type: "org".into(), name: WORDS[word].into(), aliases: vec![WORDS[word].into()], merged_into: None }.into());
                index.entity_added(&entities, "org", &known);
            } else {
                let i = target % entities.len();
                entities[i].aliases.push(WORDS[word].into());
                index.alias_added(&entities, i, "org", &known);
            }
            let fresh = NameIndex::new(&entities, "org", &known);
            for name in WORDS {
                prop_assert_eq!(index.resolve(&entities, name, "org", &known), fresh.resolve(&entities, name, "org", &known));
            }
        }
    }
}
