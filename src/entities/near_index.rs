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
//! - A whole-key typo, one name beginning the other, an abbreviation: a scan
//!   of a few integers per name, refusing on length, char set, first four
//!   letters or word count before anything is compared.

use std::hash::{BuildHasher, Hasher};

use foldhash::HashMap;

use super::names::{kind_of, NameForm, NameKind};
use super::near::{typo_budget, GENERIC};

/// What the scan needs of one name.
#[derive(Clone)]
struct Scanned {
    entity: u32,
    chars: u32,
    tokens: u32,
    /// Chars in all tokens together (an abbreviation's letters).
    letters: u32,
    /// One token, or only one-letter tokens ("IBM", "U S A").
    one_word: bool,
    /// The first four chars, packed (a prefix of four or more chars shares them).
    head: u64,
    mask: u64,
}
impl Scanned {
    fn of(form: &NameForm, entity: u32) -> Self {
        Scanned {
            entity,
            chars: form.chars.len() as u32,
            tokens: form.tokens.len() as u32,
            letters: form.token_chars.iter().sum::<usize>() as u32,
            one_word: form.tokens.len() == 1 || form.token_chars.iter().all(|&n| n == 1),
            head: form.chars.iter().take(4).fold(0, |h, &c| h << 16 ^ c as u64),
            mask: form.mask,
        }
    }

    /// Whether a whole-key typo, a prefix or an abbreviation may hold
    /// between `self` (the wanted name) and `other`: only necessary
    /// conditions of the rules in `near::evidence`.
    fn may_match(&self, other: &Scanned) -> bool {
        let (shorter, longer) = (self.chars.min(other.chars), self.chars.max(other.chars));
        let budget = typo_budget(shorter as usize) as u32;
        let typo = longer - shorter <= budget && (self.mask ^ other.mask).count_ones() <= 2 * budget;
        let prefix = shorter >= 4 && self.head == other.head;
        // `evidence` takes the wanted name as the short one on a tie.
        let (short, long) = if self.tokens <= other.tokens { (self, other) } else { (other, self) };
        let abbreviation = long.tokens >= 2 && short.one_word && short.letters >= 2 && short.letters <= long.tokens;
        typo || prefix || abbreviation
    }
}

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

#[derive(Default, Clone)]
pub struct NearIndex {
    hasher: foldhash::fast::RandomState,
    /// Hash of (tag, text) → entities with such a name (repeats allowed).
    keys: HashMap<u64, Vec<u32>>,
    scan: Vec<Scanned>,
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
        let person = kind_of(entity_type) == NameKind::Person;
        for key in self.keys_of(form, person, true) {
            self.keys.entry(key).or_default().push(entity as u32);
        }
        self.scan.push(Scanned::of(form, entity as u32));
    }

    /// The entities that may have a name near `wanted`, ascending, once each.
    pub fn candidates(&self, wanted: &NameForm, entity_type: &str) -> Vec<usize> {
        let person = kind_of(entity_type) == NameKind::Person;
        let mut found: Vec<u32> = Vec::new();
        for key in self.keys_of(wanted, person, false) {
            if let Some(entities) = self.keys.get(&key) {
                found.extend_from_slice(entities);
            }
        }
        let me = Scanned::of(wanted, 0);
        found.extend(self.scan.iter().filter(|s| me.may_match(s)).map(|s| s.entity));
        found.sort_unstable();
        found.dedup();
        found.into_iter().map(|e| e as usize).collect()
    }
}
