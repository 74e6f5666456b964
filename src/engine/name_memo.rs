//! Names this engine has resolved to a known spelling of an entity (issue
//! #44's cost goal): a later write of the same name skips the key look-up and
//! the loads of the entity, and is checked by one read of the entity's slot
//! instead. An entry holds only while that slot keeps the version it had when
//! the name was looked up: a merge, an undo, a new spelling or a question
//! asked there (by any writer) moves the version, and the name is looked up
//! again.

use std::cell::RefCell;
use std::collections::HashMap;

use crate::entities::Resolution;

/// Entries kept at most, in two generations: when the young one is full it
/// becomes the old one (the older is dropped), and a name found in the old
/// one moves back to the young. Names in use stay; memory stays bounded.
const MAX_NAMES: usize = 16_384;

/// A name resolved to a known spelling of entity `resolution.entity_id`.
#[derive(Debug, Clone)]
pub(crate) struct Remembered {
    pub resolution: Resolution,
    /// The version of the entity's slot when the name was looked up.
    pub version: u64,
    /// `PendingName::merged_from` as it was then.
    pub merged_from: Vec<String>,
}

type Names = HashMap<(String, String), Remembered>;

#[derive(Default)]
pub(crate) struct NameMemo(RefCell<(Names, Names)>);

fn key(entity_type: &str, name: &str) -> (String, String) {
    (entity_type.to_string(), name.to_string())
}

impl NameMemo {
    pub fn get(&self, entity_type: &str, name: &str) -> Option<Remembered> {
        let k = key(entity_type, name);
        let (young, old) = &mut *self.0.borrow_mut();
        if let Some(r) = young.get(&k) {
            return Some(r.clone());
        }
        let r = old.remove(&k)?;
        Self::insert(young, old, k, r.clone());
        Some(r)
    }

    pub fn keep(&self, entity_type: &str, name: &str, remembered: Remembered) {
        let (young, old) = &mut *self.0.borrow_mut();
        let k = key(entity_type, name);
        old.remove(&k);
        Self::insert(young, old, k, remembered);
    }

    fn insert(young: &mut Names, old: &mut Names, k: (String, String), r: Remembered) {
        if young.len() >= MAX_NAMES / 2 && !young.contains_key(&k) {
            *old = std::mem::take(young);
        }
        young.insert(k, r);
    }

    pub fn forget(&self, entity_type: &str, name: &str) {
        let k = key(entity_type, name);
        let (young, old) = &mut *self.0.borrow_mut();
        young.remove(&k);
        old.remove(&k);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn remembered(id: &str) -> Remembered {
        Remembered { resolution: Resolution::new("n", id.into(), "alias", 1.0, Vec::new()), version: 1, merged_from: Vec::new() }
    }

    #[test]
    fn keeps_forgets_and_stays_bounded() {
        let memo = NameMemo::default();
        memo.keep("org", "Acme", remembered("org:acme"));
        assert_eq!(memo.get("org", "Acme").map(|r| r.resolution.entity_id), Some("org:acme".into()));
        assert!(memo.get("person", "Acme").is_none(), "by type");
        memo.forget("org", "Acme");
        assert!(memo.get("org", "Acme").is_none());
        for i in 0..MAX_NAMES * 3 {
            memo.keep("org", &format!("n{i}"), remembered("org:x"));
            // One name in use throughout stays.
            assert!(memo.get("org", "n0").is_some(), "n0 dropped at {i}");
        }
        let kept = memo.0.borrow().0.len() + memo.0.borrow().1.len();
        assert!(kept <= MAX_NAMES, "bounded: {kept}");
        assert!(memo.get("org", "n1").is_none(), "names not in use are dropped");
    }
}
