//! credence — the write side of AI memory.
//!
//! When an agent writes a fact that collides with what memory holds, credence
//! decides what it means against history (confirm, refine, coexist, supersede,
//! contradict), keeps belief as calibrated log-odds, never loses data, and
//! lets a person settle what machines should not guess.
//!
//! The core (everything but `wasm`) is plain Rust with no JavaScript in it; a
//! write flows `Engine::remember` (engine/) → `strategy::` → `Store::commit_slot`.
//! The `wasm` module is the only binding layer.

pub mod archive;
pub mod belief;
pub mod blob;
pub mod calibrate;
pub mod config;
pub mod engine;
pub mod entities;
pub mod error;
pub mod hooks;
pub mod invariants;
pub mod model;
pub mod normalize;
pub mod predicates;
pub mod sort;
pub mod store;
mod store_index;
pub mod store_scan;
pub mod strategy;
pub mod time;
pub mod txn;

#[cfg(target_arch = "wasm32")]
pub mod wasm;

pub use config::EngineConfig;
pub use engine::{Engine, Hooks, RecallOptions, WriteOptions};
pub use error::{Error, ErrorCode, Result};
pub use store::{MemoryStore, Store};
