//! Durable rooms: the storage layer. It knows records and snapshots, not rooms' internals
//! nor any async runtime (**Architecture invariant**, which this crate's manifest
//! enforces: it depends on no runtime): plain threads and std/parking_lot sync, so rooms
//! call it from tick threads; async callers keep their own watch, fed by a hook.
//!
//! # Data dir
//!
//! ```text
//! <data dir>/LOCK                          flock'd by the running server; holds its pid
//! <data dir>/log/<first_seq:020>.clog      the log, in segments (see `record` for the layout)
//! <data dir>/snap/<room>.<seq:020>.snap    per-room snapshots (see `snapshot`), two per room
//! <data dir>/snap/*.snap.tmp               a snapshot being written (removed at start)
//! <data dir>/snap/*.snap.bad               a snapshot recovery could not use (kept aside)
//! ```
//!
//! # How it fits together
//!
//! * [`open`] locks the dir, recovers ([`Recovered`]: per live room, its metadata, its
//!   snapshot and the records after it) and starts two threads.
//! * Rooms append records ([`Persist::create_room`], [`Persist::tick`], ...): each gets
//!   the next `seq` at once; nothing blocks on the disk.
//! * The log thread drains the queue: one write, one `fdatasync` for everything queued
//!   (group commit), then `durable_seq` advances and the [`Persist::on_durable`] hooks are
//!   told. A record is acknowledged once `durable_seq`
//!   reaches its seq.
//! * [`Persist::request_snapshot`] hands a room's state to the snapshot thread, which
//!   installs it atomically once the log is durable up to it; the log thread then deletes
//!   segments that snapshots cover.
//! * Any write or fsync failure fails the layer for good ([`Persist::failed`]).
//! * [`verify`] reads a dir and reports, changing nothing.
//!
//! Invariant of the whole layer: after a crash at any point, [`open`] returns every
//! record that was durable (`durable_seq` covered it) in order and whole, possibly some
//! later records that reached the disk anyway (whole, in order, never acknowledged), and
//! nothing else; or it refuses, naming the file and offset, if the dir holds damage other
//! than a torn end of the log.

mod bytes;
mod engine;
mod error;
mod log;
pub mod metrics;
mod plan;
mod record;
mod recover;
mod segment;
mod shared;
#[cfg(feature = "sim")]
mod simdisk;
mod snapshot;
mod snapwriter;
mod stats;
mod storage;
mod verify;
mod writer;

use std::sync::Arc;

pub use error::{PersistError, Result};
pub use log::Persist;
pub use record::{
    Body, FRAME_LEN, Kind, Record, RoomMeta, SEGMENT_HEADER_LEN, decode_batches, decode_record,
    encode_batches, encode_record, segment_name,
};
pub use recover::{Recovered, RecoveredRoom, RecoveryReport, Replay, open};
pub use segment::Torn;
pub use shared::Watermark;
#[cfg(feature = "sim")]
pub use simdisk::SimDisk;
pub use snapshot::{RoomSnapshot, RoomState, SnapNode, ranges_of};
pub use stats::{PersistObserver, PersistStats};
pub use storage::{FsStorage, Storage, WriteFile};
pub use verify::{SegmentReport, VerifyReport, verify};

/// Snapshot file encoding, for tools and tests.
pub mod snapshot_file {
    pub use super::snapshot::{decode, encode, file_name, parse_file_name};
}

/// How the layer runs.
#[derive(Clone)]
pub struct PersistConfig {
    /// A segment is rolled once it would grow past this many bytes (default 64 MiB: small
    /// enough to delete and recover quickly, large enough that rolls are rare).
    pub segment_bytes: u64,
    /// Bound on bytes appended and not yet durable; past it appends are refused as
    /// overloaded (default 64 MiB). Also the largest record.
    pub max_queued_bytes: u64,
    /// The epoch written in every record (0 on a single node).
    pub epoch: u64,
    /// Written in each segment header (at most 16 bytes kept).
    pub binary_version: String,
    /// Run the log and snapshot threads (true), or let the caller drive the layer with
    /// [`Persist::step`] (false: deterministic tests).
    pub threads: bool,
    /// Samples for metrics.
    pub observer: Option<Arc<dyn PersistObserver>>,
}

impl Default for PersistConfig {
    fn default() -> Self {
        PersistConfig {
            segment_bytes: 64 << 20,
            max_queued_bytes: 64 << 20,
            epoch: 0,
            binary_version: env!("CARGO_PKG_VERSION").to_string(),
            threads: true,
            observer: None,
        }
    }
}

impl std::fmt::Debug for PersistConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PersistConfig")
            .field("segment_bytes", &self.segment_bytes)
            .field("max_queued_bytes", &self.max_queued_bytes)
            .field("epoch", &self.epoch)
            .field("binary_version", &self.binary_version)
            .field("threads", &self.threads)
            .finish_non_exhaustive()
    }
}

/// Opens a data dir on the real file system (a convenience over [`open`]).
pub fn open_dir(
    dir: impl Into<std::path::PathBuf>,
    config: PersistConfig,
) -> Result<(Persist, Recovered)> {
    open(Arc::new(FsStorage::new(dir)?), config)
}
