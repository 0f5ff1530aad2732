//! Counters for metrics, and the observer hook through which the server feeds
//! histograms (fsync latency, snapshot duration) without this layer knowing Prometheus.
//!
//! Invariant: counters only grow, except the gauges named as such; they are updated after
//! the work they count is done, never before.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use super::error::PersistError;

/// Receives one sample per event, on the thread that did the work (the log thread or the
/// snapshot writer): keep it cheap (an atomic histogram observe).
pub trait PersistObserver: Send + Sync {
    /// One `fdatasync` of the log, with the bytes it made durable.
    fn fsync(&self, _latency: Duration, _bytes: u64) {}
    /// One snapshot installed: its size and the time from encode to rename.
    fn snapshot(&self, _room: &str, _bytes: u64, _took: Duration) {}
    /// The layer entered its failed state.
    fn failed(&self, _error: &PersistError) {}
}

#[derive(Default, Debug)]
pub(crate) struct Counters {
    pub log_bytes_written: AtomicU64,
    pub records_written: AtomicU64,
    pub fsyncs: AtomicU64,
    pub fsync_nanos_total: AtomicU64,
    pub fsync_nanos_max: AtomicU64,
    pub segments_created: AtomicU64,
    pub segments_deleted: AtomicU64,
    /// Gauge: segments on disk.
    pub segments_live: AtomicU64,
    /// Gauge: bytes of the segments on disk.
    pub log_disk_bytes: AtomicU64,
    pub snapshots_written: AtomicU64,
    pub snapshot_bytes_written: AtomicU64,
    pub snapshot_nanos_total: AtomicU64,
    pub snapshot_nanos_max: AtomicU64,
}

impl Counters {
    pub(crate) fn add(c: &AtomicU64, v: u64) {
        c.fetch_add(v, Ordering::Relaxed);
    }
    pub(crate) fn max(c: &AtomicU64, v: u64) {
        c.fetch_max(v, Ordering::Relaxed);
    }
}

/// A copy of the layer's counters and gauges.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PersistStats {
    /// The seq of the last record appended (0: none).
    pub appended_seq: u64,
    /// The seq of the last durable record (0: none).
    pub durable_seq: u64,
    /// Bytes appended and not yet durable, and the bound on them.
    pub queued_bytes: u64,
    /// Gauge: the bound on `queued_bytes`; an append past it is refused `Overloaded`.
    pub queue_capacity: u64,
    /// Bytes written to log segments (headers and records), and records written.
    pub log_bytes_written: u64,
    /// Records written to log segments.
    pub records_written: u64,
    /// `fdatasync` calls of the log, their total and longest latency.
    pub fsyncs: u64,
    /// Total latency of those `fdatasync` calls, nanoseconds.
    pub fsync_nanos_total: u64,
    /// Longest latency of one of those `fdatasync` calls, nanoseconds.
    pub fsync_nanos_max: u64,
    /// Log segment files created.
    pub segments_created: u64,
    /// Log segment files deleted (covered by snapshots).
    pub segments_deleted: u64,
    /// Gauge: log segment files on disk.
    pub segments_live: u64,
    /// Gauge: bytes of the log segment files on disk.
    pub log_disk_bytes: u64,
    /// Snapshot files installed.
    pub snapshots_written: u64,
    /// Bytes of those snapshot files.
    pub snapshot_bytes_written: u64,
    /// Total time of those snapshots, from encode to rename, nanoseconds.
    pub snapshot_nanos_total: u64,
    /// Longest time of one snapshot, from encode to rename, nanoseconds.
    pub snapshot_nanos_max: u64,
    /// Snapshot requests not yet installed.
    pub snapshots_pending: u64,
    /// Whether the layer has failed (edits must be refused).
    pub failed: bool,
}

impl Counters {
    pub(crate) fn fill(&self, s: &mut PersistStats) {
        let g = |c: &AtomicU64| c.load(Ordering::Relaxed);
        s.log_bytes_written = g(&self.log_bytes_written);
        s.records_written = g(&self.records_written);
        s.fsyncs = g(&self.fsyncs);
        s.fsync_nanos_total = g(&self.fsync_nanos_total);
        s.fsync_nanos_max = g(&self.fsync_nanos_max);
        s.segments_created = g(&self.segments_created);
        s.segments_deleted = g(&self.segments_deleted);
        s.segments_live = g(&self.segments_live);
        s.log_disk_bytes = g(&self.log_disk_bytes);
        s.snapshots_written = g(&self.snapshots_written);
        s.snapshot_bytes_written = g(&self.snapshot_bytes_written);
        s.snapshot_nanos_total = g(&self.snapshot_nanos_total);
        s.snapshot_nanos_max = g(&self.snapshot_nanos_max);
    }
}
