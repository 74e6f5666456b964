//! What the engine asks of its host: the time, fresh ids, and the optional
//! user hooks (merge, judge). On wasm these are JS functions; natively, closures.

use std::cell::Cell;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::model::Claim;
use crate::time::Timestamp;

pub trait Clock {
    fn now(&self) -> Result<Timestamp>;
}

pub trait IdSource {
    /// A fresh id such as `cl_4f9a…`; `prefix` tells claims from conflicts.
    fn next_id(&self, prefix: &str) -> String;
    /// Fails when ids cannot be made unique (the platform's random source is
    /// broken). Every write asks first, so it fails loudly instead of
    /// committing ids that collide.
    fn health(&self) -> Result<()> {
        Ok(())
    }
}

thread_local! {
    /// Set when the random source failed; cleared by the next good draw.
    static ENTROPY_FAILED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Keeps fallback ids distinct while a failure is being reported.
    static FALLBACK: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Fills `buf` from the platform, noting a failure (and filling distinct,
/// non-random bytes) instead of panicking inside wasm.
fn fill_entropy(buf: &mut [u8]) {
    let ok = getrandom::fill(buf).is_ok();
    ENTROPY_FAILED.with(|f| f.set(!ok));
    if !ok {
        let n = FALLBACK.with(|c| {
            c.set(c.get() + 1);
            c.get()
        });
        for (i, b) in buf.iter_mut().enumerate() {
            *b = (n >> ((i % 8) * 8)) as u8;
        }
    }
}

/// Random ids from the platform's entropy (`getrandom`).
pub struct RandomIds;

/// 10 random bytes. In wasm each `getrandom` is a call out to
/// `crypto.getRandomValues` (microseconds in Node), so entropy is drawn for 64
/// ids at a time; natively (where a process may fork) every id asks the OS.
fn id_bytes() -> [u8; 10] {
    let mut bytes = [0u8; 10];
    #[cfg(target_arch = "wasm32")]
    {
        thread_local! {
            static POOL: std::cell::RefCell<(Vec<u8>, usize)> = const { std::cell::RefCell::new((Vec::new(), 0)) };
        }
        const N: usize = 10;
        POOL.with(|pool| {
            let (buf, used) = &mut *pool.borrow_mut();
            if *used + N > buf.len() {
                buf.resize(64 * N, 0);
                fill_entropy(buf);
                *used = 0;
            }
            bytes.copy_from_slice(&buf[*used..*used + N]);
            *used += N;
        });
    }
    #[cfg(not(target_arch = "wasm32"))]
    fill_entropy(&mut bytes);
    bytes
}

impl IdSource for RandomIds {
    fn health(&self) -> Result<()> {
        // Draw once so a broken source is seen before anything is built.
        let _ = id_bytes();
        if ENTROPY_FAILED.with(|f| f.get()) {
            return Err(crate::error::Error::new(
                crate::error::ErrorCode::RandomSourceFailed,
                "the platform's random source (crypto.getRandomValues) failed: new ids cannot be made unique; nothing was written",
            ));
        }
        Ok(())
    }

    fn next_id(&self, prefix: &str) -> String {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut id = String::with_capacity(prefix.len() + 21);
        id.push_str(prefix);
        id.push('_');
        for b in id_bytes() {
            id.push(HEX[(b >> 4) as usize] as char);
            id.push(HEX[(b & 15) as usize] as char);
        }
        id
    }
}

/// Deterministic ids for replayable tests.
pub struct SequentialIds(Cell<u64>);

impl SequentialIds {
    pub fn new() -> Self {
        SequentialIds(Cell::new(0))
    }
}

impl Default for SequentialIds {
    fn default() -> Self {
        Self::new()
    }
}

impl IdSource for SequentialIds {
    fn next_id(&self, prefix: &str) -> String {
        let n = self.0.get() + 1;
        self.0.set(n);
        format!("{prefix}_{n:06}")
    }
}

/// What a merge hook returns: the consolidated text, and whether it
/// contradicts an entry a user approved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct MergeResult {
    pub content: String,
    #[serde(default)]
    pub contradicts: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

#[async_trait(?Send)]
pub trait MergeHook {
    /// `entries` are the active entries oldest first.
    async fn merge(&self, entries: &[Claim], incoming: &Claim) -> Result<MergeResult>;
}

/// A pair the judge names: claim ids, older first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct PairRef {
    pub earlier: String,
    pub newer: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct PairVerdict {
    #[serde(default)]
    pub same_thing: bool,
    #[serde(default)]
    pub newer_invalidates_earlier: bool,
    #[serde(default)]
    pub reason: String,
}

#[async_trait(?Send)]
pub trait Judge {
    async fn find_pairs(&self, claims_oldest_first: &[Claim]) -> Result<Vec<PairRef>>;
    async fn confirm_pair(&self, earlier: &Claim, newer: &Claim) -> Result<PairVerdict>;
}

/// Gives the host's event loop a turn during long background work (an
/// automatic calibration), so a writer never waits for all of it. Between
/// steps the host decides whether a turn is due (the wasm binding: after a
/// few milliseconds of work); `starting` work always waits for a turn, so
/// the write that started it returns first, whatever ran just before.
/// Without a `Pause` the work runs to its end.
#[async_trait(?Send)]
pub trait Pause {
    async fn turn(&self, starting: bool);
}
