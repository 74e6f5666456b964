//! `MemoryStore` for JS: the embedded in-memory store. Passed to `new Memory`
//! it is used natively (no boundary crossing per call); it also implements the
//! `ClaimStore` methods so JS code can wrap it or share it between engines.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use js_sys::{Promise, Reflect};
use wasm_bindgen::prelude::*;

use super::convert::from_js;
use crate::error::ErrorCode;
use crate::model::{ConflictQuery, DirtyQuery, SlotCommit, SlotRef};
use crate::store::{MemoryStore as CoreStore, Store};

thread_local! {
    static HANDLES: RefCell<(u32, HashMap<u32, Rc<CoreStore>>)> = RefCell::new((0, HashMap::new()));
}

const HANDLE_KEY: &str = "__credenceStore";

/// Finds the native store behind a JS `MemoryStore`, if `value` is one.
pub fn native_store_of(value: &JsValue) -> Option<Rc<dyn Store>> {
    let handle = Reflect::get(value, &HANDLE_KEY.into()).ok()?.as_f64()? as u32;
    HANDLES.with(|h| h.borrow().1.get(&handle).cloned()).map(|s| s as Rc<dyn Store>)
}

#[wasm_bindgen]
pub struct MemoryStore {
    handle: u32,
    inner: Rc<CoreStore>,
}

impl Drop for MemoryStore {
    fn drop(&mut self) {
        let handle = self.handle;
        HANDLES.with(|h| h.borrow_mut().1.remove(&handle));
    }
}

#[wasm_bindgen]
impl MemoryStore {
    #[wasm_bindgen(constructor)]
    pub fn new() -> MemoryStore {
        let inner = Rc::new(CoreStore::new());
        let handle = HANDLES.with(|h| {
            let mut h = h.borrow_mut();
            h.0 += 1;
            let id = h.0;
            h.1.insert(id, inner.clone());
            id
        });
        MemoryStore { handle, inner }
    }

    #[wasm_bindgen(getter, js_name = __credenceStore, skip_typescript)]
    pub fn handle(&self) -> u32 {
        self.handle
    }

    /// How many claims the store holds.
    #[wasm_bindgen(getter, js_name = claimCount)]
    pub fn claim_count(&self) -> usize {
        self.inner.claim_count()
    }

    #[wasm_bindgen(js_name = loadSlot, unchecked_return_type = "Promise<Slot>")]
    pub fn load_slot(&self, #[wasm_bindgen(unchecked_param_type = "SlotRef")] slot: JsValue) -> Promise {
        let store = self.inner.clone();
        super::memory::promise(async move { store.load_slot(&from_js::<SlotRef>(slot, "ref", ErrorCode::InvalidInput)?).await })
    }

    #[wasm_bindgen(js_name = commitSlot, unchecked_return_type = "Promise<boolean>")]
    pub fn commit_slot(&self, #[wasm_bindgen(unchecked_param_type = "SlotCommit")] commit: JsValue) -> Promise {
        let store = self.inner.clone();
        super::memory::promise(async move { store.commit_slot(&from_js::<SlotCommit>(commit, "commit", ErrorCode::InvalidInput)?).await })
    }

    #[wasm_bindgen(js_name = findClaim, unchecked_return_type = "Promise<SlotRef | null>")]
    pub fn find_claim(&self, claim_id: String) -> Promise {
        let store = self.inner.clone();
        super::memory::promise(async move { store.find_claim(&claim_id).await })
    }

    #[wasm_bindgen(js_name = findConflict, unchecked_return_type = "Promise<SlotRef | null>")]
    pub fn find_conflict(&self, conflict_id: String) -> Promise {
        let store = self.inner.clone();
        super::memory::promise(async move { store.find_conflict(&conflict_id).await })
    }

    /// The slot a candidate id (idempotency key) was written to.
    #[wasm_bindgen(js_name = findWrite, unchecked_return_type = "Promise<SlotRef | null>")]
    pub fn find_write(&self, write_id: String) -> Promise {
        let store = self.inner.clone();
        super::memory::promise(async move { store.find_write(&write_id).await })
    }

    #[wasm_bindgen(js_name = listSlots, unchecked_return_type = "Promise<SlotRef[]>")]
    pub fn list_slots(&self, #[wasm_bindgen(unchecked_param_type = "{ subject?: string } | undefined")] filter: JsValue) -> Promise {
        let subject = if filter.is_object() { Reflect::get(&filter, &"subject".into()).ok().and_then(|s| s.as_string()) } else { None };
        let store = self.inner.clone();
        super::memory::promise(async move { store.list_slots(subject.as_deref()).await })
    }

    /// Privacy erasure: `commitSlot`, with the slot's log replaced by `log` in the same step.
    #[wasm_bindgen(js_name = eraseSlot, unchecked_return_type = "Promise<boolean>")]
    pub fn erase_slot(
        &self,
        #[wasm_bindgen(unchecked_param_type = "SlotCommit")] commit: JsValue,
        #[wasm_bindgen(unchecked_param_type = "LogEntry[]")] log: JsValue,
    ) -> Promise {
        let store = self.inner.clone();
        super::memory::promise(async move {
            let commit = from_js::<SlotCommit>(commit, "commit", ErrorCode::InvalidInput)?;
            let log = from_js::<Vec<crate::model::LogEntry>>(log, "log", ErrorCode::InvalidInput)?;
            store.erase_slot(&commit, &log).await
        })
    }

    #[wasm_bindgen(js_name = listConflicts, unchecked_return_type = "Promise<IndexedConflict[]>")]
    pub fn list_conflicts(&self, #[wasm_bindgen(unchecked_param_type = "ConflictQuery")] query: JsValue) -> Promise {
        let store = self.inner.clone();
        super::memory::promise(async move { store.list_conflicts(&from_js::<ConflictQuery>(query, "query", ErrorCode::InvalidInput)?).await })
    }

    #[wasm_bindgen(js_name = dirtySlots, unchecked_return_type = "Promise<SlotRef[]>")]
    pub fn dirty_slots(&self, #[wasm_bindgen(unchecked_param_type = "DirtyQuery")] query: JsValue) -> Promise {
        let store = self.inner.clone();
        super::memory::promise(async move { store.dirty_slots(&from_js::<DirtyQuery>(query, "query", ErrorCode::InvalidInput)?).await })
    }

    #[wasm_bindgen(js_name = readLog, unchecked_return_type = "Promise<LogEntry[]>")]
    pub fn read_log(&self, #[wasm_bindgen(unchecked_param_type = "SlotRef")] slot: JsValue) -> Promise {
        let store = self.inner.clone();
        super::memory::promise(async move { store.read_log(&from_js::<SlotRef>(slot, "ref", ErrorCode::InvalidInput)?).await })
    }
}

impl Default for MemoryStore {
    fn default() -> Self {
        Self::new()
    }
}
