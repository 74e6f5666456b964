//! JS objects behind the core's traits: a `ClaimStore`, the clock, the merge
//! hook and the judge. Every call into user JS is `catch`ed and awaited through
//! `Promise.resolve`, so sync and async implementations both work and a throw
//! becomes a `CredenceError` carrying the original as `cause`.

use async_trait::async_trait;
use js_sys::{Array, Function, Promise, Reflect};
use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::convert::{from_js, to_js};
use super::errors::js_failure;
use crate::error::{Error, ErrorCode, Result};
use crate::hooks::{Clock, Judge, MergeHook, MergeResult, PairRef, PairVerdict};
use crate::entities::EntityKeyRow;
use crate::model::{Claim, ConflictQuery, DirtyQuery, IndexedConflict, LogEntry, Slot, SlotCommit, SlotIndex, SlotRef};
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
    let mut index = SlotIndex::of(&commit.slot_ref, &commit.slot);
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

/// A JS `ClaimStore`.
pub struct JsStore {
    target: JsValue,
    /// The store has `loadSlotToWrite` (it may hold snapshots of slots).
    holds: bool,
    /// The store has `findWrite`: it indexes candidate ids store-wide.
    finds_writes: bool,
    /// The store has `findEntities`: it keeps entity key rows.
    finds_entities: bool,
}

impl JsStore {
    pub fn new(target: JsValue) -> Self {
        let has = |method: &str| Reflect::get(&target, &method.into()).is_ok_and(|f| f.is_function());
        let (holds, finds_writes, finds_entities) = (has("loadSlotToWrite"), has("findWrite"), has("findEntities"));
        JsStore { target, holds, finds_writes, finds_entities }
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
    async fn load_slot(&self, slot: &SlotRef) -> Result<Slot> {
        let v = self.call("loadSlot", &[arg(slot)?]).await?;
        if absent(&v) { Ok(Slot::default()) } else { checked(self.read(v, "loadSlot")?, slot, "loadSlot") }
    }

    /// `store.loadSlotToWrite(ref)` answers `{ slot, held }`: `held` when the
    /// slot came from a snapshot the store kept rather than from its backend.
    async fn load_slot_to_write(&self, slot: &SlotRef) -> Result<(Slot, bool)> {
        if !self.holds {
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
        let v = self.call("commitSlot", &[commit_arg(commit, self.finds_writes)?]).await?;
        v.as_bool().ok_or_else(|| {
            Error::new(ErrorCode::MalformedStoreData, "store.commitSlot() result: must be true (written) or false (version moved on)")
        })
    }

    /// `store.findEntities({ type, keys })`; a store without it is answered
    /// by loading every entity slot (correct, and slower as the store grows).
    async fn find_entities(&self, entity_type: &str, keys: &[String]) -> Result<Vec<EntityKeyRow>> {
        if !self.finds_entities {
            return crate::store_scan::entities_by_scan(self, entity_type, keys).await;
        }
        let query = js_sys::Object::new();
        let _ = Reflect::set(&query, &"type".into(), &entity_type.into());
        let _ = Reflect::set(&query, &"keys".into(), &arg(&keys)?);
        let v = self.call("findEntities", &[query.into()]).await?;
        if absent(&v) {
            return Ok(Vec::new());
        }
        self.read(v, "findEntities")
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
