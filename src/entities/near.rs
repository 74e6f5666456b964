//! Near matches: names that look alike but are not the same key (SPEC §9).
//! A near match never merges; it only makes the engine ask a person. So the
//! rules here favour recall ("is Iceland Ireland?" is a fair question), and
//! each says why, for the conflict's reason.

use super::names::{kind_of, NameForm, NameKind};

/// Words too common to make two names look alike by sharing them.
pub(super) const GENERIC: &[&str] = &[
    "the", "of", "and", "de", "la", "le", "du", "del", "da", "di", "van", "von", "der", "des", "republic", "kingdom", "united", "states",
    "state", "federal", "federation", "democratic", "people", "people's", "peoples", "islands", "island", "saint", "st", "new", "north",
    "south", "east", "west", "central", "commonwealth", "union", "city", "county", "province", "region", "territory", "bank", "group",
    "holdings", "international", "global", "services", "systems", "technologies", "technology", "solutions", "partners", "capital",
    "university", "college", "institute", "foundation", "association", "national", "general", "first", "royal", "company", "and",
];

/// Words an acronym skips ("USA" for "United States of America").
const FUNCTION_WORDS: &[&str] = &["the", "of", "and", "de", "la", "le", "du", "del", "da", "di", "der", "des", "van", "von", "for"];

/// Why two names look alike, with a 0..1 closeness for ranking.
#[derive(Debug, Clone, PartialEq)]
pub struct Evidence {
    pub score: f64,
    pub why: String,
}

/// Names longer than this (in chars) are matched by key only: no entity is
/// named like that, and comparing word by word is quadratic in the words.
pub(super) const NEAR_CHARS: usize = 1_000;

/// Chars up to which the distance's rows live on the stack.
const STACK_CHARS: usize = 48;

/// Optimal string alignment distance (edits and adjacent swaps) when it is
/// at most `limit`, else `None`. A resolution runs this against every near
/// candidate, and almost every pair is far apart: three rolling rows, only
/// the band of cells within `limit` of the diagonal computed (a cell further
/// off is more than `limit` apart, kept as `limit + 1`), and a stop as soon
/// as a whole row is past `limit` (a row's minimum never falls: each cell
/// comes from the two rows above, plus at least zero). So a pair costs
/// O(length × limit), however long the names.
fn distance_at_most<T: PartialEq>(a: &[T], b: &[T], limit: usize) -> Option<usize> {
    let (n, m) = (a.len(), b.len());
    if n.abs_diff(m) > limit {
        return None;
    }
    let (w, far) = (m + 1, limit + 1);
    // Rows i-2, i-1 and i, in turn; no allocation for names of usual length.
    let mut stack = [0usize; 3 * (STACK_CHARS + 1)];
    let mut heap = Vec::new();
    let rows: &mut [usize] = if w <= STACK_CHARS + 1 {
        &mut stack[..3 * w]
    } else {
        heap.resize(3 * w, 0);
        &mut heap
    };
    for (j, cell) in rows[w..2 * w].iter_mut().enumerate() {
        *cell = j.min(far);
    }
    for i in 1..=n {
        let (cur, prev, prev2) = ((i + 1) % 3 * w, i % 3 * w, (i + 2) % 3 * w);
        let (lo, hi) = (i.saturating_sub(limit).max(1), (i + limit).min(m));
        // The cells next to the band, read by this row and the next one.
        rows[cur + lo - 1] = if lo == 1 { i.min(far) } else { far };
        if hi < m {
            rows[cur + hi + 1] = far;
        }
        let mut row_min = if lo == 1 { i } else { far };
        for j in lo..=hi {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (rows[prev + j] + 1).min(rows[cur + j - 1] + 1).min(rows[prev + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(rows[prev2 + j - 2] + 1);
            }
            rows[cur + j] = best.min(far);
            row_min = row_min.min(best);
        }
        if row_min > limit {
            return None;
        }
    }
    Some(rows[(n + 1) % 3 * w + m]).filter(|&d| d <= limit)
}

/// Edits allowed for a typo, by the shorter name's length.
pub(super) fn typo_budget(shorter: usize) -> usize {
    match shorter {
        0..=3 => 0,
        4..=6 => 1,
        7..=11 => 2,
        _ => 3,
    }
}

/// Whether two char sets (`char_bits`) can be within `edits` of each other.
fn bits_within(a: u64, b: u64, edits: usize) -> bool {
    (a ^ b).count_ones() as usize <= 2 * edits
}

/// Token `i` of `a` and token `j` of `b` are equal or a typo apart (both of
/// at least five chars). The length and char-set checks refuse most pairs
/// before any distance is computed; they never refuse a pair within one edit.
fn close_token(a: &NameForm, i: usize, b: &NameForm, j: usize) -> bool {
    let (ta, tb) = (&a.tokens[i], &b.tokens[j]);
    if ta == tb {
        return true;
    }
    let (la, lb) = (a.token_chars[i], b.token_chars[j]);
    if la.min(lb) < 5 || la.abs_diff(lb) > 1 || !bits_within(a.token_masks[i], b.token_masks[j], 1) {
        return false;
    }
    if ta.is_ascii() && tb.is_ascii() {
        return distance_at_most(ta.as_bytes(), tb.as_bytes(), 1).is_some();
    }
    let (ca, cb): (Vec<char>, Vec<char>) = (ta.chars().collect(), tb.chars().collect());
    distance_at_most(&ca, &cb, 1).is_some()
}

/// A person's token pairs with another when equal, a typo apart, or an initial of it.
fn person_token(a: &NameForm, i: usize, b: &NameForm, j: usize) -> bool {
    let initial = |x: &NameForm, i: usize, y: &NameForm, j: usize| x.token_chars[i] == 1 && y.tokens[j].starts_with(x.tokens[i].as_str());
    close_token(a, i, b, j) || initial(a, i, b, j) || initial(b, j, a, i)
}

/// How many tokens of `short` pair with distinct tokens of `long` (each
/// taking the first free one it pairs with).
fn paired(short: &NameForm, long: &NameForm, pairs: fn(&NameForm, usize, &NameForm, usize) -> bool) -> usize {
    let mut used = vec![false; long.tokens.len()];
    (0..short.tokens.len())
        .filter(|&i| match (0..long.tokens.len()).find(|&j| !used[j] && pairs(short, i, long, j)) {
            Some(j) => {
                used[j] = true;
                true
            }
            None => false,
        })
        .count()
}

pub(super) fn initials(tokens: &[String], skip_function_words: bool) -> String {
    tokens.iter().filter(|t| !(skip_function_words && FUNCTION_WORDS.contains(&t.as_str()))).filter_map(|t| t.chars().next()).collect()
}

/// "IBM" ↔ "International Business Machines", "U.S.A." ↔ "United States of America".
fn abbreviation(short: &NameForm, long: &NameForm) -> bool {
    // Cheap refusals first: this runs against every name of a registry.
    let (s, l) = (&short.tokens, &long.tokens);
    let one_word = s.len() == 1 || short.token_chars.iter().all(|&n| n == 1);
    // Initials are at most one letter per word of the longer name.
    let letters: usize = short.token_chars.iter().sum();
    if l.len() < 2 || !one_word || letters < 2 || letters > l.len() {
        return false;
    }
    let compact: String = s.concat();
    compact == initials(l, false) || compact == initials(l, true)
}

fn is_number(token: &str) -> bool {
    token.bytes().all(|b| b.is_ascii_digit())
}

/// The number words of a name ("8" of "Initech 8"), leading zeros dropped, sorted.
fn numbers(form: &NameForm) -> Vec<&str> {
    let mut found: Vec<&str> = form.tokens.iter().filter(|t| is_number(t)).map(|t| t.trim_start_matches('0')).collect();
    found.sort_unstable();
    found
}

/// Both names carry numbers, and not the same ones: "Initech 8" and
/// "Initech 9", "Apollo 11" and "Apollo 13", "Windows 10" and "Windows 11"
/// name different things however alike the rest looks, so nobody is asked.
/// A name with a number and one without ("Initech", "Initech 8") may still
/// be the same and is asked about as before.
fn numbered_apart(a: &NameForm, b: &NameForm) -> bool {
    let has_number = |f: &NameForm| f.tokens.iter().any(|t| is_number(t));
    has_number(a) && has_number(b) && numbers(a) != numbers(b)
}

/// How `a` and `b` (name forms, different keys) look alike, if they do.
/// Takes the memoized forms: a resolution runs this against every alias.
pub fn evidence(a: &NameForm, b: &NameForm, entity_type: &str) -> Option<Evidence> {
    let (ka, kb) = (&a.chars, &b.chars);
    let (sa, sb) = (&a.key, &b.key);
    if a.tokens.is_empty() || b.tokens.is_empty() || a.tokens == b.tokens || numbered_apart(a, b) || ka.len().max(kb.len()) > NEAR_CHARS {
        return None;
    }
    let (short, long) = if a.tokens.len() <= b.tokens.len() { (a, b) } else { (b, a) };
    let (shorter, longer) = (ka.len().min(kb.len()), ka.len().max(kb.len()));
    let mut found: Vec<Evidence> = Vec::new();
    let budget = typo_budget(shorter);
    if longer - shorter <= budget && bits_within(a.mask, b.mask, budget) {
        if let Some(d) = distance_at_most(ka, kb, budget) {
            found.push(Evidence { score: 1.0 - d as f64 / longer as f64, why: format!("{d} letter(s) apart") });
        }
    }
    if shorter >= 4 && (sa.starts_with(sb.as_str()) || sb.starts_with(sa.as_str())) {
        found.push(Evidence { score: shorter as f64 / longer as f64, why: "one name begins the other".into() });
    }
    if abbreviation(short, long) {
        found.push(Evidence { score: 0.9, why: "an abbreviation of the other".into() });
    }
    let (ns, nl) = (short.tokens.len(), long.tokens.len());
    if kind_of(entity_type) == NameKind::Person {
        // Two people who share only a surname are not worth asking about.
        if paired(short, long, person_token) == ns {
            let m = paired(short, long, close_token);
            found.push(Evidence { score: m.max(1) as f64 / nl as f64, why: "every part of the shorter name matches (initials, typos)".into() });
        }
    } else {
        let shared = (0..ns).find(|&i| short.token_chars[i] >= 3 && (0..nl).any(|j| close_token(short, i, long, j)) && !GENERIC.contains(&short.tokens[i].as_str()));
        if let Some(first) = shared {
            let m = paired(short, long, close_token);
            found.push(Evidence { score: m as f64 / nl as f64, why: format!("they share {:?}", short.tokens[first]) });
        }
    }
    found.into_iter().max_by(|x, y| x.score.total_cmp(&y.score))
}

#[cfg(test)]
mod before;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entities::names::name_form;

    fn near(a: &str, b: &str, ty: &str) -> Option<Evidence> {
        evidence(&name_form(a, ty), &name_form(b, ty), ty)
    }

    #[test]
    fn look_alikes_are_near() {
        for (a, b, ty) in [
            ("Iceland", "Ireland", "country"),
            ("German", "Germany", "country"),
            ("Prussia", "Russia", "country"),
            ("Niger", "Nigeria", "country"),
            ("Acme", "Acme Bank", "org"),
            ("IBM", "International Business Machines", "org"),
            ("USA", "United States of America", "country"),
            ("J. Smith", "John Smith", "person"),
            ("Jonathon Smith", "Jonathan Smith", "person"),
        ] {
            assert!(near(a, b, ty).is_some(), "{a} ~ {b}");
        }
    }

    #[test]
    fn unrelated_names_are_not_near() {
        for (a, b, ty) in [
            ("Chile", "China", "country"),
            ("Czech Republic", "Dominican Republic", "country"),
            ("Maria Garcia", "Jose Garcia", "person"),
            ("Acme", "Globex", "org"),
        ] {
            assert_eq!(near(a, b, ty), None, "{a} ~ {b}");
        }
    }

    #[test]
    fn different_numbers_are_different_things() {
        for (a, b) in [("Initech 8", "Initech 9"), ("Apollo 11", "Apollo 13"), ("Initech 3 (a)", "Initech 5 (a)"), ("Studio 54", "Studio 45")] {
            assert_eq!(near(a, b, "org"), None, "{a} ~ {b}");
        }
        // Without a number on both sides, or with the same numbers, still asked.
        for (a, b) in [("Initech", "Initech 8"), ("Initech 8", "Initech 8 Labs"), ("Apollo 11", "Apolo 11"), ("Initech 08", "Initech 8 Labs")] {
            assert!(near(a, b, "org").is_some(), "{a} ~ {b}");
        }
    }

    #[test]
    fn names_past_a_thousand_chars_are_matched_by_key_only() {
        let long = "acme ".repeat(250);
        assert!(near(&long[..995], &format!("{} bank", &long[..990]), "org").is_some());
        assert_eq!(near(&long, &format!("{long} bank"), "org"), None);
    }

    #[test]
    fn swaps_count_as_one_edit() {
        let chars = |s: &str| s.chars().collect::<Vec<_>>();
        assert_eq!(distance_at_most(&chars("ab"), &chars("ba"), 3), Some(1));
        assert_eq!(distance_at_most(&chars("iceland"), &chars("ireland"), 3), Some(1));
    }

    /// The full table, as the bounded distance must answer within its limit.
    fn full_distance(a: &[u8], b: &[u8]) -> usize {
        let (n, m) = (a.len(), b.len());
        let mut d = vec![vec![0usize; m + 1]; n + 1];
        for (i, row) in d.iter_mut().enumerate() {
            row[0] = i;
        }
        for (j, cell) in d[0].iter_mut().enumerate() {
            *cell = j;
        }
        for i in 1..=n {
            for j in 1..=m {
                let cost = usize::from(a[i - 1] != b[j - 1]);
                d[i][j] = (d[i - 1][j] + 1).min(d[i][j - 1] + 1).min(d[i - 1][j - 1] + cost);
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    d[i][j] = d[i][j].min(d[i - 2][j - 2] + 1);
                }
            }
        }
        d[n][m]
    }

    /// Every pair of short words over a small alphabet (where typos, swaps
    /// and early stops all happen), against the full table, at every limit.
    #[test]
    fn bounded_distance_matches_the_full_table() {
        let words: Vec<Vec<u8>> = (0..700u32)
            .map(|x| {
                let len = (x % 7) as usize;
                (0..len).map(|k| b"abc"[((x / 7 + k as u32 * 5 + (x >> k)) % 3) as usize]).collect()
            })
            .collect();
        for a in &words {
            for b in words.iter().step_by(7) {
                let full = full_distance(a, b);
                for limit in 0..=4 {
                    assert_eq!(distance_at_most(a, b, limit), (full <= limit).then_some(full), "{a:?} {b:?} limit {limit}");
                }
            }
        }
    }
}
