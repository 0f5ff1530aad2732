//! `--soak`: the long run. On top of the normal load it starts the reconnect storms
//! (`storm`), the over-quota caller (`overquota`) and the RSS watch (`rss`); stalled
//! readers (`subscriber`) and invalid batches (`editor`, `invalid`) are switched on
//! through their contexts. At the end it gathers what those saw and adds the soak's
//! checks to the run's.
//!
//! Invariant: everything the soak provokes on purpose (storm reconnects, the server's
//! write-deadline drops, refused invalid batches, `rate_limited` answers) is counted in
//! the `expected` tally, never in the run's errors, so "no errors" keeps meaning no
//! unexpected error; and each provoked behaviour has a check that it really happened,
//! so a soak cannot pass by provoking nothing.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use canopy_client::Client;
use serde::Serialize;
use tokio::task::JoinHandle;

use crate::load::subscriber::SubShared;
use crate::observe::errors::ErrorTally;
use crate::report::checks::Check;
use crate::scenario::Scenario;
use crate::soak::overquota::{self, QuotaStats};
use crate::soak::rss::{self, RssSeries, RssVerdict};
use crate::soak::storm;
use crate::stop::Stop;

/// The soak's tasks while the load runs.
pub struct Soak {
    series: Arc<RssSeries>,
    storms: Arc<AtomicU64>,
    quota: Arc<QuotaStats>,
    tasks: Vec<JoinHandle<()>>,
}

/// What the soak saw.
#[derive(Clone, Debug, Serialize)]
pub struct SoakReport {
    pub storms: u64,
    pub storm_reconnects: u64,
    pub stalled_subscribers: usize,
    pub stalls: u64,
    pub dropped_reconnects: u64,
    pub expected: BTreeMap<String, u64>,
    pub quota_sent: u64,
    pub quota_answered: u64,
    pub quota_rate_limited: u64,
    pub rss: Option<RssVerdict>,
    /// The harness's own RSS by the same rule, for information (see `rss`).
    pub harness_rss: Option<RssVerdict>,
    /// Whether the server runs in this process (then both series are the same).
    pub in_process: bool,
    pub rss_failed_scrapes: u64,
    /// The largest per-subscriber p99 edit-to-delta latency among the fast ones, ms,
    /// and whose it is.
    pub worst_fast_p99_ms: f64,
    pub worst_fast_subscriber: Option<usize>,
}

impl Soak {
    /// Starts the storms, the over-quota caller and the RSS watch; they end with `stop`.
    pub fn start(
        s: &Scenario,
        client: &Client,
        rooms: &[String],
        subs: &[Arc<SubShared>],
        errors: &Arc<ErrorTally>,
        stop: &Stop,
    ) -> anyhow::Result<Soak> {
        let soak = Soak {
            series: Arc::default(),
            storms: Arc::default(),
            quota: Arc::default(),
            tasks: Vec::new(),
        };
        let mut tasks = Vec::new();
        tasks.push(tokio::spawn(rss::sample(
            client.clone(),
            Arc::clone(&soak.series),
            stop.clone(),
        )));
        tasks.push(tokio::spawn(storm::run(
            subs.to_vec(),
            Duration::from_secs_f64(s.storm_every),
            s.storm_fraction,
            s.seed ^ 0x0005_7073,
            Arc::clone(&soak.storms),
            stop.clone(),
        )));
        let quota_client = overquota::client(client.base_url().as_str(), client.token())?;
        tasks.push(tokio::spawn(overquota::run(
            quota_client,
            rooms[0].clone(),
            s.overquota_rate,
            Arc::clone(&soak.quota),
            Arc::clone(errors),
            stop.clone(),
        )));
        Ok(Soak { tasks, ..soak })
    }

    /// Waits for the soak's tasks (after the load's stop) and gathers the report.
    pub async fn finish(
        self,
        s: &Scenario,
        subs: &[Arc<SubShared>],
        expected: &ErrorTally,
    ) -> SoakReport {
        for task in self.tasks {
            let _ = task.await;
        }
        let sum = |f: fn(&SubShared) -> &AtomicU64| -> u64 {
            subs.iter().map(|x| f(x).load(Ordering::Relaxed)).sum()
        };
        let mut worst = (0.0f64, None);
        for sub in subs.iter().filter(|x| !x.spec.slow && !x.spec.stalled) {
            let st = sub.lock();
            if st.latency.is_empty() {
                continue;
            }
            let p99 = st.latency.value_at_quantile(0.99) as f64 / 1000.0;
            if p99 > worst.0 {
                worst = (p99, Some(sub.spec.index));
            }
        }
        let samples = self
            .series
            .samples
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let harness = self
            .series
            .harness
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let failed = *self
            .series
            .failed_scrapes
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let mut expected = expected.snapshot();
        let limited = self.quota.rate_limited.load(Ordering::Relaxed);
        if limited > 0 {
            expected.insert("query_rate_limited".into(), limited);
        }
        SoakReport {
            storms: self.storms.load(Ordering::Relaxed),
            storm_reconnects: sum(|x| &x.storm_reconnects),
            stalled_subscribers: subs.iter().filter(|x| x.spec.stalled).count(),
            stalls: sum(|x| &x.stalls),
            dropped_reconnects: sum(|x| &x.dropped_reconnects),
            expected,
            quota_sent: self.quota.sent.load(Ordering::Relaxed),
            quota_answered: self.quota.answered.load(Ordering::Relaxed),
            quota_rate_limited: limited,
            rss: rss::judge(&samples, s.warmup_secs(), s.max_rss_growth),
            rss_failed_scrapes: failed,
            harness_rss: rss::judge(&harness, s.warmup_secs(), s.max_rss_growth),
            in_process: s.spawn,
            worst_fast_p99_ms: worst.0,
            worst_fast_subscriber: worst.1,
        }
    }
}

fn check(name: &str, passed: bool, detail: String) -> Check {
    Check {
        name: name.to_string(),
        passed,
        detail,
    }
}

/// The soak's own checks.
pub fn checks(s: &Scenario, r: &SoakReport) -> Vec<Check> {
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
pub fn rows(r: &SoakReport) -> Vec<(String, String)> {
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
