//! The `Memory` class and the free functions of the public API (SPEC §7).
//! Each method converts its arguments, calls the engine, converts the result.

use std::future::Future;
use std::rc::Rc;

use js_sys::{Function, Object, Promise, Reflect};
use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

use super::bridge::{JsClock, JsJudge, JsMerge, JsStore};
use super::convert::{from_js, from_js_or_default, from_js_plain, get_field, only_keys, to_js};
use super::errors::to_js_error;
use super::memory_store::native_store_of;
use crate::config::EngineConfig;
use crate::engine::{Engine, Hooks, RecallOptions, WriteOptions};
use crate::error::{Error, ErrorCode, Result};
use crate::hooks::Judge;
use crate::model::{Candidate, ConflictStatus, Outcome};
use crate::store::Store;

/// A `new Memory()` config: the data part, and the JS objects serde cannot carry.
struct SplitConfig {
    data: EngineConfig,
    store: JsValue,
    merge: Option<Function>,
    now: Option<Function>,
    judge: JsValue,
}

/// Takes the function-valued and object-valued keys out of a config object
/// and reads the rest as data.
fn split_config(config: &JsValue) -> Result<SplitConfig> {
    if config.is_undefined() || config.is_null() {
        return Ok(SplitConfig { data: EngineConfig::default(), store: JsValue::UNDEFINED, merge: None, now: None, judge: JsValue::UNDEFINED });
    }
    if !config.is_object() || js_sys::Array::is_array(config) {
        return Err(Error::invalid("config", "must be an object"));
    }
    let data = super::convert::object_assign(&Object::new(), config).map_err(|e| super::errors::js_failure(ErrorCode::InvalidInput, "config", e).with_field("config"))?;
    let take = |key: &str| {
        let v = Reflect::get(&data, &key.into()).unwrap_or(JsValue::UNDEFINED);
        let _ = Reflect::delete_property(&data, &key.into());
        v
    };
    let store = take("store");
    let merge = take("merge");
    let judge = take("judge");
    let now = take("now");
    let function = |v: JsValue, field: &str| -> Result<Option<Function>> {
        if v.is_undefined() || v.is_null() {
            Ok(None)
        } else {
            v.dyn_into::<Function>().map(Some).map_err(|_| Error::invalid(field, "must be a function"))
        }
    };
    let merge = function(merge, "merge")?;
    let now = function(now, "now")?;
    checked_judge(&judge, "judge")?;
    let data: EngineConfig = from_js(data.into(), "config", ErrorCode::InvalidInput)?;
    Ok(SplitConfig { data, store, merge, now, judge })
}

/// A judge is an object with `findPairs` and `confirmPair` (SPEC §6): checked
/// where it is given, not at the first review. Undefined and null: none.
fn checked_judge(judge: &JsValue, field: &str) -> Result<()> {
    if judge.is_undefined() || judge.is_null() {
        return Ok(());
    }
    let method = |name: &str| Reflect::get(judge, &name.into()).is_ok_and(|f| f.is_function());
    if !judge.is_object() || !method("findPairs") || !method("confirmPair") {
        return Err(Error::invalid(field, "must be a judge: an object with findPairs() and confirmPair()"));
    }
    Ok(())
}

fn js_nfkc(text: &str) -> String {
    js_sys::JsString::from(text).normalize("NFKC").into()
}

fn js_nfd(text: &str) -> String {
    js_sys::JsString::from(text).normalize("NFD").into()
}

fn build_engine(config: &JsValue) -> Result<Engine> {
    crate::normalize::set_host_nfkc(js_nfkc);
    crate::normalize::set_host_nfd(js_nfd);
    let SplitConfig { data: engine_config, store, merge, now, judge } = split_config(config)?;
    let store: Rc<dyn Store> = if store.is_undefined() || store.is_null() {
        Rc::new(crate::store::MemoryStore::new())
    } else if let Some(native) = native_store_of(&store) {
        native
    } else {
        for method in ["loadSlot", "commitSlot", "findClaim", "findConflict", "listSlots", "readLog"] {
            let f = Reflect::get(&store, &method.into()).unwrap_or(JsValue::UNDEFINED);
            if !f.is_function() {
                return Err(Error::invalid("store", format!("must implement ClaimStore; {method}() is missing")));
            }
        }
        for method in ["listConflicts", "dirtySlots"] {
            let f = Reflect::get(&store, &method.into()).unwrap_or(JsValue::UNDEFINED);
            if !f.is_function() {
                return Err(Error::new(
                    ErrorCode::StoreV1,
                    format!(
                        "store implements ClaimStore v1: {method}() is missing. Implement listConflicts() and dirtySlots() \
                         from indexes kept in commitSlot (SPEC §8), or wrap the store: new Memory({{ store: adaptV1Store(store) }}) \
                         (answers by loading every slot, so it slows down as the store grows)"
                    ),
                )
                .with_field("store"));
            }
        }
        Rc::new(JsStore::new(store))
    };
    let judge: Option<Rc<dyn Judge>> = if judge.is_undefined() || judge.is_null() { None } else { Some(Rc::new(JsJudge(judge))) };
    Engine::new(
        store,
        &engine_config,
        Hooks {
            clock: Rc::new(JsClock(now)),
            ids: None,
            merge: merge.map(|f| Rc::new(JsMerge(f)) as Rc<dyn crate::hooks::MergeHook>),
            judge,
        },
    )
    .map(|engine| engine.with_pause(Rc::new(super::calibrate::EventLoopTurn)))
}

/// Runs `work` as a Promise, converting its value and its error.
pub(super) fn promise<T, F>(work: F) -> Promise
where
    T: Serialize + 'static,
    F: std::future::Future<Output = Result<T>> + 'static,
{
    // Boxed: one instance of the promise glue for every method, not one per future type.
    settled_or_spawned(Box::pin(async move {
        let result = work.await;
        super::headroom::keep_headroom();
        match result {
            Ok(v) => to_js(&v),
            Err(e) => Err(to_js_error(e)),
        }
    }))
}

type ApiFuture = std::pin::Pin<Box<dyn std::future::Future<Output = std::result::Result<JsValue, JsValue>>>>;

thread_local! {
    /// An API call's future is being polled: a hook it called (`now`,
    /// `merge`, a store method) is running JS right now.
    static POLLING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// An API call's future, marked as running while it is polled.
struct Guarded(ApiFuture);

impl std::future::Future for Guarded {
    type Output = std::result::Result<JsValue, JsValue>;
    fn poll(mut self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<Self::Output> {
        let outer = POLLING.with(|p| p.replace(true));
        let polled = self.0.as_mut().poll(cx);
        POLLING.with(|p| p.set(outer));
        polled
    }
}

/// The Promise of an API call. A call that never waits (the in-memory
/// store, synchronous hooks) is finished now and answered with a settled
/// Promise, skipping the task queue; one that waits goes on as a task. A
/// future may be polled again with another waker: the JS promises it awaits
/// keep the latest one. A call made from inside another's hook is queued as
/// a task, never run inside the engine call that is under way.
fn settled_or_spawned(boxed: ApiFuture) -> Promise {
    let mut guarded = Guarded(boxed);
    if POLLING.with(|p| p.get()) {
        return future_to_promise(guarded);
    }
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    match std::pin::Pin::new(&mut guarded).poll(&mut cx) {
        std::task::Poll::Ready(Ok(v)) => Promise::resolve(&v),
        std::task::Poll::Ready(Err(e)) => Promise::reject(&e),
        std::task::Poll::Pending => future_to_promise(guarded),
    }
}

fn rejected(e: Error) -> Promise {
    Promise::reject(&to_js_error(e))
}

/// An optional string argument: absent (undefined, null) or a string, never
/// something else read as absent (`recall(123)` must not read the default subject).
fn optional_string(v: &JsValue, field: &str) -> Result<Option<String>> {
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    text(v, field)?.map(Some).ok_or_else(|| Error::invalid(field, "must be a string"))
}

pub(super) fn string_arg(v: &JsValue, field: &str) -> Result<String> {
    text(v, field)?.filter(|s| !s.trim().is_empty()).ok_or_else(|| Error::invalid(field, "must be a non-empty string"))
}

/// `v` as text, None when it is no string. A lone surrogate would cross as
/// U+FFFD: refused instead, as in every JSON-borne input. Only text that
/// decoded with a U+FFFD can have held one, so only it is checked code unit
/// by code unit.
fn text(v: &JsValue, field: &str) -> Result<Option<String>> {
    let Some(s) = v.as_string() else { return Ok(None) };
    if s.contains('\u{FFFD}') && !js_sys::JsString::from(v.clone()).is_valid_utf16() {
        return Err(Error::invalid(field, "is not valid Unicode text (a lone surrogate)"));
    }
    Ok(Some(s))
}

/// Memory: remember facts, recall beliefs, explain them, settle conflicts.
///
/// ```js
/// import { Memory } from 'credence';
/// const memory = new Memory();
/// await memory.remember({ predicate: 'located_in', object: 'NYC' });
/// const outcome = await memory.remember({ predicate: 'located_in', object: 'San Francisco' });
/// outcome.action; // "superseded"
/// ```
#[wasm_bindgen]
pub struct Memory {
    engine: Rc<Engine>,
    pub(super) background: super::calibrate::Background,
}

impl Memory {
    /// Runs `work` on the engine once the arguments parsed; a parse error rejects the Promise.
    pub(super) fn spawn<A, T, F, Fut>(&self, args: Result<A>, work: F) -> Promise
    where
        T: Serialize + 'static,
        F: FnOnce(Rc<Engine>, A) -> Fut,
        Fut: std::future::Future<Output = Result<T>> + 'static,
    {
        match args {
            Ok(a) => promise(work(self.engine.clone(), a)),
            Err(e) => rejected(e),
        }
    }
}

#[wasm_bindgen]
impl Memory {
    /// Throws a `CredenceError` on a bad config (unknown strategy, bad numbers, a store missing methods).
    #[wasm_bindgen(constructor)]
    pub fn new(#[wasm_bindgen(unchecked_param_type = "MemoryConfig")] config: Option<JsValue>) -> std::result::Result<Memory, JsValue> {
        build_engine(&config.unwrap_or(JsValue::UNDEFINED)).map(|e| Memory { engine: Rc::new(e), background: Default::default() }).map_err(to_js_error)
    }

    /// Writes one candidate fact; resolves to what memory did with it.
    #[wasm_bindgen(unchecked_return_type = "Promise<Outcome>")]
    pub fn remember(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Candidate")] candidate: JsValue,
        #[wasm_bindgen(unchecked_param_type = "WriteOptions")] options: Option<JsValue>,
    ) -> Promise {
        let parsed = from_js_plain::<Candidate>(candidate, "candidate", false)
            .and_then(|c| Ok((c, from_js_or_default::<WriteOptions>(options.unwrap_or(JsValue::UNDEFINED), "options")?)));
        let background = self.background.clone();
        self.spawn(parsed, move |engine, (candidate, options)| async move {
            let outcome = engine.remember(&candidate, &options).await;
            background.after_write(&engine, outcome.as_ref().is_ok_and(Outcome::stored));
            outcome
        })
    }

    /// Writes many candidates: one load and one atomic commit per slot. All are
    /// validated first; resolves to one outcome per candidate, in order.
    #[wasm_bindgen(js_name = rememberMany, unchecked_return_type = "Promise<Outcome[]>")]
    pub fn remember_many(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Candidate[]")] candidates: JsValue,
        #[wasm_bindgen(unchecked_param_type = "WriteOptions")] options: Option<JsValue>,
    ) -> Promise {
        let parsed = from_js_plain::<Vec<Candidate>>(candidates, "candidates", true)
            .and_then(|c| Ok((c, from_js_or_default::<WriteOptions>(options.unwrap_or(JsValue::UNDEFINED), "options")?)));
        let background = self.background.clone();
        self.spawn(parsed, move |engine, (candidates, options)| async move {
            let outcomes = engine.remember_many(&candidates, &options).await;
            background.after_write(&engine, outcomes.as_ref().is_ok_and(|os| os.iter().any(Outcome::stored)));
            outcomes
        })
    }

    /// Current beliefs about a subject (default subject when omitted).
    #[wasm_bindgen(unchecked_return_type = "Promise<Claim[]>")]
    pub fn recall(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] subject: Option<JsValue>,
        #[wasm_bindgen(unchecked_param_type = "RecallOptions")] options: Option<JsValue>,
    ) -> Promise {
        let subject = optional_string(&subject.unwrap_or(JsValue::UNDEFINED), "subject");
        let args = subject.and_then(|s| Ok((s, from_js_or_default::<RecallOptions>(options.unwrap_or(JsValue::UNDEFINED), "options")?)));
        self.spawn(args, move |engine, (subject, options)| async move { engine.recall(subject.as_deref(), &options).await })
    }

    /// Every subject memory holds facts about (entity ids included), sorted.
    #[wasm_bindgen(unchecked_return_type = "Promise<string[]>")]
    pub fn subjects(&self) -> Promise {
        self.spawn(Ok(()), |engine, ()| async move { engine.subjects().await })
    }

    /// The claim, its lineage and every log entry that explains it.
    #[wasm_bindgen(unchecked_return_type = "Promise<Why>")]
    pub fn why(&self, #[wasm_bindgen(unchecked_param_type = "string")] claim_id: JsValue) -> Promise {
        self.spawn(string_arg(&claim_id, "claimId"), move |engine, id| async move { engine.why(&id).await })
    }

    /// Conflicts, open first then oldest first; `{ status }` filters.
    #[wasm_bindgen(unchecked_return_type = "Promise<Conflict[]>")]
    pub fn conflicts(&self, #[wasm_bindgen(unchecked_param_type = "ConflictsOptions")] options: Option<JsValue>) -> Promise {
        #[derive(serde::Deserialize, Default)]
        #[serde(deny_unknown_fields)]
        struct Opts {
            #[serde(default)]
            status: Option<ConflictStatus>,
        }
        self.spawn(from_js_or_default::<Opts>(options.unwrap_or(JsValue::UNDEFINED), "options"), move |engine, opts| async move { engine.conflicts(opts.status).await })
    }

    /// Settles a conflict: "keep_newer" | "keep_earlier" | "keep_both"; a
    /// `same_entity` conflict: "same" (merge, undoable) | "different".
    #[wasm_bindgen(unchecked_return_type = "Promise<Conflict>")]
    pub fn settle(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] conflict_id: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Settlement")] settlement: JsValue,
        #[wasm_bindgen(unchecked_param_type = "SettleOptions")] options: Option<JsValue>,
    ) -> Promise {
        #[derive(serde::Deserialize, Default)]
        #[serde(deny_unknown_fields)]
        struct Opts {
            #[serde(default)]
            by: Option<String>,
        }
        let args = string_arg(&conflict_id, "conflictId").and_then(|id| {
            let s = settlement.as_string().ok_or_else(|| {
                Error::new(ErrorCode::InvalidSettlement, "settlement: must be keep_newer, keep_earlier, keep_both, same or different").with_field("settlement")
            })?;
            Ok((id, s, from_js_or_default::<Opts>(options.unwrap_or(JsValue::UNDEFINED), "options")?))
        });
        self.spawn(args, move |engine, (id, settlement, opts)| async move { engine.settle(&id, &settlement, opts.by.as_deref()).await })
    }

    /// Reverts a settlement exactly and reopens the conflict; given a
    /// retraction id (`rt:…`), puts the retracted claim back instead.
    #[wasm_bindgen(unchecked_return_type = "Promise<Conflict>")]
    pub fn undo(&self, #[wasm_bindgen(unchecked_param_type = "string")] conflict_id: JsValue) -> Promise {
        self.spawn(string_arg(&conflict_id, "conflictId"), move |engine, id| async move { engine.undo_any(&id).await })
    }

    /// The judge-driven review pass over slots with new entries.
    #[wasm_bindgen(unchecked_return_type = "Promise<ReviewReport>")]
    pub fn review(&self, #[wasm_bindgen(unchecked_param_type = "ReviewOptions")] options: Option<JsValue>) -> Promise {
        let options = options.unwrap_or(JsValue::UNDEFINED);
        // Keys first (an unknown key is named before any getter runs), then
        // each field; whatever throws is INVALID_INPUT naming the field.
        let fields = only_keys(&options, &["judge", "budget"], "options")
            .and_then(|_| Ok((get_field(&options, "judge", "options")?, get_field(&options, "budget", "options")?)));
        let (judge, budget) = match &fields {
            Ok((j, b)) => (j.clone(), b.clone()),
            Err(_) => (JsValue::UNDEFINED, JsValue::UNDEFINED),
        };
        let budget = if let Err(e) = fields {
            Err(e)
        } else if let Err(e) = checked_judge(&judge, "options.judge") {
            Err(e)
        } else if budget.is_undefined() {
            Ok(160)
        } else {
            budget
                .as_f64()
                .filter(|b| b.is_finite() && *b >= 0.0 && b.fract() == 0.0)
                .map(|b| b as u32)
                .ok_or_else(|| Error::invalid("budget", "must be a whole number ≥ 0"))
        };
        self.spawn(budget, move |engine, budget| async move {
            let judge = if judge.is_undefined() || judge.is_null() { None } else { Some(JsJudge(judge)) };
            engine.review(judge.as_ref().map(|j| j as &dyn Judge), budget).await
        })
    }

    /// An entity by id (`org:acme`) or by name with `{ type }`, with how the name resolved; null when unknown.
    #[wasm_bindgen(unchecked_return_type = "Promise<EntityView | null>")]
    pub fn entity(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] id_or_name: JsValue,
        #[wasm_bindgen(unchecked_param_type = "EntityOptions")] options: Option<JsValue>,
    ) -> Promise {
        let options = options.unwrap_or(JsValue::UNDEFINED);
        let ty = only_keys(&options, &["type"], "options").and_then(|_| get_field(&options, "type", "options"));
        let (args, ty) = match ty {
            Ok(t) => match optional_string(&t, "options.type") {
                Ok(t) => (string_arg(&id_or_name, "idOrName"), t),
                Err(e) => (Err(e), None),
            },
            Err(e) => (Err(e), None),
        };
        self.spawn(args, move |engine, name| async move { engine.entity(&name, ty.as_deref()).await })
    }

    /// A person's merge of entity `from` into `into` (facts reconciled through the normal rules).
    #[wasm_bindgen(js_name = mergeEntities, unchecked_return_type = "Promise<EntityMerge>")]
    pub fn merge_entities(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] into: JsValue,
        #[wasm_bindgen(unchecked_param_type = "string")] from: JsValue,
    ) -> Promise {
        let args = string_arg(&into, "into").and_then(|a| Ok((a, string_arg(&from, "from")?)));
        self.spawn(args, move |engine, (into, from)| async move { engine.merge_entities(&into, &from).await })
    }

    /// Reverts an entity merge exactly (claims the merge created are retired,
    /// not deleted), or rolls back one a crash cut short; `UNDO_STALE` when a
    /// claim it changed has changed since.
    #[wasm_bindgen(js_name = undoEntityMerge, unchecked_return_type = "Promise<EntityMerge>")]
    pub fn undo_entity_merge(&self, #[wasm_bindgen(unchecked_param_type = "string")] merge_id: JsValue) -> Promise {
        self.spawn(string_arg(&merge_id, "mergeId"), move |engine, id| async move { engine.undo_entity_merge(&id).await })
    }

    /// Runs the SPEC §6 invariant checker over every slot of the store;
    /// resolves to the violations found (empty when memory is sound). Reads
    /// every slot: for tests and diagnostics, not for a hot path.
    #[wasm_bindgen(js_name = checkInvariants, unchecked_return_type = "Promise<Violation[]>")]
    pub fn check_invariants(&self) -> Promise {
        self.spawn(Ok(()), move |engine, ()| async move { engine.check_invariants().await })
    }

    /// Finishes an entity merge (or an undo of one) that a crash cut short.
    #[wasm_bindgen(js_name = resumeEntityMerge, unchecked_return_type = "Promise<EntityMerge>")]
    pub fn resume_entity_merge(&self, #[wasm_bindgen(unchecked_param_type = "string")] merge_id: JsValue) -> Promise {
        self.spawn(string_arg(&merge_id, "mergeId"), move |engine, id| async move { engine.resume_entity_merge(&id).await })
    }

    /// Entity merges a crash cut short (`pending` or `undoing`).
    #[wasm_bindgen(js_name = unfinishedEntityMerges, unchecked_return_type = "Promise<EntityMerge[]>")]
    pub fn unfinished_entity_merges(&self) -> Promise {
        self.spawn(Ok(()), move |engine, ()| async move { engine.unfinished_entity_merges().await })
    }

    /// The Memoir-compatible v2 blob of a slot.
    #[wasm_bindgen(unchecked_return_type = "Promise<Blob>")]
    pub fn blob(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] predicate: JsValue,
        #[wasm_bindgen(unchecked_param_type = "SubjectOptions")] options: Option<JsValue>,
    ) -> Promise {
        let args = string_arg(&predicate, "predicate").and_then(|p| Ok((p, subject_of(options.as_ref())?)));
        self.spawn(args, move |engine, (predicate, subject)| async move { engine.blob(&predicate, subject.as_deref()).await })
    }

    /// Loads a v1 or v2 blob into the slot named by its `key`: into an empty
    /// slot as it is, into an occupied one each active entry as a write by the
    /// slot's strategy. One outcome per entry, in the blob's order.
    #[wasm_bindgen(js_name = importBlob, unchecked_return_type = "Promise<Outcome[]>")]
    pub fn import_blob(
        &self,
        #[wasm_bindgen(unchecked_param_type = "object")] blob: JsValue,
        #[wasm_bindgen(unchecked_param_type = "SubjectOptions")] options: Option<JsValue>,
    ) -> Promise {
        let args = super::convert::json_from_js(&blob, "blob").and_then(|b| Ok((b, subject_of(options.as_ref())?)));
        let background = self.background.clone();
        self.spawn(args, move |engine, (blob, subject)| async move {
            let outcomes = engine.import_blob(&blob, subject.as_deref()).await;
            background.after_write(&engine, outcomes.as_ref().is_ok_and(|os| os.iter().any(Outcome::stored)));
            outcomes
        })
    }
}

fn subject_of(options: Option<&JsValue>) -> Result<Option<String>> {
    let Some(options) = options.filter(|o| o.is_object()) else {
        return Ok(None);
    };
    only_keys(options, &["subject"], "options")?;
    let v = get_field(options, "subject", "options")?;
    if v.is_undefined() {
        Ok(None)
    } else {
        string_arg(&v, "subject").map(Some)
    }
}

/// One-shot form: `reconcile(candidate, { store, ...config })`.
#[wasm_bindgen(unchecked_return_type = "Promise<Outcome>")]
pub fn reconcile(
    #[wasm_bindgen(unchecked_param_type = "Candidate")] candidate: JsValue,
    #[wasm_bindgen(unchecked_param_type = "MemoryConfig & { strategy?: string; expectedVersion?: number }")] config: JsValue,
) -> Promise {
    // The options of a one-shot call are this write's options: `strategy` is
    // the call's (strategySource "call") and `expectedVersion` is honoured.
    let split = || -> std::result::Result<(JsValue, JsValue), JsValue> {
        if !config.is_object() {
            return Ok((config.clone(), JsValue::UNDEFINED));
        }
        let rest = super::convert::object_assign(&Object::new(), &config)?;
        let write = Object::new();
        for key in ["strategy", "expectedVersion"] {
            let v = Reflect::get(&rest, &key.into())?;
            if !v.is_undefined() {
                Reflect::set(&write, &key.into(), &v)?;
            }
            Reflect::delete_property(&rest, &key.into())?;
        }
        Ok((rest.into(), write.into()))
    };
    let (rest, write) = match split() {
        Ok(parts) => parts,
        Err(e) => return rejected(super::errors::js_failure(ErrorCode::InvalidInput, "options", e).with_field("options")),
    };
    match Memory::new(Some(rest)) {
        Ok(memory) => memory.remember(candidate, Some(write)),
        Err(e) => Promise::reject(&e),
    }
}

/// Lifts a v1 blob to schema_version 2 (idempotent; unknown fields kept).
#[wasm_bindgen(js_name = upgradeBlob, unchecked_return_type = "Blob & Record<string, unknown>")]
pub fn upgrade_blob(#[wasm_bindgen(unchecked_param_type = "object")] blob: JsValue) -> std::result::Result<JsValue, JsValue> {
    let value = super::convert::json_from_js(&blob, "blob").map_err(to_js_error)?;
    let upgraded = crate::blob::upgrade_blob(&value).map_err(to_js_error)?;
    to_js(&upgraded)
}

