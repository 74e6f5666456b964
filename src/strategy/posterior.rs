//! The slot's forward filter (SPEC §4) read onto its claims: claims of the
//! same value share one hypothesis, and every claim a person has not retired
//! contributes its observations, history included.

use foldhash::{HashMap, HashMapExt};

use crate::normalize::tokens_of;
use super::values::Values;
use crate::belief::{self, BeliefParams, FilterState, Observation};
use crate::calibrate::record::InForce;
use crate::model::{Claim, Status};
use crate::time::Timestamp;

/// When an observation was made: its `observedAt`, else the claim's start.
/// This places the report on the timeline (a claim's start, the archive's order).
pub(crate) fn observed_at(p: &crate::model::Provenance, claim: &Claim) -> Timestamp {
    p.observed().unwrap_or_else(|| claim.effective_from())
}

/// When an observation is evidence (SPEC §4): the time the report was made,
/// moved into its claim's validity interval — `max(validFrom, min(made,
/// validTo))`. A statement made today that a value has held since 2024 is
/// evidence that it holds today; a scheduled change speaks from its start;
/// a report of a period that has ended speaks for that period's end.
/// For a plain sighting (no stated `validFrom`) `validTo` is the end its
/// reports stated, not the one a successor cut: a sighting of a superseded
/// value made after the supersession is evidence of its own time (read at
/// the cut end, such sightings made calibration see twice the changes).
/// A report placed on the timeline by its `validFrom` stays within the
/// period memory gave it (older history ends where its successor begins).
/// `begins` gives the claim's start (it reads every observation of the claim:
/// callers work it out once per claim, not once per observation).
pub(crate) fn evidence_within(p: &crate::model::Provenance, claim: &Claim, begins: impl FnOnce() -> Timestamp) -> Timestamp {
    let made = p.reported().or_else(|| p.observed()).unwrap_or_else(begins);
    // Whether it stated a start, not when: no time is parsed here (a hot path).
    let end = if p.stated_from.is_some() { claim.valid_to } else { claim.stated_end() };
    let made = end.map_or(made, |end| made.min(end));
    claim.valid_from.map_or(made, |start| made.max(start))
}

/// An observation as evidence about an earlier time `at`: a report that
/// stated its value held from before `at` says it held then too, so it
/// speaks for `at` (history is weighed on what is known of it, not only on
/// what had been said by then); a report of a period that begins after
/// `at`, or one that stated no start, says nothing of `at`.
fn as_of(o: &mut Observation, stated_from: Option<Timestamp>, at: Timestamp) {
    if stated_from.is_some_and(|from| from <= at) && at < o.at {
        o.at = at;
    }
}

/// The observations of `claim`, speaking for value `value`.
fn observations_of<'a>(claim: &'a Claim, value: usize, calibration: Option<&'a InForce>) -> impl Iterator<Item = Observation> + 'a {
    let begins = claim.effective_from();
    claim.provenance.iter().map(move |p| observation(p, claim, begins, value, calibration))
}

/// One observation of `claim` (which begins at `begins`), speaking for value `value`.
fn observation(p: &crate::model::Provenance, claim: &Claim, begins: Timestamp, value: usize, calibration: Option<&InForce>) -> Observation {
    Observation {
        value,
        refined_by: Vec::new(),
        refines: Vec::new(),
        source: p.source_id.clone(),
        at: evidence_within(p, claim, || begins),
        begins,
        quality: belief::calibrated_quality(p, calibration.and_then(|c| c.reliability(&p.source_id))),
        weight: 1.0,
    }
}

/// A claim counts unless a person retired it. A general form a refinement
/// replaced keeps its own observations as its own hypothesis (SPEC §3: they
/// support the more specific form only discounted).
fn counts(claim: &Claim) -> bool {
    claim.status != Status::Retired
}

/// A report agreeing with reports of sources it likely copies counts with
/// AccuCopy's discount (SPEC §4: dependence between sources): in full against
/// those of earlier instants, averaged over the orders of its own instant's
/// (`dependence::discounts`: no name or write order picks the one that counts in full).
fn copies_discounted(mut observations: Vec<Observation>, calibration: Option<&InForce>) -> Vec<Observation> {
    let Some(c) = calibration.filter(|c| c.has_dependence()) else { return observations };
    let reports: Vec<(Timestamp, usize, &str)> = observations.iter().map(|o| (o.at, o.value, o.source.as_str())).collect();
    let weights = crate::calibrate::dependence::discounts(&reports, |a, b| c.dependence(a, b));
    for (o, w) in observations.iter_mut().zip(weights) {
        o.weight *= w;
    }
    observations
}

/// A source's repeat weight `ρ` under the calibration in force (0 uncalibrated).
fn repeat_weight(calibration: Option<&InForce>) -> impl Fn(&str) -> f64 + '_ {
    move |source| calibration.map_or(0.0, |c| c.repeat_weight(source))
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
        let mut starts = Vec::new();
        let mut entries: Vec<(&Claim, Vec<Observation>)> = Vec::new();
        for claim in claims.iter().copied().filter(|c| counts(c)) {
            if claim.kind.is_entry() {
                entries.push((claim, observations_of(claim, 0, calibration).collect()));
                continue;
            }
            let value = values.of(claim.object_entity.as_deref(), tokens_of(&claim.object));
            value_of.insert(claim.id.clone(), value);
            observations.extend(observations_of(claim, value, calibration));
            starts.extend(claim.provenance.iter().map(|p| p.stated()));
        }
        let refined_by = values.refined_by();
        let refines = crate::calibrate::forms::inverse(&refined_by);
        // The time asked is read from every observation, entries' included.
        let at = if entries.is_empty() {
            at(&observations)
        } else {
            let all: Vec<Observation> = observations.iter().chain(entries.iter().flat_map(|(_, o)| o.iter())).cloned().collect();
            at(&all)
        };
        for (o, from) in observations.iter_mut().zip(starts) {
            o.refined_by.clone_from(&refined_by[o.value]);
            o.refines.clone_from(&refines[o.value]);
            as_of(o, from, at);
        }
        let observations = copies_discounted(belief::counted(observations, time_varying, at, repeat_weight(calibration)), calibration);
        let state = belief::posterior_at(&observations, params, half_life, at);
        let alone = entries
            .into_iter()
            .map(|(c, obs)| (c.id.clone(), belief::posterior_at(&belief::counted(obs, time_varying, at, repeat_weight(calibration)), params, half_life, at)))
            .collect();
        SlotPosterior { value_of, state, alone }
    }

    /// A claim standing alone on its own observations (multi-valued slots,
    /// entries): `of_rivals` of the one claim, as value 0, without its maps
    /// (a multi-valued slot runs this once per live claim on every write).
    pub fn of_one(claim: &Claim, params: &BeliefParams, half_life: Option<f64>, time_varying: bool, at: Timestamp, calibration: Option<&InForce>) -> f64 {
        let mut observations: Vec<Observation> =
            if counts(claim) { observations_of(claim, 0, calibration).collect() } else { Vec::new() };
        for (o, p) in observations.iter_mut().zip(claim.provenance.iter()) {
            as_of(o, p.stated(), at);
        }
        let observations = belief::counted(observations, time_varying, at, repeat_weight(calibration));
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
        claims
            .iter()
            .copied()
            .filter(|c| counts(c))
            .flat_map(|c| {
                let begins = c.effective_from();
                c.provenance.iter().map(move |p| evidence_within(p, c, || begins))
            })
            .max()
    }
}
