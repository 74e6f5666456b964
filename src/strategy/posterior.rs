//! The slot's forward filter (SPEC §4) read onto its claims: claims of the
//! same value share one hypothesis, and every claim a person has not retired
//! contributes its observations, history included.

use std::rc::Rc;

use foldhash::{HashMap, HashMapExt};

use super::refines;
use crate::normalize::tokens_of;
use crate::belief::{self, BeliefParams, FilterState, Observation};
use crate::calibrate::record::InForce;
use crate::model::{Claim, Status};
use crate::time::Timestamp;

/// When an observation speaks about the world: its `observedAt` (which a
/// candidate's `validFrom` stands in for when none was given), else the claim's start.
pub(crate) fn observed_at(p: &crate::model::Provenance, claim: &Claim) -> Timestamp {
    p.observed_at
        .as_deref()
        .and_then(|t| Timestamp::parse(t, "observedAt").ok())
        .unwrap_or_else(|| claim.effective_from())
}

/// One observation of `claim`, speaking for value `value`.
fn observation(p: &crate::model::Provenance, claim: &Claim, value: usize, calibration: Option<&InForce>) -> Observation {
    Observation {
        value,
        source: p.source_id.clone(),
        at: observed_at(p, claim),
        quality: belief::calibrated_quality(p, calibration.and_then(|c| c.reliability(&p.source_id))),
    }
}

/// A claim counts unless a person retired it or a refinement took its place
/// (the refined claim carries its observations).
/// `find` looks a claim of the slot up by id.
fn counts<'a>(claim: &Claim, find: impl Fn(&str) -> Option<&'a Claim>) -> bool {
    match claim.status {
        Status::Retired => false,
        // A refinement leaves no `validTo`; a change of value always does.
        Status::Superseded => !(claim.valid_to.is_none() && claim.superseded_by.as_deref().and_then(find).is_some_and(|c| refines(claim, c))),
        _ => true,
    }
}

/// The claims by id, for `counts` (one look-up per claim instead of a scan:
/// a slot of many replaced entries made every write quadratic). The first
/// claim of an id wins, as the scan it replaces found it.
fn by_id<'a>(claims: &[&'a Claim]) -> HashMap<&'a str, &'a Claim> {
    let mut map = HashMap::with_capacity(claims.len());
    for c in claims {
        map.entry(c.id.as_str()).or_insert(*c);
    }
    map
}

/// The distinct values of a slot's claims, numbered in order of first
/// appearance: a claim's value is the first earlier value it is the same as
/// (`same_value`: the same entity when both name one, else the same text).
/// Found by look-up, not by comparing with every value before it (that was
/// quadratic in a slot of thousands of values).
#[derive(Default)]
struct Values<'a> {
    count: usize,
    /// Entity → the first value naming it.
    by_entity: HashMap<&'a str, usize>,
    /// Tokens → the first value with that text, and the first one naming no entity.
    by_text: HashMap<Rc<[String]>, usize>,
    by_plain_text: HashMap<Rc<[String]>, usize>,
}

impl<'a> Values<'a> {
    fn of(&mut self, entity: Option<&'a str>, tokens: Rc<[String]>) -> usize {
        let found = match entity {
            // Another value naming this entity, or one naming none with this text.
            Some(e) => [self.by_entity.get(e), self.by_plain_text.get(&tokens)].into_iter().flatten().min().copied(),
            None => self.by_text.get(&tokens).copied(),
        };
        if let Some(v) = found {
            return v;
        }
        let v = self.count;
        self.count += 1;
        match entity {
            Some(e) => {
                self.by_entity.entry(e).or_insert(v);
            }
            None => {
                self.by_plain_text.entry(tokens.clone()).or_insert(v);
            }
        }
        self.by_text.entry(tokens).or_insert(v);
        v
    }
}

#[derive(Clone)]
pub struct SlotPosterior {
    value_of: HashMap<String, usize>,
    state: FilterState,
    /// Free-text entries sharing the slot with values (SPEC §5: never weighed
    /// as rival values): each on its own observations, as value 0.
    alone: HashMap<String, FilterState>,
}

impl SlotPosterior {
    /// The posterior at `at` over every counted claim of `claims` as rivals for one value;
    /// `calibration` (when one is in force) replaces each source's stated trust by its reliability.
    pub fn of_rivals(claims: &[&Claim], params: &BeliefParams, half_life: Option<f64>, time_varying: bool, at: Timestamp, calibration: Option<&InForce>) -> Self {
        Self::of_rivals_when(claims, params, half_life, time_varying, |_| at, calibration)
    }

    /// `of_rivals` at the slot's latest observation (`latest_observation`),
    /// else at `fallback`, reading the observations once for both.
    pub fn of_rivals_at_latest(claims: &[&Claim], params: &BeliefParams, half_life: Option<f64>, time_varying: bool, fallback: Timestamp, calibration: Option<&InForce>) -> Self {
        Self::of_rivals_when(claims, params, half_life, time_varying, |observations| observations.iter().map(|o| o.at).max().unwrap_or(fallback), calibration)
    }

    /// `of_rivals` at the time `at` picks from every counted observation.
    fn of_rivals_when(
        claims: &[&Claim],
        params: &BeliefParams,
        half_life: Option<f64>,
        time_varying: bool,
        at: impl FnOnce(&[Observation]) -> Timestamp,
        calibration: Option<&InForce>,
    ) -> Self {
        // One value key per claim (normalizing text is the costly part), then
        // `same_value`'s rule: the same entity when both name one, else the same text.
        let mut values = Values::default();
        let mut value_of = HashMap::new();
        let mut observations = Vec::new();
        let index = by_id(claims);
        let mut entries: Vec<(&Claim, Vec<Observation>)> = Vec::new();
        for claim in claims.iter().copied().filter(|c| counts(c, |id| index.get(id).copied())) {
            if claim.kind.is_entry() {
                entries.push((claim, claim.provenance.iter().map(|p| observation(p, claim, 0, calibration)).collect()));
                continue;
            }
            let value = values.of(claim.object_entity.as_deref(), tokens_of(&claim.object));
            value_of.insert(claim.id.clone(), value);
            observations.extend(claim.provenance.iter().map(|p| observation(p, claim, value, calibration)));
        }
        // The time asked is read from every observation, entries' included.
        let at = if entries.is_empty() {
            at(&observations)
        } else {
            let all: Vec<Observation> = observations.iter().chain(entries.iter().flat_map(|(_, o)| o.iter())).cloned().collect();
            at(&all)
        };
        let observations = belief::counted(observations, time_varying);
        let state = belief::posterior_at(&observations, params, half_life, at);
        let alone = entries
            .into_iter()
            .map(|(c, obs)| (c.id.clone(), belief::posterior_at(&belief::counted(obs, time_varying), params, half_life, at)))
            .collect();
        SlotPosterior { value_of, state, alone }
    }

    /// A claim standing alone on its own observations (multi-valued slots,
    /// entries): `of_rivals` of the one claim, as value 0, without its maps
    /// (a multi-valued slot runs this once per live claim on every write).
    pub fn of_one(claim: &Claim, params: &BeliefParams, half_life: Option<f64>, time_varying: bool, at: Timestamp, calibration: Option<&InForce>) -> f64 {
        // Alone, the only claim it can find is itself.
        let observations: Vec<Observation> = if counts(claim, |id| (id == claim.id).then_some(claim)) {
            claim.provenance.iter().map(|p| observation(p, claim, 0, calibration)).collect()
        } else {
            Vec::new()
        };
        let observations = belief::counted(observations, time_varying);
        belief::to_log_odds(belief::posterior_at(&observations, params, half_life, at).probability(0))
    }

    /// The same posterior carried forward to `at` (never backward).
    pub fn advanced_to(&self, at: Timestamp) -> Self {
        let mut later = self.clone();
        later.state.advance(at);
        for state in later.alone.values_mut() {
            state.advance(at);
        }
        later
    }

    /// The time the posterior speaks about.
    pub fn time(&self) -> Option<Timestamp> {
        self.state.at()
    }

    /// Log-odds that the claim's value holds at the filter's time.
    pub fn log_odds(&self, claim_id: &str) -> Option<f64> {
        match self.value_of.get(claim_id) {
            Some(v) => Some(belief::to_log_odds(self.state.probability(*v))),
            None => self.alone.get(claim_id).map(|s| belief::to_log_odds(s.probability(0))),
        }
    }

    /// The latest observation time in the slot, so a scheduled change is weighed when it starts.
    pub fn latest_observation(claims: &[&Claim]) -> Option<Timestamp> {
        let index = by_id(claims);
        claims
            .iter()
            .copied()
            .filter(|c| counts(c, |id| index.get(id).copied()))
            .flat_map(|c| c.provenance.iter().map(move |p| observed_at(p, c)))
            .max()
    }
}
