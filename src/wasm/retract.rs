//! Bindings for `retract` (SPEC §7); `undo` of its id goes through `Memory.undo`.

use wasm_bindgen::prelude::*;

use super::convert::from_js_or_default;
use super::memory::{string_arg, Memory};
use crate::engine::RetractOptions;

#[wasm_bindgen]
impl Memory {
    /// A person's "that no longer holds": the claim becomes `retracted` with
    /// `validTo` = `at` (default now), nothing replaces it, and the change is
    /// logged with reason and actor. `undo(retraction.id)` puts it back.
    ///
    /// ```js
    /// const r = await memory.retract(claim.id, { reason: 'plan cancelled', by: 'ana' });
    /// await memory.undo(r.id);
    /// ```
    #[wasm_bindgen(unchecked_return_type = "Promise<Retraction>")]
    pub fn retract(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] claim_id: JsValue,
        #[wasm_bindgen(unchecked_param_type = "RetractOptions")] options: Option<JsValue>,
    ) -> js_sys::Promise {
        let args = string_arg(&claim_id, "claimId")
            .and_then(|id| Ok((id, from_js_or_default::<RetractOptions>(options.unwrap_or(JsValue::UNDEFINED), "options")?)));
        self.spawn(args, move |engine, (id, options)| async move { engine.retract(&id, &options).await })
    }
}
