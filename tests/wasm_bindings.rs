#![allow(clippy::unwrap_used)]
//! Binding tests run inside wasm (Node by default; Chromium with
//! WASM_BINDGEN_USE_BROWSER=1): a store written in JS, error classes, causes.
#![cfg(target_arch = "wasm32")]

use credence::wasm::{Memory, MemoryStore};
use js_sys::{Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

#[wasm_bindgen(inline_js = r#"
export class CredenceError extends Error {
  constructor(message, { code, field, cause } = {}) { super(message, { cause }); this.name = 'CredenceError'; this.code = code; this.field = field; }
}
export class ConcurrencyError extends CredenceError {
  constructor(message, o = {}) { super(message, { ...o, code: 'CONCURRENCY' }); this.name = 'ConcurrencyError'; }
}
export function register(set) { set(CredenceError, ConcurrencyError); }
export function isCredence(e) { return e instanceof CredenceError; }
export function isConcurrency(e) { return e instanceof ConcurrencyError; }
// A ClaimStore (interface v2) written in JS: one document per slot in a Map,
// with the conflict and dirty-slot indexes kept from `commit.index` in commitSlot.
export function mapStore(failOn) {
  const slots = new Map(), logs = new Map(), claims = new Map(), conflicts = new Map();
  const conflictRows = new Map(), dirty = new Map();
  const boom = (m) => { if (m === failOn) throw new Error('disk on fire in ' + m); };
  return {
    calls: 0,
    async loadSlot(ref) { this.calls++; boom('loadSlot'); return slots.get(ref.key) ?? null; },
    async commitSlot(c) {
      this.calls++; boom('commitSlot');
      const cur = slots.get(c.ref.key)?.version ?? 0;
      if (cur !== c.expectedVersion) return false;
      slots.set(c.ref.key, structuredClone(c.slot));
      for (const id of c.changedClaims) claims.set(id, c.ref);
      for (const id of c.changedConflicts) conflicts.set(id, c.ref);
      logs.set(c.ref.key, [...(logs.get(c.ref.key) ?? []), ...c.log]);
      for (const r of c.index?.conflicts ?? []) conflictRows.set(r.id, { id: r.id, status: r.status, openedAt: r.openedAt, ref: c.ref });
      if (c.index?.unreviewed) dirty.set(c.ref.key, c.ref); else dirty.delete(c.ref.key);
      return true;
    },
    async findClaim(id) { return claims.get(id); },
    async findConflict(id) { return conflicts.get(id); },
    async listSlots({ subject } = {}) { return [...slots.keys()].sort().map(k => ({ key: k, subject: k.split('\u001f')[0], predicate: k.split('\u001f')[1] })).filter(r => !subject || r.subject === subject); },
    async readLog(ref) { return logs.get(ref.key) ?? []; },
    async listConflicts({ status, after, limit }) {
      const key = (r) => r.openedAt + '\u0000' + r.id;
      return [...conflictRows.values()].filter(r => r.status === status && (!after || key(r) > key(after)))
        .sort((a, b) => (key(a) < key(b) ? -1 : 1)).slice(0, limit);
    },
    async dirtySlots({ after, limit }) {
      return [...dirty.keys()].sort().filter(k => after === undefined || after === null || k > after).slice(0, limit).map(k => dirty.get(k));
    },
  };
}
export function obj(json) { return JSON.parse(json); }
"#)]
extern "C" {
    fn register(set: &Closure<dyn Fn(js_sys::Function, js_sys::Function)>);
    #[wasm_bindgen(js_name = isCredence)]
    fn is_credence(e: &JsValue) -> bool;
    #[wasm_bindgen(js_name = isConcurrency)]
    fn is_concurrency(e: &JsValue) -> bool;
    #[wasm_bindgen(js_name = mapStore)]
    fn map_store(fail_on: &str) -> JsValue;
    fn obj(json: &str) -> JsValue;
}

fn setup() {
    let set = Closure::<dyn Fn(js_sys::Function, js_sys::Function)>::new(|a, b| {
        credence::wasm::set_error_classes_for_tests(a, b);
    });
    register(&set);
}

async fn wait(p: Promise) -> Result<JsValue, JsValue> {
    JsFuture::from(p).await
}

fn get(v: &JsValue, path: &str) -> JsValue {
    path.split('.').fold(v.clone(), |acc, k| Reflect::get(&acc, &k.into()).unwrap_or(JsValue::UNDEFINED))
}

fn config_with(store: &JsValue) -> JsValue {
    let c = js_sys::Object::new();
    Reflect::set(&c, &"store".into(), store).unwrap();
    c.into()
}

#[wasm_bindgen_test]
async fn a_js_store_backs_remember_and_recall() {
    setup();
    let store = map_store("");
    let memory = Memory::new(Some(config_with(&store))).unwrap();
    let first = wait(memory.remember(obj(r#"{"predicate":"located_in","object":"NYC"}"#), None)).await.unwrap();
    assert_eq!(get(&first, "action").as_string().unwrap(), "added");
    let second = wait(memory.remember(obj(r#"{"predicate":"located_in","object":"San Francisco"}"#), None)).await.unwrap();
    assert_eq!(get(&second, "action").as_string().unwrap(), "superseded");
    assert_eq!(get(&second, "slotVersion").as_f64().unwrap(), 2.0);
    let recalled = wait(memory.recall(None, None)).await.unwrap();
    let list = js_sys::Array::from(&recalled);
    assert_eq!(list.length(), 1);
    assert_eq!(get(&list.get(0), "object").as_string().unwrap(), "San Francisco");
}

#[wasm_bindgen_test]
async fn a_throwing_js_store_becomes_a_credence_error_with_cause() {
    setup();
    let store = map_store("commitSlot");
    let memory = Memory::new(Some(config_with(&store))).unwrap();
    let err = wait(memory.remember(obj(r#"{"predicate":"likes","object":"tea"}"#), None)).await.unwrap_err();
    assert!(is_credence(&err));
    assert_eq!(get(&err, "code").as_string().unwrap(), "STORE_FAILED");
    assert_eq!(get(&err, "cause.message").as_string().unwrap(), "disk on fire in commitSlot");
}

#[wasm_bindgen_test]
async fn bad_input_and_stale_versions_are_refused() {
    setup();
    let store = MemoryStore::new();
    let memory = Memory::new(None).unwrap();
    let err = wait(memory.remember(obj(r#"{"predicate":"","object":"x"}"#), None)).await.unwrap_err();
    assert_eq!(get(&err, "code").as_string().unwrap(), "INVALID_INPUT");
    assert_eq!(get(&err, "field").as_string().unwrap(), "predicate");
    wait(memory.remember(obj(r#"{"predicate":"likes","object":"tea"}"#), None)).await.unwrap();
    let err = wait(memory.remember(obj(r#"{"predicate":"likes","object":"coffee"}"#), Some(obj(r#"{"expectedVersion":0}"#)))).await.unwrap_err();
    assert!(is_concurrency(&err));
    assert_eq!(get(&err, "code").as_string().unwrap(), "CONCURRENCY");
    drop(store);
}
