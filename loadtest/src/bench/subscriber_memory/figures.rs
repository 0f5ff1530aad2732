//! A memory run's report: one row per phase, the figures the baselines compare, and the
//! checks that make the benchmark fail (RSS with every subscriber, RSS given back,
//! latency, every change streamed, no errors).

use super::{AFTER_LEAVE, Measured, RELEASE_SLACK, STREAMED_SHARE};
use crate::bench::BenchName;
use crate::bench::table::{BenchReport, mib};
use crate::scenario::Scenario;

/// KiB per connected subscriber that `total` RSS adds to the room alone.
fn per_sub(m: &Measured, total: f64) -> f64 {
    if m.connected.count > 0 {
        (total - m.alone) / m.connected.count as f64 / 1024.0
    } else {
        0.0
    }
}

/// The rows and figures of the run.
pub(super) fn rows(s: &Scenario, m: &Measured, report: &mut BenchReport) {
    memory_rows(s, m, report);
    load_rows(s, m, report);
    for (k, v) in [
        ("rss_fresh_mib", mib(m.fresh)),
        ("rss_alone_mib", mib(m.alone)),
        ("rss_connected_mib", mib(m.synced)),
        ("rss_loaded_max_mib", mib(m.loaded.max)),
        ("rss_after_mib", mib(m.left.after)),
        ("kib_per_subscriber", per_sub(m, m.loaded.max)),
        ("p99_ms", m.loaded.latency.fast.p99_ms),
        ("subscribers_connected", m.connected.count as f64),
    ] {
        report.figure(k, v);
    }
}

fn memory_rows(s: &Scenario, m: &Measured, report: &mut BenchReport) {
    let (c, l) = (&m.connected, &m.loaded);
    report.row(
        "server RSS, room just created",
        format!("{:.1} MiB", mib(m.fresh)),
    );
    report.row(
        "server RSS, room alone",
        format!(
            "{:.1} MiB, after {:.0} s of the same edits with no subscriber",
            mib(m.alone),
            s.load_duration().as_secs_f64()
        ),
    );
    report.row(
        "connecting",
        format!(
            "{} of {} subscribers synced their snapshot in {:.1} s; peak RSS {:.1} MiB{}",
            c.count,
            s.subscribers,
            c.seconds,
            mib(c.peak),
            c.aborted
                .as_ref()
                .map(|a| format!("; {a}"))
                .unwrap_or_default()
        ),
    );
    report.row(
        "server RSS, subscribers connected",
        format!(
            "{:.1} MiB, snapshots written, before any edit ({:+.1} KiB per subscriber)",
            mib(m.synced),
            per_sub(m, m.synced)
        ),
    );
    report.row(
        "server RSS, loaded",
        format!(
            "median {:.1} / max {:.1} MiB over {:.0} s of edits ({:+.1} KiB per subscriber at the max)",
            mib(l.median),
            mib(l.max),
            l.window_s,
            per_sub(m, l.max)
        ),
    );
    report.row(
        "server RSS, after they left",
        format!(
            "{:.1} MiB ({:+.1}% of the room alone), {} s after the server counted {} connections{}",
            mib(m.left.after),
            (m.left.after - m.alone) / m.alone * 100.0,
            AFTER_LEAVE.as_secs(),
            m.left.connections,
            if m.left.gone {
                ""
            } else {
                " (it never came back to the count before)"
            }
        ),
    );
}

fn load_rows(s: &Scenario, m: &Measured, report: &mut BenchReport) {
    let l = &m.loaded;
    let latency = &l.latency;
    report.row(
        "edit-to-delta latency",
        if latency.fast.count == 0 {
            "no samples".to_string()
        } else {
            format!(
                "p50 {:.1} / p99 {:.1} / max {:.1} ms (n={}) = {:.2} ticks at p99",
                latency.fast.p50_ms,
                latency.fast.p99_ms,
                latency.fast.max_ms,
                latency.fast.count,
                latency.p99_ticks
            )
        },
    );
    // The ack leaves after the tick that applied the batch, so its latency follows the
    // wait for that tick (one editor keeps one phase against the room's tick grid for a
    // whole run, so this differs between runs, not within one), plus its turn among the
    // tick's writes.
    report.row(
        "edits",
        format!(
            "{:.1} batches/s sent, {} of {} acked; edit-to-ack p50 {:.1} / p99 {:.1} ms",
            l.edits.batches_per_s,
            l.edits.acks,
            l.edits.batches_sent,
            l.edits.ack_latency.p50_ms,
            l.edits.ack_latency.p99_ms
        ),
    );
    cpu_row(s, m, report);
    // The server's own share of the latency: how late ticks started, and how long frames
    // then waited for a flusher.
    l.delays.1.report_since(&l.delays.0, report);
    let kbs = |r: Option<f64>| r.map_or("none".to_string(), |r| format!("{:.1} KB/s", r / 1e3));
    report.row(
        "delta bytes per subscriber",
        format!(
            "{} decoding (exact), {} counting ({}); payloads, without WebSocket headers",
            kbs(l.decoding_rate),
            kbs(l.counting_rate),
            s.encoding.name()
        ),
    );
    if let Some(r) = l.counting_rate {
        report.figure("counting_subscriber_bytes_per_s", r);
    }
    report.row(
        "changes streamed",
        format!(
            "at least {:.0} rows to every decoding subscriber (1 in {}) for {:.0} ops sent ({:.1}%)",
            l.rows_per_sub,
            s.decode_every,
            l.ops_sent,
            l.rows_per_sub / l.ops_sent.max(1.0) * 100.0
        ),
    );
    report.row("errors", crate::observe::errors::summary(&m.errors));
}

/// What the server's fan-out costs: its CPU over the loaded window, per subscriber and
/// per frame it wrote (one frame per subscriber per tick that changed).
fn cpu_row(s: &Scenario, m: &Measured, report: &mut BenchReport) {
    let (l, connected) = (&m.loaded, m.connected.count);
    let frames =
        (s.edit_rate * s.editors as f64).min(f64::from(s.tick_hz)) * l.window_s * connected as f64;
    match l.cpu {
        (Some(a), Some(b)) if b >= a && l.window_s > 0.0 => {
            let cores = (b - a) / l.window_s;
            report.row(
                "server CPU, loaded",
                format!(
                    "{cores:.3} cores; {:.2} ms/s per subscriber, {:.2} us per subscriber-frame",
                    cores * 1e3 / connected.max(1) as f64,
                    (b - a) * 1e6 / frames.max(1.0)
                ),
            );
            report.figure("server_cpu_cores", cores);
        }
        _ => report.row("server CPU, loaded", "not in /metrics".to_string()),
    }
}

/// The checks that fail the benchmark.
pub(super) fn checks(s: &Scenario, m: &Measured, limit_bytes: f64, report: &mut BenchReport) {
    let (c, l) = (&m.connected, &m.loaded);
    let all_connected = c.aborted.is_none() && c.count == s.subscribers;
    let peak = l.max.max(c.peak);
    report.check(
        "server RSS with every subscriber",
        all_connected && peak <= limit_bytes,
        format!(
            "{}peak {:.1} MiB, limit {:.0} MiB",
            if all_connected {
                String::new()
            } else {
                format!("only {} of {} connected; ", c.count, s.subscribers)
            },
            mib(peak),
            mib(limit_bytes)
        ),
    );
    if s.bench == Some(BenchName::RssPerSubscriber) {
        report.check(
            "RSS after they left",
            m.left.gone && m.left.after <= m.alone * (1.0 + RELEASE_SLACK),
            format!(
                "{:.1} MiB vs room alone {:.1} MiB, limit +{:.0}%",
                mib(m.left.after),
                mib(m.alone),
                RELEASE_SLACK * 100.0
            ),
        );
    }
    if s.bench == Some(BenchName::ManySubscribers) {
        let limit_ms = s.max_p99_ticks * l.latency.tick_ms;
        report.check(
            "p99 edit-to-delta",
            l.latency.fast.count > 0 && l.latency.fast.p99_ms <= limit_ms,
            format!(
                "{:.1} ms ({:.2} ticks), limit {limit_ms:.1} ms ({} ticks)",
                l.latency.fast.p99_ms, l.latency.p99_ticks, s.max_p99_ticks
            ),
        );
    }
    // The workload proves itself: the loaded window changed what it set, and every
    // subscriber was streamed it (merging a slow client's repeated changes of one node
    // may coalesce a few rows, hence the slack).
    report.check(
        "changes streamed to every subscriber",
        l.ops_sent > 0.0 && l.rows_per_sub >= l.ops_sent * STREAMED_SHARE,
        format!(
            "{:.1}% of the ops sent, limit {:.0}%",
            l.rows_per_sub / l.ops_sent.max(1.0) * 100.0,
            STREAMED_SHARE * 100.0
        ),
    );
    report.check(
        "no errors",
        m.errors.is_empty(),
        format!("{} errors", m.errors.values().sum::<u64>()),
    );
}
