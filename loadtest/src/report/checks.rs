//! The pass/fail rules of a run. Invariant: a run passes only if every check passes,
//! and the process then exits 0; any failed check makes it exit 1 (CI relies on it).
//!
//! The rules: p99 edit-to-delta latency (of the subscribers that read at full speed)
//! below `--max-p99-ticks` ticks; no error of any kind; every mirror equal to the
//! server's state; and the load actually offered: the editors and the query runner
//! reached at least 95% of their target rates and every batch was acknowledged, so a
//! harness that fell behind cannot pass by measuring a lighter load than asked.

use serde::Serialize;

use crate::report::run_report::Report;

/// The share of a target rate the run must reach.
const MIN_RATE_SHARE: f64 = 0.95;

/// One rule's verdict.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct Check {
    pub name: String,
    pub passed: bool,
    pub detail: String,
}

fn check(name: &str, passed: bool, detail: String) -> Check {
    Check {
        name: name.to_string(),
        passed,
        detail,
    }
}

/// Evaluates every rule against a finished report.
pub(crate) fn evaluate(r: &Report) -> Vec<Check> {
    let s = &r.scenario;
    let mut checks = Vec::new();
    let tick_ms = 1000.0 / f64::from(s.tick_hz);
    let lat = &r.latency.fast;
    let editing = s.editors > 0 && s.edit_rate > 0.0;
    if editing && r.latency.fast_subscribers > 0 {
        let limit = s.max_p99_ticks * tick_ms;
        checks.push(check(
            "edit-to-delta p99",
            lat.count > 0 && lat.p99_ms < limit,
            format!(
                "p99 {:.1} ms ({:.2} ticks) over {} samples, limit {:.1} ms ({} ticks)",
                lat.p99_ms,
                lat.p99_ms / tick_ms,
                lat.count,
                limit,
                s.max_p99_ticks
            ),
        ));
    }
    let errors: u64 = r.errors.values().sum();
    checks.push(check(
        "no errors",
        errors == 0,
        if errors == 0 {
            "none".into()
        } else {
            r.errors
                .iter()
                .map(|(code, n)| format!("{code}: {n}"))
                .collect::<Vec<_>>()
                .join(", ")
        },
    ));
    let v = &r.verify;
    checks.push(check(
        "mirrors equal the server",
        v.mismatched == 0 && v.converged == v.subscribers,
        format!(
            "{}/{} converged in {} ms{}",
            v.converged,
            v.subscribers,
            v.took_ms,
            v.failures
                .first()
                .map(|f| format!("; first failure: {f}"))
                .unwrap_or_default()
        ),
    ));
    if editing {
        let target = s.edit_rate * s.editors as f64;
        let e = &r.edits;
        checks.push(check(
            "edit load delivered",
            e.batches_per_s >= MIN_RATE_SHARE * target && e.acks == e.batches_sent,
            format!(
                "{:.1} of {target:.1} batches/s sent, {} of {} acknowledged",
                e.batches_per_s, e.acks, e.batches_sent
            ),
        ));
    }
    if s.queries > 0.0 {
        let q = &r.queries;
        checks.push(check(
            "query load delivered",
            q.per_s >= MIN_RATE_SHARE * s.queries && q.answered == q.sent,
            format!(
                "{:.1} of {:.1} queries/s sent, {} of {} answered",
                q.per_s, s.queries, q.answered, q.sent
            ),
        ));
    }
    checks
}
