//! JS objects behind the core's traits: a `ClaimStore`, the clock, the merge
//! hook and the judge. Every call into user JS is `catch`ed and awaited through
//! `Promise.resolve`, so sync and async implementations both work and a throw
//! becomes a `CredenceError` carrying the original as `cause`.

use std::cell::RefCell;
use std::rc::Rc;

use async_trait::async_trait;
use foldhash::HashMap;
use js_sys::{Array, Function, Promise, Reflect};
use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::convert::{from_js, to_js};
use super::errors::js_failure;
use crate::error::{Error, ErrorCode, Result};
use crate::hooks::{Clock, Judge, MergeHook, MergeResult, PairRef, PairVerdict};
use crate::model::{Chunked, Claim, ConflictQuery, ConflictRecord, DirtyQuery, IndexedConflict, LogEntry, Shared, Slot, SlotCommit, SlotIndex, SlotRef};
use crate::store::Store;
use crate::time::Timestamp;

fn lift(err: JsValue) -> Error {
    // `to_js` failures are already JS errors; keep them as the cause.
    js_failure(ErrorCode::InvalidInput, "converting a value", err)
}

/// Calls `target[method](...args)` and awaits the result.
async fn call(target: &JsValue, method: &str, args: &[JsValue], code: ErrorCode, what: &str) -> Result<JsValue> {
    let f = Reflect::get(target, &JsValue::from_str(method)).map_err(|e| js_failure(code, what, e))?;
    let f: Function = f
        .dyn_into()
        .map_err(|_| Error::new(code, format!("{what}: `{method}` is not a function")))?;
    let argv: Array = args.iter().collect();
    let value = f.apply(target, &argv).map_err(|e| js_failure(code, what, e))?;
    JsFuture::from(Promise::resolve(&value)).await.map_err(|e| js_failure(code, what, e))
}

fn arg<T: Serialize>(v: &T) -> Result<JsValue> {
    to_js(v).map_err(lift)
}

/// A commit as a `ClaimStore` receives it, with its index rows derived from
/// the slot (the engine leaves `index` empty: see `SlotCommit::index`), and
/// its candidate ids only for a store that answers `findWrite`: a store that
/// refused a commit for an id it could not then name would fail the write
/// (a wrapper forwarding `commitSlot` but not `findWrite`, say).
fn commit_arg(commit: &SlotCommit, finds_writes: bool) -> Result<JsValue> {
    let value = arg(commit)?;
    let mut index = SlotIndex::of(&commit.slot);
    if finds_writes {
        index.writes = commit.index.writes.clone();
        index.dropped_writes = commit.index.dropped_writes.clone();
    }
    let _ = Reflect::set(&value, &"index".into(), &arg(&index)?);
    Ok(value)
}

fn absent(v: &JsValue) -> bool {
    v.is_undefined() || v.is_null()
}

/// A registry entity and its position (entities are only appended, so a
/// position never changes): what `commitRegistry` writes.
#[derive(Serialize)]
struct Positioned<'a> {
    at: usize,
    entity: &'a crate::entities::Entity,
}

/// A registry entity and its position, as a store answers them.
#[derive(serde::Deserialize)]
struct PositionedEntity {
    at: usize,
    entity: crate::entities::Entity,
}

/// What `store.loadRegistryChanges` answers. A store that keeps a registry's
/// claims and conflicts by position (`registryRows`) answers them as changes
/// too, with their counts; otherwise they are in `slot`, whole.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct RegistryChanges {
    slot: Slot,
    entities: Vec<PositionedEntity>,
    entity_count: usize,
    #[serde(default)]
    claims: Option<Vec<PositionedItem<Claim>>>,
    #[serde(default)]
    claim_count: Option<usize>,
    #[serde(default)]
    conflicts: Option<Vec<PositionedItem<ConflictRecord>>>,
    #[serde(default)]
    conflict_count: Option<usize>,
    tag: String,
}

/// A registry claim or conflict and its position, as a store answers them.
#[derive(serde::Deserialize)]
struct PositionedItem<T> {
    at: usize,
    item: T,
}

/// A registry claim or conflict that differs from the snapshot a commit
/// began from, and its position (claims and conflicts of a registry are only
/// ever appended: erasure tombstones, archiving skips registries).
#[derive(Serialize)]
struct PositionedRef<'a, T> {
    at: usize,
    item: &'a T,
}

/// The items of `now` not shared with `before` (copy on write: an item a
/// commit did not touch is the snapshot's own), every item when there is no
/// `before` to compare with.
fn changed_items<'a, T>(now: &'a Chunked<T>, before: Option<&Chunked<T>>) -> Vec<PositionedRef<'a, T>> {
    // Whole chunks shared with `before` hold the same items: not looked at.
    let from = before.map_or(0, |b| Chunked::shared_prefix(b, now));
    now.iter_from(from)
        .enumerate()
        .map(|(i, item)| (i + from, item))
        .filter(|(i, item)| before.and_then(|b| b.get(*i)).is_none_or(|was| !Shared::same(was, item)))
        .map(|(at, item)| PositionedRef { at, item: &**item })
        .collect()
}

/// `snapshot`'s items with `changed` applied by position; None when a
/// position is past the end or the count does not match.
/// The snapshot's unchanged chunks are shared, not copied.
fn apply_items<T: Clone>(snapshot: &Chunked<T>, changed: Vec<PositionedItem<T>>, count: usize) -> Option<Chunked<T>> {
    let mut items = if count < snapshot.len() { snapshot.iter().take(count).cloned().collect() } else { snapshot.clone() };
    let mut changed = changed;
    changed.sort_by_key(|p| p.at);
    for p in changed {
        match p.at.cmp(&items.len()) {
            std::cmp::Ordering::Less => items[p.at] = Shared::new(p.item),
            std::cmp::Ordering::Equal => items.push(Shared::new(p.item)),
            std::cmp::Ordering::Greater => return None,
        }
    }
    (items.len() == count).then_some(items)
}

/// The entities named by `ids`, with their positions. New entities are the
/// last ones, so each is looked for from the end.
fn positioned<'a>(entities: &'a crate::model::Chunked<crate::entities::Entity>, ids: &[String]) -> Vec<Positioned<'a>> {
    ids.iter()
        .filter_map(|id| (0..entities.len()).rev().find(|&i| entities[i].id == *id))
        .map(|at| Positioned { at, entity: &entities[at] })
        .collect()
}

/// A JS `ClaimStore`. Snapshots of reserved slots (entity registries, the
/// calibration record) are kept with the store's `slotTag` they were read at,
/// when the store has that method: a registry holds every entity of its type,
/// so reading it afresh (and re-indexing its names) on every entity-typed write
/// grew with the store; a tag look-up does not.
pub struct JsStore {
    target: JsValue,
    tagged: bool,
    /// The store has `loadSlotToWrite` (it may hold snapshots of slots).
    holds: bool,
    /// The store has `commitRegistry` (with `slotTag`): registries are committed by their changes.
    by_changes: bool,
    /// ... and `loadRegistryChanges`: a registry whose tag moved is read as its changes since the snapshot.
    reads_changes: bool,
    /// The store has `findWrite`: it indexes candidate ids store-wide.
    finds_writes: bool,
    /// `store.registryRows === true`: it keeps a registry's claims and conflicts by position too,
    /// so a registry commit carries only those that changed (its `same_entity` questions grow
    /// with the names; a commit carrying them all cost every store in proportion).
    registry_rows: bool,
    snapshots: RefCell<HashMap<String, (String, Rc<Slot>)>>,
}

impl JsStore {
    pub fn new(target: JsValue) -> Self {
        let has = |method: &str| Reflect::get(&target, &method.into()).is_ok_and(|f| f.is_function());
        let (tagged, holds) = (has("slotTag"), has("loadSlotToWrite"));
        let by_changes = tagged && has("commitRegistry");
        let reads_changes = by_changes && has("loadRegistryChanges");
        let registry_rows = reads_changes && Reflect::get(&target, &"registryRows".into()).is_ok_and(|v| v.as_bool() == Some(true));
        let finds_writes = has("findWrite");
        JsStore { target, tagged, holds, by_changes, reads_changes, finds_writes, registry_rows, snapshots: RefCell::default() }
    }

    /// The store's tag of the slot's current content; None when it gives none.
    async fn slot_tag(&self, slot: &SlotRef) -> Result<Option<String>> {
        let v = self.call("slotTag", &[arg(slot)?]).await?;
        match (v.as_string(), v.as_f64()) {
            (Some(tag), _) => Ok(Some(tag)),
            (None, Some(n)) => Ok(Some(n.to_string())),
            _ if absent(&v) => Ok(None),
            _ => Err(Error::new(ErrorCode::MalformedStoreData, "store.slotTag() result: must be a string, a number, null or undefined")),
        }
    }

    /// Entity registries (one slot per type, read by every write that names
    /// one) are kept with their tag; other slots are read when asked for.
    fn keeps_snapshot(&self, slot: &SlotRef) -> bool {
        self.tagged && slot.subject == crate::entities::ENTITY_REGISTRY
    }

    /// `store.commitRegistry(commit)`: the commit without the registry's
    /// entities, plus the entities it changed with their positions, so a new
    /// name costs the same at any number of entities. `Some(tag)` when
    /// written: the committed registry is then the snapshot at that tag.
    async fn commit_registry(&self, commit: &SlotCommit) -> Result<Option<Rc<Slot>>> {
        let mut trimmed = commit.clone();
        trimmed.slot.entities = Default::default();
        if self.registry_rows {
            trimmed.slot.claims = Chunked::new();
            trimmed.slot.conflicts = Chunked::new();
        }
        let value = commit_arg(&trimmed, self.finds_writes)?;
        let changed = positioned(&commit.slot.entities, &commit.changed_entities);
        let _ = Reflect::set(&value, &"entities".into(), &arg(&changed)?);
        let _ = Reflect::set(&value, &"entityCount".into(), &(commit.slot.entities.len() as f64).into());
        if self.registry_rows {
            // Compared with the snapshot this commit began from (the same version), by pointer.
            let held = self.snapshots.borrow().get(&commit.slot_ref.key).map(|(_, s)| s.clone());
            let base = held.filter(|s| s.version == commit.expected_version);
            let claims = changed_items(&commit.slot.claims, base.as_ref().map(|s| &s.claims));
            let conflicts = changed_items(&commit.slot.conflicts, base.as_ref().map(|s| &s.conflicts));
            let _ = Reflect::set(&value, &"claims".into(), &arg(&claims)?);
            let _ = Reflect::set(&value, &"claimCount".into(), &(commit.slot.claims.len() as f64).into());
            let _ = Reflect::set(&value, &"conflicts".into(), &arg(&conflicts)?);
            let _ = Reflect::set(&value, &"conflictCount".into(), &(commit.slot.conflicts.len() as f64).into());
        }
        let v = self.call("commitRegistry", &[value]).await?;
        let tag = match (v.as_string(), v.as_f64(), v.as_bool()) {
            (Some(tag), _, _) => tag,
            (None, Some(n), _) => n.to_string(),
            (None, None, Some(false)) => return Ok(None),
            _ => return Err(Error::new(ErrorCode::MalformedStoreData, "store.commitRegistry() result: must be the slot's new tag (written) or false (version moved on)")),
        };
        let slot = Rc::new(commit.slot.clone());
        self.snapshots.borrow_mut().insert(commit.slot_ref.key.clone(), (tag, slot.clone()));
        Ok(Some(slot))
    }

    /// `store.loadRegistryChanges(ref, { version, tag })`: the registry now as
    /// its changes since `snapshot` (read at `seen`), applied to a copy that
    /// shares every unchanged chunk of entities (so the engine's name index
    /// follows it by the chunks that differ). None when the store cannot tell.
    async fn registry_changes(&self, slot_ref: &SlotRef, seen: &str, snapshot: &Slot) -> Result<Option<(String, Rc<Slot>)>> {
        let since = js_sys::Object::new();
        let _ = Reflect::set(&since, &"version".into(), &(snapshot.version as f64).into());
        let _ = Reflect::set(&since, &"tag".into(), &seen.into());
        let v = self.call("loadRegistryChanges", &[arg(slot_ref)?, since.into()]).await?;
        if absent(&v) {
            return Ok(None);
        }
        let answer: RegistryChanges = self.read(v, "loadRegistryChanges")?;
        let malformed = |what: &str| Error::new(ErrorCode::MalformedStoreData, format!("store.loadRegistryChanges() result: {what}"));
        if answer.slot.version < snapshot.version {
            return Err(malformed("a version older than the one asked about"));
        }
        let mut next = answer.slot;
        match (answer.claims, answer.claim_count, answer.conflicts, answer.conflict_count) {
            (Some(claims), Some(claim_count), Some(conflicts), Some(conflict_count)) => {
                next.claims = apply_items(&snapshot.claims, claims, claim_count).ok_or_else(|| malformed("claims past the end of the registry, or not claimCount of them"))?;
                next.conflicts = apply_items(&snapshot.conflicts, conflicts, conflict_count).ok_or_else(|| malformed("conflicts past the end of the registry, or not conflictCount of them"))?;
            }
            (None, None, None, None) => {}
            _ => return Err(malformed("claims, claimCount, conflicts and conflictCount come together")),
        }
        next.entities = snapshot.entities.clone();
        let mut changed = answer.entities;
        changed.sort_by_key(|p| p.at);
        for p in changed {
            let len = next.entities.len();
            match next.entities.get_mut(p.at) {
                Some(e) => *e = p.entity.into(),
                None if p.at == len => next.entities.push(p.entity.into()),
                None => return Err(malformed("an entity past the end of the registry")),
            }
        }
        if next.entities.len() != answer.entity_count {
            return Err(malformed("entityCount does not match the entities"));
        }
        Ok(Some((answer.tag, Rc::new(next))))
    }

    /// The slot as the store holds it now.
    async fn fetch_slot(&self, slot: &SlotRef) -> Result<Slot> {
        let v = self.call("loadSlot", &[arg(slot)?]).await?;
        if absent(&v) { Ok(Slot::default()) } else { checked(self.read(v, "loadSlot")?, slot, "loadSlot") }
    }

    async fn call(&self, method: &str, args: &[JsValue]) -> Result<JsValue> {
        call(&self.target, method, args, ErrorCode::StoreFailed, &format!("store.{method}")).await
    }

    fn read<T: serde::de::DeserializeOwned>(&self, value: JsValue, method: &str) -> Result<T> {
        from_js(value, &format!("store.{method}() result"), ErrorCode::MalformedStoreData)
    }

    fn slot_ref(&self, value: JsValue, method: &str) -> Result<Option<SlotRef>> {
        if absent(&value) { Ok(None) } else { self.read(value, method).map(Some) }
    }
}

/// A slot document from the store, refused when it is not whole (`invariants::check_loaded`).
fn checked(loaded: Slot, slot: &SlotRef, method: &str) -> Result<Slot> {
    crate::invariants::check_loaded(&loaded, slot).map_err(|why| {
        Error::new(ErrorCode::MalformedStoreData, format!("store.{method}() result for {}/{}: {why}", slot.subject, slot.predicate))
    })?;
    Ok(loaded)
}

#[async_trait(?Send)]
impl Store for JsStore {
    /// An entity registry (every entity of its type) is copied from its
    /// tagged snapshot while the tag has not moved: a copy in wasm costs far
    /// less than fetching and parsing it again.
    async fn load_slot(&self, slot: &SlotRef) -> Result<Slot> {
        if self.keeps_snapshot(slot) {
            return Ok(Rc::unwrap_or_clone(self.read_slot(slot).await?));
        }
        self.fetch_slot(slot).await
    }

    /// A registry whose tag has not moved is answered from the snapshot
    /// read at that tag. Tags never repeat for other content, so a hit is the
    /// current content; a snapshot loaded after a tag that then moved is only
    /// ever reloaded, never served.
    async fn read_slot(&self, slot: &SlotRef) -> Result<Rc<Slot>> {
        if !self.keeps_snapshot(slot) {
            return self.fetch_slot(slot).await.map(Rc::new);
        }
        let Some(tag) = self.slot_tag(slot).await? else {
            self.snapshots.borrow_mut().remove(&slot.key);
            return self.fetch_slot(slot).await.map(Rc::new);
        };
        let held = self.snapshots.borrow().get(&slot.key).cloned();
        if let Some((seen, snapshot)) = held {
            if seen == tag {
                return Ok(snapshot);
            }
            // A speed-up only: a store that cannot answer (or fails to) is read whole below.
            if self.reads_changes {
                if let Ok(Some((now, next))) = self.registry_changes(slot, &seen, &snapshot).await {
                    self.snapshots.borrow_mut().insert(slot.key.clone(), (now, next.clone()));
                    return Ok(next);
                }
            }
        }
        let loaded = Rc::new(self.fetch_slot(slot).await?);
        self.snapshots.borrow_mut().insert(slot.key.clone(), (tag, loaded.clone()));
        Ok(loaded)
    }

    /// `store.loadSlotToWrite(ref)` answers `{ slot, held }`: `held` when the
    /// slot came from a snapshot the store kept rather than from its backend.
    async fn load_slot_to_write(&self, slot: &SlotRef) -> Result<(Slot, bool)> {
        if !self.holds || self.keeps_snapshot(slot) {
            return self.load_slot(slot).await.map(|s| (s, false));
        }
        let v = self.call("loadSlotToWrite", &[arg(slot)?]).await?;
        let malformed = || Error::new(ErrorCode::MalformedStoreData, "store.loadSlotToWrite() result: must be { slot, held: boolean }");
        let held = Reflect::get(&v, &"held".into()).ok().and_then(|h| h.as_bool()).ok_or_else(malformed)?;
        let loaded = Reflect::get(&v, &"slot".into()).map_err(|_| malformed())?;
        let loaded = if absent(&loaded) { Slot::default() } else { checked(self.read(loaded, "loadSlotToWrite")?, slot, "loadSlotToWrite")? };
        Ok((loaded, held))
    }

    async fn commit_slot(&self, commit: &SlotCommit) -> Result<bool> {
        if self.by_changes && self.keeps_snapshot(&commit.slot_ref) {
            return Ok(self.commit_registry(commit).await?.is_some());
        }
        let v = self.call("commitSlot", &[commit_arg(commit, self.finds_writes)?]).await?;
        v.as_bool().ok_or_else(|| {
            Error::new(ErrorCode::MalformedStoreData, "store.commitSlot() result: must be true (written) or false (version moved on)")
        })
    }

    async fn commit_slot_owned(&self, commit: SlotCommit) -> Result<std::result::Result<Rc<Slot>, SlotCommit>> {
        if self.by_changes && self.keeps_snapshot(&commit.slot_ref) {
            return Ok(match self.commit_registry(&commit).await? {
                Some(slot) => Ok(slot),
                None => Err(commit),
            });
        }
        Ok(if self.commit_slot(&commit).await? { Ok(Rc::new(commit.slot)) } else { Err(commit) })
    }

    async fn find_claim(&self, claim_id: &str) -> Result<Option<SlotRef>> {
        let v = self.call("findClaim", &[claim_id.into()]).await?;
        self.slot_ref(v, "findClaim")
    }

    async fn find_conflict(&self, conflict_id: &str) -> Result<Option<SlotRef>> {
        let v = self.call("findConflict", &[conflict_id.into()]).await?;
        self.slot_ref(v, "findConflict")
    }

    async fn find_write(&self, write_id: &str) -> Result<Option<SlotRef>> {
        if !self.finds_writes {
            return Ok(None);
        }
        let v = self.call("findWrite", &[write_id.into()]).await?;
        self.slot_ref(v, "findWrite")
    }

    async fn list_slots(&self, subject: Option<&str>) -> Result<Vec<SlotRef>> {
        let filter = js_sys::Object::new();
        if let Some(s) = subject {
            let _ = Reflect::set(&filter, &"subject".into(), &s.into());
        }
        let v = self.call("listSlots", &[filter.into()]).await?;
        let refs: Vec<SlotRef> = self.read(v, "listSlots")?;
        match (subject, refs.iter().find(|r| subject.is_some_and(|s| r.subject != s))) {
            (Some(s), Some(other)) => Err(Error::new(
                ErrorCode::MalformedStoreData,
                format!("store.listSlots() result: asked for the slots of {s:?}, it answered one of {:?}", other.subject),
            )),
            _ => Ok(refs),
        }
    }

    async fn read_log(&self, slot: &SlotRef) -> Result<Vec<LogEntry>> {
        let v = self.call("readLog", &[arg(slot)?]).await?;
        if absent(&v) { Ok(Vec::new()) } else { self.read(v, "readLog") }
    }

    async fn erase_slot(&self, commit: &SlotCommit, log: &[LogEntry]) -> Result<bool> {
        // Optional in ClaimStore: a store without it cannot erase, and says so.
        if !Reflect::get(&self.target, &"eraseSlot".into()).is_ok_and(|f| f.is_function()) {
            return Err(Error::new(ErrorCode::StoreFailed, "this store cannot erase: it has no eraseSlot(commit, log)"));
        }
        let v = self.call("eraseSlot", &[commit_arg(commit, self.finds_writes)?, arg(&log)?]).await?;
        v.as_bool().ok_or_else(|| {
            Error::new(ErrorCode::MalformedStoreData, "store.eraseSlot() result: must be true (written) or false (version moved on)")
        })
    }

    async fn list_conflicts(&self, query: &ConflictQuery) -> Result<Vec<IndexedConflict>> {
        let v = self.call("listConflicts", &[arg(query)?]).await?;
        self.read(v, "listConflicts")
    }

    async fn dirty_slots(&self, query: &DirtyQuery) -> Result<Vec<SlotRef>> {
        let v = self.call("dirtySlots", &[arg(query)?]).await?;
        self.read(v, "dirtySlots")
    }
}

/// `now` from config, or `Date.now()`.
pub struct JsClock(pub Option<Function>);

impl Clock for JsClock {
    fn now(&self) -> Result<Timestamp> {
        let Some(f) = &self.0 else {
            return Ok(Timestamp::from_millis(js_sys::Date::now() as i64));
        };
        let v = f.call0(&JsValue::UNDEFINED).map_err(|e| js_failure(ErrorCode::HookFailed, "now()", e))?;
        if let Some(ms) = v.as_f64() {
            return Timestamp::checked(ms as i64, "now()");
        }
        if let Some(date) = v.dyn_ref::<js_sys::Date>() {
            return Timestamp::checked(date.get_time() as i64, "now()");
        }
        match v.as_string() {
            Some(text) => Timestamp::parse(&text, "now()"),
            None => Err(Error::new(ErrorCode::HookFailed, "now(): must return an ISO string, a Date or epoch milliseconds").with_field("now")),
        }
    }
}

pub struct JsMerge(pub Function);

/// `{ content: text }`: a merge hook's plain-string answer as its object form.
fn content_object(text: &JsValue) -> JsValue {
    let object = js_sys::Object::new();
    let _ = Reflect::set(&object, &"content".into(), text);
    object.into()
}

#[async_trait(?Send)]
impl MergeHook for JsMerge {
    async fn merge(&self, entries: &[Claim], incoming: &Claim) -> Result<MergeResult> {
        let argv = [arg(&entries)?, arg(incoming)?];
        let holder = js_sys::Object::new();
        let _ = Reflect::set(&holder, &"merge".into(), &self.0);
        let v = call(&holder, "merge", &argv, ErrorCode::HookFailed, "merge hook").await?;
        // A plain string goes through the same checks as an object's content (no NUL, no lone surrogate).
        let v = if v.is_string() { content_object(&v) } else { v };
        if js_sys::Array::is_array(&v) {
            // serde would read `["text"]` as `{ content: "text" }`, by position.
            return Err(Error::new(ErrorCode::HookFailed, "merge hook result: must be a string or { content, contradicts?, reason? }, not an array"));
        }
        let result: MergeResult = from_js(v, "merge hook result", ErrorCode::HookFailed)?;
        if result.content.trim().is_empty() {
            return Err(Error::new(ErrorCode::HookFailed, "merge hook result: content must be a non-empty string").with_field("content"));
        }
        Ok(result)
    }
}

pub struct JsJudge(pub JsValue);

#[async_trait(?Send)]
impl Judge for JsJudge {
    async fn find_pairs(&self, claims: &[Claim]) -> Result<Vec<PairRef>> {
        let v = call(&self.0, "findPairs", &[arg(&claims)?], ErrorCode::HookFailed, "judge.findPairs").await?;
        // Malformed pairs are ignored, as the spec asks; anything but an array
        // (`{ pairs: [...] }`, null) is a broken judge: an error, so the slot
        // is not marked reviewed and the next pass looks at it again.
        let items: Vec<serde_json::Value> = from_js(v, "judge.findPairs() result", ErrorCode::HookFailed)
            .map_err(|e| Error::new(ErrorCode::HookFailed, format!("judge.findPairs() must return an array of {{ earlier, newer }} ({})", e.message)))?;
        Ok(items.into_iter().filter_map(|p| serde_json::from_value::<PairRef>(p).ok()).collect())
    }

    async fn confirm_pair(&self, earlier: &Claim, newer: &Claim) -> Result<PairVerdict> {
        let v = call(&self.0, "confirmPair", &[arg(earlier)?, arg(newer)?], ErrorCode::HookFailed, "judge.confirmPair").await?;
        from_js(v, "judge.confirmPair() result", ErrorCode::HookFailed)
    }
}
