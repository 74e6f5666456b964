//! The names memory keeps for itself: the slot-key separator, the subjects
//! that open with it (entity registries, the calibration record, predicate
//! definitions; archive chunks are named in `crate::archive`) and the
//! predicate of a registry's name claims. Below the engine, so the
//! transaction, the invariants and the config check against them too.

use crate::error::{Error, Result};

pub use super::slot::KEY_SEPARATOR;

/// The subject of the entity-registry slots (one per entity type).
pub const ENTITY_REGISTRY: &str = "\u{1f}entities";

/// The predicate of the name claims kept in a registry slot.
pub const NAME_PREDICATE: &str = "name";

/// The slot that holds calibration records (one claim per version, the latest active).
pub const CALIBRATION_SUBJECT: &str = "\u{1f}calibration";
pub const CALIBRATION_PREDICATE: &str = "record";

/// The reserved subject whose one slot holds the predicate definitions.
pub const PREDICATES_SUBJECT: &str = "\u{1f}predicates";

/// Subjects the engine keeps for itself (entity registry, calibration): not facts about anyone.
pub fn is_reserved_subject(subject: &str) -> bool {
    subject.starts_with(KEY_SEPARATOR)
}

/// Text holding the slot-key separator could name another slot, or a reserved one.
pub fn no_key_separator(value: &str, field: &str) -> Result<()> {
    if value.contains(KEY_SEPARATOR) {
        return Err(Error::invalid(field, "must not contain U+001F (the unit separator), which credence keeps for its slot keys"));
    }
    Ok(())
}
