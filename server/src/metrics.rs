//! The server's Prometheus metrics, rendered as text by `GET /metrics`.
//!
//! Labels never carry client-chosen strings (room ids, tokens), so the number of series
//! stays bounded whatever clients do.

use std::sync::Arc;

use canopy_room::metrics::{RoomMetrics, histogram, registered};
use prometheus::{
    Encoder, Gauge, Histogram, HistogramOpts, HistogramVec, IntCounter, IntCounterVec, IntGauge,
    IntGaugeVec, Opts, Registry, TextEncoder,
};

/// Every metric the server exports: the rooms' own ([`RoomMetrics`], fed by the tick
/// threads) and the edges'.
#[derive(Debug, Clone)]
pub struct Metrics {
    registry: Registry,
    /// The rooms' metrics (ticks, batches, subscribers, unsent snapshots).
    pub room: Arc<RoomMetrics>,
    /// `canopy_fanout_delay_seconds`: from a tick handing a subscriber's frame to the
    /// flushers until a flusher wrote it (plain-TCP subscribers that keep up; a slow
    /// one's writer task and TLS connections are not counted). The server's share of
    /// edit-to-delta latency after the tick: high values mean the fan-out itself is
    /// behind (CPU), not the network or the clients.
    pub fanout_delay_seconds: Histogram,
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
    /// `canopy_ws_connections`: open WebSocket connections, subscribed or not.
    pub connections: IntGauge,
    /// `canopy_rooms`: rooms the server holds.
    pub rooms: IntGauge,
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
    /// `canopy_whole_room_reads`: whole-room read slots held now (`--whole-room-reads`),
    /// refreshed on each render.
    pub whole_room_reads: IntGauge,
    /// `canopy_partial_message_bytes`: bytes of WebSocket messages begun and not yet
    /// complete (`--max-partial-message-bytes`), refreshed on each render.
    pub partial_message_bytes: IntGauge,
    /// `canopy_http_reads_cut_total`: whole-room reads (`GET .../nodes`, `.../octree`) cut off because
    /// their reader took the answer slower than the minimum rate (one that accepts
    /// nothing is closed by the write deadline: `http_write_stalls`).
    pub http_reads_cut: IntCounter,
    /// `canopy_http_write_stalls_total`: HTTP connections closed because their peer
    /// accepted no byte of an answer for `--request-timeout-secs`.
    pub http_write_stalls: IntCounter,
    /// HTTP requests by matched route (the route's template, never the raw path) and
    /// status code.
    pub http_requests: IntCounterVec,
    /// `canopy_http_request_duration_seconds{route}`: latency until the response head.
    pub http_seconds: HistogramVec,
    /// `canopy_ws_closed_total{reason}`: WebSocket connections closed, by why the session
    /// ended.
    pub ws_closed: IntCounterVec,
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

/// A counter vector with these labels, registered.
fn counter_vec(r: &Registry, name: &str, help: &str, labels: &[&str]) -> IntCounterVec {
    registered(
        r,
        IntCounterVec::new(Opts::new(name, help), labels).expect("valid counter"),
    )
}

impl Metrics {
    /// A fresh set of metrics, counters at zero, in a registry of its own.
    pub fn new() -> Self {
        let r = Registry::new();
        let counter = |name: &str, help: &str| {
            registered(&r, IntCounter::new(name, help).expect("valid counter"))
        };
        let gauge = |name: &str, help: &str| {
            registered(&r, IntGauge::new(name, help).expect("valid gauge"))
        };
        let m = Self {
            room: Arc::new(RoomMetrics::new(&r)),
            fanout_delay_seconds: registered(
                &r,
                histogram(
                    "canopy_fanout_delay_seconds",
                    "Time from a tick handing a subscriber's frame to the flushers until it \
                     was written",
                    &[
                        0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.25,
                        0.5, 1.0,
                    ],
                ),
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
            connections: gauge("canopy_ws_connections", "Open WebSocket connections"),
            rooms: gauge("canopy_rooms", "Rooms"),
            queries: counter_vec(
                &r,
                "canopy_queries_total",
                "Spatial queries answered, by kind",
                &["kind"],
            ),
            http_requests: counter_vec(
                &r,
                "canopy_http_requests_total",
                "HTTP requests, by matched route and status",
                &["route", "status"],
            ),
            http_seconds: registered(
                &r,
                HistogramVec::new(
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
            ),
            ws_closed: counter_vec(
                &r,
                "canopy_ws_closed_total",
                "WebSocket connections closed, by why",
                &["reason"],
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
            whole_room_reads: gauge(
                "canopy_whole_room_reads",
                "Whole-room read slots held (GET .../nodes, .../octree)",
            ),
            partial_message_bytes: gauge(
                "canopy_partial_message_bytes",
                "Bytes of WebSocket messages begun and not yet complete",
            ),
            process_rss_bytes: gauge(
                "canopy_process_resident_memory_bytes",
                "Resident memory of the server process",
            ),
            process_cpu_seconds: registered(
                &r,
                Gauge::new(
                    "canopy_process_cpu_seconds",
                    "User and system CPU time of the server process, in hundredths of a second",
                )
                .expect("valid gauge"),
            ),
            registry: r.clone(),
        };
        register_process(&r);
        m
    }

    /// The registry every collector is in (for layers that register their own).
    pub fn registry(&self) -> &Registry {
        &self.registry
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

/// The build's version gauge and the process collector (CPU seconds, open and maximum
/// descriptors, memory and start time, read from procfs with the system's page size).
fn register_process(r: &Registry) {
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
    registered(r, build);
    #[cfg(target_os = "linux")]
    let _ = r.register(Box::new(
        prometheus::process_collector::ProcessCollector::for_self(),
    ));
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
