//! The distinct values of a slot and which are more specific forms of
//! which: one grouping shared by the filter (`posterior`) and calibration
//! (`engine::calibrate`), so both weigh the same values.

use std::rc::Rc;

use foldhash::HashMap;

/// The distinct values of a slot's claims, numbered in order of first
/// appearance: a claim's value is the first earlier value it is the same as
/// (`same_value`: the same entity when both name one, else the same text).
/// Found by look-up, not by comparing with every value before it (that was
/// quadratic in a slot of thousands of values).
#[derive(Default)]
pub(crate) struct Values<'a> {
    count: usize,
    /// Entity → the first value naming it.
    by_entity: HashMap<&'a str, usize>,
    /// Tokens → the first value with that text, and the first one naming no entity.
    by_text: HashMap<Rc<[String]>, usize>,
    by_plain_text: HashMap<Rc<[String]>, usize>,
    /// Per value: its tokens and entity, to find its general forms.
    keys: Vec<(Rc<[String]>, Option<&'a str>)>,
}

impl<'a> Values<'a> {
    /// How many distinct values there are.
    pub fn count(&self) -> usize {
        self.count
    }

    pub fn of(&mut self, entity: Option<&'a str>, tokens: Rc<[String]>) -> usize {
        let found = match entity {
            // Another value naming this entity, or one naming none with this text.
            Some(e) => [self.by_entity.get(e), self.by_plain_text.get(&tokens)].into_iter().flatten().min().copied(),
            None => self.by_text.get(&tokens).copied(),
        };
        if let Some(v) = found {
            return v;
        }
        let v = self.count;
        self.count += 1;
        self.keys.push((tokens.clone(), entity));
        match entity {
            Some(e) => {
                self.by_entity.entry(e).or_insert(v);
            }
            None => {
                self.by_plain_text.entry(tokens.clone()).or_insert(v);
            }
        }
        self.by_text.entry(tokens).or_insert(v);
        v
    }

    /// Per value, the values that are more specific forms of it (`refines`:
    /// its tokens a proper prefix of theirs, no two different entities),
    /// found by looking each value's prefixes up, not by comparing pairs.
    pub fn refined_by(&self) -> Vec<Vec<usize>> {
        let mut out = vec![Vec::new(); self.count];
        for (specific, (tokens, entity)) in self.keys.iter().enumerate() {
            for len in 1..tokens.len() {
                let Some(&general) = self.by_text.get(&tokens[..len]) else { continue };
                let different_entities = matches!((self.keys[general].1, entity), (Some(x), Some(y)) if x != *y);
                if general != specific && !different_entities && !out[general].contains(&specific) {
                    out[general].push(specific);
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::Values;
    use crate::calibrate::forms::inverse;
    use crate::normalize::tokens_of;

    #[test]
    fn a_value_refines_each_value_whose_tokens_begin_it_never_across_two_entities() {
        let mut values = Values::default();
        let mut of = |entity: Option<&'static str>, text: &str| values.of(entity, tokens_of(text));
        let ids = [of(None, "Ann Smith"), of(None, "Ann"), of(Some("e2"), "Ann Smith Jones"), of(Some("e1"), "Ann Smith Jones Jr"), of(None, "Smith"), of(None, "ann  smith")];
        assert_eq!(ids, [0, 1, 2, 3, 4, 0], "the same text is one value");
        let refines = inverse(&values.refined_by());
        assert_eq!(refines[0], vec![1]);
        assert_eq!(refines[2], vec![0, 1]);
        // "Ann Smith Jones" names e2: e1's fuller form does not refine it.
        assert_eq!(refines[3], vec![0, 1]);
        assert_eq!(refines[4], Vec::<usize>::new());
        let mut apart = Values::default();
        apart.of(None, tokens_of("Paris"));
        apart.of(None, tokens_of("Lyon"));
        assert!(apart.refined_by().iter().all(Vec::is_empty));
    }
}
