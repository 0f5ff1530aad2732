//! The run's report: every number the harness measured, serialisable for `--json`,
//! and its rendering as the table printed at the end of a run.
//!
//! Invariant: the table and the JSON come from the same [`Report`] value, so what a
//! person reads and what a machine reads never disagree; rates are per second of the
//! load window (editors and queries running), not of the whole run.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use crate::observe::cpu::CpuTimes;
use crate::observe::latency::Summary;
use crate::observe::metrics_scrape::ServerWindow;
use crate::observe::verify::VerifyOutcome;
use crate::report::checks::Check;
use crate::scenario::Scenario;

/// Edits sent, acknowledged, and their ack latency.
#[derive(Clone, Debug, Default, Serialize)]
pub(crate) struct EditReport {
    pub batches_sent: u64,
    pub ops_sent: u64,
    pub acks: u64,
    pub batches_per_s: f64,
    pub ops_per_s: f64,
    pub acks_per_s: f64,
    pub ack_latency: Summary,
}

/// Edit-to-delta latency: from an editor's send to a subscriber applying the frame
/// that shows the value.
#[derive(Clone, Debug, Default, Serialize)]
pub(crate) struct LatencyReport {
    pub tick_ms: f64,
    /// Subscribers that read at full speed; the check applies to them.
    pub fast_subscribers: usize,
    pub fast: Summary,
    pub p99_ticks: f64,
    /// Slow readers' samples, for information (their pauses are the point).
    pub slow: Summary,
}

/// min / mean / max of a per-subscriber rate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub(crate) struct Spread {
    pub min: f64,
    pub mean: f64,
    pub max: f64,
}

impl Spread {
    pub(crate) fn of(values: &[f64]) -> Spread {
        if values.is_empty() {
            return Spread::default();
        }
        Spread {
            min: values.iter().copied().fold(f64::INFINITY, f64::min),
            mean: values.iter().sum::<f64>() / values.len() as f64,
            max: values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        }
    }
}

/// Delta traffic of one group of subscribers, per subscriber.
#[derive(Clone, Debug, Default, Serialize)]
pub(crate) struct DeltaGroup {
    pub group: String,
    pub subscribers: usize,
    pub frames_per_s: Spread,
    pub bytes_per_s: Spread,
    /// Seconds each subscriber of the group spent not reading during the window.
    pub paused_s: Spread,
}

/// One query kind.
#[derive(Clone, Debug, Default, Serialize)]
pub(crate) struct KindReport {
    pub kind: String,
    pub answered: u64,
    pub per_s: f64,
    pub latency: Summary,
}

/// Queries sent and answered.
#[derive(Clone, Debug, Default, Serialize)]
pub(crate) struct QueryReport {
    pub sent: u64,
    pub answered: u64,
    pub per_s: f64,
    pub kinds: Vec<KindReport>,
}

/// CPU used during the load window, by thread group and machine-wide.
#[derive(Clone, Debug, Default, Serialize)]
pub(crate) struct CpuReport {
    pub seconds: CpuTimes,
    /// Whether the server's threads were this process's (`--spawn`).
    pub server_in_process: bool,
    /// Cores of the machine.
    pub cores: usize,
    /// Cores' worth of CPU: seconds divided by the window's length.
    pub server_cores: f64,
    pub harness_cores: f64,
    pub machine_busy_cores: f64,
    /// The machine's busy time that was not this process's (other work on a shared
    /// machine), in cores.
    pub other_processes_cores: f64,
}

impl CpuReport {
    pub(crate) fn new(
        seconds: CpuTimes,
        window_s: f64,
        cores: usize,
        server_in_process: bool,
    ) -> Self {
        let per = |s: f64| s / window_s.max(1e-9);
        CpuReport {
            seconds,
            server_in_process,
            cores,
            server_cores: per(seconds.server.cpu_s),
            harness_cores: per(seconds.harness.cpu_s),
            machine_busy_cores: per(seconds.machine_busy_s),
            other_processes_cores: per((seconds.machine_busy_s - seconds.process_s()).max(0.0)),
        }
    }
}

/// Everything a run measured.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Report {
    pub scenario: Scenario,
    pub target: String,
    pub setup_s: f64,
    pub window_s: f64,
    pub edits: EditReport,
    pub latency: LatencyReport,
    /// With several URLs: latency per node, owner against relay.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub per_node: Option<crate::report::per_node::ClusterLatency>,
    pub deltas: Vec<DeltaGroup>,
    pub queries: QueryReport,
    pub errors: BTreeMap<String, u64>,
    pub server: ServerWindow,
    pub cpu: CpuReport,
    pub verify: VerifyOutcome,
    /// The soak's findings, in soak mode.
    pub soak: Option<crate::soak::session::SoakReport>,
    pub checks: Vec<Check>,
    pub passed: bool,
}

fn lat(s: &Summary) -> String {
    if s.count == 0 {
        return "no samples".into();
    }
    format!(
        "p50 {:.1} / p95 {:.1} / p99 {:.1} / max {:.1} ms (n={})",
        s.p50_ms, s.p95_ms, s.p99_ms, s.max_ms, s.count
    )
}

fn bytes(b: f64) -> String {
    if b >= 1024.0 * 1024.0 {
        format!("{:.2} MiB", b / (1024.0 * 1024.0))
    } else if b >= 1024.0 {
        format!("{:.1} KiB", b / 1024.0)
    } else {
        format!("{b:.0} B")
    }
}

/// The scenario in one line.
pub(crate) fn describe(s: &Scenario) -> String {
    format!(
        "{} room(s) x {} nodes (fanout {}, depth {}), {} room + {} region subscribers \
         ({:.0}% slow), {} editors x {}/s x {} ops, {} queries/s via {:?}, {} s at {} Hz, {:?}",
        s.rooms,
        s.nodes,
        s.fanout,
        s.depth,
        s.subscribers,
        s.region_subscribers,
        s.slow_readers * 100.0,
        s.editors,
        s.edit_rate,
        s.batch_size,
        s.queries,
        s.query_via,
        s.duration,
        s.tick_hz,
        s.format
    )
    .to_lowercase()
}

/// The rows of the table, label and value.
pub(crate) fn rows(r: &Report) -> Vec<(String, String)> {
    let mut rows: Vec<(String, String)> = Vec::new();
    let mut row = |k: &str, v: String| rows.push((k.to_string(), v));
    client_rows(r, &mut row);
    server_rows(r, &mut row);
    outcome_rows(r, &mut row);
    rows.push((
        "result".to_string(),
        if r.passed { "PASS" } else { "FAIL" }.to_string(),
    ));
    rows
}

/// What the clients saw: latency, edits, deltas, queries.
fn client_rows(r: &Report, row: &mut impl FnMut(&str, String)) {
    row(
        "target",
        format!(
            "{} (setup {:.1} s, load window {:.1} s)",
            r.target, r.setup_s, r.window_s
        ),
    );
    row(
        "edit-to-delta latency",
        format!(
            "{} = {:.2} ticks at p99",
            lat(&r.latency.fast),
            r.latency.p99_ticks
        ),
    );
    row("  slow readers", lat(&r.latency.slow));
    if let Some(c) = &r.per_node {
        for (k, v) in crate::report::per_node::rows(c) {
            row(&k, v);
        }
    }
    let e = &r.edits;
    row(
        "edits",
        format!(
            "{:.1} batches/s ({:.0} ops/s) sent, {:.1} acks/s, {} of {} acked",
            e.batches_per_s, e.ops_per_s, e.acks_per_s, e.acks, e.batches_sent
        ),
    );
    row("  edit ack latency", lat(&e.ack_latency));
    for g in &r.deltas {
        let paused = if g.paused_s.max > 0.0 {
            format!(", paused {:.1} s each on average", g.paused_s.mean)
        } else {
            String::new()
        };
        row(
            &format!("deltas per {} subscriber", g.group),
            format!(
                "{:.1} frames/s, {}/s (min {}/s, max {}/s; {} subscribers{paused})",
                g.frames_per_s.mean,
                bytes(g.bytes_per_s.mean),
                bytes(g.bytes_per_s.min),
                bytes(g.bytes_per_s.max),
                g.subscribers
            ),
        );
    }
    let q = &r.queries;
    row(
        "queries",
        format!("{:.1}/s, {} of {} answered", q.per_s, q.answered, q.sent),
    );
    for k in &q.kinds {
        row(
            &format!("  {}", k.kind),
            format!("{:.1}/s, {}", k.per_s, lat(&k.latency)),
        );
    }
}

/// What the server reported over the window, and the CPU it took.
fn server_rows(r: &Report, row: &mut impl FnMut(&str, String)) {
    let sv = &r.server;
    row(
        "server tick",
        format!(
            "mean {:.2} ms, p99 <= {:.2} ms, max {:.2} ms, {} slow of {} ticks",
            sv.tick_mean_ms, sv.tick_p99_ms_upper, sv.tick_max_ms, sv.slow_ticks, sv.ticks
        ),
    );
    if sv.fsyncs > 0 {
        row(
            "server log fsync",
            format!(
                "{} fsyncs, mean {:.2} ms, p99 <= {:.0} ms, {} over 100 ms \
                 (acks wait for them; deltas too unless --live-deltas)",
                sv.fsyncs, sv.fsync_mean_ms, sv.fsync_p99_ms_upper, sv.fsyncs_over_100ms
            ),
        );
    }
    row(
        "server fan-out",
        format!(
            "{} delta frames ({}), {} merged frames, merge peak {} entries, \
             server process RSS {:.0} MiB",
            sv.delta_frames_sent,
            bytes(sv.delta_bytes_sent as f64),
            sv.merged_frames,
            sv.pending_merge_entries_peak,
            sv.rss_mb
        ),
    );
    let c = &r.cpu;
    let server = if c.server_in_process {
        format!(
            "server {:.2} cores (waited {:.1} s for a core), ",
            c.server_cores, c.seconds.server.wait_s
        )
    } else {
        String::new()
    };
    row(
        "cpu (load window)",
        format!(
            "{server}harness {:.2} cores (waited {:.1} s); \
             machine {:.2} of {} cores busy, {:.2} of them other processes",
            c.harness_cores,
            c.seconds.harness.wait_s,
            c.machine_busy_cores,
            c.cores,
            c.other_processes_cores
        ),
    );
}

/// Errors, the mirrors' verdict, the soak's rows and every check.
fn outcome_rows(r: &Report, row: &mut impl FnMut(&str, String)) {
    row("errors", crate::observe::errors::summary(&r.errors));
    let v = &r.verify;
    row(
        "final mirrors",
        format!(
            "{}/{} equal to the server in {} ms ({} boundary nodes)",
            v.converged, v.subscribers, v.took_ms, v.borderline_nodes
        ),
    );
    if let Some(soak) = &r.soak {
        for (k, v) in crate::soak::verdict::rows(soak) {
            row(&k, v);
        }
    }
    for c in &r.checks {
        row(
            &format!("check: {}", c.name),
            format!("{} ({})", if c.passed { "PASS" } else { "FAIL" }, c.detail),
        );
    }
}

/// The report as an aligned two-column table, headed by the scenario.
pub(crate) fn render_table(r: &Report) -> String {
    let rows = rows(r);
    let width = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    let mut out = String::new();
    let _ = writeln!(out, "{}", describe(&r.scenario));
    let _ = writeln!(out, "{}", "-".repeat(width + 2 + 60));
    for (k, v) in rows {
        let _ = writeln!(out, "{k:<width$}  {v}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn sample() -> Report {
        let scenario = Scenario::parse_from(["canopy-loadtest", "--spawn", "--duration", "15"]);
        Report {
            scenario,
            target: "spawned".into(),
            setup_s: 2.0,
            window_s: 15.0,
            edits: EditReport {
                batches_sent: 4500,
                acks: 4500,
                batches_per_s: 300.0,
                ..EditReport::default()
            },
            latency: LatencyReport {
                tick_ms: 33.3,
                fast_subscribers: 500,
                fast: Summary {
                    count: 10,
                    p50_ms: 20.0,
                    p99_ms: 40.0,
                    max_ms: 50.0,
                    ..Summary::default()
                },
                p99_ticks: 1.2,
                slow: Summary::default(),
            },
            per_node: None,
            deltas: vec![DeltaGroup {
                group: "room".into(),
                subscribers: 500,
                frames_per_s: Spread::of(&[30.0, 30.0]),
                bytes_per_s: Spread::of(&[2048.0, 4096.0]),
                paused_s: Spread::default(),
            }],
            queries: QueryReport::default(),
            errors: BTreeMap::from([("overloaded".to_string(), 2)]),
            server: ServerWindow::default(),
            cpu: CpuReport::default(),
            verify: VerifyOutcome::default(),
            soak: None,
            checks: vec![Check {
                name: "no errors".into(),
                passed: false,
                detail: "overloaded: 2".into(),
            }],
            passed: false,
        }
    }

    #[test]
    fn table_is_aligned_and_says_what_failed() {
        let text = render_table(&sample());
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].starts_with("1 room(s) x 20000 nodes"));
        let value_column = lines[2].find("spawned").unwrap();
        assert!(
            lines[2..]
                .iter()
                .all(|l| l.len() > value_column && &l[value_column - 2..value_column] == "  "),
            "{text}"
        );
        assert!(text.contains("p50 20.0 / p95 0.0 / p99 40.0 / max 50.0 ms (n=10) = 1.20 ticks"));
        assert!(text.contains("3.0 KiB/s (min 2.0 KiB/s, max 4.0 KiB/s; 500 subscribers)"));
        assert!(text.contains("errors") && text.contains("overloaded: 2"));
        assert!(text.contains("FAIL (overloaded: 2)"));
        assert!(lines.last().unwrap().ends_with("FAIL"));
    }

    #[test]
    fn json_has_the_same_numbers() {
        let v = serde_json::to_value(sample()).unwrap();
        assert_eq!(v["latency"]["fast"]["p99_ms"], 40.0);
        assert_eq!(v["errors"]["overloaded"], 2);
        assert_eq!(
            v["scenario"]["query_mix"],
            "region=1,sphere=1,ray=1,nearest=1"
        );
        assert!(v["scenario"].get("token").is_none());
        assert_eq!(v["passed"], false);
    }
}
