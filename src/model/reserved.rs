//! The names memory keeps for itself: the slot-key separator, the subjects
//! that open with it (entity slots, the calibration record, predicate
//! definitions; archive chunks are named in `crate::archive`) and the
//! predicate of an entity slot's name claims. Below the engine, so the
//! transaction, the invariants and the config check against them too.

use crate::error::{Error, Result};

pub use super::slot::KEY_SEPARATOR;

/// The subject of the entity-registry slots (one per entity type) that held
/// every entity of a type before each entity had a slot of its own: read
/// only to move what one holds into `ENTITY_SUBJECT` slots.
pub const ENTITY_REGISTRY: &str = "\u{1f}entities";

/// The subject of the entity slots: one per entity, its id the predicate.
pub const ENTITY_SUBJECT: &str = "\u{1f}entity";

/// The subject of the entity-merge records: one slot per entity type.
pub const MERGES_SUBJECT: &str = "\u{1f}entity-merges";

/// The predicate of the name claims kept in an entity slot.
pub const NAME_PREDICATE: &str = "name";

/// The slot that holds calibration records (one claim per version, the latest active).
pub const CALIBRATION_SUBJECT: &str = "\u{1f}calibration";
pub const CALIBRATION_PREDICATE: &str = "record";

/// The reserved subject whose one slot holds the predicate definitions.
pub const PREDICATES_SUBJECT: &str = "\u{1f}predicates";

/// A slot of entity names and `same_entity` questions: an entity's own, or a
/// registry written before entities had slots of their own.
pub fn is_entity_subject(subject: &str) -> bool {
    subject == ENTITY_SUBJECT || subject == ENTITY_REGISTRY
}

/// Subjects the engine keeps for itself (entities, calibration): not facts about anyone.
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
