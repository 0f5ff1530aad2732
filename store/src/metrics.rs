//! The storage layer's metrics: fsync latency and bytes, snapshot durations, failure
//! and recovery, fed by the layer's observer hook on its own threads (atomic updates
//! only, so the log thread never waits on a scrape), and a warning in the log when an
//! fsync is slow enough for clients to notice, at most one per [`SLOW_FSYNC_EVERY`].

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use prometheus::{Gauge, Histogram, HistogramOpts, IntCounter, IntGauge};

use crate::{PersistError, PersistObserver, RecoveryReport};
use prometheus::Registry;

/// An fsync at least this long is logged as a warning: every ack (and, unless the server
/// runs with `--live-deltas`, every delta frame) of the ticks it covers waited for it.
pub const SLOW_FSYNC: Duration = Duration::from_millis(250);
/// At most one slow-fsync warning per this period; the next one counts those skipped.
pub const SLOW_FSYNC_EVERY: Duration = Duration::from_secs(10);

/// The collectors, registered with the server's metrics registry.
#[derive(Clone, Debug)]
pub struct StorageMetrics {
    slow: Arc<SlowFsyncs>,
    fsync_seconds: Histogram,
    log_bytes: IntCounter,
    snapshot_seconds: Histogram,
    snapshot_bytes: IntCounter,
    failed: IntGauge,
    recovery_seconds: Gauge,
    recovered_records: IntCounter,
}

impl StorageMetrics {
    /// The storage collectors, registered with `registry`.
    pub fn new(registry: &Registry) -> Self {
        let histogram = |name: &str, help: &str, buckets: Vec<f64>| {
            Histogram::with_opts(HistogramOpts::new(name, help).buckets(buckets))
                .expect("valid histogram")
        };
        let counter = |name: &str, help: &str| IntCounter::new(name, help).expect("valid counter");
        let m = StorageMetrics {
            slow: Arc::new(SlowFsyncs::new()),
            fsync_seconds: histogram(
                "canopy_storage_fsync_seconds",
                "Duration of one fdatasync of the log (one per group of ticks' records)",
                // Up to seconds: a cloud disk's fsync tail reaches hundreds of
                // milliseconds, and every ack (and, by default, every frame) waits it out.
                vec![
                    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                    0.5, 1.0, 2.5,
                ],
            ),
            log_bytes: counter(
                "canopy_storage_log_bytes_total",
                "Bytes of records made durable in the log",
            ),
            snapshot_seconds: histogram(
                "canopy_storage_snapshot_seconds",
                "Duration of one room snapshot, from encoding to the rename",
                vec![0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1.0, 5.0],
            ),
            snapshot_bytes: counter(
                "canopy_storage_snapshot_bytes_total",
                "Bytes of room snapshots written",
            ),
            failed: IntGauge::new(
                "canopy_storage_failed",
                "1 once the storage failed (a write or fsync error): edits are refused",
            )
            .expect("valid gauge"),
            recovery_seconds: Gauge::new(
                "canopy_storage_recovery_seconds",
                "How long reading the data dir back took at start",
            )
            .expect("valid gauge"),
            recovered_records: counter(
                "canopy_storage_recovered_records_total",
                "Log records replayed into rooms at start",
            ),
        };
        let _ = registry.register(Box::new(m.fsync_seconds.clone()));
        let _ = registry.register(Box::new(m.log_bytes.clone()));
        let _ = registry.register(Box::new(m.snapshot_seconds.clone()));
        let _ = registry.register(Box::new(m.snapshot_bytes.clone()));
        let _ = registry.register(Box::new(m.failed.clone()));
        let _ = registry.register(Box::new(m.recovery_seconds.clone()));
        let _ = registry.register(Box::new(m.recovered_records.clone()));
        m
    }

    /// Records what recovery did.
    pub fn recovered(&self, report: &RecoveryReport) {
        self.recovery_seconds.set(report.took.as_secs_f64());
        self.recovered_records.inc_by(report.records_replayed);
    }
}

impl PersistObserver for StorageMetrics {
    fn fsync(&self, latency: Duration, bytes: u64) {
        self.fsync_seconds.observe(latency.as_secs_f64());
        self.log_bytes.inc_by(bytes);
        if let Some(skipped) = self.slow.note(latency, Instant::now()) {
            tracing::warn!(
                took_ms = latency.as_millis() as u64,
                slow_fsyncs_not_logged = skipped,
                "slow fsync of the log: acks waited for it (and delta frames, unless --live-deltas); \
                 see canopy_storage_fsync_seconds"
            );
        }
    }

    fn snapshot(&self, _room: &str, bytes: u64, took: Duration) {
        self.snapshot_seconds.observe(took.as_secs_f64());
        self.snapshot_bytes.inc_by(bytes);
    }

    fn failed(&self, _error: &PersistError) {
        self.failed.set(1);
    }
}

/// When slow fsyncs were last reported, and how many came since.
#[derive(Debug)]
struct SlowFsyncs {
    epoch: Instant,
    /// Milliseconds after `epoch` of the last warning, plus one (0: none yet).
    last_ms: AtomicU64,
    skipped: AtomicU64,
}

impl SlowFsyncs {
    fn new() -> Self {
        SlowFsyncs {
            epoch: Instant::now(),
            last_ms: AtomicU64::new(0),
            skipped: AtomicU64::new(0),
        }
    }

    /// Records an fsync of `latency` ending at `now`: `Some(n)` when it is to be logged,
    /// with the slow ones not logged since the last warning.
    fn note(&self, latency: Duration, now: Instant) -> Option<u64> {
        if latency < SLOW_FSYNC {
            return None;
        }
        let now_ms = now.saturating_duration_since(self.epoch).as_millis() as u64 + 1;
        let last = self.last_ms.load(Ordering::Acquire);
        let due = last == 0 || now_ms >= last + SLOW_FSYNC_EVERY.as_millis() as u64;
        if due
            && self
                .last_ms
                .compare_exchange(last, now_ms, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
        {
            return Some(self.skipped.swap(0, Ordering::AcqRel));
        }
        self.skipped.fetch_add(1, Ordering::AcqRel);
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_fsyncs_are_reported_once_per_period_with_the_count_between() {
        let slow = SlowFsyncs::new();
        let t0 = slow.epoch;
        let fast = Duration::from_millis(10);
        let long = SLOW_FSYNC;
        assert_eq!(slow.note(fast, t0), None);
        assert_eq!(slow.note(long, t0), Some(0));
        assert_eq!(slow.note(long, t0 + Duration::from_secs(1)), None);
        assert_eq!(slow.note(long, t0 + Duration::from_secs(2)), None);
        assert_eq!(slow.note(fast, t0 + Duration::from_secs(3)), None);
        assert_eq!(
            slow.note(long, t0 + SLOW_FSYNC_EVERY + Duration::from_millis(1)),
            Some(2)
        );
        assert_eq!(slow.note(long, t0 + SLOW_FSYNC_EVERY * 2), None);
    }
}
