//! The metrics rooms feed from their tick threads: tick durations and lateness, applied
//! and refused batches, subscribers and the unsent-snapshot bytes. The server registers
//! them with its registry and renders them with the rest.
//!
//! Invariant: updates are atomic adds and sets, so a tick never waits on a scrape; labels
//! never carry client-chosen strings.

use canopy_protocol::ErrorCode;
use prometheus::core::Collector;
use prometheus::{Histogram, HistogramOpts, IntCounter, IntCounterVec, IntGauge, Opts, Registry};

/// The collectors of every room of a server.
#[derive(Debug, Clone)]
pub struct RoomMetrics {
    /// `canopy_tick_duration_seconds`: how long each room tick took.
    pub tick_seconds: Histogram,
    /// `canopy_tick_start_delay_seconds`: how late each room tick started after its slot
    /// on the room's tick grid. Edit-to-delta latency includes it; high values mean the
    /// tick threads wait for a CPU, not that ticks are slow.
    pub tick_start_delay_seconds: Histogram,
    /// `canopy_slow_ticks_total`: ticks that took longer than their period.
    pub slow_ticks: IntCounter,
    /// `canopy_nodes_recomputed_total`: world transforms recomputed by ticks.
    pub nodes_recomputed: IntCounter,
    /// `canopy_batches_applied_total`: edit batches applied.
    pub batches_applied: IntCounter,
    /// `canopy_batches_rejected_total{code}`: edit batches refused, by error code (count
    /// them with [`RoomMetrics::rejected`]).
    pub batches_rejected: IntCounterVec,
    /// `canopy_subscribers`: subscribed WebSocket connections, all rooms.
    pub subscribers: IntGauge,
    /// `canopy_unsent_snapshot_bytes`: encoded snapshots not yet written to their
    /// subscribers, against `--max-unsent-snapshot-bytes`.
    pub unsent_snapshot_bytes: IntGauge,
    /// `canopy_resumed_subscriptions_total`: subscriptions answered with a resumed delta
    /// instead of a snapshot.
    pub resumed_subscriptions: IntCounter,
}

/// Registers `c` with `registry` and gives it back (a metric registered twice keeps its
/// first registration: the collector still counts, it is only not rendered twice).
pub fn registered<C: Collector + Clone + 'static>(registry: &Registry, c: C) -> C {
    let _ = registry.register(Box::new(c.clone()));
    c
}

/// A histogram with these buckets.
pub fn histogram(name: &str, help: &str, buckets: &[f64]) -> Histogram {
    Histogram::with_opts(HistogramOpts::new(name, help).buckets(buckets.to_vec()))
        .expect("valid histogram")
}

impl RoomMetrics {
    /// The room collectors, registered with `registry`.
    pub fn new(registry: &Registry) -> RoomMetrics {
        let counter = |name: &str, help: &str| {
            registered(
                registry,
                IntCounter::new(name, help).expect("valid counter"),
            )
        };
        let gauge = |name: &str, help: &str| {
            registered(registry, IntGauge::new(name, help).expect("valid gauge"))
        };
        let rejected = IntCounterVec::new(
            Opts::new(
                "canopy_batches_rejected_total",
                "Edit batches rejected, by code",
            ),
            &["code"],
        )
        .expect("valid counter");
        for code in ErrorCode::ALL {
            rejected.with_label_values(&[code.as_str()]);
        }
        RoomMetrics {
            tick_seconds: registered(
                registry,
                histogram(
                    "canopy_tick_duration_seconds",
                    "Duration of one room tick",
                    &[
                        0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                        0.1, 0.25, 1.0,
                    ],
                ),
            ),
            tick_start_delay_seconds: registered(
                registry,
                histogram(
                    "canopy_tick_start_delay_seconds",
                    "How late each room tick started after its slot on the tick grid",
                    &[
                        0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                    ],
                ),
            ),
            slow_ticks: counter(
                "canopy_slow_ticks_total",
                "Ticks that took longer than their period",
            ),
            nodes_recomputed: counter(
                "canopy_nodes_recomputed_total",
                "World transforms recomputed by ticks",
            ),
            batches_applied: counter("canopy_batches_applied_total", "Edit batches applied"),
            batches_rejected: registered(registry, rejected),
            subscribers: gauge("canopy_subscribers", "Subscribed WebSocket connections"),
            unsent_snapshot_bytes: gauge(
                "canopy_unsent_snapshot_bytes",
                "Bytes of encoded snapshots not yet written to their subscribers",
            ),
            resumed_subscriptions: counter(
                "canopy_resumed_subscriptions_total",
                "Subscriptions answered with a resumed delta instead of a snapshot",
            ),
        }
    }

    /// Counts one refused batch under its error code.
    pub fn rejected(&self, code: ErrorCode) {
        self.batches_rejected
            .with_label_values(&[code.as_str()])
            .inc();
    }
}

impl Default for RoomMetrics {
    /// Collectors in a registry of their own (tests, benchmarks).
    fn default() -> Self {
        RoomMetrics::new(&Registry::new())
    }
}
