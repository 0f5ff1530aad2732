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
use crate::load::world::World;
use crate::observe::errors::ErrorTally;
use crate::scenario::Scenario;
use crate::soak::hostile::runner::Hostile;
use crate::soak::hostile::tally::{self, KindSummary};
use crate::soak::overquota::{self, QuotaStats};
use crate::soak::rss::{self, RssSeries, RssVerdict};
use crate::soak::storm;
use crate::stop::Stop;

/// The soak's tasks while the load runs.
pub(crate) struct Soak {
    series: Arc<RssSeries>,
    storms: Arc<AtomicU64>,
    quota: Arc<QuotaStats>,
    tasks: Vec<JoinHandle<()>>,
    hostile: Option<Hostile>,
}

/// What the soak saw.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct SoakReport {
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
    /// The hostile clients, kind by kind.
    pub hostile: Vec<KindSummary>,
}

impl Soak {
    /// Starts the storms, the over-quota caller, the RSS watch and the hostile clients;
    /// they end with `stop`.
    pub(crate) fn start(
        s: &Scenario,
        client: &Client,
        rooms: &[String],
        world: &World,
        subs: &[Arc<SubShared>],
        errors: &Arc<ErrorTally>,
        stop: &Stop,
    ) -> anyhow::Result<Soak> {
        let soak = Soak {
            series: Arc::default(),
            storms: Arc::default(),
            quota: Arc::default(),
            tasks: Vec::new(),
            hostile: (!s.hostile_kinds().is_empty())
                .then(|| Hostile::start(s, client, rooms, Arc::new(world.clone()), stop)),
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
    pub(crate) async fn finish(
        self,
        s: &Scenario,
        subs: &[Arc<SubShared>],
        expected: &ErrorTally,
    ) -> SoakReport {
        for task in self.tasks {
            let _ = task.await;
        }
        let attempts = match self.hostile {
            Some(h) => h.finish().await,
            None => Vec::new(),
        };
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
            hostile: tally::summarize(&s.hostile_kinds(), &attempts),
        }
    }
}
