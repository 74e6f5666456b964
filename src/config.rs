//! Engine configuration (the data part of `new Memory({...})`), validated once.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::belief::BeliefParams;
use crate::error::{Error, Result};
use crate::model::no_key_separator;
use crate::predicates::{MemoryType, PredicateSpec, Registry};
use crate::strategy::{Strategy, TypeDefaults};

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct EngineConfig {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub predicates: Vec<PredicateSpec>,
    /// Subject of candidates that name none (default `"user"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_subject: Option<String>,
    /// Engine-wide strategy, above predicate specs and memory types.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strategy: Option<String>,
    /// Replaces the memory-type → strategy table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Partial<Record<MemoryType, string>>"))]
    pub memory_type_defaults: Option<HashMap<MemoryType, String>>,
    /// Active entries kept by `append` (default 50; 0 = no cap).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_entries: Option<usize>,
    /// Support difference (in log-odds) within which a contradiction is a dispute (default 1.0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dispute_margin: Option<f64>,
    /// Accepted for older configs and ignored: since belief became a forward
    /// filter, `disputeMargin` alone separates outweighed from disputed (SPEC §3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outweigh_margin: Option<f64>,
    /// Change half-life for time-varying predicates without their own (default 365).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub half_life_days: Option<f64>,
    /// Prior probability that a stated value is true (default 0.2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prior: Option<f64>,
    /// Reloads after a lost race before `CONCURRENCY` (default 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retries: Option<u32>,
    /// Names known to denote one entity, per entity type: `{ country: [["Germany", "Deutschland"]] }`.
    /// A name in a group merges automatically with an entity known by another name of the group.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, string[][]>"))]
    pub entity_aliases: Option<HashMap<String, Vec<Vec<String>>>>,
    /// Calibration that runs by itself (SPEC §4): `true` (default) in the
    /// background, `"inline"` inside the write that makes it due, `false` off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calibrate: Option<CalibrateSetting>,
    /// Writes before the first automatic calibration (default 500); later ones
    /// wait for the larger of this and 25% of the observations behind the last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calibrate_after: Option<u64>,
    /// Per-source defaults, by `provenance.sourceId`: `{ user: { trust: 0.95 } }`.
    /// A write that states no `sourceTrust` gets its source's trust (else 0.8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, SourceConfig>"))]
    pub sources: Option<HashMap<String, SourceConfig>>,
}

/// `calibrate` in the config: `true` (background, the default), `"inline"`, or `false`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[cfg_attr(target_arch = "wasm32", tsify(type = "boolean | \"inline\""))]
pub enum CalibrateSetting {
    Flag(bool),
    Mode(String),
}

/// Read by hand so a wrong type is refused naming what `calibrate` takes
/// (an untagged derive says only "did not match any variant").
impl<'de> Deserialize<'de> for CalibrateSetting {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        struct Setting;
        impl serde::de::Visitor<'_> for Setting {
            type Value = CalibrateSetting;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("true, false or \"inline\"")
            }
            fn visit_bool<E: serde::de::Error>(self, v: bool) -> std::result::Result<CalibrateSetting, E> {
                Ok(CalibrateSetting::Flag(v))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> std::result::Result<CalibrateSetting, E> {
                Ok(CalibrateSetting::Mode(v.to_string()))
            }
        }
        deserializer.deserialize_any(Setting)
    }
}

/// What the config says about one source.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct SourceConfig {
    /// How far the source is trusted, 0..1: the trust of its writes that state none.
    pub trust: f64,
}

/// The validated form the engine works with.
#[derive(Debug, Clone)]
pub struct Settings {
    pub registry: Registry,
    pub default_subject: String,
    pub strategy: Option<Strategy>,
    pub type_defaults: TypeDefaults,
    pub max_entries: usize,
    pub dispute_margin: f64,
    pub belief: BeliefParams,
    pub retries: u32,
    pub known_aliases: crate::entities::KnownAliases,
    /// The calibration in force (`calibrate()`), shared by every clone.
    pub calibration: crate::calibrate::ActiveCalibration,
    /// A claim holding more observations than this moves its older ones to
    /// the archive (`crate::archive`); tests lower it to exercise compaction.
    pub archive_after: usize,
    /// A slot holding this many dead claims in a row from its oldest moves
    /// them to a claim chunk (`crate::archive::dead_prefix`); tests lower it.
    pub archive_claims_after: usize,
    /// `sources[id].trust` of the config, validated.
    pub source_trust: HashMap<String, f64>,
}

fn non_negative(value: Option<f64>, default: f64, field: &str) -> Result<f64> {
    match value {
        None => Ok(default),
        Some(v) if v.is_finite() && v >= 0.0 => Ok(v),
        Some(v) => Err(Error::invalid(field, format!("must be a finite number ≥ 0, got {v}"))),
    }
}

/// `sources` of the config: every trust a number from 0 to 1, every id non-empty.
fn source_trust(sources: Option<&HashMap<String, SourceConfig>>) -> Result<HashMap<String, f64>> {
    let mut out = HashMap::new();
    for (id, source) in sources.into_iter().flatten() {
        if id.trim().is_empty() {
            return Err(Error::invalid("sources", "a source id must not be empty"));
        }
        let t = source.trust;
        if !(t.is_finite() && (0.0..=1.0).contains(&t)) {
            return Err(Error::invalid(&format!("sources.{id}.trust"), format!("must be a number from 0 to 1, got {t}")));
        }
        out.insert(id.trim().to_string(), t);
    }
    Ok(out)
}

impl Settings {
    pub fn new(config: &EngineConfig) -> Result<Self> {
        let default_subject = config.default_subject.clone().unwrap_or_else(|| "user".into());
        if default_subject.trim().is_empty() {
            return Err(Error::invalid("defaultSubject", "must not be empty"));
        }
        no_key_separator(&default_subject, "defaultSubject")?;
        let strategy = match &config.strategy {
            Some(s) => Some(Strategy::parse(s).map_err(|e| e.with_field("strategy"))?),
            None => None,
        };
        let type_defaults = match &config.memory_type_defaults {
            Some(table) => TypeDefaults::from_table(table)?,
            None => TypeDefaults::standard(),
        };
        // A half-life of 0 would relax every belief to uniform between any two
        // reports: refused, as a predicate's own `halfLifeDays` of 0 is.
        let half_life = non_negative(config.half_life_days, 365.0, "halfLifeDays")?;
        if half_life == 0.0 {
            return Err(Error::invalid("halfLifeDays", "must be a positive number, got 0"));
        }
        // Ignored, but still validated: a bad value is refused rather than silently kept.
        non_negative(config.outweigh_margin, 2.0, "outweighMargin")?;
        let prior = config.prior.unwrap_or(0.2);
        if !(prior > 0.0 && prior < 1.0) {
            return Err(Error::invalid("prior", "must be strictly between 0 and 1"));
        }
        Ok(Settings {
            registry: Registry::new(&config.predicates)?,
            default_subject,
            strategy,
            type_defaults,
            max_entries: config.max_entries.unwrap_or(50),
            dispute_margin: non_negative(config.dispute_margin, 1.0, "disputeMargin")?,
            belief: BeliefParams::new(prior, if half_life > 0.0 { Some(half_life) } else { None }),
            retries: config.retries.unwrap_or(3),
            known_aliases: crate::entities::KnownAliases::new(&config.entity_aliases.clone().unwrap_or_default())?,
            calibration: Default::default(),
            archive_after: crate::archive::ARCHIVE_AFTER,
            archive_claims_after: crate::archive::CLAIMS_AFTER,
            source_trust: source_trust(config.sources.as_ref())?,
        })
    }
}
