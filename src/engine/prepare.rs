//! Turns a caller's candidate into a draft claim, refusing bad input before
//! anything is loaded or written.

use crate::config::Settings;
use crate::error::{Error, Result};
use crate::model::{no_key_separator, Candidate, Claim, Provenance, SlotRef, Status, DEFAULT_SOURCE_ID};
use crate::predicates::PredicateSpec;
use crate::time::Timestamp;

pub struct Prepared {
    pub slot: SlotRef,
    pub spec: PredicateSpec,
    pub draft: Claim,
    pub write_id: Option<String>,
}

fn unit_interval(value: Option<f64>, field: &str) -> Result<Option<f64>> {
    match value {
        Some(v) if !(v.is_finite() && (0.0..=1.0).contains(&v)) => {
            Err(Error::invalid(field, format!("must be a number from 0 to 1, got {v}")))
        }
        other => Ok(other),
    }
}

pub fn prepare(c: &Candidate, settings: &Settings, now: Timestamp, claim_id: String) -> Result<Prepared> {
    if c.predicate.trim().is_empty() {
        return Err(Error::invalid("predicate", "is required and must not be empty"));
    }
    no_key_separator(&c.predicate, "predicate")?;
    if let Some(s) = &c.subject {
        no_key_separator(s, "subject")?;
    }
    if let Some(t) = &c.subject_type {
        no_key_separator(t, "subjectType")?;
    }
    if c.object.trim().is_empty() {
        return Err(Error::invalid("object", "is required and must not be empty"));
    }
    let subject = match &c.subject {
        Some(s) if s.trim().is_empty() => return Err(Error::invalid("subject", "must not be empty when given")),
        Some(s) => s.trim().to_string(),
        None => settings.default_subject.clone(),
    };
    if let Some(id) = &c.id {
        if id.trim().is_empty() {
            return Err(Error::invalid("id", "must not be empty when given"));
        }
    }
    let confidence = unit_interval(c.confidence, "confidence")?;
    let given = c.provenance.clone().unwrap_or_default();
    let trust = unit_interval(given.source_trust, "provenance.sourceTrust")?;
    let extractor = unit_interval(given.extractor_conf, "provenance.extractorConf")?;
    let valid_from = c.valid_from.as_deref().map(|t| Timestamp::parse(t, "validFrom")).transpose()?;
    // A report that states when its value holds is placed on the timeline
    // at that time, but it is evidence made now (SPEC §4; `reported_at`).
    let (observed, reported) = match &given.observed_at {
        Some(t) => (Timestamp::parse(t, "provenance.observedAt")?, None),
        None => match valid_from {
            Some(from) if from != now => (from, Some(now)),
            _ => (now, None),
        },
    };
    let valid_to = c.valid_to.as_deref().map(|t| Timestamp::parse(t, "validTo")).transpose()?;
    // A period must hold for some time: an empty one says nothing, yet would
    // end the current value. Without validFrom the claim starts when observed.
    if let Some(t) = valid_to {
        match valid_from {
            Some(f) if t <= f => return Err(Error::invalid("validTo", "must be after validFrom")),
            None if t <= observed => {
                return Err(Error::invalid("validTo", format!(
                    "must be after the claim's start: with no validFrom it starts when observed ({}); state validFrom for a period in the past",
                    observed.to_iso()
                )))
            }
            _ => {}
        }
    }
    let source_id = if given.source_id.trim().is_empty() { DEFAULT_SOURCE_ID.to_string() } else { given.source_id.trim().to_string() };
    let provenance = Provenance {
        source_id: source_id.clone(),
        source_trust: Some(trust.or_else(|| settings.source_trust.get(&source_id).copied()).unwrap_or(crate::model::DEFAULT_SOURCE_TRUST)),
        extractor_conf: Some(extractor.or(confidence).unwrap_or(1.0)),
        observed_at: Some(observed.to_iso()),
        stated_from: valid_from.map(|t| t.to_iso()),
        reported_at: reported.map(|t| t.to_iso()),
        at_write: given.observed_at.is_none() && valid_from.is_none(),
    };
    let spec = settings.registry.resolve(&c.predicate);
    let slot = SlotRef::new(&subject, &spec.name);
    let draft = Claim {
        id: claim_id,
        subject,
        predicate: spec.name.clone(),
        object: c.object.trim().to_string(),
        status: Status::Active,
        confidence: 0.5,
        log_odds: 0.0,
        stated_confidence: confidence.unwrap_or(1.0),
        valid_from,
        valid_to,
        stated_valid_to: None,
        recorded_at: now,
        provenance: vec![provenance].into(),
        superseded_by: None,
        supersedes: None,
        conflict_ids: Vec::new(),
        object_entity: None,
        archived_observations: 0,
        kind: crate::model::ClaimKind::Value,
    };
    Ok(Prepared { slot, spec, draft, write_id: c.id.clone() })
}
