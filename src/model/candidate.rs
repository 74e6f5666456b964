use serde::{Deserialize, Serialize};

/// Who observed a fact, how far they are trusted, and how sure the extractor was.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct Provenance {
    pub source_id: String,
    /// 0..1, default 0.8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_trust: Option<f64>,
    /// 0..1, default 1.0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extractor_conf: Option<f64>,
    /// ISO 8601; defaults to the time of the write.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_at: Option<String>,
    /// The `validFrom` the report stated (set by memory, never taken as
    /// input): a claim merging reports of one value stated from different
    /// times keeps each, so a value reported in between can split it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stated_from: Option<String>,
    /// When the report was made, where that differs from `observedAt` (set by
    /// memory, never taken as input): a statement made today of a value
    /// stated to hold since an earlier `validFrom` is observed from then
    /// (its place on the timeline) but is evidence made today (SPEC §4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reported_at: Option<String>,
    /// Set by memory, never taken as input: the report gave no `observedAt`
    /// nor `validFrom`, so its time is the time of the write. Two such
    /// writes in one millisecond are still in the order they were made.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub at_write: bool,
}

pub const DEFAULT_SOURCE_TRUST: f64 = 0.8;
/// The source recorded for a write that names none: the caller itself.
pub const DEFAULT_SOURCE_ID: &str = "caller";

impl Provenance {
    pub fn trust(&self) -> f64 {
        self.source_trust.unwrap_or(DEFAULT_SOURCE_TRUST)
    }
    pub fn extractor(&self) -> f64 {
        self.extractor_conf.unwrap_or(1.0)
    }
    /// When the source observed it (a stored observation always says; an unreadable time counts as none).
    pub fn observed(&self) -> Option<crate::time::Timestamp> {
        self.observed_at.as_deref().and_then(|t| crate::time::Timestamp::parse(t, "observedAt").ok())
    }
    /// When the report was made, where that differs from when it says it observed.
    pub fn reported(&self) -> Option<crate::time::Timestamp> {
        self.reported_at.as_deref().and_then(|t| crate::time::Timestamp::parse(t, "reportedAt").ok())
    }
    /// When the report said its value began, if it said.
    pub fn stated(&self) -> Option<crate::time::Timestamp> {
        self.stated_from.as_deref().and_then(|t| crate::time::Timestamp::parse(t, "statedFrom").ok())
    }
}

/// The same fields as `Provenance`, read strictly: an input object with an
/// unknown key is refused (SPEC §11). Stored provenance stays lenient.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct StrictProvenance {
    source_id: String,
    #[serde(default)]
    source_trust: Option<f64>,
    #[serde(default)]
    extractor_conf: Option<f64>,
    #[serde(default)]
    observed_at: Option<String>,
}

fn strict_provenance<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Provenance>, D::Error> {
    let p: Option<StrictProvenance> = Option::deserialize(d)?;
    Ok(p.map(|p| Provenance { source_id: p.source_id, source_trust: p.source_trust, extractor_conf: p.extractor_conf, observed_at: p.observed_at, stated_from: None, reported_at: None, at_write: false }))
}

/// A fact an agent wants memory to hold (SPEC §2). Unknown keys are refused.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct Candidate {
    /// Defaults to the engine's `defaultSubject` ("user").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject_type: Option<String>,
    /// Canonical name, alias, or taxonomy path such as `preferences.coding.style`.
    pub predicate: String,
    pub object: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub valid_from: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub valid_to: Option<String>,
    /// Shortcut for `provenance.extractorConf`; also the writer-stated confidence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "strict_provenance")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Omit<Provenance, 'statedFrom'>"))]
    pub provenance: Option<Provenance>,
    /// Idempotency key: the same id written twice changes memory once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
}
