//! Bindings for `predicates` and `definePredicate` (SPEC §7).

use wasm_bindgen::prelude::*;

use super::convert::from_js;
use super::memory::Memory;
use crate::engine::PredicateDefinition;
use crate::error::ErrorCode;

#[wasm_bindgen]
impl Memory {
    /// The predicate specs in force: built-in, configured and defined, with
    /// aliases, memory type and the half-life in force (learned by
    /// `calibrate()` where it learned one). A predicate not listed is
    /// single-valued and time-varying: a new value supersedes the old.
    ///
    /// ```js
    /// const multi = (await memory.predicates()).filter((p) => p.cardinality === 'multi').map((p) => p.name);
    /// // ['allergic_to', 'dislikes', 'has_pet', 'likes', 'speaks']
    /// ```
    #[wasm_bindgen(unchecked_return_type = "Promise<PredicateInfo[]>")]
    pub fn predicates(&self) -> js_sys::Promise {
        self.spawn(Ok(()), move |engine, ()| async move { engine.predicates().await })
    }

    /// Declares a predicate nobody declared (kept in the store, so every
    /// client of it and every later session sees it). A declared predicate
    /// (built-in, configured, defined) is answered as it is when the fields
    /// given match, else refused with `INVALID_INPUT` naming the field.
    ///
    /// ```js
    /// await memory.definePredicate({ name: 'hobby', cardinality: 'multi' });
    /// await memory.remember({ predicate: 'hobby', object: 'chess' });
    /// await memory.remember({ predicate: 'hobby', object: 'climbing' }); // both stay active
    /// ```
    #[wasm_bindgen(js_name = definePredicate, unchecked_return_type = "Promise<PredicateInfo>")]
    pub fn define_predicate(&self, #[wasm_bindgen(unchecked_param_type = "PredicateDefinition")] definition: JsValue) -> js_sys::Promise {
        let args = from_js::<PredicateDefinition>(definition, "definition", ErrorCode::InvalidInput);
        self.spawn(args, move |engine, def| async move { engine.define_predicate(&def).await })
    }
}

/// credence's built-in predicate table (name, aliases, cardinality, time
/// variance, half-life), without a memory: what `memory.predicates()` lists
/// before any configured or defined spec.
#[wasm_bindgen(js_name = builtinPredicates, unchecked_return_type = "PredicateSpec[]")]
pub fn builtin_predicates() -> std::result::Result<JsValue, JsValue> {
    let specs: Vec<crate::predicates::PredicateSpec> = crate::predicates::Registry::builtin().all().into_iter().map(|(s, _)| s).collect();
    super::convert::to_js(&specs)
}
