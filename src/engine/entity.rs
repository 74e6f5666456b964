//! Entities in the engine. Each entity is a slot of its own (subject
//! `ENTITY_SUBJECT`, its id the predicate): its names, the `same_entity`
//! questions its arrival opened, the entities merged into it. A name is
//! resolved before the write's slot is chosen, by asking the store for the
//! entities that share a key with it (`Store::find_entities`, from the rows
//! each entity commit carries), and recorded once the write is kept. Merges
//! live in `entity_merge.rs`, `same_entity` settlements in `same_entity.rs`,
//! the move out of a registry written before entities had slots in
//! `entity_migrate.rs`.

use std::rc::Rc;

use serde::{Deserialize, Serialize};

use super::name_memo::Remembered;
use super::write::Planned;
use super::Engine;
use crate::config::Settings;
use crate::entities::{self, Entity, Lookup, NearMatch, Resolution};
use crate::error::{Error, ErrorCode, Result};
use crate::model::{Candidate, Conflict, ConflictKind, LogCause, Slot, SlotRef, ENTITY_SUBJECT, NAME_PREDICATE};
use crate::txn::SlotTxn;

/// How many `merged_into` links are followed (store data may hold a cycle).
const MAX_HOPS: usize = 64;

/// An entity with, when it was looked up by name, how that name resolved.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct EntityView {
    pub entity: Entity,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolution: Option<Resolution>,
}

/// The slot of entity `id`.
pub(crate) fn entity_slot(id: &str) -> SlotRef {
    SlotRef::new(ENTITY_SUBJECT, id)
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

/// A name as a claim of an entity slot (subject = the entity id), so a
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

/// Opens one `same_entity` conflict in the new entity's slot: earlier = the
/// existing entity's name, newer = the new name. The record keeps only the
/// evidence ("1 letter(s) apart, closeness 0.83"); the question is rendered
/// from the two name claims on read (`same_entity_question`).
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

/// The ids of the new entities a batch's names planned so far, by type
/// (empty for one write at a time): a later name of the batch that is one of
/// them names that entity, as it would once the earlier write had recorded
/// it, and a later new name does not take the same id.
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

/// Where a name resolved to a known entity: its id and the version of its
/// slot then (a merge of it moves the version).
#[derive(Debug, Clone)]
pub(crate) struct ResolvedAt {
    pub entity_id: String,
    pub version: u64,
    /// The type and name, when taken unread from the names this engine
    /// resolved before (`name_memo`): the write checks the version when it
    /// reads the entity's slot.
    pub remembered: Option<(String, String)>,
}

/// A name a write resolved before its slot was chosen. Nothing is recorded
/// until the write is stored (`record_names`): a refused, rejected, skipped
/// or lost write leaves no entity behind.
#[derive(Debug, Clone)]
pub(crate) struct PendingName {
    pub name: String,
    pub entity_type: String,
    /// As planned: for a new name, `entity_id` is the id the entity will get.
    pub resolution: Resolution,
    /// Entities whose slots may hold this name's earlier writes: those merged
    /// into the resolved one, and those it was merged into by a merge since undone.
    pub merged_from: Vec<String>,
    /// The known entity it resolved to, at its slot's version then.
    pub hit: Option<ResolvedAt>,
    /// The name was already a spelling of the entity it resolved to (or its id): nothing to record.
    pub known_spelling: bool,
}

/// A name looked up: the entity it names (at its root, with its slot), and how.
struct Found {
    hit: Option<(String, Rc<Slot>)>,
    resolution: Resolution,
}

fn checked_type(entity_type: &str) -> Result<String> {
    let entity_type = entity_type.trim().to_lowercase();
    if entity_type.is_empty() || entity_type.contains(':') {
        return Err(Error::invalid("subjectType", "must be a non-empty type name without ':'"));
    }
    Ok(entity_type)
}

/// `name` reads as an id of `entity_type` (`org:acme`).
fn id_like(name: &str, entity_type: &str) -> bool {
    name.strip_prefix(entity_type).and_then(|r| r.strip_prefix(':')).is_some_and(|r| !r.is_empty())
}

/// The entity an entity slot holds.
fn entity_in(slot: &Slot) -> Option<&Entity> {
    slot.entities.get(0).map(|e| &**e)
}

/// A readable id for a new entity, `type:slug`, and the next one to try
/// when it is taken (`-2`, `-3`, …).
fn id_candidates(name: &str, entity_type: &str) -> impl Iterator<Item = String> {
    let base = entities::new_id(|_| false, name, entity_type);
    std::iter::once(base.clone()).chain((2..).map(move |n| format!("{base}-{n}")))
}

impl Engine {
    /// The slot of entity `id`, when it holds one.
    pub(crate) async fn entity_at(&self, id: &str) -> Result<Option<Rc<Slot>>> {
        let slot = self.store.read_slot(&entity_slot(id)).await?;
        Ok(entity_in(&slot).is_some().then_some(slot))
    }

    /// Entity `id` and the entity its `merged_into` links lead to (itself
    /// when not merged), with its slot; None when there is no such entity.
    pub(crate) async fn root_of(&self, id: &str) -> Result<Option<(String, Rc<Slot>)>> {
        let Some(mut slot) = self.entity_at(id).await? else { return Ok(None) };
        let mut root = id.to_string();
        for _ in 0..MAX_HOPS {
            let Some(next) = entity_in(&slot).and_then(|e| e.merged_into.clone()) else { break };
            match self.entity_at(&next).await? {
                Some(s) => (root, slot) = (next, s),
                None => break,
            }
        }
        Ok(Some((root, slot)))
    }

    /// Resolves `name` among the entities of `entity_type`: by id, by key
    /// (the name's, then its declared alias group's), else its near matches.
    async fn look_up(&self, name: &str, entity_type: &str) -> Result<Found> {
        self.migrate_registry(entity_type).await?;
        if id_like(name, entity_type) {
            if let Some((root, slot)) = self.root_of(name).await? {
                let resolution = Resolution::new(name, root.clone(), "id", 1.0, Vec::new());
                return Ok(Found { hit: Some((root, slot)), resolution });
            }
        }
        let lookup = Lookup::new(name, entity_type, &self.settings.known_aliases);
        if let Some(((root, slot), rule)) = self.key_round(&lookup, entity_type).await? {
            let resolution = Resolution::new(name, root.clone(), rule, 1.0, Vec::new());
            return Ok(Found { hit: Some((root, slot)), resolution });
        }
        let near_keys = lookup.near();
        let rows = if near_keys.is_empty() { Vec::new() } else { self.store.find_entities(entity_type, &near_keys).await? };
        let mut near = Vec::new();
        for mut m in entities::near_candidates(&lookup, &rows, entity_type) {
            if let Some((root, _)) = self.root_of(&m.entity_id).await? {
                m.entity_id = root;
                near.push(m);
            }
        }
        Ok(Found { hit: None, resolution: entities::near_resolution(name, near) })
    }

    /// The entity whose names share `lookup`'s key (or its declared alias
    /// group's), at its root, and the rule that matched.
    async fn key_round(&self, lookup: &Lookup, entity_type: &str) -> Result<Option<((String, Rc<Slot>), &'static str)>> {
        let keys = lookup.key_round();
        if keys.is_empty() {
            return Ok(None);
        }
        let rows = self.store.find_entities(entity_type, &keys).await?;
        let Some((ids, rule)) = entities::key_hits(lookup, &rows) else { return Ok(None) };
        let mut roots = Vec::new();
        for id in &ids {
            if let Some(root) = self.root_of(id).await? {
                roots.push(root);
            }
        }
        // Several entities share the key only after merges (or a lost race): the first root by id.
        Ok(roots.into_iter().min_by(|a, b| a.0.cmp(&b.0)).map(|root| (root, rule)))
    }

    /// `key_round` for a name: the root entity's id and the rule.
    async fn key_hit(&self, name: &str, entity_type: &str) -> Result<Option<(String, &'static str)>> {
        let lookup = Lookup::new(name, entity_type, &self.settings.known_aliases);
        Ok(self.key_round(&lookup, entity_type).await?.map(|((root, _), rule)| (root, rule)))
    }

    /// Resolves `name` to an entity of `entity_type` without writing; for a
    /// name no entity has, `entity_id` is empty.
    pub async fn resolve_name(&self, name: &str, entity_type: &str) -> Result<Resolution> {
        let entity_type = checked_type(entity_type)?;
        Ok(self.look_up(name, &entity_type).await?.resolution)
    }

    /// The entities whose slots may hold writes of entity `root` (see `PendingName::merged_from`).
    async fn related_entities(&self, root: &Entity) -> Result<Vec<String>> {
        let mut out: Vec<String> = root.was_merged_into.clone();
        let mut todo: Vec<String> = root.merged_from.clone();
        while let Some(id) = todo.pop() {
            if out.contains(&id) || id == root.id || out.len() > MAX_HOPS {
                continue;
            }
            if let Some(slot) = self.entity_at(&id).await? {
                todo.extend(entity_in(&slot).map(|e| e.merged_from.clone()).unwrap_or_default());
            }
            out.push(id);
        }
        crate::sort::sort(&mut out);
        out.dedup();
        Ok(out)
    }

    /// The id for a new entity named `name`: the first of its slug's ids
    /// that no entity has, or that an entity of the same key has — recorded by
    /// another writer since this one looked the key up, it is this name's
    /// entity (one a batch planned for an earlier name is that name's too).
    async fn free_id(&self, name: &str, entity_type: &str) -> Result<String> {
        let key = entities::name_key(name, entity_type);
        for id in id_candidates(name, entity_type) {
            let Some(slot) = self.entity_at(&id).await? else { return Ok(id) };
            if entity_in(&slot).is_some_and(|e| e.aliases.iter().any(|a| entities::name_key(a, entity_type) == key)) {
                return Ok(id);
            }
        }
        // The candidates never end; a store that answered every id as taken by another key is broken.
        Err(Error::new(ErrorCode::MalformedStoreData, format!("no free entity id for {name:?}")))
    }

    /// Plans a name for a write: the entity it resolves to, or the id a new
    /// entity will get. Ids are derived from the name's key, so a write whose
    /// entity commit was lost (a crash in between) is found again by the
    /// next write of the same name.
    async fn plan_name(&self, name: &str, entity_type: &str, batch: &mut BatchIds, unread: bool) -> Result<PendingName> {
        let entity_type = checked_type(entity_type)?;
        // The id of a new entity an earlier name of the batch will create: that entity.
        if batch.planned(&entity_type, name) && self.entity_at(name).await?.is_none() {
            let resolution = entities::by_new_id(name);
            return Ok(PendingName { name: name.to_string(), entity_type, resolution, merged_from: Vec::new(), hit: None, known_spelling: true });
        }
        if let Some(p) = self.remembered_name(name, &entity_type, unread).await? {
            return Ok(p);
        }
        let Found { hit, mut resolution } = self.look_up(name, &entity_type).await?;
        let Some((root, slot)) = hit else {
            resolution.entity_id = self.free_id(name, &entity_type).await?;
            batch.plan(&entity_type, &resolution.entity_id);
            return Ok(PendingName { name: name.to_string(), entity_type, resolution, merged_from: Vec::new(), hit: None, known_spelling: false });
        };
        let entity = entity_in(&slot).ok_or_else(|| unknown(&root))?;
        let known_spelling = resolution.rule == "id" || entity.aliases.iter().any(|a| a == name);
        let merged_from = self.related_entities(entity).await?;
        // An id-like name leads to the entity of that id once one exists: looked up every time.
        if known_spelling && !id_like(name, &entity_type) {
            let remembered = Remembered { resolution: resolution.clone(), version: slot.version, merged_from: merged_from.clone() };
            self.names.keep(&entity_type, name, remembered);
        }
        let hit = Some(ResolvedAt { entity_id: root, version: slot.version, remembered: None });
        Ok(PendingName { name: name.to_string(), entity_type, resolution, merged_from, hit, known_spelling })
    }

    /// A name this engine resolved before to a known spelling, as planned
    /// then. `unread`: the caller reads the entity's slot after the write's
    /// own (`merged_since`) and checks its version there; else it is read
    /// here, and a moved version means the name is looked up again.
    async fn remembered_name(&self, name: &str, entity_type: &str, unread: bool) -> Result<Option<PendingName>> {
        let Some(r) = self.names.get(entity_type, name) else { return Ok(None) };
        if !unread && self.entity_at(&r.resolution.entity_id).await?.map(|s| s.version) != Some(r.version) {
            self.names.forget(entity_type, name);
            return Ok(None);
        }
        let remembered = unread.then(|| (entity_type.to_string(), name.to_string()));
        let hit = Some(ResolvedAt { entity_id: r.resolution.entity_id.clone(), version: r.version, remembered });
        Ok(Some(PendingName { name: name.to_string(), entity_type: entity_type.to_string(), resolution: r.resolution, merged_from: r.merged_from, hit, known_spelling: true }))
    }

    /// Records the names of a stored write: a new entity (with a
    /// `same_entity` conflict per near match) or a new spelling of a known
    /// one. A new name is looked up again first, so concurrent writers of
    /// one name end up with one entity.
    pub(crate) async fn record_names(&self, pending: &[PendingName]) -> Result<Vec<Resolution>> {
        let mut out = self.record_names_of(&[pending]).await?;
        Ok(out.pop().unwrap_or_default())
    }

    /// `record_names` for the writes of a batch, in order: each name sees
    /// the names recorded before it.
    pub(crate) async fn record_names_of(&self, writes: &[&[PendingName]]) -> Result<Vec<Vec<Resolution>>> {
        let mut out = Vec::with_capacity(writes.len());
        // A name recorded new by this call: later names of the batch look their near matches up again.
        let mut created = false;
        for names in writes {
            let mut resolutions = Vec::with_capacity(names.len());
            for p in names.iter() {
                let planned_new = p.hit.is_none() && !p.known_spelling;
                resolutions.push(self.record_name(p, created).await?);
                created |= planned_new;
            }
            out.push(resolutions);
        }
        Ok(out)
    }

    /// One name of a kept write. A new name's key is asked again (another
    /// writer may have recorded it since the plan); its near matches stand as
    /// planned unless `recorded_since` (a name of the same batch was recorded
    /// new before it, and may be one).
    async fn record_name(&self, p: &PendingName, recorded_since: bool) -> Result<Resolution> {
        if p.known_spelling {
            return Ok(p.resolution.clone());
        }
        if let Some(at) = &p.hit {
            return self.add_spelling(&at.entity_id, p, p.resolution.clone()).await;
        }
        let resolution = if recorded_since {
            let Found { hit, resolution } = self.look_up(&p.name, &p.entity_type).await?;
            if let Some((root, _)) = hit {
                return self.add_spelling(&root, p, resolution).await;
            }
            resolution
        } else {
            if let Some((root, rule)) = self.key_hit(&p.name, &p.entity_type).await? {
                return self.add_spelling(&root, p, Resolution::new(&p.name, root.clone(), rule, 1.0, Vec::new())).await;
            }
            p.resolution.clone()
        };
        let mut tried = Vec::new();
        let mut id = p.resolution.entity_id.clone();
        loop {
            match self.create_entity(&id, p, &resolution).await? {
                Ok(r) => return Ok(r),
                // Taken by another name with the same slug since the plan: the next free id.
                Err(taken) => {
                    tried.push(taken);
                    id = id_candidates(&p.name, &p.entity_type).find(|c| !tried.contains(c)).unwrap_or_default();
                    if tried.len() > self.settings.retries as usize {
                        return Err(Error::new(ErrorCode::Concurrency, format!("could not record {:?}: its ids were taken meanwhile", p.name)));
                    }
                }
            }
        }
    }

    /// Adds `p.name` to the spellings of entity `id` (nothing when it is one already).
    async fn add_spelling(&self, id: &str, p: &PendingName, mut resolution: Resolution) -> Result<Resolution> {
        let cause = LogCause { op: "resolve".into(), object: Some(p.name.clone()), ..Default::default() };
        let (_, slot) = self
            .commit_with_retry(&entity_slot(id), cause, |txn| {
                let Some(e) = txn.entity_mut() else { return Err(unknown(id)) };
                if !e.aliases.contains(&p.name) {
                    e.aliases.push(p.name.clone());
                    txn.log_change("entity_alias", &[], None, None, format!("{:?} is {id} ({})", p.name, resolution.rule));
                }
                Ok(())
            })
            .await?;
        self.remember_spelling(p, &slot);
        resolution.entity_id = id.to_string();
        Ok(resolution)
    }

    /// Creates entity `id` for `p.name`, asking about each near match.
    /// `Ok(Err(id))`: the id was taken meanwhile by a name of another key.
    async fn create_entity(&self, id: &str, p: &PendingName, found: &Resolution) -> Result<std::result::Result<Resolution, String>> {
        let cause = LogCause { op: "resolve".into(), object: Some(p.name.clone()), ..Default::default() };
        let key = entities::name_key(&p.name, &p.entity_type);
        let (r, slot) = self
            .commit_with_retry(&entity_slot(id), cause, |txn| {
                let mut r = found.clone();
                if let Some(e) = txn.entity_mut() {
                    // The same key recorded by another writer in between: a spelling of it.
                    if !e.aliases.iter().any(|a| entities::name_key(a, &p.entity_type) == key) {
                        return Ok(Err(id.to_string()));
                    }
                    if !e.aliases.contains(&p.name) {
                        e.aliases.push(p.name.clone());
                        txn.log_change("entity_alias", &[], None, None, format!("{:?} is {id} (alias)", p.name));
                    }
                    r.entity_id = id.to_string();
                    return Ok(Ok(r));
                }
                let entity = Entity { id: id.to_string(), entity_type: p.entity_type.clone(), name: p.name.clone(), aliases: vec![p.name.clone()], merged_into: None, merged_from: Vec::new(), was_merged_into: Vec::new() };
                txn.slot.entities.push(entity.into());
                txn.log_change("entity_new", &[], None, None, format!("new entity {id} for {:?} ({})", p.name, r.rule));
                for near in &found.near_matches {
                    if let Some(cf) = ask_same_entity(txn, &self.settings, near, id, &p.name)? {
                        r.conflict_ids.push(cf);
                    }
                }
                r.entity_id = id.to_string();
                Ok(Ok(r))
            })
            .await?;
        if r.is_ok() {
            self.remember_spelling(p, &slot);
        }
        Ok(r)
    }

    /// Remembers a name just recorded as a spelling of the entity `slot`
    /// holds, as its next look-up would find it (`alias`): unless the entity
    /// took part in a merge, whose related slots a look-up would gather.
    fn remember_spelling(&self, p: &PendingName, slot: &Slot) {
        let Some(e) = entity_in(slot) else { return };
        let merged = e.merged_into.is_some() || !e.merged_from.is_empty() || !e.was_merged_into.is_empty();
        if merged || id_like(&p.name, &p.entity_type) || !e.aliases.contains(&p.name) || entities::name_key(&p.name, &p.entity_type).is_empty() {
            return;
        }
        let resolution = Resolution::new(&p.name, e.id.clone(), "alias", 1.0, Vec::new());
        self.names.keep(&p.entity_type, &p.name, Remembered { resolution, version: slot.version, merged_from: Vec::new() });
    }

    /// The `same_entity` conflicts some resolutions opened, for the write's outcome.
    pub(crate) async fn conflicts_of(&self, resolutions: &[Resolution]) -> Result<Vec<Conflict>> {
        let mut out = Vec::new();
        for r in resolutions.iter().filter(|r| !r.conflict_ids.is_empty()) {
            let slot_ref = entity_slot(&r.entity_id);
            let slot = self.store.read_slot(&slot_ref).await?;
            out.extend(r.conflict_ids.iter().filter_map(|id| slot.conflict(id)).filter_map(|c| super::read::conflict_view(&slot, &slot_ref, c)));
        }
        Ok(out)
    }

    /// Points a planned write at the entities its subject and object name (nothing is written yet).
    pub(crate) async fn resolve_planned(&self, planned: &mut Planned, subject_type: Option<&str>, batch: &mut BatchIds) -> Result<Vec<PendingName>> {
        let mut out = Vec::new();
        if let Some(t) = subject_type {
            // One write's subject is checked by `merged_since` anyway: a remembered name is read there.
            let p = self.plan_name(&planned.prepared.draft.subject, t, batch, !batch.on).await?;
            planned.prepared.draft.subject = p.resolution.entity_id.clone();
            planned.prepared.slot = SlotRef::new(&p.resolution.entity_id, &planned.prepared.spec.name);
            planned.merged_slots = p.merged_from.iter().map(|id| SlotRef::new(id, &planned.prepared.spec.name)).collect();
            planned.subject_entity = p.hit.clone();
            out.push(p);
        }
        if let Some(t) = planned.prepared.spec.object_type.clone() {
            let p = self.plan_name(&planned.prepared.draft.object, &t, batch, false).await?;
            planned.prepared.draft.object_entity = Some(p.resolution.entity_id.clone());
            out.push(p);
        }
        Ok(out)
    }

    /// True when the known entity a write's subject resolved to has been
    /// merged into another since (its slots moved: the write must resolve its
    /// name again, or it would land in a slot nobody reads). One read of the
    /// entity's slot; free of any other when its version has not moved.
    pub(crate) async fn merged_since(&self, planned: &Planned) -> Result<bool> {
        let Some(at) = &planned.subject_entity else { return Ok(false) };
        let slot = self.store.read_slot(&entity_slot(&at.entity_id)).await?;
        if slot.version == at.version {
            return Ok(false);
        }
        if let Some((entity_type, name)) = &at.remembered {
            // Resolved from memory, and the entity changed since: its name may lead elsewhere now.
            self.names.forget(entity_type, name);
            return Ok(true);
        }
        Ok(entity_in(&slot).is_some_and(|e| e.merged_into.is_some()))
    }

    /// After a write opened a new slot under the known entity its subject
    /// resolved to: when another writer merged that entity meanwhile, the
    /// merge listed the entity's slots before this one existed, and it is
    /// moved now, as if written just before the merge. One read of the
    /// entity's slot (a slot that existed is sealed by the merge instead).
    /// Followed on when the entity it moved into was merged too.
    pub(crate) async fn follow_merge_after(&self, planned: &Planned) -> Result<()> {
        let Some(at) = &planned.subject_entity else { return Ok(()) };
        let predicate = &planned.prepared.slot.predicate;
        let mut id = at.entity_id.clone();
        for _ in 0..MAX_HOPS {
            let slot = self.store.read_slot(&entity_slot(&id)).await?;
            let Some(next) = entity_in(&slot).and_then(|e| e.merged_into.clone()) else { break };
            if !self.follow_merge_of(&id, predicate).await? {
                break;
            }
            id = next;
        }
        Ok(())
    }

    /// Looks an entity up by id (`org:acme`) or by name (with `entity_type`).
    pub async fn entity(&self, id_or_name: &str, entity_type: Option<&str>) -> Result<Option<EntityView>> {
        let Some(t) = entity_type.or_else(|| type_of(id_or_name)) else {
            return Err(Error::invalid("type", "is required to look an entity up by name"));
        };
        let t = checked_type(t)?;
        self.migrate_registry(&t).await?;
        if type_of(id_or_name) == Some(t.as_str()) {
            if let Some(slot) = self.entity_at(id_or_name).await? {
                return Ok(entity_in(&slot).map(|e| EntityView { entity: Entity::clone(e), resolution: None }));
            }
        }
        let Found { hit, resolution } = self.look_up(id_or_name, &t).await?;
        Ok(hit.and_then(|(_, slot)| entity_in(&slot).map(|e| EntityView { entity: Entity::clone(e), resolution: Some(resolution) })))
    }
}
