//! Value comparison. Stored text is never altered; these forms only decide
//! whether two values are the same (confirm) or one is a more specific form of
//! the other (refine).

use std::sync::OnceLock;

static HOST_NFKC: OnceLock<fn(&str) -> String> = OnceLock::new();
static HOST_NFD: OnceLock<fn(&str) -> String> = OnceLock::new();

/// Lets the host supply NFKC (the wasm build uses JavaScript's
/// `String.prototype.normalize` rather than shipping Unicode tables).
pub fn set_host_nfkc(nfkc: fn(&str) -> String) {
    let _ = HOST_NFKC.set(nfkc);
}

fn nfkc(text: &str) -> String {
    if text.is_ascii() {
        return text.to_string(); // NFKC leaves ASCII unchanged
    }
    #[cfg(feature = "nfkc-tables")]
    {
        use unicode_normalization::UnicodeNormalization;
        text.nfkc().collect()
    }
    #[cfg(not(feature = "nfkc-tables"))]
    match HOST_NFKC.get() {
        Some(f) => f(text),
        None => text.to_string(),
    }
}

/// Lets the host supply NFD (canonical decomposition), used to fold accents
/// in entity names.
pub fn set_host_nfd(nfd: fn(&str) -> String) {
    let _ = HOST_NFD.set(nfd);
}

/// Canonical decomposition: "é" becomes "e" + U+0301, so accents can be dropped.
pub fn nfd(text: &str) -> String {
    if text.is_ascii() {
        return text.to_string();
    }
    #[cfg(feature = "nfkc-tables")]
    {
        use unicode_normalization::UnicodeNormalization;
        text.nfd().collect()
    }
    #[cfg(not(feature = "nfkc-tables"))]
    match HOST_NFD.get() {
        Some(f) => f(text),
        None => text.to_string(),
    }
}

/// NFKC, case-folded, punctuation treated as space, whitespace collapsed.
pub fn normalize_value(text: &str) -> String {
    tokens(text).join(" ")
}

thread_local! {
    static TOKENS: std::cell::RefCell<foldhash::HashMap<String, std::rc::Rc<[String]>>> = std::cell::RefCell::new(Default::default());
}
const TOKENS_CAP: usize = 65_536;

/// `tokens(text)`, memoized (a pure function; the relation engine asks it of
/// every claim of a slot several times per write). Shared, so no copy.
pub fn tokens_of(text: &str) -> std::rc::Rc<[String]> {
    if let Some(t) = TOKENS.with(|m| m.borrow().get(text).cloned()) {
        return t;
    }
    let t: std::rc::Rc<[String]> = tokens(text).into();
    TOKENS.with(|m| {
        let mut m = m.borrow_mut();
        if m.len() >= TOKENS_CAP {
            m.clear();
        }
        m.insert(text.to_string(), t.clone());
    });
    t
}

pub fn tokens(text: &str) -> Vec<String> {
    // NFKC then lower case, plus the case foldings lower-casing misses
    // ("Hauptstraße" = "HAUPTSTRASSE", final sigma).
    let folded: String = nfkc(text).to_lowercase().replace('ß', "ss").replace('ς', "σ");
    folded
        .split(|c: char| c.is_whitespace() || (c.is_ascii_punctuation() && c != '\'' && c != '+' && c != '#'))
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect()
}

/// True when `specific` starts with every token of `general`, in order, and
/// says more after them ("San Francisco" → "San Francisco, CA", "Python" →
/// "Python 3.12"). Words in front name something else: "New York" is not a
/// more specific "York".
pub fn is_refinement(general: &[String], specific: &[String]) -> bool {
    !general.is_empty() && specific.len() > general.len() && specific.starts_with(general)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_value_despite_case_space_and_unicode() {
        assert_eq!(normalize_value("  New   York "), normalize_value("new york"));
        assert_eq!(normalize_value("Ｎｅｗ York."), "new york");
        assert_ne!(normalize_value("C++"), normalize_value("C"));
        assert_eq!(normalize_value("Hauptstraße"), normalize_value("HAUPTSTRASSE"));
    }

    #[test]
    fn refinement_is_a_contiguous_longer_form() {
        let t = |s| tokens(s);
        assert!(is_refinement(&t("San Francisco"), &t("San Francisco, CA")));
        assert!(is_refinement(&t("python"), &t("Python 3.12")));
        assert!(!is_refinement(&t("San Francisco, CA"), &t("San Francisco")));
        assert!(!is_refinement(&t("York"), &t("York")));
        assert!(!is_refinement(&t("new york"), &t("york new jersey")));
        assert!(!is_refinement(&t("York"), &t("New York")));
        assert!(!is_refinement(&t("Francisco"), &t("San Francisco, CA")));
    }
}
