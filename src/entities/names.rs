//! The comparable form of an entity name (SPEC §9). Two names with the same
//! key are the same entity and merge automatically; nothing looser does.
//!
//! The key is: NFKC, case-folded, accents folded ("Zürich" = "Zurich"),
//! punctuation as space, a leading "the" dropped, and per entity type legal
//! suffixes (organizations) or honorifics (people) dropped.

use foldhash::{HashMap, HashMapExt};

use crate::error::{Error, Result};
use crate::normalize::{nfd, tokens};

/// Legal-form suffixes, compared after punctuation is removed ("S.A." → "sa").
const LEGAL_SUFFIXES: &[&str] = &[
    "inc", "incorporated", "corp", "corporation", "co", "cos", "company", "ltd", "limited", "llc", "llp", "lp", "plc", "pllc", "gmbh",
    "mbh", "ag", "kg", "kgaa", "sa", "sas", "sarl", "srl", "spa", "bv", "nv", "oy", "oyj", "ab", "as", "asa", "aps", "kk", "pty", "pte",
    "bhd", "sdn", "se", "ulc", "ltda", "sab", "sl", "slu",
];
/// Titles in front of a person's name.
const HONORIFICS: &[&str] = &[
    "mr", "mrs", "ms", "miss", "mx", "dr", "doctor", "prof", "professor", "sir", "dame", "madam", "madame", "mme", "mlle", "lord",
    "lady", "rev", "revd", "reverend", "hon", "herr", "frau", "sra", "srta",
];
/// Degrees and post-nominals after a person's name. ("Jr"/"Sr" stay: a father and a son are two people.)
const POST_NOMINALS: &[&str] = &["phd", "esq", "mba", "dds"];

/// The kinds of entity whose names carry a legal form or a title.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameKind {
    Organization,
    Person,
    Other,
}

pub fn kind_of(entity_type: &str) -> NameKind {
    match entity_type {
        "org" | "organization" | "organisation" | "company" | "business" | "corp" | "employer" | "institution" => NameKind::Organization,
        "person" | "people" | "human" | "individual" | "contact" | "employee" | "author" => NameKind::Person,
        _ => NameKind::Other,
    }
}

/// Letters that NFD does not decompose but that readers treat as accented forms.
fn fold_letter(c: char, out: &mut String) {
    match c {
        'ø' => out.push('o'),
        'æ' => out.push_str("ae"),
        'œ' => out.push_str("oe"),
        'ł' => out.push('l'),
        'đ' | 'ð' => out.push('d'),
        'þ' => out.push_str("th"),
        'ı' => out.push('i'),
        _ => out.push(c),
    }
}

fn is_combining_mark(c: char) -> bool {
    matches!(c, '\u{300}'..='\u{36f}' | '\u{1ab0}'..='\u{1aff}' | '\u{1dc0}'..='\u{1dff}' | '\u{20d0}'..='\u{20ff}' | '\u{fe20}'..='\u{fe2f}')
}

/// "Zürich" → "zurich", "Øresund" → "oresund"; other scripts are kept as they are.
pub fn fold_accents(token: &str) -> String {
    let mut out = String::with_capacity(token.len());
    for c in nfd(token).chars().filter(|c| !is_combining_mark(*c)) {
        fold_letter(c, &mut out);
    }
    out
}

/// Drops a trailing legal form, also when written with dots ("S.p.A." → s p a).
fn strip_legal_suffix(t: &mut Vec<String>) -> bool {
    if t.len() > 1 && t.last().is_some_and(|l| LEGAL_SUFFIXES.contains(&l.as_str())) {
        t.pop();
        return true;
    }
    for k in 2..=4 {
        if t.len() <= k {
            break;
        }
        let tail = &t[t.len() - k..];
        if tail.iter().all(|x| x.chars().count() == 1) && LEGAL_SUFFIXES.contains(&tail.concat().as_str()) {
            t.truncate(t.len() - k);
            return true;
        }
    }
    false
}

/// The comparable tokens of a name for an entity type.
pub fn name_tokens(name: &str, entity_type: &str) -> Vec<String> {
    let mut t: Vec<String> = tokens(name).iter().map(|x| fold_accents(x)).filter(|x| !x.is_empty()).collect();
    if t.len() > 1 && t[0] == "the" {
        t.remove(0);
    }
    // "Procter & Gamble" = "Procter and Gamble": "&" is punctuation, so "and" goes too.
    if t.len() > 2 {
        t.retain(|x| x != "and");
    }
    match kind_of(entity_type) {
        NameKind::Organization => {
            while strip_legal_suffix(&mut t) {}
        }
        NameKind::Person => {
            while t.len() > 1 && HONORIFICS.contains(&t[0].as_str()) {
                t.remove(0);
            }
            while t.len() > 1 && t.last().is_some_and(|l| POST_NOMINALS.contains(&l.as_str())) {
                t.pop();
            }
        }
        NameKind::Other => {}
    }
    t
}

/// A name's tokens and key, computed once per (type, name) and thread.
pub struct NameForm {
    pub tokens: Vec<String>,
    /// The tokens joined by one space.
    pub key: String,
    /// `key` as chars, for edit distances.
    pub chars: Vec<char>,
    /// The set of `key`'s chars as bits (`char_bits`), and each token's.
    /// A near-match rule runs against every name of a registry; these let
    /// it refuse almost every pair before computing a distance.
    pub mask: u64,
    pub token_masks: Vec<u64>,
    /// Each token's length in chars.
    pub token_chars: Vec<usize>,
}

/// The chars of `text`, counted, as a set of 64 bits: a char's k-th
/// occurrence sets the bit of a hash of (char, k). An edit changes at most
/// two of these (a substitution drops one occurrence and adds another, an
/// insertion or deletion one, a swap none), so `(a ^ b).count_ones() > 2 * k`
/// proves two texts more than `k` edits apart. Counting occurrences spreads a
/// long name over more bits than its set of letters would (26 for a name of
/// lowercase letters): the whole-key typo scan refuses far more pairs.
pub fn char_bits(text: &str) -> u64 {
    let mut ascii = [0u32; 128];
    let mut other: Vec<(char, u32)> = Vec::new();
    text.chars().fold(0, |m, c| {
        let seen = match ascii.get_mut(c as usize) {
            Some(n) => n,
            None => {
                let i = other.iter().position(|&(o, _)| o == c).unwrap_or_else(|| {
                    other.push((c, 0));
                    other.len() - 1
                });
                &mut other[i].1
            }
        };
        let k = *seen;
        *seen += 1;
        m | 1 << (((c as u32) ^ (k << 21)).wrapping_mul(0x9E37_79B1) >> 26)
    })
}

impl NameForm {
    pub fn new(tokens: Vec<String>) -> Self {
        let key = tokens.join(" ");
        NameForm {
            chars: key.chars().collect(),
            mask: char_bits(&key),
            token_masks: tokens.iter().map(|t| char_bits(t)).collect(),
            token_chars: tokens.iter().map(|t| t.chars().count()).collect(),
            key,
            tokens,
        }
    }
}

/// Every resolution compares a name with every alias of its registry;
/// tokenizing each alias again per write dominated an entity-typed write.
/// `name_tokens` is a pure function of its inputs, so a memo changes no
/// answer; it is dropped whole when it reaches `NAME_FORM_CAP` entries.
const NAME_FORM_CAP: usize = 1 << 16;

/// Type → name → form: a look-up borrows both strings (no key built per call).
type FormMemo = HashMap<String, HashMap<String, std::rc::Rc<NameForm>>>;

thread_local! {
    static NAME_FORMS: std::cell::RefCell<(usize, FormMemo)> = std::cell::RefCell::new((0, HashMap::new()));
}

/// `name_tokens` and `name_key` of `name`, memoized.
pub fn name_form(name: &str, entity_type: &str) -> std::rc::Rc<NameForm> {
    if let Some(form) = NAME_FORMS.with(|m| m.borrow().1.get(entity_type).and_then(|t| t.get(name)).cloned()) {
        return form;
    }
    let form = std::rc::Rc::new(NameForm::new(name_tokens(name, entity_type)));
    NAME_FORMS.with(|m| {
        let (len, memo) = &mut *m.borrow_mut();
        if *len >= NAME_FORM_CAP {
            memo.clear();
            *len = 0;
        }
        memo.entry(entity_type.to_string()).or_default().insert(name.to_string(), form.clone());
        *len += 1;
    });
    form
}

/// The key two names must share to be the same entity automatically.
pub fn name_key(name: &str, entity_type: &str) -> String {
    name_tokens(name, entity_type).join(" ")
}

/// Names a user declared equivalent, per entity type (config `entityAliases`):
/// each name's key maps to its group's first name's key.
#[derive(Debug, Clone, Default)]
pub struct KnownAliases {
    by_type: HashMap<String, HashMap<String, String>>,
}

impl KnownAliases {
    pub fn new(groups: &std::collections::HashMap<String, Vec<Vec<String>>>) -> Result<Self> {
        let mut by_type: HashMap<String, HashMap<String, String>> = HashMap::new();
        for (raw_type, lists) in groups {
            let entity_type = raw_type.trim().to_lowercase();
            let table = by_type.entry(entity_type.clone()).or_default();
            for (i, names) in lists.iter().enumerate() {
                let field = format!("entityAliases.{raw_type}[{i}]");
                let keys: Vec<String> = names.iter().map(|n| name_key(n, &entity_type)).collect();
                let Some(canonical) = keys.first().cloned().filter(|k| !k.is_empty()) else {
                    return Err(Error::invalid(&field, "must list at least one non-empty name"));
                };
                for (name, key) in names.iter().zip(keys) {
                    if key.is_empty() {
                        return Err(Error::invalid(&field, format!("{name:?} has no letters or digits")));
                    }
                    match table.get(&key) {
                        Some(other) if *other != canonical => {
                            return Err(Error::invalid(&field, format!("{name:?} is already an alias of another group")));
                        }
                        _ => {
                            table.insert(key, canonical.clone());
                        }
                    }
                }
            }
        }
        Ok(KnownAliases { by_type })
    }

    /// Every key of `key`'s declared alias group (just `key` when it has none).
    pub fn group(&self, entity_type: &str, key: &str) -> Vec<String> {
        let Some(table) = self.by_type.get(entity_type) else { return vec![key.to_string()] };
        let Some(canonical) = table.get(key) else { return vec![key.to_string()] };
        let mut keys: Vec<String> = table.iter().filter(|(_, c)| *c == canonical).map(|(k, _)| k.clone()).collect();
        crate::sort::sort(&mut keys);
        keys
    }

    /// The key a name compares by: its alias group's, when it has one.
    pub fn canonical<'k>(&'k self, entity_type: &str, key: &'k str) -> &'k str {
        self.by_type.get(entity_type).and_then(|t| t.get(key)).map(String::as_str).unwrap_or(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_share_a_key() {
        assert_eq!(name_key("ACME, Inc.", "org"), "acme");
        assert_eq!(name_key("Acme S.p.A.", "org"), "acme");
        assert_eq!(name_key("Smith & Co., Ltd.", "org"), "smith");
        assert_eq!(name_key("Smith and Co", "org"), "smith");
        assert_eq!(name_key("Procter and Gamble", "org"), name_key("The Procter & Gamble Company", "org"));
        assert_eq!(name_key("Novo Nordisk A/S", "org"), "novo nordisk");
        assert_eq!(name_key("The Coca-Cola Company", "org"), "coca cola");
        assert_eq!(name_key("Dr. José  García, PhD", "person"), "jose garcia");
        assert_eq!(name_key("Côte d'Ivoire", "country"), name_key("cote d'ivoire", "country"));
        assert_eq!(name_key("Øresund Æble", "x"), "oresund aeble");
    }

    #[test]
    fn near_names_keep_different_keys() {
        assert_ne!(name_key("Iceland", "country"), name_key("Ireland", "country"));
        assert_ne!(name_key("John Smith Jr.", "person"), name_key("John Smith", "person"));
        assert_ne!(name_key("Acme Bank", "org"), name_key("Acme", "org"));
        assert_eq!(name_key("Inc", "org"), "inc", "a name that is only a suffix keeps it");
    }

    #[test]
    fn known_aliases_map_to_one_key() {
        let groups = std::collections::HashMap::from([("Country".to_string(), vec![vec!["Germany".to_string(), "Deutschland".to_string()]])]);
        let known = KnownAliases::new(&groups).unwrap_or_default();
        assert_eq!(known.canonical("country", "deutschland"), "germany");
        assert_eq!(known.canonical("country", "austria"), "austria");
        let clash = std::collections::HashMap::from([("c".to_string(), vec![vec!["A".to_string(), "B".to_string()], vec!["C".to_string(), "b".to_string()]])]);
        assert!(KnownAliases::new(&clash).is_err());
    }
}
