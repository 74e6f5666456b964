//! Core errors become instances of the package's `CredenceError` /
//! `ConcurrencyError` classes, registered by the JS entry at load time, so
//! `instanceof` works. A JS error thrown by a store or hook is kept as `cause`;
//! a `CredenceError` thrown by a store passes through unchanged.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Array, Function, Object, Reflect};
use wasm_bindgen::prelude::*;

use crate::error::{Error, ErrorCode};

thread_local! {
    static CLASSES: RefCell<Option<(Function, Function)>> = const { RefCell::new(None) };
}

/// Called once by the package entry with its two error classes.
#[wasm_bindgen(js_name = setErrorClasses, skip_typescript)]
pub fn set_error_classes(credence: Function, concurrency: Function) {
    CLASSES.with(|c| *c.borrow_mut() = Some((credence, concurrency)));
}

/// The same registration, callable from Rust (the wasm binding tests use it).
pub fn set_error_classes_for_tests(credence: Function, concurrency: Function) {
    set_error_classes(credence, concurrency);
}

fn is_credence_error(value: &JsValue) -> bool {
    CLASSES.with(|c| match &*c.borrow() {
        Some((credence, _)) => value.is_object() && value.unchecked_ref::<Object>().is_instance_of_with(credence),
        None => false,
    })
}

trait InstanceOf {
    fn is_instance_of_with(&self, ctor: &Function) -> bool;
}

impl InstanceOf for Object {
    fn is_instance_of_with(&self, ctor: &Function) -> bool {
        Reflect::get(ctor, &JsValue::from_str("prototype"))
            .map(|proto| proto.is_object() && proto.unchecked_into::<Object>().is_prototype_of(self))
            .unwrap_or(false)
    }
}

/// Wraps what user JS threw so the core can carry it.
pub fn js_failure(code: ErrorCode, what: &str, thrown: JsValue) -> Error {
    let detail = Reflect::get(&thrown, &JsValue::from_str("message"))
        .ok()
        .and_then(|m| m.as_string())
        .or_else(|| thrown.as_string())
        .unwrap_or_else(|| "threw a non-Error value".into());
    Error::new(code, format!("{what} failed: {detail}")).with_cause(Rc::new(thrown))
}

pub fn to_js_error(err: Error) -> JsValue {
    let cause: Option<JsValue> = err.cause.as_ref().and_then(|c| c.downcast_ref::<JsValue>().cloned());
    if let Some(c) = &cause {
        // Passed on as thrown only with a stable code: a code of the thrower's
        // own making is wrapped (STORE_FAILED, HOOK_FAILED…), kept as `cause`.
        let known = Reflect::get(c, &"code".into()).ok().and_then(|code| code.as_string()).is_some_and(|code| ErrorCode::is_known(&code));
        if is_credence_error(c) && known {
            return c.clone();
        }
    }
    let options = Object::new();
    let _ = Reflect::set(&options, &"code".into(), &err.code.as_str().into());
    if let Some(field) = &err.field {
        let _ = Reflect::set(&options, &"field".into(), &field.into());
    }
    if let Some(c) = &cause {
        let _ = Reflect::set(&options, &"cause".into(), c);
    }
    let message = JsValue::from_str(&err.message);
    let built = CLASSES.with(|c| {
        c.borrow().as_ref().and_then(|(credence, concurrency)| {
            let ctor = if err.code == ErrorCode::Concurrency { concurrency } else { credence };
            Reflect::construct(ctor, &Array::of2(&message, &options)).ok()
        })
    });
    built.unwrap_or_else(|| {
        let e = js_sys::Error::new(&err.message);
        e.set_name("CredenceError");
        let _ = Reflect::set(&e, &"code".into(), &err.code.as_str().into());
        e.into()
    })
}
