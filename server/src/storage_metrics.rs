//! The storage layer's metrics: fsync latency and bytes, snapshot durations, failure
//! and recovery, fed by the layer's observer hook on its own threads (atomic updates
//! only, so the log thread never waits on a scrape).

use std::time::Duration;

use prometheus::{Gauge, Histogram, HistogramOpts, IntCounter, IntGauge};

use crate::metrics::Metrics;
use crate::persist::{PersistError, PersistObserver, RecoveryReport};

/// The collectors, registered with the server's [`Metrics`].
#[derive(Clone, Debug)]
pub(crate) struct StorageMetrics {
    fsync_seconds: Histogram,
    log_bytes: IntCounter,
    snapshot_seconds: Histogram,
    snapshot_bytes: IntCounter,
    failed: IntGauge,
    recovery_seconds: Gauge,
    recovered_records: IntCounter,
}

impl StorageMetrics {
    pub(crate) fn new(metrics: &Metrics) -> Self {
        let histogram = |name: &str, help: &str, buckets: Vec<f64>| {
            Histogram::with_opts(HistogramOpts::new(name, help).buckets(buckets))
                .expect("valid histogram")
        };
        let counter = |name: &str, help: &str| IntCounter::new(name, help).expect("valid counter");
        let m = StorageMetrics {
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
        metrics.register(Box::new(m.fsync_seconds.clone()));
        metrics.register(Box::new(m.log_bytes.clone()));
        metrics.register(Box::new(m.snapshot_seconds.clone()));
        metrics.register(Box::new(m.snapshot_bytes.clone()));
        metrics.register(Box::new(m.failed.clone()));
        metrics.register(Box::new(m.recovery_seconds.clone()));
        metrics.register(Box::new(m.recovered_records.clone()));
        m
    }

    /// Records what recovery did.
    pub(crate) fn recovered(&self, report: &RecoveryReport) {
        self.recovery_seconds.set(report.took.as_secs_f64());
        self.recovered_records.inc_by(report.records_replayed);
    }
}

impl PersistObserver for StorageMetrics {
    fn fsync(&self, latency: Duration, bytes: u64) {
        self.fsync_seconds.observe(latency.as_secs_f64());
        self.log_bytes.inc_by(bytes);
    }

    fn snapshot(&self, _room: &str, bytes: u64, took: Duration) {
        self.snapshot_seconds.observe(took.as_secs_f64());
        self.snapshot_bytes.inc_by(bytes);
    }

    fn failed(&self, _error: &PersistError) {
        self.failed.set(1);
    }
}
