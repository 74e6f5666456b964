//! The keys an entity is filed under, and the keys a name is looked up by
//! (issue #44): a store keeps one row per (key, entity, name) beside each
//! entity's slot and answers `find_entities` from them, so resolving a name
//! reads the few entities that share a key with it, never every entity of its
//! type.
//!
//! - `=key`: a name's key (`names::name_key`). Two names resolve to one entity
//!   automatically only when their keys are equal, or in one declared alias
//!   group (the look-up then asks for every key of the group).
//! - Near keys, a superset of what `near::evidence` can find evidence against:
//!   - a shared or typo'd token (organizations, places): tokens by text, and
//!     each token of five or more chars also by every form of it with one
//!     char deleted — two tokens one edit (or swap) apart share such a form;
//!   - a person's tokens pairing up (initials, typos): the same, and initials
//!     by their letter, and a word's first letter for a wanted initial;
//!   - one name beginning the other: names by their first four chars;
//!   - an abbreviation: names of two words or more by their initials, and
//!     one-word names ("IBM", "U S A") by their letters;
//!   - a whole-key typo: keys of 4 to 24 chars by every form with one char
//!     deleted. Whole-key typos of two or three edits that touch every token
//!     and the first four chars are not looked up (the registry this replaced
//!     scanned every name of a near length for them; a store cannot).

use std::rc::Rc;

use serde::{Deserialize, Serialize};

use super::names::{kind_of, name_form, NameForm, NameKind};
use super::near::{initials, GENERIC, NEAR_CHARS};
use super::{Entity, KnownAliases};

/// A key's tag: its first char, so one index holds every kind of key.
const EXACT: char = '=';
const TOKEN: char = 't';
/// A token of five chars or more, or it with one char deleted; generic
/// words apart (`GENERIC_DELETION`).
const DELETION: char = 'd';
const GENERIC_DELETION: char = 'g';
/// A person's one-letter token, by its letter.
const INITIAL: char = 'i';
/// A person's longer token, by its first letter.
const FIRST_LETTER: char = 'f';
/// A key's first four chars.
const HEAD: char = 'h';
/// A name of two words or more, by its initials (with and without "of", "the", …).
const INITIALS: char = 'a';
/// A one-word name of two letters or more, by its letters.
const LETTERS: char = 'l';
/// A whole key of `WHOLE_KEY` chars, or it with one char deleted.
const WHOLE: char = 'w';
const WHOLE_KEY: std::ops::RangeInclusive<usize> = 4..=24;
/// A whole key of `TWO_EDIT_KEY` chars, or it with one or two chars deleted:
/// the keys a typo budget of two (`near::typo_budget`, 7 to 11 chars, the
/// other name up to two longer) can reach — "Algeria" and "Nigeria".
const WHOLE_TWO: char = 'v';
const TWO_EDIT_KEY: std::ops::RangeInclusive<usize> = 7..=13;

/// One row of an entity's index: a key and the name of the entity it came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct EntityKey {
    pub key: String,
    pub name: String,
}

/// What a store answers `find_entities` with: a key row of an entity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct EntityKeyRow {
    pub key: String,
    pub entity: String,
    pub name: String,
}

fn tagged(tag: char, text: &str) -> String {
    let mut key = String::with_capacity(text.len() + 1);
    key.push(tag);
    key.push_str(text);
    key
}

/// `text` and every form of it with one char deleted, under `tag`.
fn deletions(tag: char, chars: &[char], out: &mut Vec<String>) {
    out.push(tagged(tag, &chars.iter().collect::<String>()));
    for at in 0..chars.len() {
        let mut key = String::with_capacity(chars.len() + 1);
        key.push(tag);
        key.extend(chars[..at].iter().chain(&chars[at + 1..]));
        out.push(key);
    }
}

/// The near keys a stored name is filed under (`stored`), or those a wanted
/// name looks up. A token pair counts when equal or a typo apart (both five
/// chars or more: they share a one-deletion form); for organizations the
/// short name's token must be three chars or more and not generic, so
/// generic words are only looked up against others. A person's token also
/// pairs with an initial of it, either way round.
fn near_keys(form: &NameForm, person: bool, stored: bool, out: &mut Vec<String>) {
    // Such a name is near nothing (`near::evidence`), and its keys would cost its length squared.
    if form.chars.len() > NEAR_CHARS {
        return;
    }
    if form.chars.len() >= 4 {
        out.push(tagged(HEAD, &form.chars[..4].iter().collect::<String>()));
    }
    if WHOLE_KEY.contains(&form.chars.len()) {
        deletions(WHOLE, &form.chars, out);
    }
    if TWO_EDIT_KEY.contains(&form.chars.len()) {
        for at in 0..form.chars.len() {
            let mut shorter = form.chars.clone();
            shorter.remove(at);
            deletions(WHOLE_TWO, &shorter, out);
        }
        out.push(tagged(WHOLE_TWO, &form.key));
    }
    // An abbreviation pairs a one-word name's letters with the other's
    // initials: each side is filed under one and looks up the other.
    let one_word = form.tokens.len() == 1 || form.token_chars.iter().all(|&n| n == 1);
    if one_word && form.token_chars.iter().sum::<usize>() >= 2 {
        out.push(tagged(if stored { LETTERS } else { INITIALS }, &form.tokens.concat()));
    }
    if form.tokens.len() >= 2 {
        for skip in [false, true] {
            out.push(tagged(if stored { INITIALS } else { LETTERS }, &initials(&form.tokens, skip)));
        }
    }
    for (token, &chars) in form.tokens.iter().zip(&form.token_chars) {
        let generic = !person && GENERIC.contains(&token.as_str());
        if person || (chars >= 3 && !generic) {
            out.push(tagged(TOKEN, token));
        }
        if chars >= 5 {
            let letters: Vec<char> = token.chars().collect();
            if stored {
                deletions(if generic { GENERIC_DELETION } else { DELETION }, &letters, out);
            } else {
                deletions(DELETION, &letters, out);
                if !generic {
                    deletions(GENERIC_DELETION, &letters, out);
                }
            }
        }
        if person {
            let first = token.chars().next().map(String::from).unwrap_or_default();
            let initial = chars == 1;
            if stored {
                out.push(tagged(if initial { INITIAL } else { FIRST_LETTER }, &first));
            } else {
                out.push(tagged(INITIAL, &first));
                if initial {
                    out.push(tagged(FIRST_LETTER, &first));
                }
            }
        }
    }
}

fn is_person(entity_type: &str) -> bool {
    kind_of(entity_type) == NameKind::Person
}

/// Every key row of `entity`: each of its names by its key and near keys.
pub fn filed_under(entity: &Entity, registry_type: &str) -> Vec<EntityKey> {
    let entity_type = entity.name_type(registry_type);
    let mut out: Vec<EntityKey> = Vec::new();
    let mut keys = Vec::new();
    for name in &entity.aliases {
        let form = name_form(name, entity_type);
        if form.key.is_empty() {
            continue;
        }
        keys.clear();
        keys.push(tagged(EXACT, &form.key));
        near_keys(&form, is_person(entity_type), true, &mut keys);
        keys.sort_unstable();
        keys.dedup();
        out.extend(keys.drain(..).map(|key| EntityKey { key, name: name.clone() }));
    }
    out
}

/// The keys a name is looked up by, in the two rounds a resolution takes.
pub struct Lookup {
    pub wanted: Rc<NameForm>,
    /// `=key` of the name (empty when it has no key).
    pub exact: Option<String>,
    /// `=key` of every other name of its declared alias group.
    pub known: Vec<String>,
    person: bool,
}

impl Lookup {
    pub fn new(name: &str, entity_type: &str, known: &KnownAliases) -> Self {
        let wanted = name_form(name, entity_type);
        let exact = (!wanted.key.is_empty()).then(|| tagged(EXACT, &wanted.key));
        let known = match &exact {
            Some(_) => known.group(entity_type, &wanted.key).into_iter().filter(|k| *k != wanted.key).map(|k| tagged(EXACT, &k)).collect(),
            None => Vec::new(),
        };
        Lookup { wanted, exact, known, person: is_person(entity_type) }
    }

    /// The keys of the first round: the name's key and its alias group's.
    pub fn key_round(&self) -> Vec<String> {
        self.exact.iter().chain(&self.known).cloned().collect()
    }

    /// The keys of the second round, asked only when no key matched (computed
    /// then: a known name never needs them): the near keys, sorted.
    pub fn near(&self) -> Vec<String> {
        let mut near = Vec::new();
        near_keys(&self.wanted, self.person, false, &mut near);
        near.sort_unstable();
        near.dedup();
        near
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entity(id: &str, names: &[&str]) -> Entity {
        Entity { id: id.into(), entity_type: "org".into(), name: names[0].into(), aliases: names.iter().map(|s| s.to_string()).collect(), merged_into: None, merged_from: Vec::new(), was_merged_into: Vec::new() }
    }

    #[test]
    fn a_name_is_filed_under_its_key_and_found_by_it() {
        let rows = filed_under(&entity("org:acme", &["Acme Corp", "ACME, Inc."]), "org");
        let lookup = Lookup::new("acme ltd", "org", &KnownAliases::default());
        assert!(rows.iter().any(|r| Some(&r.key) == lookup.exact.as_ref()));
        // Two spellings of one key: the key is filed once per name.
        assert_eq!(rows.iter().filter(|r| r.key == "=acme").count(), 2);
    }

    #[test]
    fn whole_key_typos_within_two_edits_share_a_key() {
        for (a, b) in [("Chad", "Chat"), ("Prussia", "Russia"), ("Iceland", "Ireland"), ("Globex", "Glboex"), ("Algeria", "Nigeria"), ("Lesotho", "Mosotho"), ("Romania", "Somalia")] {
            let rows = filed_under(&entity("org:x", &[a]), "org");
            let lookup = Lookup::new(b, "org", &KnownAliases::default());
            assert!(rows.iter().any(|r| lookup.near().contains(&r.key)), "{a} ~ {b}");
        }
    }
}
