//! serde ⇄ JS value conversion with errors that name the field at fault.

use serde::de::DeserializeOwned;
use serde::Serialize;
use wasm_bindgen::JsValue;

use crate::error::{Error, ErrorCode};

pub fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
    let serializer = serde_wasm_bindgen::Serializer::new().serialize_maps_as_objects(true);
    value
        .serialize(&serializer)
        .map_err(|e| super::errors::to_js_error(Error::new(ErrorCode::InvalidInput, format!("cannot convert a result to JS: {e}"))))
}

/// Reads a JS value as `T`; `what` names the argument ("candidate") in errors.
pub fn from_js<T: DeserializeOwned>(value: JsValue, what: &str, code: ErrorCode) -> Result<T, Error> {
    let de = serde_wasm_bindgen::Deserializer::from(value);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let inner = e.inner().to_string();
        let inner = inner.strip_prefix("Error: ").unwrap_or(&inner).to_string();
        // The field is named relative to the argument ("object",
        // "provenance.sourceTrust"); the message also names the argument.
        let mut path = e.path().to_string();
        if path == "." {
            path.clear();
        }
        if let Some(missing) = inner.strip_prefix("missing field `").and_then(|r| r.strip_suffix('`')) {
            path = if path.is_empty() { camel(missing) } else { format!("{path}.{}", camel(missing)) };
        }
        let shown = if path.is_empty() { what.to_string() } else { format!("{what}.{path}") };
        let err = Error::new(code, format!("{shown}: {inner}"));
        if path.is_empty() { err } else { err.with_field(&path) }
    })
}

/// `undefined`/`null` → `T::default()`.
pub fn from_js_or_default<T: DeserializeOwned + Default>(value: JsValue, what: &str) -> Result<T, Error> {
    if value.is_undefined() || value.is_null() {
        Ok(T::default())
    } else {
        from_js(value, what, ErrorCode::InvalidInput)
    }
}

fn camel(snake: &str) -> String {
    let mut out = String::new();
    let mut up = false;
    for ch in snake.chars() {
        if ch == '_' {
            up = true;
        } else if up {
            out.extend(ch.to_uppercase());
            up = false;
        } else {
            out.push(ch);
        }
    }
    out
}
