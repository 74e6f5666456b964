//! The data model of SPEC §2, shared by the engine, the stores and the bindings.
//! These are plain serde types; on wasm they also derive `Tsify`, which is how
//! the TypeScript declarations are generated from them.

mod candidate;
mod chunked;
mod claim;
mod conflict;
mod erasure;
mod index;
mod log;
mod outcome;
mod reserved;
mod retraction;
mod shared;
mod slot;

pub use candidate::{Candidate, Provenance, DEFAULT_SOURCE_ID, DEFAULT_SOURCE_TRUST};
pub use chunked::{key_hash, Chunked};
pub use claim::{Claim, ClaimKind, Relation, Status};
pub use conflict::{Conflict, ConflictKind, ConflictRecord, ConflictStatus, Settlement, StatusChange};
pub use erasure::{Tombstone, ERASED};
pub use index::{ConflictCursor, ConflictEntry, ConflictQuery, DirtyQuery, EntityIndex, IndexedConflict, SlotIndex};
pub use log::{LogCause, LogEntry};
pub use outcome::{Action, Outcome, SpecUsed, StrategySource};
pub use reserved::{is_entity_subject, is_reserved_subject, no_key_separator, CALIBRATION_PREDICATE, CALIBRATION_SUBJECT, ENTITY_REGISTRY, ENTITY_SUBJECT, MERGES_SUBJECT, NAME_PREDICATE, PREDICATES_SUBJECT};
pub use retraction::{Retraction, RetractionRecord};
pub use shared::Shared;
pub use slot::{Slot, SlotCommit, SlotRef, WriteRecord, KEY_SEPARATOR};
