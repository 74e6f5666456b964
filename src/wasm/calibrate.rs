//! Bindings for `calibrate` (SPEC §4).

use wasm_bindgen::prelude::*;

use super::convert::from_js_or_default;
use super::memory::Memory;
use crate::calibrate::CalibrateOptions;

#[wasm_bindgen]
impl Memory {
    /// Learns each time-varying predicate's change half-life and each source's
    /// reliability from this memory's history, stores them as the next
    /// calibration version (later writes and reads use it), and returns the
    /// estimates with the observations behind each.
    ///
    /// ```js
    /// const calibration = await memory.calibrate({ minObservations: 30 });
    /// calibration.sources; // [{ sourceId, reliability, statedTrust, observations, agreed, used }]
    /// ```
    #[wasm_bindgen(unchecked_return_type = "Promise<Calibration>")]
    pub fn calibrate(&self, #[wasm_bindgen(unchecked_param_type = "CalibrateOptions")] options: Option<JsValue>) -> js_sys::Promise {
        let args = from_js_or_default::<CalibrateOptions>(options.unwrap_or(JsValue::UNDEFINED), "options");
        self.spawn(args, move |engine, options| async move { engine.calibrate(&options).await })
    }

    /// The calibration in force, or `null` when this memory was never calibrated.
    #[wasm_bindgen(unchecked_return_type = "Promise<Calibration | null>")]
    pub fn calibration(&self) -> js_sys::Promise {
        self.spawn(Ok(()), move |engine, ()| async move { engine.calibration().await })
    }
}
