//! S2's report: the workload line, one group of rows per mode, the ratios, and the
//! checks that fail the benchmark (the three ratios, every copy right, every player
//! connected in both modes, changes reaching the follow scopes, no errors).

use std::collections::BTreeMap;

use super::edits::PARTS;
use super::layout::{Layout, WALK_SPEED};
use super::window::Measured;
use super::{BYTES_RATIO, CPU_RATIO, FRAMES_RATIO, Shape};
use crate::bench::table::{BenchReport, mib};
use crate::scenario::Scenario;

/// The workload in one line.
pub(super) fn workload(s: &Scenario, layout: &Layout, shape: &Shape) -> String {
    format!(
        "1 room x {} nodes on a {:.0} x {:.0} plane at {} Hz, {} players each owning a \
         walking avatar ({WALK_SPEED} units/s); 1 editor x {}/s x ({} avatars + {} random \
         nodes, in {PARTS} batches); {:?}; whole room, then follow (radius {:.1}, margin {:.1}, send_hz {}, \
         tiers within {:.1} every 1 / every {}); {} s measured per mode",
        s.nodes,
        layout.side,
        layout.side,
        s.tick_hz,
        s.subscribers,
        s.edit_rate,
        layout.walks.len(),
        s.batch_size,
        s.format,
        shape.radius,
        shape.margin,
        shape.send_hz,
        shape.near,
        shape.far_every,
        s.duration
    )
    .to_lowercase()
}

/// Every row, figure and check.
pub(super) fn report(
    whole: &Measured,
    follow: &Measured,
    errors: &BTreeMap<String, u64>,
    report: &mut BenchReport,
) {
    for m in [whole, follow] {
        mode_rows(m, report);
    }
    let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { f64::INFINITY };
    let bytes = ratio(follow.bytes.0, whole.bytes.0);
    let frames = ratio(follow.frames.0, whole.frames.0);
    let cpu = match (follow.cpu, whole.cpu) {
        (Some(f), Some(w)) => ratio(f, w),
        _ => f64::NAN,
    };
    report.row(
        "follow / whole room",
        format!("bytes {bytes:.4}x, frames {frames:.3}x, server CPU {cpu:.3}x"),
    );
    report.row("errors", crate::observe::errors::summary(errors));
    for (k, v) in [
        ("bytes_ratio", bytes),
        ("frames_ratio", frames),
        ("cpu_ratio", cpu),
    ] {
        report.figure(k, v);
    }
    checks(whole, follow, (bytes, frames, cpu), errors, report);
}

fn mode_rows(m: &Measured, report: &mut BenchReport) {
    let name = m.mode.name();
    let key = name.replace(' ', "_");
    report.row(
        &format!("{name}: players"),
        format!(
            "{} connected and synced in {:.1} s; {:.1} s measured",
            m.connected, m.connect_s, m.window_s
        ),
    );
    report.row(
        &format!("{name}: per client"),
        format!(
            "{:.1} KB/s ({:.1}..{:.1}), {:.2} frames/s ({:.2}..{:.2}); payloads, mean (min..max)",
            m.bytes.0 / 1e3,
            m.bytes.1 / 1e3,
            m.bytes.2 / 1e3,
            m.frames.0,
            m.frames.1,
            m.frames.2
        ),
    );
    report.row(
        &format!("{name}: server"),
        format!(
            "CPU {}; RSS median {:.1} / max {:.1} MiB",
            m.cpu
                .map_or("not in /metrics".to_string(), |c| format!("{c:.3} cores")),
            mib(m.rss.0),
            mib(m.rss.1)
        ),
    );
    let l = &m.latency.fast;
    report.row(
        &format!("{name}: edit-to-delta"),
        if l.count == 0 {
            "no samples".to_string()
        } else {
            format!(
                "p50 {:.1} / p99 {:.1} / max {:.1} ms (n={})",
                l.p50_ms, l.p99_ms, l.max_ms, l.count
            )
        },
    );
    report.row(
        &format!("{name}: edits"),
        format!(
            "{:.1} batches/s, {:.0} ops/s, {} of {} acked; edit-to-ack p50 {:.1} / p99 {:.1} ms",
            m.edits.batches_per_s,
            m.edits.ops_per_s,
            m.edits.acks,
            m.edits.batches_sent,
            m.edits.ack_latency.p50_ms,
            m.edits.ack_latency.p99_ms
        ),
    );
    // The server's rows, named for the mode like the others.
    let first = report.rows.len();
    m.delays.1.report_since(&m.delays.0, report);
    for (label, _) in &mut report.rows[first..] {
        *label = format!("{name}: {label}");
    }
    if let Some(check) = &m.mirrors {
        report.row(&format!("{name}: copies"), check.summary());
        report.figure("follow_scope_nodes_mean", check.scope.0);
    }
    for (k, v) in [
        ("bytes_per_s", m.bytes.0),
        ("frames_per_s", m.frames.0),
        ("cpu_cores", m.cpu.unwrap_or(f64::NAN)),
        ("rss_median_mib", mib(m.rss.0)),
        ("p50_ms", l.p50_ms),
        ("p99_ms", l.p99_ms),
    ] {
        report.figure(&format!("{key}_{k}"), v);
    }
}

fn checks(
    whole: &Measured,
    follow: &Measured,
    (bytes, frames, cpu): (f64, f64, f64),
    errors: &BTreeMap<String, u64>,
    report: &mut BenchReport,
) {
    let players = whole.connected.max(follow.connected);
    report.check(
        "every player connected in both modes",
        whole.connected == follow.connected && players > 0,
        format!(
            "{} whole room, {} follow",
            whole.connected, follow.connected
        ),
    );
    let bound = |report: &mut BenchReport, name: &str, value: f64, limit: f64| {
        report.check(name, value <= limit, format!("{value:.4}x, limit {limit}x"));
    };
    bound(
        report,
        "bytes per client, follow / whole room",
        bytes,
        BYTES_RATIO,
    );
    bound(
        report,
        "frames per client, follow / whole room",
        frames,
        FRAMES_RATIO,
    );
    bound(report, "server CPU, follow / whole room", cpu, CPU_RATIO);
    // The workload proves itself: follow scopes were streamed in-scope changes.
    report.check(
        "in-scope changes reached the follow scopes",
        follow.latency.fast.count > 0 && follow.frames.1 > 0.0,
        format!(
            "{} latency samples, fewest frames/s of a player {:.2}",
            follow.latency.fast.count, follow.frames.1
        ),
    );
    match &follow.mirrors {
        Some(check) => report.check(
            "every follow copy right",
            check.passed(),
            format!("{} of {} wrong", check.wrong, check.players),
        ),
        None => report.check("every follow copy right", false, "not checked".into()),
    }
    report.check(
        "no errors",
        errors.is_empty(),
        format!("{} errors", errors.values().sum::<u64>()),
    );
}
