//! What a strategy sees besides the slot (`WriteCtx`) and what it returns
//! (`Applied`): the engine builds the one and turns the other into an
//! `Outcome`, so both live here, below the engine.

use crate::config::Settings;
use crate::model::{Action, Relation};
use crate::predicates::PredicateSpec;

/// What strategies see besides the slot.
pub struct WriteCtx<'a> {
    pub spec: &'a PredicateSpec,
    pub settings: &'a Settings,
}

/// What a strategy did, by claim id; the engine turns it into an `Outcome`.
#[derive(Debug, Clone)]
pub struct Applied {
    pub action: Action,
    pub relation: Option<Relation>,
    pub claim_id: String,
    pub affected: Vec<String>,
    pub conflicts: Vec<String>,
    pub stored: bool,
    /// A merge that waits for approval instead of being applied.
    pub pending: bool,
}

impl Applied {
    pub fn stored(action: Action, relation: Option<Relation>, claim_id: String, affected: Vec<String>) -> Self {
        Applied { action, relation, claim_id, affected, conflicts: Vec::new(), stored: true, pending: false }
    }
    pub fn skipped(claim_id: String) -> Self {
        Applied { action: Action::Skipped, relation: None, claim_id, affected: Vec::new(), conflicts: Vec::new(), stored: false, pending: false }
    }
}
