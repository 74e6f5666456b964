//! Predicates an agent and a developer can see (SPEC §7): `predicates()`
//! lists the specs in force (built-in, configured, defined, with what
//! calibration learned), `define_predicate` declares the cardinality and time
//! variance of a predicate nobody declared. Definitions are kept in the store
//! as one record under a reserved subject (like the calibration record), so
//! every client of the store and every later session sees them; built-in and
//! configured specs always win over a definition of the same name.

use serde::{Deserialize, Serialize};

use super::record::{replace_record, RecordSlot};
use super::Engine;
use crate::error::{Error, ErrorCode, Result};
use crate::model::{no_key_separator, LogCause, Slot, SlotRef, SpecUsed, Status, PREDICATES_SUBJECT};
use crate::predicates::{canonical_name, Cardinality, PredicateOrigin, PredicateSpec};
use crate::time::Timestamp;

const PREDICATES_PREDICATE: &str = "defined";
const DEFINE_SOURCE: &str = "credence.definePredicate";

fn record_ref() -> SlotRef {
    SlotRef::new(PREDICATES_SUBJECT, PREDICATES_PREDICATE)
}

/// `memory.definePredicate(...)`: a predicate's name (or an alias of a
/// declared one) and what to declare; what is left out is the default spec's
/// (single-valued, time-varying).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct PredicateDefinition {
    pub name: String,
    /// `"multi"`: several values hold at once (hobbies); `"single"`: a new value replaces the old.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cardinality: Option<Cardinality>,
    /// Whether the value changes over time (a city) or holds for good (a birthday).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_varying: Option<bool>,
}

/// Which half-life is in force for a time-varying predicate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub enum HalfLifeSource {
    /// The predicate's own spec.
    Predicate,
    /// The engine-wide `halfLifeDays` (default 365).
    Config,
    /// Learned by `calibrate()` from this memory's history.
    Learned,
}

/// A spec in force, as `predicates()` lists it: `memoryType` is always
/// given, `halfLifeDays` is the one in force (absent for a predicate that is
/// not time-varying), and `origin` says where the spec comes from.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct PredicateInfo {
    #[serde(flatten)]
    pub spec: PredicateSpec,
    pub origin: PredicateOrigin,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub half_life_source: Option<HalfLifeSource>,
}

/// The definitions the slot's latest record holds.
fn read_definitions(slot: &Slot) -> Result<Vec<PredicateSpec>> {
    let Some(claim) = slot.claims.iter().rev().find(|c| c.status == Status::Active) else { return Ok(Vec::new()) };
    serde_json::from_str(&claim.object)
        .map_err(|e| Error::new(ErrorCode::MalformedStoreData, format!("predicate definitions {} are unreadable: {e}", claim.id)))
}

/// A declared spec already answers the definition: every field given must match.
fn matches(spec: &PredicateSpec, origin: PredicateOrigin, def: &PredicateDefinition) -> Result<()> {
    let how = match origin {
        PredicateOrigin::Builtin => "built in",
        PredicateOrigin::Configured => "configured",
        PredicateOrigin::Defined => "already defined",
    };
    let word = |c: Cardinality| if c == Cardinality::Multi { "multi" } else { "single" };
    if let Some(c) = def.cardinality.filter(|c| *c != spec.cardinality) {
        return Err(Error::invalid(
            "cardinality",
            format!("{:?} is {how} as {}-valued, not {}; a spec is changed in the config (`predicates` of new Memory())", spec.name, word(spec.cardinality), word(c)),
        ));
    }
    if let Some(t) = def.time_varying.filter(|t| *t != spec.time_varying) {
        return Err(Error::invalid(
            "timeVarying",
            format!("{:?} is {how} with timeVarying {}, not {t}; a spec is changed in the config (`predicates` of new Memory())", spec.name, spec.time_varying),
        ));
    }
    Ok(())
}

fn store_record(txn: &mut crate::txn::SlotTxn, specs: &[PredicateSpec], name: &str) -> Result<()> {
    let object = serde_json::to_string(specs).map_err(|e| Error::new(ErrorCode::StoreFailed, format!("predicate definitions: {e}")))?;
    let at = RecordSlot { id_prefix: "pd", subject: PREDICATES_SUBJECT, predicate: PREDICATES_PREDICATE, source: DEFINE_SOURCE };
    let id = replace_record(txn, &at, object);
    txn.log_change("define_predicate", &[&id], None, None, format!("defined predicate {name:?}; {} definitions", specs.len()));
    Ok(())
}

/// How long the definitions read from the store are trusted for a write of
/// a predicate they do not declare: another process (a second MCP server on
/// the same bundle) may have defined it since. At most one extra slot load
/// per this interval, and only for writes of undeclared predicates.
const DEFINED_FRESH_MILLIS: i64 = 1000;

impl Engine {
    /// Reads the store's definitions before the first write plans its spec,
    /// and again (at most once a second) before a write of a predicate they
    /// do not declare.
    pub(crate) async fn ensure_defined<'a>(&self, now: Timestamp, mut predicates: impl Iterator<Item = &'a str>) -> Result<()> {
        let registry = &self.settings.registry;
        let stale = match registry.defined_at() {
            None => true,
            Some(at) => now.millis() - at >= DEFINED_FRESH_MILLIS && predicates.any(|p| registry.lookup(p).is_none()),
        };
        if stale {
            self.reload_defined(now).await?;
        }
        Ok(())
    }

    async fn reload_defined(&self, now: Timestamp) -> Result<()> {
        let slot = self.store.load_slot(&record_ref()).await?;
        self.settings.registry.set_defined(read_definitions(&slot)?, now.millis());
        Ok(())
    }

    /// What an outcome reports about the spec its write used.
    pub(crate) fn spec_used(&self, predicate: &str) -> SpecUsed {
        let (spec, assumed) = match self.settings.registry.lookup(predicate) {
            Some((spec, _)) => (spec, false),
            None => (PredicateSpec::implicit(&canonical_name(predicate)), true),
        };
        SpecUsed { name: spec.name, cardinality: spec.cardinality, time_varying: spec.time_varying, assumed }
    }

    fn info(&self, mut spec: PredicateSpec, origin: PredicateOrigin) -> PredicateInfo {
        let learned = self.settings.calibration.get().and_then(|c| c.half_life(&spec.name));
        let (half_life, source) = match (spec.time_varying, learned, spec.half_life_days, self.settings.belief.half_life_days) {
            (false, ..) => (None, None),
            (true, Some(h), _, _) => (Some(h), Some(HalfLifeSource::Learned)),
            (true, None, Some(h), _) => (Some(h), Some(HalfLifeSource::Predicate)),
            (true, None, None, Some(h)) => (Some(h), Some(HalfLifeSource::Config)),
            (true, None, None, None) => (None, None),
        };
        spec.memory_type = Some(spec.memory_type());
        spec.half_life_days = half_life;
        PredicateInfo { spec, origin, half_life_source: source }
    }

    /// Every declared spec in force (built-in, configured, defined), sorted
    /// by name, with aliases and the half-lives in force. A predicate not
    /// listed gets the default spec: single-valued and time-varying.
    pub async fn predicates(&self) -> Result<Vec<PredicateInfo>> {
        self.reload_defined(self.now()?).await?;
        self.ensure_calibration().await?;
        Ok(self.settings.registry.all().into_iter().map(|(spec, origin)| self.info(spec, origin)).collect())
    }

    /// Declares a predicate nobody declared, kept in the store. A predicate
    /// already declared (built-in, configured or defined) is answered as it
    /// is when every field given matches, and refused (`INVALID_INPUT`
    /// naming the field) otherwise: a definition never changes a spec.
    pub async fn define_predicate(&self, def: &PredicateDefinition) -> Result<PredicateInfo> {
        no_key_separator(&def.name, "name")?;
        let name = canonical_name(&def.name);
        if name.is_empty() {
            return Err(Error::invalid("name", "is required and must not be empty"));
        }
        let now = self.now()?;
        self.reload_defined(now).await?;
        if let Some((spec, origin)) = self.settings.registry.lookup(&name) {
            matches(&spec, origin, def)?;
            return Ok(self.info(spec, origin));
        }
        let spec = PredicateSpec {
            cardinality: def.cardinality.unwrap_or(Cardinality::Single),
            time_varying: def.time_varying.unwrap_or(true),
            ..PredicateSpec::implicit(&name)
        };
        let cause = LogCause { op: "definePredicate".into(), write_id: None, object: Some(name.clone()), source_id: None, strategy: None, by: None };
        let (specs, _) = self
            .commit_with_retry(&record_ref(), cause, |txn| {
                let mut specs = read_definitions(&txn.slot)?;
                // Another writer defined it meanwhile: theirs stands, if it agrees.
                if let Some(theirs) = specs.iter().find(|s| s.name == name) {
                    matches(theirs, PredicateOrigin::Defined, def)?;
                    return Ok(specs);
                }
                specs.push(spec.clone());
                crate::sort::sort_by(&mut specs, |a, b| a.name.cmp(&b.name));
                store_record(txn, &specs, &name)?;
                Ok(specs)
            })
            .await?;
        self.settings.registry.set_defined(specs, now.millis());
        let (spec, origin) = self.settings.registry.lookup(&name).unwrap_or((spec, PredicateOrigin::Defined));
        Ok(self.info(spec, origin))
    }
}
