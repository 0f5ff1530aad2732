//! The server's Prometheus metrics, rendered as text by `GET /metrics`.
//!
//! Labels never carry client-chosen strings (room ids, tokens), so the number of series
//! stays bounded whatever clients do.

use prometheus::{
    Encoder, Gauge, Histogram, HistogramOpts, HistogramVec, IntCounter, IntCounterVec, IntGauge,
    IntGaugeVec, Opts, Registry, TextEncoder,
};

use canopy_protocol::ErrorCode;

/// Every metric the server exports.
#[derive(Debug, Clone)]
pub struct Metrics {
    registry: Registry,
    /// `canopy_tick_duration_seconds`: how long each room tick took.
    pub tick_seconds: Histogram,
    /// `canopy_fanout_delay_seconds`: from a tick handing a subscriber's frame to the
    /// flushers until a flusher wrote it (plain-TCP subscribers that keep up; a slow
    /// one's writer task and TLS connections are not counted). The server's share of
    /// edit-to-delta latency after the tick: high values mean the fan-out itself is
    /// behind (CPU), not the network or the clients.
    pub fanout_delay_seconds: Histogram,
    /// `canopy_tick_start_delay_seconds`: how late each room tick started after its slot
    /// on the room's tick grid. Edit-to-delta latency includes it; high values mean the
    /// tick threads wait for a CPU (the machine is saturated, or `--tick-nice` yields
    /// too much to the async workers), not that ticks are slow.
    pub tick_start_delay_seconds: Histogram,
    /// `canopy_slow_ticks_total`: ticks that took longer than their period.
    pub slow_ticks: IntCounter,
    /// `canopy_nodes_recomputed_total`: world transforms recomputed by ticks.
    pub nodes_recomputed: IntCounter,
    /// `canopy_delta_frames_sent_total`: delta frames written to subscribers.
    pub delta_frames_sent: IntCounter,
    /// `canopy_delta_bytes_sent_total`: bytes of delta frames written to subscribers.
    pub delta_bytes_sent: IntCounter,
    /// `canopy_ws_bytes_sent_total`: bytes of every message written to WebSocket clients.
    pub bytes_sent: IntCounter,
    /// `canopy_flushed_delta_frames_total`: the delta frames of `delta_frames_sent` that a
    /// flusher wrote (the rest went through the connection's writer task, after its
    /// socket had filled); against `canopy_fanout_delay_seconds_count` (one per flush
    /// entry) it shows how many frames waited for a flusher past their own tick.
    pub flushed_delta_frames: IntCounter,
    /// `canopy_merged_frames_total`: frames that merged several ticks for a slow subscriber.
    pub merged_frames: IntCounter,
    /// `canopy_subscribers`: subscribed WebSocket connections, all rooms.
    pub subscribers: IntGauge,
    /// `canopy_ws_connections`: open WebSocket connections, subscribed or not.
    pub connections: IntGauge,
    /// `canopy_rooms`: rooms the server holds.
    pub rooms: IntGauge,
    /// `canopy_batches_applied_total`: edit batches applied.
    pub batches_applied: IntCounter,
    /// `canopy_batches_rejected_total{code}`: edit batches refused, by error code (count
    /// them with [`Metrics::rejected`]).
    pub batches_rejected: IntCounterVec,
    /// `canopy_queries_total{kind}`: spatial queries answered, by `kind`.
    pub queries: IntCounterVec,
    /// `canopy_process_resident_memory_bytes`: the process's RSS, refreshed on each render.
    pub process_rss_bytes: IntGauge,
    /// `canopy_process_cpu_seconds`: user and system CPU time of the process in
    /// hundredths of a second, refreshed on each render. The standard `process_cpu_seconds_total`
    /// (the `prometheus` crate's process collector) counts whole seconds, too coarse to
    /// compare two 30-second benchmark windows.
    pub process_cpu_seconds: Gauge,
    /// `canopy_connections_refused_total`: connections closed at accept by the
    /// `--max-connections` and `--max-connections-per-ip` caps.
    pub connections_refused: IntCounter,
    /// `canopy_http_reads_cut_total`: whole-room reads (`GET .../nodes`) cut off because
    /// their reader took the answer slower than the minimum rate (one that accepts
    /// nothing is closed by the write deadline: `http_write_stalls`).
    pub http_reads_cut: IntCounter,
    /// `canopy_http_write_stalls_total`: HTTP connections closed because their peer
    /// accepted no byte of an answer for `--request-timeout-secs`.
    pub http_write_stalls: IntCounter,
    /// `canopy_unsent_snapshot_bytes`: encoded snapshots not yet written to their
    /// subscribers, against `--max-unsent-snapshot-bytes`.
    pub unsent_snapshot_bytes: IntGauge,
    /// HTTP requests by matched route (the route's template, never the raw path) and
    /// status code.
    pub http_requests: IntCounterVec,
    /// `canopy_http_request_duration_seconds{route}`: latency until the response head.
    pub http_seconds: HistogramVec,
    /// `canopy_ws_closed_total{reason}`: WebSocket connections closed, by why the session
    /// ended.
    pub ws_closed: IntCounterVec,
    /// Subscriptions answered with a resumed delta instead of a snapshot.
    pub resumed_subscriptions: IntCounter,
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    /// A fresh set of metrics, counters at zero, in a registry of its own.
    pub fn new() -> Self {
        let registry = Registry::new();
        let tick_seconds = Histogram::with_opts(
            HistogramOpts::new("canopy_tick_duration_seconds", "Duration of one room tick")
                .buckets(vec![
                    0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                    0.25, 1.0,
                ]),
        )
        .expect("valid histogram");
        let fanout_delay_seconds = Histogram::with_opts(
            HistogramOpts::new(
                "canopy_fanout_delay_seconds",
                "Time from a tick handing a subscriber's frame to the flushers until it was \
                 written",
            )
            .buckets(vec![
                0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.25, 0.5, 1.0,
            ]),
        )
        .expect("valid histogram");
        let tick_start_delay_seconds = Histogram::with_opts(
            HistogramOpts::new(
                "canopy_tick_start_delay_seconds",
                "How late each room tick started after its slot on the tick grid",
            )
            .buckets(vec![
                0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
            ]),
        )
        .expect("valid histogram");
        let counter = |name: &str, help: &str| IntCounter::new(name, help).expect("valid counter");
        let gauge = |name: &str, help: &str| IntGauge::new(name, help).expect("valid gauge");
        let m = Self {
            tick_seconds,
            fanout_delay_seconds,
            tick_start_delay_seconds,
            slow_ticks: counter(
                "canopy_slow_ticks_total",
                "Ticks that took longer than their period",
            ),
            nodes_recomputed: counter(
                "canopy_nodes_recomputed_total",
                "World transforms recomputed by ticks",
            ),
            delta_frames_sent: counter(
                "canopy_delta_frames_sent_total",
                "Delta frames written to WebSocket subscribers",
            ),
            delta_bytes_sent: counter(
                "canopy_delta_bytes_sent_total",
                "Bytes of delta frames written to WebSocket subscribers",
            ),
            bytes_sent: counter(
                "canopy_ws_bytes_sent_total",
                "Bytes of every message written to WebSocket clients",
            ),
            flushed_delta_frames: counter(
                "canopy_flushed_delta_frames_total",
                "Delta frames written by the flushers (not by a connection's writer task)",
            ),
            merged_frames: counter(
                "canopy_merged_frames_total",
                "Frames that merged several ticks for a slow subscriber",
            ),
            subscribers: gauge("canopy_subscribers", "Subscribed WebSocket connections"),
            connections: gauge("canopy_ws_connections", "Open WebSocket connections"),
            rooms: gauge("canopy_rooms", "Rooms"),
            batches_applied: counter("canopy_batches_applied_total", "Edit batches applied"),
            batches_rejected: IntCounterVec::new(
                Opts::new(
                    "canopy_batches_rejected_total",
                    "Edit batches rejected, by code",
                ),
                &["code"],
            )
            .expect("valid counter"),
            queries: IntCounterVec::new(
                Opts::new("canopy_queries_total", "Spatial queries answered, by kind"),
                &["kind"],
            )
            .expect("valid counter"),
            http_requests: IntCounterVec::new(
                Opts::new(
                    "canopy_http_requests_total",
                    "HTTP requests, by matched route and status",
                ),
                &["route", "status"],
            )
            .expect("valid counter"),
            http_seconds: HistogramVec::new(
                HistogramOpts::new(
                    "canopy_http_request_duration_seconds",
                    "HTTP request latency until the response head, by matched route",
                )
                .buckets(vec![
                    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0,
                ]),
                &["route"],
            )
            .expect("valid histogram"),
            ws_closed: IntCounterVec::new(
                Opts::new(
                    "canopy_ws_closed_total",
                    "WebSocket connections closed, by why",
                ),
                &["reason"],
            )
            .expect("valid counter"),
            resumed_subscriptions: counter(
                "canopy_resumed_subscriptions_total",
                "Subscriptions answered with a resumed delta instead of a snapshot",
            ),
            connections_refused: counter(
                "canopy_connections_refused_total",
                "Connections closed at accept by the connection caps",
            ),
            http_reads_cut: counter(
                "canopy_http_reads_cut_total",
                "Whole-room reads cut off because their reader took them slower than the minimum rate",
            ),
            http_write_stalls: counter(
                "canopy_http_write_stalls_total",
                "HTTP connections closed because their peer accepted nothing of an answer",
            ),
            unsent_snapshot_bytes: gauge(
                "canopy_unsent_snapshot_bytes",
                "Bytes of encoded snapshots not yet written to their subscribers",
            ),
            process_rss_bytes: gauge(
                "canopy_process_resident_memory_bytes",
                "Resident memory of the server process",
            ),
            process_cpu_seconds: Gauge::new(
                "canopy_process_cpu_seconds",
                "User and system CPU time of the server process, in hundredths of a second",
            )
            .expect("valid gauge"),
            registry,
        };
        let r = &m.registry;
        r.register(Box::new(m.tick_seconds.clone())).ok();
        r.register(Box::new(m.fanout_delay_seconds.clone())).ok();
        r.register(Box::new(m.tick_start_delay_seconds.clone()))
            .ok();
        r.register(Box::new(m.slow_ticks.clone())).ok();
        r.register(Box::new(m.nodes_recomputed.clone())).ok();
        r.register(Box::new(m.delta_frames_sent.clone())).ok();
        r.register(Box::new(m.flushed_delta_frames.clone())).ok();
        r.register(Box::new(m.delta_bytes_sent.clone())).ok();
        r.register(Box::new(m.bytes_sent.clone())).ok();
        r.register(Box::new(m.merged_frames.clone())).ok();
        r.register(Box::new(m.subscribers.clone())).ok();
        r.register(Box::new(m.connections.clone())).ok();
        r.register(Box::new(m.rooms.clone())).ok();
        r.register(Box::new(m.batches_applied.clone())).ok();
        r.register(Box::new(m.batches_rejected.clone())).ok();
        r.register(Box::new(m.queries.clone())).ok();
        r.register(Box::new(m.process_rss_bytes.clone())).ok();
        r.register(Box::new(m.process_cpu_seconds.clone())).ok();
        r.register(Box::new(m.connections_refused.clone())).ok();
        r.register(Box::new(m.http_reads_cut.clone())).ok();
        r.register(Box::new(m.http_write_stalls.clone())).ok();
        r.register(Box::new(m.unsent_snapshot_bytes.clone())).ok();
        r.register(Box::new(m.http_requests.clone())).ok();
        r.register(Box::new(m.http_seconds.clone())).ok();
        r.register(Box::new(m.ws_closed.clone())).ok();
        r.register(Box::new(m.resumed_subscriptions.clone())).ok();
        let build = IntGaugeVec::new(
            Opts::new(
                "canopy_build_info",
                "The server's version and wire protocol version",
            ),
            &["version", "protocol"],
        )
        .expect("valid gauge");
        build
            .with_label_values(&[env!("CARGO_PKG_VERSION"), canopy_protocol::PROTOCOL_VERSION])
            .set(1);
        r.register(Box::new(build)).ok();
        // CPU seconds, open and maximum descriptors, memory and start time, read from
        // procfs with the system's page size.
        #[cfg(target_os = "linux")]
        r.register(Box::new(
            prometheus::process_collector::ProcessCollector::for_self(),
        ))
        .ok();
        for code in ErrorCode::ALL {
            m.batches_rejected.with_label_values(&[code.as_str()]);
        }
        m
    }

    /// The registry every collector is in (for layers that register their own).
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// Registers a collector kept elsewhere (the storage layer's, `storage_metrics.rs`).
    pub fn register(&self, collector: Box<dyn prometheus::core::Collector>) {
        self.registry.register(collector).ok();
    }

    /// Counts a rejected batch under its code.
    pub fn rejected(&self, code: ErrorCode) {
        self.batches_rejected
            .with_label_values(&[code.as_str()])
            .inc();
    }

    /// The Prometheus text exposition of every metric.
    pub fn render(&self) -> String {
        self.process_rss_bytes.set(resident_memory_bytes() as i64);
        self.process_cpu_seconds.set(cpu_seconds());
        let mut buf = Vec::new();
        TextEncoder::new()
            .encode(&self.registry.gather(), &mut buf)
            .expect("text encoding into a Vec cannot fail");
        String::from_utf8(buf).expect("Prometheus text is UTF-8")
    }
}

/// The process's resident set size, from `/proc/self/statm` in pages of the system's
/// page size (0 where there is no procfs).
pub fn resident_memory_bytes() -> u64 {
    let page = procfs::page_size();
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or(0, |pages| pages * page)
}

/// The process's user and system CPU time in seconds, from `/proc/self/stat` in the
/// kernel's clock ticks (hundredths of a second; 0 where there is no procfs).
pub fn cpu_seconds() -> f64 {
    procfs::process::Process::myself()
        .and_then(|p| p.stat())
        .map_or(0.0, |st| {
            (st.utime + st.stime) as f64 / procfs::ticks_per_second() as f64
        })
}
