//! The eight write strategies (SPEC §5) and the precedence that picks one.

mod align;
mod arrival;
mod beliefs;
mod confirm;
mod ctx;
mod entries;
mod held;
mod posterior;
pub(crate) use posterior::{evidence_within, observed_at};
mod reconcile;
mod values;
pub(crate) use values::Values;

pub use ctx::{Applied, WriteCtx};
pub use entries::apply_entries;
pub use held::meets_past;
pub use align::realign;
pub use beliefs::{beliefs_at, reweigh_claims, reweigh_entries};
pub use reconcile::apply_reconcile;

use std::collections::HashMap;

use crate::error::{Error, ErrorCode, Result};
use crate::model::{Claim, ClaimKind};
use crate::normalize::{is_refinement, tokens_of};
use crate::model::StrategySource;
use crate::predicates::{MemoryType, PredicateSpec};

/// Same value: the same entity when both name one, else the same normalized text.
pub fn same_value(a: &Claim, b: &Claim) -> bool {
    match (&a.object_entity, &b.object_entity) {
        (Some(x), Some(y)) => x == y,
        _ => a.object == b.object || tokens_of(&a.object) == tokens_of(&b.object),
    }
}

/// `specific` says more than `general` about the same thing (never across two entities).
pub fn refines(general: &Claim, specific: &Claim) -> bool {
    match (&general.object_entity, &specific.object_entity) {
        (Some(x), Some(y)) if x != y => false,
        _ => is_refinement(&tokens_of(&general.object), &tokens_of(&specific.object)),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    Reconcile,
    Append,
    Replace,
    ConfidenceGated,
    LlmMerge,
    MergeOnRead,
    Reject,
    AskUser,
}

pub const ALL: [Strategy; 8] = [
    Strategy::Reconcile,
    Strategy::Append,
    Strategy::Replace,
    Strategy::ConfidenceGated,
    Strategy::LlmMerge,
    Strategy::MergeOnRead,
    Strategy::Reject,
    Strategy::AskUser,
];

impl Strategy {
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Reconcile => "reconcile",
            Strategy::Append => "append",
            Strategy::Replace => "replace",
            Strategy::ConfidenceGated => "confidence_gated",
            Strategy::LlmMerge => "llm_merge",
            Strategy::MergeOnRead => "merge_on_read",
            Strategy::Reject => "reject",
            Strategy::AskUser => "ask_user",
        }
    }

    /// The kind of claim a write by this strategy stores (SPEC §5).
    pub fn kind(self) -> ClaimKind {
        match self {
            Strategy::Append => ClaimKind::Append,
            Strategy::MergeOnRead => ClaimKind::MergeOnRead,
            _ => ClaimKind::Value,
        }
    }

    /// Case-insensitive; `-` and spaces read as `_`.
    pub fn parse(text: &str) -> Result<Self> {
        let wanted = text.trim().to_lowercase().replace(['-', ' '], "_");
        ALL.into_iter().find(|s| s.name() == wanted).ok_or_else(|| {
            let names: Vec<&str> = ALL.iter().map(|s| s.name()).collect();
            Error::new(
                ErrorCode::InvalidStrategy,
                format!("unknown strategy {text:?}; expected one of {}", names.join(", ")),
            )
            .with_field("strategy")
        })
    }
}

/// Memory type → default strategy.
#[derive(Debug, Clone)]
pub struct TypeDefaults(HashMap<MemoryType, Strategy>);

impl TypeDefaults {
    pub fn standard() -> Self {
        TypeDefaults(HashMap::from([
            (MemoryType::Working, Strategy::Replace),
            (MemoryType::Episodic, Strategy::Append),
            (MemoryType::Semantic, Strategy::Reconcile),
            (MemoryType::Procedural, Strategy::LlmMerge),
        ]))
    }

    /// A user table replaces the standard one; types it leaves out reconcile.
    pub fn from_table(table: &HashMap<MemoryType, String>) -> Result<Self> {
        let mut map = HashMap::new();
        for (ty, name) in table {
            let s = Strategy::parse(name).map_err(|e| e.with_field("memoryTypeDefaults"))?;
            map.insert(*ty, s);
        }
        Ok(TypeDefaults(map))
    }

    fn get(&self, ty: MemoryType) -> Strategy {
        self.0.get(&ty).copied().unwrap_or(Strategy::Reconcile)
    }
}

/// Per-call > engine config > predicate spec > memory type. A type default of
/// `llm_merge` falls back to `append` when no merge hook is configured.
pub fn choose(
    call: Option<Strategy>,
    config: Option<Strategy>,
    spec: &PredicateSpec,
    defaults: &TypeDefaults,
    has_merge_hook: bool,
) -> Result<(Strategy, StrategySource)> {
    if let Some(s) = call {
        return Ok((s, StrategySource::Call));
    }
    if let Some(s) = config {
        return Ok((s, StrategySource::Config));
    }
    if let Some(name) = &spec.strategy {
        return Ok((Strategy::parse(name)?, StrategySource::Predicate));
    }
    let s = defaults.get(spec.memory_type());
    if s == Strategy::LlmMerge && !has_merge_hook {
        return Ok((Strategy::Append, StrategySource::MemoryType));
    }
    Ok((s, StrategySource::MemoryType))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_case_insensitively_and_refuses_unknown() {
        assert_eq!(Strategy::parse("Confidence_Gated").unwrap(), Strategy::ConfidenceGated);
        assert_eq!(Strategy::parse("ASK-USER").unwrap(), Strategy::AskUser);
        let e = Strategy::parse("yolo").unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidStrategy);
        assert!(e.message.contains("\"yolo\""));
    }

    #[test]
    fn precedence_at_every_level() {
        let d = TypeDefaults::standard();
        let mut spec = PredicateSpec::implicit("workflow.release");
        assert_eq!(choose(None, None, &spec, &d, true).unwrap(), (Strategy::LlmMerge, StrategySource::MemoryType));
        assert_eq!(choose(None, None, &spec, &d, false).unwrap(), (Strategy::Append, StrategySource::MemoryType));
        spec.strategy = Some("reject".into());
        assert_eq!(choose(None, None, &spec, &d, true).unwrap(), (Strategy::Reject, StrategySource::Predicate));
        assert_eq!(
            choose(None, Some(Strategy::Replace), &spec, &d, true).unwrap(),
            (Strategy::Replace, StrategySource::Config)
        );
        assert_eq!(
            choose(Some(Strategy::AskUser), Some(Strategy::Replace), &spec, &d, true).unwrap(),
            (Strategy::AskUser, StrategySource::Call)
        );
    }

    #[test]
    fn memoir_table_replaces_the_standard_one() {
        let d = TypeDefaults::from_table(&HashMap::from([(MemoryType::Semantic, "confidence_gated".to_string())])).unwrap();
        let spec = PredicateSpec::implicit("preferences.editor");
        assert_eq!(choose(None, None, &spec, &d, false).unwrap().0, Strategy::ConfidenceGated);
        let working = PredicateSpec::implicit("context.current.task");
        assert_eq!(choose(None, None, &working, &d, false).unwrap().0, Strategy::Reconcile);
    }
}
