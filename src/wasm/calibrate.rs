//! Bindings for `calibrate` (SPEC §4).

use std::cell::RefCell;
use std::rc::Rc;

use async_trait::async_trait;
use js_sys::Promise;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::{future_to_promise, JsFuture};

use super::convert::from_js_or_default;
use super::errors::to_js_error;
use super::memory::Memory;
use crate::calibrate::CalibrateOptions;
use crate::engine::{AutoCalibrate, Engine};
use crate::hooks::Pause;

thread_local! {
    static TURN_IF_DUE: RefCell<Option<js_sys::Function>> = const { RefCell::new(None) };
}

/// Called once by the package entry with its `turnIfDue(starting)`
/// (`turn.js`): it returns `undefined` while background work may go on, else
/// a Promise of the event loop's next turn.
#[wasm_bindgen(js_name = setTurn, skip_typescript)]
pub fn set_turn(turn_if_due: js_sys::Function) {
    TURN_IF_DUE.with(|t| *t.borrow_mut() = Some(turn_if_due));
}

/// The host's event loop, as the package entry schedules it.
pub struct EventLoopTurn;

#[async_trait(?Send)]
impl Pause for EventLoopTurn {
    async fn turn(&self, starting: bool) {
        let due = TURN_IF_DUE.with(|t| t.borrow().as_ref().and_then(|f| f.call1(&JsValue::UNDEFINED, &JsValue::from_bool(starting)).ok()));
        if let Some(turn) = due.and_then(|v| v.dyn_into::<Promise>().ok()) {
            let _ = JsFuture::from(turn).await;
        }
    }
}

/// The automatic calibration running in the background (SPEC §4): started
/// after the write that makes it due, never awaited by that write. A failure
/// is kept for `idle()` to report (a rejected promise nobody awaits would
/// end a Node process).
#[derive(Default, Clone)]
pub struct Background {
    running: Rc<RefCell<Option<Promise>>>,
    failed: Rc<RefCell<Option<JsValue>>>,
}

impl Background {
    /// After a write call: the calibration, if due, when the call stored
    /// something. One that stored nothing (refused, skipped, a replay) leaves
    /// memory as it was, background work included: a calibration that came
    /// due while another ran waits for the next write that stores.
    pub fn after_write(&self, engine: &Rc<Engine>, stored: bool) {
        if stored {
            self.start_if_due(engine);
        }
    }

    fn start_if_due(&self, engine: &Rc<Engine>) {
        if engine.auto_calibrate() != AutoCalibrate::Background || !engine.calibration_due() {
            return;
        }
        let (engine, failed) = (engine.clone(), self.failed.clone());
        let run = future_to_promise(async move {
            if let Err(e) = engine.calibrate_if_due().await {
                *failed.borrow_mut() = Some(to_js_error(e));
            }
            Ok(JsValue::UNDEFINED)
        });
        *self.running.borrow_mut() = Some(run);
    }

    /// Resolves once no calibration is running; rejects with the last failure, if any.
    fn idle(&self) -> Promise {
        let (running, failed) = (self.running.clone(), self.failed.clone());
        future_to_promise(async move {
            // One started while waiting for another is waited for too.
            loop {
                let Some(run) = running.borrow().clone() else { break };
                JsFuture::from(run.clone()).await?;
                let same = running.borrow().as_ref().is_some_and(|r| js_sys::Object::is(r, &run));
                if same {
                    *running.borrow_mut() = None;
                }
            }
            match failed.borrow_mut().take() {
                Some(e) => Err(e),
                None => Ok(JsValue::UNDEFINED),
            }
        })
    }
}

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

    /// Resolves when background work (an automatic calibration) is done;
    /// rejects with its error if it failed. Memory stays usable meanwhile.
    ///
    /// ```js
    /// await memory.idle();
    /// ```
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn idle(&self) -> Promise {
        self.background.idle()
    }

    /// The calibration in force, or `null` when this memory was never calibrated.
    #[wasm_bindgen(unchecked_return_type = "Promise<Calibration | null>")]
    pub fn calibration(&self) -> js_sys::Promise {
        self.spawn(Ok(()), move |engine, ()| async move { engine.calibration().await })
    }
}
