//! The soak's verdict and its rows of the table: one check per provoked behaviour (it
//! happened), the RSS growth rule, every fast client's p99, and one check per hostile
//! kind.
//!
//! Invariant: a provoked behaviour that did not happen fails its check, so a soak
//! cannot pass by provoking nothing.

use crate::report::checks::Check;
use crate::scenario::Scenario;
use crate::soak::session::SoakReport;

fn check(name: &str, passed: bool, detail: String) -> Check {
    Check {
        name: name.to_string(),
        passed,
        detail,
    }
}

/// The soak's own checks.
pub(crate) fn checks(s: &Scenario, r: &SoakReport) -> Vec<Check> {
    let mut out = Vec::new();
    out.push(match &r.rss {
        Some(v) => check(
            "soak: RSS growth after warm-up",
            v.passed,
            format!(
                "{:+.1}% (last-minute max {:.0} MiB vs baseline {:.0} MiB), limit {:+.0}%",
                v.growth * 100.0,
                v.tail_max_mib,
                v.baseline_mib,
                s.max_rss_growth * 100.0
            ),
        ),
        None => check(
            "soak: RSS growth after warm-up",
            false,
            format!("no RSS sample after the {:.0} s warm-up", s.warmup_secs()),
        ),
    });
    let tick_ms = 1000.0 / f64::from(s.tick_hz);
    if s.editors > 0 && s.edit_rate > 0.0 {
        let limit = s.max_p99_ticks * tick_ms;
        out.push(check(
            "soak: every fast client's p99",
            r.worst_fast_subscriber.is_some() && r.worst_fast_p99_ms < limit,
            format!(
                "worst p99 {:.1} ms ({:.2} ticks, subscriber {}), limit {limit:.1} ms",
                r.worst_fast_p99_ms,
                r.worst_fast_p99_ms / tick_ms,
                r.worst_fast_subscriber
                    .map_or("none".into(), |i| i.to_string())
            ),
        ));
    }
    if s.storm_fraction > 0.0 && s.duration > s.storm_every {
        out.push(check(
            "soak: reconnect storms",
            r.storms > 0 && r.storm_reconnects > 0,
            format!("{} storms, {} reconnects", r.storms, r.storm_reconnects),
        ));
    }
    if r.stalled_subscribers > 0 && s.duration > s.stall_secs() {
        out.push(check(
            "soak: stalled readers dropped",
            r.dropped_reconnects > 0,
            format!(
                "{} stalled readers, {} stalls, {} dropped by the server and resubscribed",
                r.stalled_subscribers, r.stalls, r.dropped_reconnects
            ),
        ));
    }
    if s.invalid_batches > 0.0 && s.editors > 0 && s.edit_rate > 0.0 {
        let refused: u64 = r
            .expected
            .iter()
            .filter(|(k, _)| k.starts_with("invalid_batch_"))
            .map(|(_, n)| n)
            .sum();
        out.push(check(
            "soak: invalid batches refused",
            refused > 0,
            format!("{refused} refused with the expected code, none applied"),
        ));
    }
    out.extend(r.hostile.iter().map(|k| k.check()));
    if s.overquota_rate > 0.0 {
        out.push(check(
            "soak: queries over quota refused",
            r.quota_rate_limited > 0,
            format!(
                "{} sent, {} answered, {} rate_limited",
                r.quota_sent, r.quota_answered, r.quota_rate_limited
            ),
        ));
    }
    out
}

/// The soak's rows of the table.
pub(crate) fn rows(r: &SoakReport) -> Vec<(String, String)> {
    let mut rows = vec![
        (
            "soak: storms".to_string(),
            format!("{} storms, {} reconnects", r.storms, r.storm_reconnects),
        ),
        (
            "soak: stalled readers".to_string(),
            format!(
                "{} readers, {} stalls, {} dropped by the server and resubscribed",
                r.stalled_subscribers, r.stalls, r.dropped_reconnects
            ),
        ),
        (
            "soak: over-quota caller".to_string(),
            format!(
                "{} sent, {} answered, {} rate_limited",
                r.quota_sent, r.quota_answered, r.quota_rate_limited
            ),
        ),
        (
            "soak: expected".to_string(),
            if r.expected.is_empty() {
                "none".into()
            } else {
                r.expected
                    .iter()
                    .map(|(c, n)| format!("{c}: {n}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            },
        ),
    ];
    if let Some(v) = &r.rss {
        let label = if r.in_process {
            "soak: RSS (server + harness)"
        } else {
            "soak: RSS (server)"
        };
        rows.push((
            label.to_string(),
            format!(
                "{} samples ({} failed), min {:.0} / baseline {:.0} / last-minute max {:.0} / last {:.0} MiB, growth {:+.1}% after {:.0} s warm-up",
                v.samples,
                r.rss_failed_scrapes,
                v.min_mib,
                v.baseline_mib,
                v.tail_max_mib,
                v.last_mib,
                v.growth * 100.0,
                v.warmup_s
            ),
        ));
        rows.push((
            "soak: RSS per minute".to_string(),
            v.per_minute_max_mib
                .iter()
                .map(|m| format!("{m:.0}"))
                .collect::<Vec<_>>()
                .join(" ")
                + " MiB (max of each minute)",
        ));
    }
    for k in &r.hostile {
        rows.push((format!("soak: hostile {}", k.kind.name()), k.row()));
    }
    // With `--spawn` the harness's series is the same process as the server's.
    if let (false, Some(h)) = (r.in_process, &r.harness_rss) {
        rows.push((
            "soak: harness RSS".to_string(),
            format!(
                "min {:.0} / baseline {:.0} / last-minute max {:.0} / last {:.0} MiB, growth {:+.1}% (not judged)",
                h.min_mib,
                h.baseline_mib,
                h.tail_max_mib,
                h.last_mib,
                h.growth * 100.0
            ),
        ));
    }
    rows
}
