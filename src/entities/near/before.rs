//! `evidence` as it was before its cheap refusals (issue #17), kept to prove
//! the refusals change no answer: every pair of a list of look-alike names,
//! for each kind of name, gets the same evidence from both.

use super::super::names::{kind_of, name_form, NameForm, NameKind};
use super::{distance_at_most, initials, typo_budget, Evidence, GENERIC};

fn close_token(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    if a.is_ascii() && b.is_ascii() {
        return a.len().min(b.len()) >= 5 && distance_at_most(a.as_bytes(), b.as_bytes(), 1).is_some();
    }
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    a.len().min(b.len()) >= 5 && distance_at_most(&a, &b, 1).is_some()
}

/// A person's token pairs with another when equal, a typo apart, or an initial of it.
fn person_token(a: &str, b: &str) -> bool {
    let initial = |x: &str, y: &str| x.chars().count() == 1 && y.starts_with(x);
    close_token(a, b) || initial(a, b) || initial(b, a)
}

/// Every token of the shorter name pairs with a distinct token of the longer.
fn all_tokens_pair(short: &[String], long: &[String], pairs: impl Fn(&str, &str) -> bool) -> bool {
    let mut used = vec![false; long.len()];
    short.iter().all(|s| match (0..long.len()).find(|&j| !used[j] && pairs(s, &long[j])) {
        Some(j) => {
            used[j] = true;
            true
        }
        None => false,
    })
}

/// "IBM" ↔ "International Business Machines", "U.S.A." ↔ "United States of America".
fn abbreviation(short: &[String], long: &[String]) -> bool {
    // Cheap refusals first: this runs against every name of a registry.
    let one_word = short.len() == 1 || short.iter().all(|t| t.chars().count() == 1);
    if long.len() < 2 || !one_word {
        return false;
    }
    let compact: String = short.concat();
    // Initials are at most one letter per word of the longer name.
    let letters = compact.chars().count();
    letters >= 2 && letters <= long.len() && (compact == initials(long, false) || compact == initials(long, true))
}

/// How `a` and `b` (name forms, different keys) look alike, if they do.
/// Takes the memoized forms: a resolution runs this against every alias.
pub fn evidence(a: &NameForm, b: &NameForm, entity_type: &str) -> Option<Evidence> {
    let (ka, kb) = (&a.chars, &b.chars);
    let (sa, sb) = (&a.key, &b.key);
    let (a, b) = (&a.tokens, &b.tokens);
    if a.is_empty() || b.is_empty() || a == b {
        return None;
    }
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let (shorter, longer) = (ka.len().min(kb.len()), ka.len().max(kb.len()));
    let mut found: Vec<Evidence> = Vec::new();
    if let Some(d) = distance_at_most(ka, kb, typo_budget(shorter)) {
        found.push(Evidence { score: 1.0 - d as f64 / longer as f64, why: format!("{d} letter(s) apart") });
    }
    if shorter >= 4 && (sa.starts_with(sb.as_str()) || sb.starts_with(sa.as_str())) {
        found.push(Evidence { score: shorter as f64 / longer as f64, why: "one name begins the other".into() });
    }
    if abbreviation(short, long) {
        found.push(Evidence { score: 0.9, why: "an abbreviation of the other".into() });
    }
    let matched = |pairs: &dyn Fn(&str, &str) -> bool| {
        let mut used = vec![false; long.len()];
        short.iter().filter(|s| match (0..long.len()).find(|&j| !used[j] && pairs(s, &long[j])) {
            Some(j) => {
                used[j] = true;
                true
            }
            None => false,
        }).count()
    };
    if kind_of(entity_type) == NameKind::Person {
        // Two people who share only a surname are not worth asking about.
        if all_tokens_pair(short, long, person_token) {
            let m = matched(&close_token);
            found.push(Evidence { score: m.max(1) as f64 / long.len() as f64, why: "every part of the shorter name matches (initials, typos)".into() });
        }
    } else {
        let shared: Vec<&String> = short.iter().filter(|s| s.chars().count() >= 3 && long.iter().any(|l| close_token(s, l)) && !GENERIC.contains(&s.as_str())).collect();
        if let Some(first) = shared.first() {
            let m = matched(&close_token);
            found.push(Evidence { score: m as f64 / long.len() as f64, why: format!("they share {first:?}") });
        }
    }
    found.into_iter().max_by(|x, y| x.score.total_cmp(&y.score))
}


#[test]
fn refusals_change_no_answer() {
    let names = [
        "Iceland", "Ireland", "Initech", "Inetech", "Initech Bank", "Niger", "Nigeria", "German", "Germany", "IBM",
        "International Business Machines", "USA", "U.S.A.", "United States of America", "Groupe Alpha", "Group Beta", "Alpha Group",
        "J. Smith", "John Smith", "Jon Smith", "Jonathan Smyth", "Smith", "J S", "Ludwig van Beethoven", "L. v. Beethoven", "van Dyke",
        "Zürich Versicherung", "Zurich", "Zurick", "Müller", "Mueller", "Muller", "Globex", "Globexx Corporation", "Acme", "Acme Bank",
        "the Umbrella Co", "Umbrela", "Hooli", "Hooli XYZ", "Mary Ann Lee", "M A Lee", "Ann", "Anne-Marie", "Annemarie", "Czech Republic",
        "Dominican Republic", "Chile", "China", "Maria Garcia", "Jose Garcia", "Prussia", "Russia", "ab", "ba", "abcd", "abdc",
        "Ēnergija", "Enerģija", "Straße Bau", "Strasse Bau", "Bank of Commerce", "Commerce Bank", "Bank of Comerce", "A B C", "ABC", "Abc Holdings Inc",
    ];
    for ty in ["org", "person", "country"] {
        for a in names {
            for b in names {
                let (fa, fb) = (name_form(a, ty), name_form(b, ty));
                assert_eq!(super::evidence(&fa, &fb, ty), evidence(&fa, &fb, ty), "{a} ~ {b} ({ty})");
            }
        }
    }
}
