//! `calibrate()` (SPEC §4) over the store: reads each reconcile slot once into
//! a compact summary, runs the estimator, and commits the result as a new
//! version of the calibration record — an ordinary slot under a reserved
//! subject, so every store keeps it like any other.

use std::collections::{BTreeMap, HashMap};

use super::record::{replace_record, RecordSlot};
use super::Engine;
use crate::calibrate::dependence::PairFit;
use crate::calibrate::estimate::{Estimates, EstimatorInput, Start};
use crate::calibrate::search::Search;
use crate::calibrate::smoother::{SlotForms, SlotObservation, SlotSummary};
use crate::calibrate::{CalibrateOptions, Calibration, DomainEstimate, FormsEstimate, PredicateEstimate, SourceDependence, SourceEstimate};
use crate::error::{Error, ErrorCode, Result};
use crate::model::{is_reserved_subject, Claim, LogCause, Provenance, Slot, SlotRef, Status, CALIBRATION_PREDICATE, CALIBRATION_SUBJECT};
use crate::normalize::tokens_of;
use crate::strategy::Values;
use crate::time::Timestamp;

const CALIBRATION_SOURCE: &str = "credence.calibrate";
const DEFAULT_MIN_OBSERVATIONS: u32 = 20;
/// Slots the estimator smooths between two chances of a turn for the host.
const SLOTS_PER_STEP: usize = 32;

fn record_ref() -> SlotRef {
    SlotRef::new(CALIBRATION_SUBJECT, CALIBRATION_PREDICATE)
}

/// The latest record in the calibration slot.
fn latest_record(slot: &Slot) -> Result<Option<Calibration>> {
    let Some(claim) = slot.claims.iter().rev().find(|c| c.status == Status::Active) else { return Ok(None) };
    serde_json::from_str(&claim.object)
        .map(Some)
        .map_err(|e| Error::new(ErrorCode::MalformedStoreData, format!("calibration record {} is unreadable: {e}", claim.id)))
}

/// Slots read into summaries, with the names behind the indices.
#[derive(Default)]
struct Collected {
    slots: Vec<SlotSummary>,
    sources: Vec<String>,
    source_index: HashMap<String, usize>,
    predicates: Vec<(String, f64)>,
    /// Per slot, its predicate's name (for the domains).
    slot_predicates: Vec<String>,
    /// Predicates with a slot holding a value in more and less specific forms (`SlotForms::group`).
    form_predicates: Vec<String>,
}

impl Collected {
    fn source(&mut self, id: &str) -> usize {
        if let Some(i) = self.source_index.get(id) {
            return *i;
        }
        self.sources.push(id.to_string());
        self.source_index.insert(id.to_string(), self.sources.len() - 1);
        self.sources.len() - 1
    }

    /// Renumbers the sources by name. Their numbers order a slot's reports of
    /// one day and value, which decides whose agreeing report a likely copy
    /// is discounted against: numbered as first met, that order (and with it
    /// the calibration) followed the order the reports were written in.
    fn number_sources_by_name(&mut self) {
        let mut order: Vec<usize> = (0..self.sources.len()).collect();
        order.sort_by(|a, b| self.sources[*a].cmp(&self.sources[*b]));
        let mut renumbered = vec![0; order.len()];
        for (new, old) in order.iter().enumerate() {
            renumbered[*old] = new;
        }
        self.sources = order.iter().map(|i| std::mem::take(&mut self.sources[*i])).collect();
        self.source_index = self.sources.iter().enumerate().map(|(i, s)| (s.clone(), i)).collect();
        for slot in &mut self.slots {
            for o in &mut slot.observations {
                o.source = renumbered[o.source];
            }
            in_filter_order(&mut slot.observations);
        }
    }

    fn form_group(&mut self, name: &str) -> usize {
        index_or_push(&mut self.form_predicates, |p| p == name, || name.to_string())
    }

    fn predicate(&mut self, name: &str, configured: f64) -> usize {
        index_or_push(&mut self.predicates, |(p, _)| p == name, || (name.to_string(), configured))
    }
}

/// The index of the first item `matches`, else of `make()` pushed at the end.
fn index_or_push<T>(items: &mut Vec<T>, matches: impl Fn(&T) -> bool, make: impl FnOnce() -> T) -> usize {
    items.iter().position(matches).unwrap_or_else(|| {
        items.push(make());
        items.len() - 1
    })
}

/// When the observation is evidence (the filter's time for it), in days;
/// `begins` is the claim's start.
fn observed_day(p: &Provenance, claim: &Claim, begins: Timestamp) -> f64 {
    crate::strategy::evidence_within(p, claim, || begins).millis() as f64 / 86_400_000.0
}

/// By evidence time, then value, then source.
fn in_filter_order(observations: &mut Vec<SlotObservation>) {
    crate::sort::sort_by(observations, |a, b| a.day.total_cmp(&b.day).then(a.value.cmp(&b.value)).then(a.source.cmp(&b.source)));
}

/// One slot's observations, values grouped as the filter groups them
/// (`strategy::Values`: the same entity when both name one, else the same
/// normalized text), with its forms.
fn summarize(slot: &Slot, collected: &mut Collected, name: &str, predicate: Option<usize>, fixed_half_life: Option<f64>) -> SlotSummary {
    let mut values = Values::default();
    let mut observations = Vec::new();
    for claim in slot.claims.iter().filter(|c| c.status != Status::Retired && slot.tombstone(&c.id).is_none()) {
        let value = values.of(claim.object_entity.as_deref(), tokens_of(&claim.object));
        let begins = claim.effective_from();
        for p in &claim.provenance {
            let source = collected.source(&p.source_id);
            let made = p.reported().or_else(|| p.observed()).map_or(i64::MIN, |t| t.millis());
            observations.push((made, SlotObservation { value, source, day: observed_day(p, claim, begins), stated_trust: p.trust(), extractor: p.extractor() }));
        }
    }
    // The same report delivered twice (same source, value and time it was
    // made) is one observation: counted twice it would look like a second
    // witness, and a wrong one like a change of the world. Compared on the
    // time it was made, not its evidence time (reports of one source clamped
    // into the same claim's period are still several reports).
    crate::sort::sort_by(&mut observations, |(ma, a), (mb, b)| (a.value, a.source, *ma).cmp(&(b.value, b.source, *mb)));
    observations.dedup_by(|(mb, b), (ma, a)| ma == mb && a.value == b.value && a.source == b.source);
    let mut observations: Vec<SlotObservation> = observations.into_iter().map(|(_, o)| o).collect();
    in_filter_order(&mut observations);
    let forms = SlotForms::of(values.refined_by(), || collected.form_group(name));
    SlotSummary { predicate, fixed_half_life, values: values.count(), observations, prior: None, forms }
}

impl Engine {
    /// Loads the calibration record once, before the first belief computed.
    pub(crate) async fn ensure_calibration(&self) -> Result<()> {
        if self.settings.calibration.is_loaded() {
            return Ok(());
        }
        let record = self.stored_calibration().await?;
        self.schedule.behind(record.as_ref());
        self.settings.calibration.set(record);
        Ok(())
    }

    /// The latest calibration record in the store (another process's, perhaps).
    pub(crate) async fn stored_calibration(&self) -> Result<Option<Calibration>> {
        let slot = self.store.load_slot(&record_ref()).await?;
        latest_record(&slot)
    }

    /// The calibration in force, if any.
    pub async fn calibration(&self) -> Result<Option<Calibration>> {
        self.ensure_calibration().await?;
        Ok(self.settings.calibration.get().map(|c| c.record.clone()))
    }

    async fn collect(&self, options: &CalibrateOptions, turns: bool) -> Result<Collected> {
        let wanted: Option<Vec<String>> = options.predicates.as_ref().map(|ps| ps.iter().map(|p| self.spec_of(p).name).collect());
        let mut collected = Collected::default();
        for slot_ref in self.store.list_slots(None).await? {
            if is_reserved_subject(&slot_ref.subject) {
                continue;
            }
            let spec = self.spec_of(&slot_ref.predicate);
            if !self.reconciles_one_value(&spec) {
                continue;
            }
            let configured = spec.half_life_days.or(self.settings.belief.half_life_days).filter(|_| spec.time_varying);
            let estimated = wanted.as_ref().is_none_or(|w| w.contains(&spec.name));
            let predicate = match configured {
                Some(h) if estimated => Some(collected.predicate(&spec.name, h)),
                _ => None,
            };
            self.give_turn(turns).await;
            let slot = self.store.load_slot(&slot_ref).await?;
            let summary = summarize(&slot, &mut collected, &spec.name, predicate, configured);
            if !summary.observations.is_empty() {
                collected.slots.push(summary);
                collected.slot_predicates.push(spec.name.clone());
            }
        }
        collected.number_sources_by_name();
        Ok(collected)
    }

    /// Estimates half-lives and reliabilities from the store's history and
    /// commits them as the next calibration version, which later reads and
    /// writes use. Deterministic for a given store and clock.
    pub async fn calibrate(&self, options: &CalibrateOptions) -> Result<Calibration> {
        // An empty name matches nothing: a slip, not a filter to run.
        for (field, names) in [("predicates", &options.predicates), ("sources", &options.sources)] {
            if let Some(i) = names.iter().flatten().position(|n| n.trim().is_empty()) {
                return Err(Error::invalid(&format!("{field}[{i}]"), "must be a non-empty name"));
            }
        }
        self.calibrate_giving_turns(options, true).await
    }

    /// `calibrate`, giving the host's event loop turns (`Pause`) between
    /// slots when `turns` (an inline calibration runs inside a write and
    /// gives none: its write waits for it anyway).
    pub(crate) async fn calibrate_giving_turns(&self, options: &CalibrateOptions, turns: bool) -> Result<Calibration> {
        let min_observations = options.min_observations.unwrap_or(DEFAULT_MIN_OBSERVATIONS);
        let mut collected = self.collect(options, turns).await?;
        let domains = closed_domains(&mut collected, self.settings.belief.prior, min_observations);
        let input = EstimatorInput {
            slots: std::mem::take(&mut collected.slots),
            configured_half_lives: collected.predicates.iter().map(|(_, h)| *h).collect(),
            sources: collected.sources.len(),
            prior: self.settings.belief.prior,
            min_observations: f64::from(min_observations),
            form_groups: collected.form_predicates.len(),
            refined_support: crate::belief::REFINED_SUPPORT,
        };
        // The store's latest record, not the one in force here: the same
        // store gives the same calibration in every process.
        let start = self.stored_calibration().await?.map(|previous| warm_start(&collected, &previous));
        let mut em = Search::new(&input, start.as_ref());
        while !em.is_done() {
            em.step(SLOTS_PER_STEP);
            self.give_turn(turns).await;
        }
        let estimates = em.finish();
        let (predicates, sources) = named(&collected, &estimates, options, min_observations);
        let dependencies = dependencies_named(&collected, &estimates);
        let forms = forms_named(&collected, &estimates, min_observations);
        let now = self.now()?;
        let cause = LogCause { op: "calibrate".into(), write_id: None, object: None, source_id: None, strategy: None, by: None };
        let (record, _) = self
            .commit_with_retry(&record_ref(), cause, |txn| {
                // A concurrent calibration that committed first is the base: this one becomes the next version.
                let previous = latest_record(&txn.slot)?;
                let mut record = carried_over(previous.as_ref(), predicates.clone(), sources.clone(), now, min_observations);
                record.dependencies = dependencies.clone();
                record.domains = domains.clone();
                record.forms = forms.clone();
                store_record(txn, &record)?;
                Ok(record)
            })
            .await?;
        self.settings.calibration.set(Some(record.clone()));
        self.schedule.behind(Some(&record));
        self.recalibrate_slots(record.version, turns).await?;
        Ok(record)
    }
}

/// An earlier calibration's estimates, by this calibration's indices.
fn warm_start(collected: &Collected, record: &Calibration) -> Start {
    let half_lives: HashMap<&str, f64> = record.predicates.iter().map(|p| (p.predicate.as_str(), p.half_life_days)).collect();
    let sources: HashMap<&str, &SourceEstimate> = record.sources.iter().map(|s| (s.source_id.as_str(), s)).collect();
    Start {
        half_lives: collected.predicates.iter().map(|(name, _)| half_lives.get(name.as_str()).copied()).collect(),
        reliability: collected.sources.iter().map(|id| sources.get(id.as_str()).map(|s| s.reliability)).collect(),
        rho: collected.sources.iter().map(|id| sources.get(id.as_str()).map(|s| s.repeat_weight)).collect(),
        pairs: record
            .dependencies
            .iter()
            .filter_map(|d| {
                let (a, b) = (*collected.source_index.get(&d.sources[0])?, *collected.source_index.get(&d.sources[1])?);
                Some(PairFit { a: a.min(b), b: a.max(b), probability: d.probability, shared: d.shared, same_false: d.agreed_false })
            })
            .collect(),
    }
}

/// The estimates under their names, restricted to the sources asked for.
fn named(collected: &Collected, estimates: &Estimates, options: &CalibrateOptions, min: u32) -> (Vec<PredicateEstimate>, Vec<SourceEstimate>) {
    let enough = |n: usize| n >= min as usize;
    let predicates = collected
        .predicates
        .iter()
        .zip(&estimates.predicates)
        .map(|((name, configured), fit)| PredicateEstimate {
            predicate: name.clone(),
            half_life_days: fit.half_life_days,
            configured_half_life_days: *configured,
            changes: fit.expected_changes,
            exposure_days: fit.exposure_days,
            slots: fit.slots,
            observations: fit.observations,
            used: enough(fit.observations),
        })
        .collect();
    let sources = collected
        .sources
        .iter()
        .zip(&estimates.sources)
        .filter(|(id, _)| options.sources.as_ref().is_none_or(|s| s.contains(id)))
        .map(|(id, fit)| SourceEstimate {
            source_id: id.clone(),
            reliability: fit.reliability,
            stated_trust: fit.stated_trust,
            observations: fit.observations,
            agreed: fit.agreed,
            repeat_weight: fit.repeat_weight,
            used: enough(fit.observations),
        })
        .collect();
    (predicates, sources)
}

/// Fewer slots than this never tell a predicate's domain.
const DOMAIN_SLOTS: usize = 20;

/// Predicates whose slots (at least `DOMAIN_SLOTS`, with at least `min`
/// observations in all) never held more distinct values than the configured
/// prior stands for: a closed domain of that many values (at least 2). Their
/// slots are estimated with its prior too.
fn closed_domains(collected: &mut Collected, prior: f64, min: u32) -> Vec<DomainEstimate> {
    let mut by_predicate: BTreeMap<String, (usize, usize, usize)> = BTreeMap::new();
    for (slot, predicate) in collected.slots.iter().zip(&collected.slot_predicates) {
        let e = by_predicate.entry(predicate.clone()).or_default();
        e.0 = e.0.max(slot.values);
        e.1 += 1;
        e.2 += slot.observations.len();
    }
    let open_domain = (1.0 / prior).floor() as usize;
    let domains: Vec<DomainEstimate> = by_predicate
        .into_iter()
        .filter(|(_, (values, slots, observations))| *slots >= DOMAIN_SLOTS && *observations >= min as usize && *values < open_domain)
        .map(|(predicate, (values, slots, observations))| DomainEstimate { predicate, values: values.max(2), slots, observations })
        .collect();
    for (slot, predicate) in collected.slots.iter_mut().zip(&collected.slot_predicates) {
        if let Some(d) = domains.iter().find(|d| &d.predicate == predicate) {
            slot.prior = Some(1.0 / d.values as f64);
        }
    }
    domains
}

/// The forms' estimates under their predicates' names.
fn forms_named(collected: &Collected, estimates: &Estimates, min: u32) -> Vec<FormsEstimate> {
    collected
        .form_predicates
        .iter()
        .zip(&estimates.forms)
        .map(|(predicate, fit)| {
            let observations = fit.counts.said_exactly_of_specific + fit.counts.said_exactly_of_general;
            FormsEstimate { predicate: predicate.clone(), refined_support: fit.refined_support, embellished: fit.embellished, observations, used: observations >= f64::from(min) }
        })
        .collect()
}

/// The dependent pairs under their sources' names (this run's only: dependence is a property of the whole history).
fn dependencies_named(collected: &Collected, estimates: &Estimates) -> Vec<SourceDependence> {
    estimates
        .dependence
        .iter()
        .map(|p| SourceDependence {
            sources: [collected.sources[p.a].clone(), collected.sources[p.b].clone()],
            probability: p.probability,
            shared: p.shared,
            agreed_false: p.same_false,
        })
        .collect()
}

/// The new record: this run's estimates, plus the previous record's entries
/// this run did not estimate (a calibration of some sources keeps the others').
fn carried_over(previous: Option<&Calibration>, mut predicates: Vec<PredicateEstimate>, mut sources: Vec<SourceEstimate>, now: Timestamp, min: u32) -> Calibration {
    if let Some(prev) = previous {
        predicates.extend(prev.predicates.iter().filter(|p| !predicates.iter().any(|n| n.predicate == p.predicate)).cloned().collect::<Vec<_>>());
        sources.extend(prev.sources.iter().filter(|s| !sources.iter().any(|n| n.source_id == s.source_id)).cloned().collect::<Vec<_>>());
    }
    crate::sort::sort_by(&mut predicates, |a, b| a.predicate.cmp(&b.predicate));
    crate::sort::sort_by(&mut sources, |a, b| a.source_id.cmp(&b.source_id));
    let version = previous.map_or(1, |p| p.version + 1);
    Calibration { version, calibrated_at: now, min_observations: min, predicates, sources, dependencies: Vec::new(), domains: Vec::new(), forms: Vec::new() }
}

fn store_record(txn: &mut crate::txn::SlotTxn, record: &Calibration) -> Result<()> {
    let object = serde_json::to_string(record).map_err(|e| Error::new(ErrorCode::StoreFailed, format!("calibration record: {e}")))?;
    let at = RecordSlot { id_prefix: "cal", subject: CALIBRATION_SUBJECT, predicate: CALIBRATION_PREDICATE, source: CALIBRATION_SOURCE };
    let id = replace_record(txn, &at, object);
    let summary: BTreeMap<&str, f64> = record.predicates.iter().map(|p| (p.predicate.as_str(), p.half_life_days)).collect();
    txn.log_change("calibrate", &[&id], None, None, format!("calibration version {}: half-lives {summary:?}, {} sources", record.version, record.sources.len()));
    Ok(())
}
