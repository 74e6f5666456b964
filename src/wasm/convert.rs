//! serde ⇄ JS values through JSON text. Every input is first turned into JSON
//! by a stringify the package entry registers (non-finite numbers and BigInts
//! become strings, so they are refused rather than silently nulled); that
//! step catches hostile getters, cycles and exotic values, and serde_json's
//! recursion limit bounds nesting — no input can trap the wasm or escape as a
//! raw JS exception. Errors name the field at fault.

use std::cell::RefCell;

use js_sys::{Function, JSON};
use serde::de::DeserializeOwned;
use serde::Serialize;
use wasm_bindgen::prelude::*;

use super::errors::js_failure;
use crate::error::{Error, ErrorCode};

thread_local! {
    static STRINGIFY: RefCell<Option<Function>> = const { RefCell::new(None) };
}

/// Called once by the package entry with its JSON encoder.
#[wasm_bindgen(js_name = setStringify, skip_typescript)]
pub fn set_stringify(stringify: Function) {
    STRINGIFY.with(|s| *s.borrow_mut() = Some(stringify));
}

/// JSON text of a JS value; `Ok(None)` for `undefined` (and functions, symbols).
pub fn json_text(value: &JsValue, what: &str) -> Result<Option<String>, Error> {
    let text = STRINGIFY.with(|s| match &*s.borrow() {
        Some(f) => f.call1(&JsValue::UNDEFINED, value),
        None => JSON::stringify(value).map(JsValue::from),
    });
    let text = text.map_err(|e| js_failure(ErrorCode::InvalidInput, &format!("{what}: not plain data"), e).with_field(what))?;
    Ok(text.as_string())
}

pub fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
    let fail = |m: String| super::errors::to_js_error(Error::new(ErrorCode::InvalidInput, m));
    let text = serde_json::to_string(value).map_err(|e| fail(format!("cannot convert a result to JS: {e}")))?;
    JSON::parse(&text).map_err(|_| fail("cannot convert a result to JS".into()))
}

/// Reads a JS value as `T`; `what` names the argument ("candidate") in errors.
pub fn from_js<T: DeserializeOwned>(value: JsValue, what: &str, code: ErrorCode) -> Result<T, Error> {
    // A value that cannot be read (a throwing getter) is the fault of whoever gave it: `code`.
    let text = json_text(&value, what).map_err(|mut e| {
        e.code = code;
        e
    })?.unwrap_or_else(|| "null".into());
    from_json(&text, what, code)
}

/// Reads a JS value that holds no arrays (a candidate, or with `list` a list
/// of them) as `T`. serde reads a struct from an array too, by position
/// (`["alice", null, "likes", "tea"]` would be a candidate): refused here,
/// naming the place, before serde sees it.
pub fn from_js_plain<T: DeserializeOwned>(value: JsValue, what: &str, list: bool) -> Result<T, Error> {
    let text = json_text(&value, what)?.unwrap_or_else(|| "null".into());
    if let Some(at) = array_inside(&text, list) {
        let path = path_at(&text, at);
        let shown = shown_at(what, &path);
        let err = Error::new(ErrorCode::InvalidInput, format!("{shown}: must be an object, not an array"));
        return Err(if path.is_empty() { err.with_field(what) } else { err.with_field(&path) });
    }
    from_json(&text, what, ErrorCode::InvalidInput)
}

/// The byte offset of the first `[` outside a string (after the opening one
/// of a `list`), if any.
fn array_inside(text: &str, list: bool) -> Option<usize> {
    let bytes = text.as_bytes();
    let first = bytes.iter().position(|b| !b.is_ascii_whitespace())?;
    let mut i = if list && bytes[first] == b'[' { first + 1 } else { first };
    while i < bytes.len() {
        match bytes[i] {
            b'"' => i = string_end(bytes, i),
            b'[' => return Some(i),
            _ => {}
        }
        i += 1;
    }
    None
}

/// The index of the quote closing the JSON string that opens at `open`
/// (`bytes.len()` when unclosed).
fn string_end(bytes: &[u8], open: usize) -> usize {
    let mut i = open + 1;
    while i < bytes.len() && bytes[i] != b'"' {
        i += if bytes[i] == b'\\' { 2 } else { 1 };
    }
    i
}

pub fn from_json<T: DeserializeOwned>(text: &str, what: &str, code: ErrorCode) -> Result<T, Error> {
    // Input (a caller's, or a hook's text that will be stored) only: what a
    // store hands back is read as it is.
    if code == ErrorCode::InvalidInput || code == ErrorCode::HookFailed {
        if let Some(at) = nul_at(text) {
            let path = path_at(text, at);
            let shown = shown_at(what, &path);
            let err = Error::new(code, format!("{shown}: contains the NUL character (\\u0000), which PostgreSQL text cannot hold; refused on every store alike"));
            return Err(if path.is_empty() { err.with_field(what) } else { err.with_field(&path) });
        }
    }
    serde_json::from_str(text).map_err(|e| {
        let inner = e.to_string();
        let inner = inner.split(" at line ").next().unwrap_or(&inner).to_string();
        // The field is named relative to the argument ("object",
        // "provenance.sourceTrust"); the message also names the argument.
        let mut path = path_at(text, e.column());
        if let Some(missing) = inner.strip_prefix("missing field `").and_then(|r| r.strip_suffix('`')) {
            path = if path.is_empty() { missing.to_string() } else { format!("{path}.{missing}") };
        }
        // SPEC §11: an unknown key is named, so `asOf` for `at` never passes silently.
        if let Some(key) = inner.strip_prefix("unknown field `").and_then(|r| r.split('`').next()) {
            if !path.ends_with(key) {
                path = if path.is_empty() { key.to_string() } else { format!("{path}.{key}") };
            }
            let shown = shown_at(what, &path);
            let hint = inner.split_once(", expected").map(|(_, rest)| format!(" (expected{rest})")).unwrap_or_default();
            return Error::new(ErrorCode::InvalidInput, format!("{shown}: unknown key {key:?}{hint}")).with_field(&path);
        }
        let shown = shown_at(what, &path);
        // JSON.stringify writes a lone surrogate as an escape serde_json refuses, cryptically.
        let inner = if inner.contains("hex escape") || inner.contains("surrogate") { "is not valid Unicode text (a lone surrogate)".to_string() } else { inner };
        let err = Error::new(code, format!("{shown}: {inner}"));
        if path.is_empty() { err } else { err.with_field(&path) }
    })
}

/// How a message names the place: `candidate.object`, `candidates[1].object`.
fn shown_at(what: &str, path: &str) -> String {
    match path.chars().next() {
        None => what.to_string(),
        Some('[') => format!("{what}{path}"),
        Some(_) => format!("{what}.{path}"),
    }
}

/// The byte offset of the first NUL escape (`\u0000`) in JSON text, if any
/// (`\\u0000`, an escaped backslash before `u0000`, is not one).
fn nul_at(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(found) = text[from..].find("\\u0000") {
        let at = from + found;
        let backslashes = bytes[..at].iter().rev().take_while(|b| **b == b'\\').count();
        if backslashes % 2 == 0 {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// The key path (`provenance.sourceTrust`, `[1].object`) open at byte
/// `column` of one-line JSON text: where serde_json stopped. Cheaper in code
/// size than wrapping every Deserialize impl to track the path.
fn path_at(text: &str, column: usize) -> String {
    enum Frame {
        Object(Option<String>),
        Array(usize),
    }
    let bytes = text.as_bytes();
    let end = column.min(bytes.len());
    let mut stack: Vec<Frame> = Vec::new();
    let mut expecting_key = false;
    let mut i = 0;
    while i < end {
        match bytes[i] {
            b'{' => {
                stack.push(Frame::Object(None));
                expecting_key = true;
            }
            b'[' => stack.push(Frame::Array(0)),
            b'}' | b']' => {
                stack.pop();
            }
            b',' => match stack.last_mut() {
                Some(Frame::Array(n)) => *n += 1,
                Some(Frame::Object(key)) => {
                    *key = None;
                    expecting_key = true;
                }
                None => {}
            },
            b'"' => {
                let start = i;
                i = string_end(bytes, i);
                if expecting_key {
                    if let Some(Frame::Object(key)) = stack.last_mut() {
                        *key = text.get(start..=i.min(bytes.len() - 1)).and_then(|k| serde_json::from_str(k).ok());
                    }
                    expecting_key = false;
                }
            }
            _ => {}
        }
        i += 1;
    }
    let mut path = String::new();
    for frame in &stack {
        match frame {
            Frame::Object(Some(key)) => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(key);
            }
            Frame::Object(None) => {}
            Frame::Array(n) => path.push_str(&format!("[{n}]")),
        }
    }
    path
}

/// `undefined`/`null` → `T::default()`.
/// Refuses (`INVALID_INPUT`, naming the key) any own key of an options object
/// read field by field rather than through serde.
pub fn only_keys(value: &JsValue, allowed: &[&str], what: &str) -> Result<(), Error> {
    if !value.is_object() {
        return Ok(());
    }
    // A Proxy's `ownKeys` trap may throw: that is the caller's bad input
    // (INVALID_INPUT naming the argument), never a raw JS exception.
    let keys = object_keys(value).map_err(|e| js_failure(ErrorCode::InvalidInput, &format!("{what}: reading its keys"), e).with_field(what))?;
    for key in keys.iter().filter_map(|k| k.as_string()) {
        if !allowed.contains(&key.as_str()) {
            return Err(Error::new(ErrorCode::InvalidInput, format!("{what}.{key}: unknown key {key:?} (expected one of {})", allowed.join(", "))).with_field(&key));
        }
    }
    Ok(())
}

/// One field of an options object; a throwing getter is INVALID_INPUT naming
/// the field. `undefined` when `value` is not an object.
pub fn get_field(value: &JsValue, key: &str, what: &str) -> Result<JsValue, Error> {
    if !value.is_object() {
        return Ok(JsValue::UNDEFINED);
    }
    js_sys::Reflect::get(value, &key.into()).map_err(|e| js_failure(ErrorCode::InvalidInput, &format!("{what}.{key}: reading it"), e).with_field(key))
}

pub fn from_js_or_default<T: DeserializeOwned + Default>(value: JsValue, what: &str) -> Result<T, Error> {
    if value.is_undefined() || value.is_null() {
        Ok(T::default())
    } else if js_sys::Array::is_array(&value) {
        Err(Error::invalid(what, "must be an object, not an array"))
    } else {
        from_js(value, what, ErrorCode::InvalidInput)
    }
}

#[wasm_bindgen]
extern "C" {
    /// `Object.assign`, catching what hostile getters or read-only keys throw.
    #[wasm_bindgen(catch, js_namespace = Object, js_name = assign)]
    pub fn object_assign(target: &js_sys::Object, source: &JsValue) -> Result<js_sys::Object, JsValue>;

    /// `Object.keys`, catching what a Proxy's `ownKeys` trap throws.
    #[wasm_bindgen(catch, js_namespace = Object, js_name = keys)]
    fn object_keys(value: &JsValue) -> Result<js_sys::Array, JsValue>;
}

/// Free-form JSON input (blobs) as a `serde_json::Value`.
pub fn json_from_js(value: &JsValue, what: &str) -> Result<serde_json::Value, Error> {
    let text = json_text(value, what)?.unwrap_or_else(|| "null".into());
    from_json(&text, what, ErrorCode::InvalidInput)
}
