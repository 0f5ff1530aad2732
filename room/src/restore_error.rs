//! [`RestoreError`]: why a room's scene could not be rebuilt from what was stored (the
//! local log at start, an owner's start and records for a relay or a takeover).
//!
//! Each case names the record and batch it stopped at, so an operator can find it with
//! `canopy verify`; nothing partly rebuilt is ever served.

use canopy_scene::{BatchError, RebuildError};

/// Why a room's scene could not be rebuilt from stored state.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RestoreError {
    /// The snapshot (or the owner's start) contradicts itself.
    #[error("rebuilding the stored state: {0}")]
    State(RebuildError),
    /// A logged batch does not apply to the state before it.
    #[error("replaying batch {batch} of record {seq} (tick {tick}): {error}")]
    Replay {
        /// The batch's index within its record.
        batch: usize,
        /// The record's sequence number.
        seq: u64,
        /// The tick the record logged.
        tick: u64,
        /// Why the scene refused it.
        error: BatchError,
    },
    /// The records do not follow one another.
    #[error("record {got} follows record {after}: the records have a gap")]
    Gap {
        /// The record found.
        got: u64,
        /// The record before it.
        after: u64,
    },
    /// The owner (or the cluster journal) named a room instance that does not parse.
    #[error("the stored room instance {0:?} is not one")]
    Instance(String),
}

// By hand rather than `#[from]`, which would also make it the error's `source()`: the
// message already says it, and a reporter walking the chain would print it twice.
impl From<RebuildError> for RestoreError {
    fn from(error: RebuildError) -> Self {
        RestoreError::State(error)
    }
}
