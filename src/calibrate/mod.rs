//! `memory.calibrate()` (SPEC §4): learns each time-varying predicate's
//! change half-life and each source's reliability from the store's own
//! history. `smoother` reads one slot, `forms` how its sources report forms of the truth, `estimate` runs the EM loop (`accelerate` shortens its way), `search`
//! runs it from more than one start and keeps the likeliest, `record` is the
//! versioned calibration the filter then uses.

pub mod accelerate;
pub mod dependence;
pub mod estimate;
pub mod forms;
pub mod record;
pub mod search;
pub mod smoother;

pub use record::{ActiveCalibration, CalibrateOptions, Calibration, DomainEstimate, FormsEstimate, PredicateEstimate, SourceDependence, SourceEstimate};
