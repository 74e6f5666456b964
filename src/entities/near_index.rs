//! Which names of a registry can be near a wanted one, without comparing it
//! with every name (issue #17: an entity-typed write cost grew with the
//! number of entities). `candidates` returns a superset of the entities
//! `near::evidence` finds evidence against: every rule's evidence implies a
//! look-up or a check below finds the name, so the answers do not change.
//!
//! - A shared or typo'd token (organizations, places): tokens by text, and
//!   each token of five or more chars also by every form of it with one char
//!   deleted — two tokens one edit (or swap) apart share such a form.
//! - A person's tokens pairing up (initials, typos): the same, and initials
//!   by their letter, and a word's first letter for a wanted initial.
//! - One name beginning the other: names by their first four chars.
//! - An abbreviation: names of two words or more by their initials, and
//!   one-word names ("IBM", "U S A") by their letters.
//! - A whole-key typo: a scan of the names within the typo budget's length
//!   of the wanted one, one char set (64 bits) each, refusing on the bits.
//!   Every other look-up is one per key; this one reads 8 bytes per name of
//!   a near length.

use std::hash::{BuildHasher, Hasher};

use foldhash::HashMap;

use super::names::{kind_of, NameForm, NameKind};
use super::near::{initials, typo_budget, GENERIC, NEAR_CHARS};

/// Look-up tags, so one map holds every kind of key.
const TOKEN: u8 = b't';
/// A token of five chars or more, or it with one char deleted; generic
/// words apart (`GENERIC_DELETION`), see `candidates`.
const DELETION: u8 = b'd';
const GENERIC_DELETION: u8 = b'g';
/// A person's one-letter token, by its letter.
const INITIAL: u8 = b'i';
/// A person's longer token, by its first letter.
const FIRST_LETTER: u8 = b'f';
/// A key's first four chars (one name beginning the other).
const HEAD: u8 = b'h';
/// A name of two words or more, by its initials (with and without "of", "the", …).
const INITIALS: u8 = b'a';
/// A one-word name of two letters or more ("IBM", "U S A"), by its letters.
const LETTERS: u8 = b'l';

/// Names this long or longer are scanned from one list (`NearIndex::long`).
const LONG: usize = 256;

/// The longest typo budget (`near::typo_budget`): how far apart in length a typo's names can be.
const MAX_BUDGET: usize = 3;

#[derive(Default, Clone)]
pub struct NearIndex {
    hasher: foldhash::fast::RandomState,
    /// Hash of (tag, text) → entities with such a name (repeats allowed).
    keys: HashMap<u64, Vec<u32>>,
    /// Key length in chars (below `LONG`) → the char sets (`char_bits`) of
    /// the names that long, and their entities, apart: the scan reads 8
    /// bytes a name.
    by_length: Vec<(Vec<u64>, Vec<u32>)>,
    /// Names of `LONG` chars or more: (length, char set, entity). Kept apart
    /// so a hostile megabyte name does not size `by_length`.
    long: Vec<(usize, u64, u32)>,
}

impl NearIndex {
    fn hash(&self, tag: u8, text: &str) -> u64 {
        let mut h = self.hasher.build_hasher();
        h.write_u8(tag);
        h.write(text.as_bytes());
        h.finish()
    }

    /// Every form of `token` with at most one char deleted, into `out`
    /// (hashed under `tag`).
    fn deletions(&self, tag: u8, token: &str, out: &mut Vec<u64>) {
        out.push(self.hash(tag, token));
        let mut buf = String::with_capacity(token.len());
        for (at, c) in token.char_indices() {
            buf.clear();
            buf.push_str(&token[..at]);
            buf.push_str(&token[at + c.len_utf8()..]);
            out.push(self.hash(tag, &buf));
        }
    }

    /// The look-up keys a stored name is filed under (`stored`), or those a
    /// wanted name looks up. A token pair counts when equal or a typo apart
    /// (both five chars or more: they share a one-deletion form); for
    /// organizations the short name's token must be three chars or more and
    /// not generic, so generic words are only looked up against others. A
    /// person's token also pairs with an initial of it, either way round.
    fn keys_of(&self, form: &NameForm, person: bool, stored: bool) -> Vec<u64> {
        let mut out = Vec::new();
        if form.chars.len() >= 4 {
            out.push(self.hash(HEAD, &form.chars[..4].iter().collect::<String>()));
        }
        // An abbreviation pairs a one-word name's letters with the other's
        // initials: each side is filed under one and looks up the other.
        let one_word = form.tokens.len() == 1 || form.token_chars.iter().all(|&n| n == 1);
        if one_word && form.token_chars.iter().sum::<usize>() >= 2 {
            out.push(self.hash(if stored { LETTERS } else { INITIALS }, &form.tokens.concat()));
        }
        if form.tokens.len() >= 2 {
            for skip in [false, true] {
                out.push(self.hash(if stored { INITIALS } else { LETTERS }, &initials(&form.tokens, skip)));
            }
        }
        for (token, &chars) in form.tokens.iter().zip(&form.token_chars) {
            let generic = !person && GENERIC.contains(&token.as_str());
            if person || (chars >= 3 && !generic) {
                out.push(self.hash(TOKEN, token));
            }
            if chars >= 5 {
                if stored {
                    self.deletions(if generic { GENERIC_DELETION } else { DELETION }, token, &mut out);
                } else {
                    self.deletions(DELETION, token, &mut out);
                    if !generic {
                        self.deletions(GENERIC_DELETION, token, &mut out);
                    }
                }
            }
            if person {
                let first = token.chars().next().map(String::from).unwrap_or_default();
                let initial = chars == 1;
                if stored {
                    out.push(self.hash(if initial { INITIAL } else { FIRST_LETTER }, &first));
                } else {
                    out.push(self.hash(INITIAL, &first));
                    if initial {
                        out.push(self.hash(FIRST_LETTER, &first));
                    }
                }
            }
        }
        out
    }

    /// Files one name of entity `entity`, of a registry of `entity_type`.
    pub fn add(&mut self, form: &NameForm, entity: usize, entity_type: &str) {
        // Such a name is near nothing (`near::evidence`), and its keys (a
        // one-deletion form per char) would cost its length squared.
        if form.chars.len() > NEAR_CHARS {
            return;
        }
        let person = kind_of(entity_type) == NameKind::Person;
        let mut keys = self.keys_of(form, person, true);
        keys.sort_unstable();
        keys.dedup();
        for key in keys {
            self.keys.entry(key).or_default().push(entity as u32);
        }
        let length = form.chars.len();
        if length >= LONG {
            self.long.push((length, form.mask, entity as u32));
            return;
        }
        if self.by_length.len() <= length {
            self.by_length.resize_with(length + 1, Default::default);
        }
        let (masks, entities) = &mut self.by_length[length];
        masks.push(form.mask);
        entities.push(entity as u32);
    }

    /// The entities that may have a name near `wanted`, ascending, once each.
    pub fn candidates(&self, wanted: &NameForm, entity_type: &str) -> Vec<usize> {
        if wanted.chars.len() > NEAR_CHARS {
            return Vec::new();
        }
        let person = kind_of(entity_type) == NameKind::Person;
        let mut found: Vec<u32> = Vec::new();
        for key in self.keys_of(wanted, person, false) {
            if let Some(entities) = self.keys.get(&key) {
                found.extend_from_slice(entities);
            }
        }
        // Whole-key typos: `near::evidence`'s length and char-set refusals.
        let length = wanted.chars.len();
        for other in length.saturating_sub(MAX_BUDGET)..=length + MAX_BUDGET {
            let budget = typo_budget(length.min(other));
            let Some((masks, entities)) = self.by_length.get(other).filter(|_| budget > 0 && length.abs_diff(other) <= budget) else { continue };
            let bits = 2 * budget as u32;
            found.extend(masks.iter().zip(entities).filter(|(mask, _)| (*mask ^ wanted.mask).count_ones() <= bits).map(|(_, &e)| e));
        }
        if length + MAX_BUDGET >= LONG {
            let near = |&&(other, mask, _): &&(usize, u64, u32)| {
                let budget = typo_budget(length.min(other));
                length.abs_diff(other) <= budget && (mask ^ wanted.mask).count_ones() as usize <= 2 * budget
            };
            found.extend(self.long.iter().filter(near).map(|&(_, _, e)| e));
        }
        found.sort_unstable();
        found.dedup();
        found.into_iter().map(|e| e as usize).collect()
    }
}
