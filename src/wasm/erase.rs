//! Bindings for `erase` (SPEC §7, privacy erasure).

use wasm_bindgen::prelude::*;

use super::convert::from_js_plain;
use super::memory::Memory;
use crate::engine::{EraseOptions, EraseTarget};

#[wasm_bindgen]
impl Memory {
    /// Privacy erasure: removes the text of the matched claims (a subject's,
    /// narrowed to a predicate or one claim) from every record the store
    /// keeps, leaving tombstones (`why` shows them). Cannot be undone.
    ///
    /// ```js
    /// await memory.erase({ subject: 'user', predicate: 'home_address' }, { reason: 'user asked', by: 'support' });
    /// ```
    #[wasm_bindgen(unchecked_return_type = "Promise<Erasure>")]
    pub fn erase(
        &self,
        #[wasm_bindgen(unchecked_param_type = "EraseTarget")] target: JsValue,
        // Not named `options`: the declarations make those optional, and this one is required.
        #[wasm_bindgen(unchecked_param_type = "EraseOptions")] request: JsValue,
    ) -> js_sys::Promise {
        // No arrays: serde would read `erase(["alice"])` as `{ subject: "alice" }`.
        let args = from_js_plain::<EraseTarget>(target, "target", false)
            .and_then(|t| Ok((t, from_js_plain::<EraseOptions>(request, "options", false)?)));
        self.spawn(args, move |engine, (target, options)| async move { engine.erase(&target, &options).await })
    }
}
