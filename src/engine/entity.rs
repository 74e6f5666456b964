//! Entities in the engine: names resolved before the slot is chosen, and
//! recorded in their type's registry slot once the write is kept. Merges live in
//! `entity_merge.rs`, `same_entity` settlements in `same_entity.rs`.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use foldhash::HashMap;
use serde::{Deserialize, Serialize};

use super::write::Planned;
use super::Engine;
use crate::config::Settings;
use crate::entities::{self, Entity, NameIndex, NearMatch, Resolution, ENTITY_REGISTRY};
use crate::error::{Error, ErrorCode, Result};
use crate::model::{Candidate, Conflict, ConflictKind, LogCause, Slot, SlotRef, NAME_PREDICATE};
use crate::txn::SlotTxn;


/// The name index of each registry as last read, so resolving a known name
/// is one look-up instead of a pass over every entity. An entry answers for
/// the shared snapshot it was built from (`Store::read_slot` of the in-memory
/// store); a later snapshot that only added names (a registry commit of new
/// names) brings it up to date (`NameIndex::follow`); any other snapshot gets
/// an index of its own.
#[derive(Default)]
pub(crate) struct NameCache(RefCell<HashMap<String, CachedIndex>>);

/// A registry snapshot (kept until the next one replaces it, to compare
/// against) and the index of it.
type CachedIndex = (Rc<Slot>, Rc<NameIndex>);

impl NameCache {
    fn of(&self, entity_type: &str, registry: &Rc<Slot>, settings: &Settings) -> Rc<NameIndex> {
        let known = &settings.known_aliases;
        let mut cache = self.0.borrow_mut();
        if let Some((slot, index)) = cache.get_mut(entity_type) {
            if Rc::ptr_eq(slot, registry) {
                return index.clone();
            }
            let mut next = Rc::unwrap_or_clone(std::mem::take(index));
            if next.follow(&slot.entities, &registry.entities, entity_type, known) {
                *slot = registry.clone();
                *index = Rc::new(next);
                return index.clone();
            }
        }
        let index = Rc::new(NameIndex::new(&registry.entities, entity_type, known));
        cache.insert(entity_type.to_string(), (registry.clone(), index.clone()));
        index
    }

    /// The index of `base` taken out of the cache, when the cache holds one
    /// for these very entities (a registry transaction of the in-memory
    /// store starts from the snapshot last read): a batch of new names then
    /// indexes nothing afresh. `put` gives it back after the commit.
    fn take(&self, entity_type: &str, base: &Slot) -> Option<NameIndex> {
        let mut cache = self.0.borrow_mut();
        let (slot, _) = cache.get(entity_type)?;
        let same = crate::model::Chunked::same(&slot.entities, &base.entities);
        same.then(|| cache.remove(entity_type)).flatten().map(|(_, index)| Rc::unwrap_or_clone(index))
    }

    /// Caches `index` as the index of the committed registry `slot`.
    fn put(&self, entity_type: &str, slot: Rc<Slot>, index: NameIndex) {
        if index.covers(&slot.entities) {
            self.0.borrow_mut().insert(entity_type.to_string(), (slot, Rc::new(index)));
        }
    }
}

/// An entity with, when it was looked up by name, how that name resolved.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct EntityView {
    pub entity: Entity,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolution: Option<Resolution>,
}

pub(crate) fn registry(entity_type: &str) -> SlotRef {
    SlotRef::new(ENTITY_REGISTRY, entity_type)
}

/// The question a `same_entity` conflict asks, from its two name claims and
/// the evidence its record keeps. Records written before the evidence-only
/// form hold the whole question (it starts with the quoted name): kept as is.
pub(crate) fn same_entity_question(earlier: &crate::model::Claim, newer: &crate::model::Claim, evidence: &str) -> String {
    if evidence.starts_with('"') {
        return evidence.to_string();
    }
    let entity_type = type_of(&newer.subject).unwrap_or("entity");
    format!(
        "{:?} looks like {:?} ({evidence}) but is not the same name: is it the same {entity_type}? \
         Settle \"same\" to merge {} into {}, or \"different\" to keep them apart.",
        newer.object, earlier.object, newer.subject, earlier.subject
    )
}

pub(crate) fn type_of(id: &str) -> Option<&str> {
    id.split_once(':').map(|(t, _)| t)
}

pub(crate) fn unknown(id: &str) -> Error {
    Error::new(ErrorCode::InvalidInput, format!("no entity {id:?}")).with_field("entity")
}

/// A name as a claim of the registry slot (subject = the entity id), so a
/// `same_entity` conflict can name both sides like any other conflict.
fn name_claim(txn: &mut SlotTxn, settings: &Settings, entity_id: &str, name: &str) -> Result<String> {
    if let Some(c) = txn.slot.claim_of(entity_id, name) {
        return Ok(c.id.clone());
    }
    let candidate = Candidate { subject: Some(entity_id.into()), predicate: NAME_PREDICATE.into(), object: name.into(), ..Default::default() };
    let mut claim = super::prepare::prepare(&candidate, settings, txn.now, txn.new_id("cl"))?.draft;
    crate::belief::set_belief(&mut claim, crate::belief::logit(crate::model::DEFAULT_SOURCE_TRUST));
    let id = claim.id.clone();
    txn.add_claim(claim);
    Ok(id)
}

/// Opens one `same_entity` conflict: earlier = the existing entity's name, newer = the new name.
/// The record keeps only the evidence ("1 letter(s) apart, closeness 0.83");
/// the question is rendered from the two name claims on read
/// (`same_entity_question`), so a registry with hundreds of open questions
/// stays small (every commit and every reload carries it).
fn ask_same_entity(txn: &mut SlotTxn, settings: &Settings, near: &NearMatch, new_id: &str, name: &str) -> Result<Option<String>> {
    let earlier = name_claim(txn, settings, &near.entity_id, &near.name)?;
    let newer = name_claim(txn, settings, new_id, name)?;
    let evidence = format!("{}, closeness {:.2}", near.why, near.score);
    let question = match (txn.claim(&earlier), txn.claim(&newer)) {
        (Some(e), Some(n)) => same_entity_question(e, n, &evidence),
        _ => evidence.clone(),
    };
    Ok(txn.open_conflict_noted(ConflictKind::SameEntity, &earlier, &newer, evidence, question))
}

/// The names a registry transaction recorded so far (new entities and new
/// spellings), so each later name of a batch is resolved again only when one
/// of them may change its planned answer (`entities::may_change`): resolving
/// a new name reads every name of a near length.
#[derive(Default)]
struct Recorded {
    forms: Vec<Rc<entities::NameForm>>,
    ids: Vec<String>,
}

impl Recorded {
    /// The plan of `p` (made against the registry this transaction started
    /// from) is still the answer.
    fn leaves(&self, p: &PendingName, known: &entities::KnownAliases) -> bool {
        let wanted = entities::name_form(&p.name, &p.entity_type);
        !self.ids.contains(&p.resolution.entity_id) && !self.forms.iter().any(|f| entities::may_change(f, &wanted, &p.entity_type, known))
    }
}

/// The ids of the new entities a batch's names planned so far, by type
/// (empty for one write at a time): a later name of the batch that is one of
/// them names that entity, as it would once the earlier write had recorded it.
#[derive(Default)]
pub(crate) struct BatchIds {
    on: bool,
    ids: Vec<(String, String)>,
}

impl BatchIds {
    pub fn batch() -> Self {
        BatchIds { on: true, ids: Vec::new() }
    }

    fn plan(&mut self, entity_type: &str, id: &str) {
        if self.on {
            self.ids.push((entity_type.to_string(), id.to_string()));
        }
    }

    fn planned(&self, entity_type: &str, name: &str) -> bool {
        self.ids.iter().any(|(t, id)| t == entity_type && id == name)
    }
}

/// Where a name resolved to a known entity: its type, id, the registry version
/// and the entity's place in that version.
#[derive(Debug, Clone)]
pub(crate) struct ResolvedAt {
    pub entity_type: String,
    pub entity_id: String,
    pub registry_version: u64,
    pub hit: usize,
}

/// A name a write resolved before its slot was chosen. The registry is not
/// touched until the write is stored (`record_names`): a refused, rejected,
/// skipped or lost write leaves no entity behind.
#[derive(Debug, Clone)]
pub(crate) struct PendingName {
    pub name: String,
    pub entity_type: String,
    /// As planned: for a new name, `entity_id` is the id the entity will get.
    pub resolution: Resolution,
    /// Entities whose slots may hold this name's earlier writes: those merged
    /// into the resolved one, and those it was merged into by a merge since undone.
    pub merged_from: Vec<String>,
    /// The registry version `resolution` was computed against.
    pub registry_version: u64,
    /// The index of the entity it resolved to in that registry version.
    pub hit: Option<usize>,
    /// The name was already a spelling of the entity it resolved to: recording
    /// it changes nothing while the registry stays at `registry_version`.
    pub known_spelling: bool,
}

/// The entities a write naming entity `i` may have landed on before (see `PendingName::merged_from`).
fn related_entities(registry: &crate::model::Slot, index: &NameIndex, i: usize) -> Vec<String> {
    let id = &registry.entities[i].id;
    let merged_in = index.merged_into(i).map(|j| registry.entities[j].id.clone());
    let undone = registry.merges.iter().filter(|m| m.undone && &m.from == id).map(|m| m.into.clone());
    let mut out: Vec<String> = merged_in.chain(undone).collect();
    crate::sort::sort(&mut out);
    out.dedup();
    out
}

fn checked_type(entity_type: &str) -> Result<String> {
    let entity_type = entity_type.trim().to_lowercase();
    if entity_type.is_empty() || entity_type.contains(':') {
        return Err(Error::invalid("subjectType", "must be a non-empty type name without ':'"));
    }
    Ok(entity_type)
}

impl Engine {
    /// Resolves `name` to an entity of `entity_type` without writing; for a
    /// name no entity has, `entity_id` is empty.
    pub async fn resolve_name(&self, name: &str, entity_type: &str) -> Result<Resolution> {
        let entity_type = checked_type(entity_type)?;
        let slot = self.store.read_slot(&registry(&entity_type)).await?;
        Ok(self.names.of(&entity_type, &slot, &self.settings).resolve(&slot.entities, name, &entity_type, &self.settings.known_aliases).1)
    }

    /// Plans a name for a write: the entity it resolves to, or the id a new
    /// entity will get. Ids are derived from the name's key, so a write whose
    /// registry commit was lost (a crash in between) is found again by the
    /// next write of the same name.
    async fn plan_name(&self, name: &str, entity_type: &str, batch: &mut BatchIds) -> Result<PendingName> {
        let entity_type = checked_type(entity_type)?;
        let slot = self.store.read_slot(&registry(&entity_type)).await?;
        let by_id = entities::by_id(&slot.entities, name, &entity_type);
        let named_by_id = by_id.is_some();
        let index = self.names.of(&entity_type, &slot, &self.settings);
        // The id of a new entity an earlier name of the batch will create: that
        // entity, as one write at a time would find it (recorded by `record_in`).
        let batch_id = by_id.is_none() && batch.planned(&entity_type, name);
        let (hit, mut resolution) = match by_id {
            Some((i, r)) => (Some(i), r),
            None if batch_id => (None, entities::by_new_id(name)),
            None => index.resolve(&slot.entities, name, &entity_type, &self.settings.known_aliases),
        };
        let merged_from = match hit {
            Some(i) => related_entities(&slot, &index, i),
            None if batch_id => Vec::new(),
            None => {
                resolution.entity_id = entities::new_id(|id| index.id_taken(id), name, &entity_type);
                batch.plan(&entity_type, &resolution.entity_id);
                Vec::new()
            }
        };
        let known_spelling = named_by_id || hit.is_some_and(|i| slot.entities[i].aliases.iter().any(|a| a == name));
        Ok(PendingName { name: name.to_string(), entity_type, resolution, merged_from, registry_version: slot.version, hit, known_spelling })
    }

    /// Records the names of a stored write in their registries: a new entity
    /// (with a `same_entity` conflict per near match) or a new spelling of a
    /// known one. Resolution runs again against the registry as committed, so
    /// concurrent writers of one name end up with one entity.
    pub(crate) async fn record_names(&self, pending: &[PendingName]) -> Result<Vec<Resolution>> {
        let mut out = self.record_names_of(&[pending]).await?;
        Ok(out.pop().unwrap_or_default())
    }

    /// `record_names` for the writes of a batch, in order: one registry
    /// commit per entity type for all their new names and spellings.
    pub(crate) async fn record_names_of(&self, writes: &[&[PendingName]]) -> Result<Vec<Vec<Resolution>>> {
        let mut out: Vec<Vec<Option<Resolution>>> = writes.iter().map(|w| vec![None; w.len()]).collect();
        let mut to_commit: BTreeMap<&str, Vec<(usize, usize)>> = BTreeMap::new();
        for (w, names) in writes.iter().enumerate() {
            for (n, p) in names.iter().enumerate() {
                match self.already_known(p).await? {
                    Some(r) => out[w][n] = Some(r),
                    None => to_commit.entry(p.entity_type.as_str()).or_default().push((w, n)),
                }
            }
        }
        for (entity_type, names) in to_commit {
            let cause = |p: &PendingName| LogCause { op: "resolve".into(), object: Some(p.name.clone()), ..Default::default() };
            let ((resolutions, index), committed) = self
                .commit_with_retry(&registry(entity_type), cause(&writes[names[0].0][names[0].1]), |txn| {
                    // One name index per attempt, kept in step with each name
                    // recorded: the cached one when it indexes these entities.
                    let mut index = self.names.take(entity_type, &txn.slot);
                    let mut recorded = Recorded::default();
                    let resolutions = names
                        .iter()
                        .map(|&(w, n)| {
                            let p = &writes[w][n];
                            txn.cause = cause(p);
                            self.record_in(txn, p, &mut index, &mut recorded)
                        })
                        .collect::<Result<Vec<_>>>()?;
                    Ok((resolutions, index))
                })
                .await?;
            if let Some(index) = index {
                self.names.put(entity_type, committed, index);
            }
            for (&(w, n), r) in names.iter().zip(resolutions) {
                out[w][n] = Some(r);
            }
        }
        Ok(out.into_iter().map(|w| w.into_iter().flatten().collect()).collect())
    }

    /// Most names are spellings the registry already knows, and recording
    /// them would change nothing: answered from the shared slot (no copy of
    /// the registry, no commit), reusing the planned resolution when the
    /// registry has not moved since.
    async fn already_known(&self, p: &PendingName) -> Result<Option<Resolution>> {
        let shared = self.store.read_slot(&registry(&p.entity_type)).await?;
        // An entity's id is no spelling to record.
        if let Some((_, r)) = entities::by_id(&shared.entities, &p.name, &p.entity_type) {
            return Ok(Some(r));
        }
        // The registry has not moved since the plan: the plan's answer stands.
        if shared.version == p.registry_version {
            return Ok(p.known_spelling.then(|| p.resolution.clone()));
        }
        let (hit, resolution) = self.names.of(&p.entity_type, &shared, &self.settings).resolve(&shared.entities, &p.name, &p.entity_type, &self.settings.known_aliases);
        Ok(hit.filter(|&i| shared.entities[i].aliases.contains(&p.name)).map(|_| resolution))
    }

    /// One name into its registry's transaction. `index` is the name index of
    /// the transaction's registry (built on first need, then kept in step),
    /// so a batch of new names does not re-index the registry per name.
    fn record_in(&self, txn: &mut SlotTxn, p: &PendingName, index: &mut Option<NameIndex>, recorded: &mut Recorded) -> Result<Resolution> {
        let (name, entity_type, planned_id) = (p.name.as_str(), p.entity_type.as_str(), p.resolution.entity_id.as_str());
        let known = &self.settings.known_aliases;
        // A name that is an entity's id (one an earlier name of this batch created) changes nothing.
        if let Some((_, r)) = entities::by_id(&txn.slot.entities, name, entity_type) {
            return Ok(r);
        }
        // The registry as planned against, and nothing recorded in this
        // transaction since that could change the answer (a batch's names):
        // the plan's resolution stands.
        let (hit, mut r) = if txn.slot.version == p.registry_version && (txn.is_empty() || recorded.leaves(p, known)) {
            (p.hit, p.resolution.clone())
        } else {
            index
                .get_or_insert_with(|| NameIndex::new(&txn.slot.entities, entity_type, known))
                .resolve(&txn.slot.entities, name, entity_type, known)
        };
        match hit {
            Some(i) => {
                if !txn.slot.entities[i].aliases.iter().any(|a| a == name) {
                    recorded.forms.push(entities::name_form(name, txn.slot.entities[i].name_type(entity_type)));
                    txn.entity_mut(i).aliases.push(name.to_string());
                    if let Some(index) = index.as_mut() {
                        index.alias_added(&txn.slot.entities, i, entity_type, known);
                    }
                    txn.log_change("entity_alias", &[], None, None, format!("{name:?} is {} ({})", r.entity_id, r.rule));
                }
            }
            None => {
                // The id the write already used; taken only if another name with
                // the same slug won a race. No index means the plan stands (the
                // registry as planned, nothing recorded since), and the plan
                // chose a free id.
                let id = match index.as_ref() {
                    Some(ix) if ix.id_taken(planned_id) => entities::new_id(|id| ix.id_taken(id), name, entity_type),
                    _ => planned_id.to_string(),
                };
                txn.slot.entities.push(Entity { id: id.clone(), entity_type: entity_type.to_string(), name: name.into(), aliases: vec![name.into()], merged_into: None }.into());
                txn.mark_entity(&id);
                recorded.forms.push(entities::name_form(name, entity_type));
                recorded.ids.push(id.clone());
                if let Some(index) = index.as_mut() {
                    index.entity_added(&txn.slot.entities, entity_type, known);
                }
                txn.log_change("entity_new", &[], None, None, format!("new entity {id} for {name:?} ({})", r.rule));
                for near in &r.near_matches {
                    if let Some(cf) = ask_same_entity(txn, &self.settings, near, &id, name)? {
                        r.conflict_ids.push(cf);
                    }
                }
                r.entity_id = id;
            }
        }
        Ok(r)
    }

    /// The `same_entity` conflicts some resolutions opened, for the write's outcome.
    pub(crate) async fn conflicts_of(&self, resolutions: &[Resolution]) -> Result<Vec<Conflict>> {
        let mut out = Vec::new();
        for r in resolutions.iter().filter(|r| !r.conflict_ids.is_empty()) {
            let Some(t) = type_of(&r.entity_id) else { continue };
            let slot_ref = registry(t);
            let slot = self.store.read_slot(&slot_ref).await?;
            out.extend(r.conflict_ids.iter().filter_map(|id| slot.conflict(id)).filter_map(|c| super::read::conflict_view(&slot, &slot_ref, c)));
        }
        Ok(out)
    }

    /// Points a planned write at the entities its subject and object name (nothing is written yet).
    pub(crate) async fn resolve_planned(&self, planned: &mut Planned, subject_type: Option<&str>, batch: &mut BatchIds) -> Result<Vec<PendingName>> {
        let mut out = Vec::new();
        if let Some(t) = subject_type {
            let p = self.plan_name(&planned.prepared.draft.subject, t, batch).await?;
            planned.prepared.draft.subject = p.resolution.entity_id.clone();
            planned.prepared.slot = SlotRef::new(&p.resolution.entity_id, &planned.prepared.spec.name);
            planned.merged_slots = p.merged_from.iter().map(|id| SlotRef::new(id, &planned.prepared.spec.name)).collect();
            planned.subject_entity = p.hit.map(|hit| ResolvedAt { entity_type: p.entity_type.clone(), entity_id: p.resolution.entity_id.clone(), registry_version: p.registry_version, hit });
            out.push(p);
        }
        if let Some(t) = planned.prepared.spec.object_type.clone() {
            let p = self.plan_name(&planned.prepared.draft.object, &t, batch).await?;
            planned.prepared.draft.object_entity = Some(p.resolution.entity_id.clone());
            out.push(p);
        }
        Ok(out)
    }

    /// True when the known entity a write's subject resolved to has been merged
    /// into another since (its slots moved: the write must resolve its name
    /// again, or it would land in a slot nobody reads). Free while the
    /// registry stays at the version the name was resolved against.
    pub(crate) async fn merged_since(&self, planned: &Planned) -> Result<bool> {
        let Some(at) = &planned.subject_entity else { return Ok(false) };
        let slot = self.store.read_slot(&registry(&at.entity_type)).await?;
        if slot.version == at.registry_version {
            return Ok(false);
        }
        let entity = slot.entities.get(at.hit).filter(|e| e.id == at.entity_id).or_else(|| slot.entities.iter().find(|e| e.id == at.entity_id));
        Ok(entity.is_some_and(|e| e.merged_into.is_some()))
    }

    /// Looks an entity up by id (`org:acme`) or by name (with `entity_type`).
    pub async fn entity(&self, id_or_name: &str, entity_type: Option<&str>) -> Result<Option<EntityView>> {
        let Some(t) = entity_type.or_else(|| type_of(id_or_name)) else {
            return Err(Error::invalid("type", "is required to look an entity up by name"));
        };
        let slot = self.store.read_slot(&registry(t)).await?;
        if let Some(e) = slot.entities.iter().find(|e| e.id == id_or_name) {
            return Ok(Some(EntityView { entity: Entity::clone(e), resolution: None }));
        }
        let (hit, r) = self.names.of(t, &slot, &self.settings).resolve(&slot.entities, id_or_name, t, &self.settings.known_aliases);
        Ok(hit.map(|i| EntityView { entity: Entity::clone(&slot.entities[i]), resolution: Some(r) }))
    }
}
