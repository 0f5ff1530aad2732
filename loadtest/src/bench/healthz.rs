//! `/healthz` under heavy ticks (benchmark `healthz`): two rooms of 150,000 nodes each
//! get batches that move every node, several in flight per room at all times, while
//! `/healthz` is asked every 10 ms over one keep-alive connection.
//!
//! A tick that moves 150,000 nodes costs more than its period: the rooms tick over
//! their budget for the whole window. A server that ran ticks (or decoded such batches)
//! on the workers that answer HTTP would hold `/healthz` behind them; the bound is p99
//! <= 10 ms.
//! Invariant: the benchmark shows its workload really was over budget (batches waited
//! longer than two tick periods for their ack, or ticks ran long), and fails that
//! check otherwise rather than pass on a light load; `/healthz` latency is measured the
//! same way idle first, for comparison.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use canopy_client::{Client, ConnectOptions};
use canopy_protocol::{NodeId, Op};
use hdrhistogram::Histogram;
use tokio::task::JoinSet;

use crate::bench::table::BenchReport;
use crate::load::setup;
use crate::load::world::World;
use crate::observe::errors::{ErrorTally, client_error_code};
use crate::observe::latency::{self, Summary};
use crate::observe::metrics_scrape::{self, ServerWindow};
use crate::scenario::Scenario;
use crate::stop::{self, Stop};

/// `/healthz` every this often.
const PROBE_EVERY: Duration = Duration::from_millis(10);

/// A probe that takes longer is counted at this latency, as failed.
const PROBE_TIMEOUT: Duration = Duration::from_secs(2);

/// The idle probe before the heavy load.
const IDLE_PROBE: Duration = Duration::from_secs(5);

/// The bound on `/healthz` p99.
const P99_LIMIT_MS: f64 = 10.0;

/// A heavy batch's ack must take this many tick periods on average for the workload
/// to count as over budget (when no tick ran long).
const OVER_BUDGET_PERIODS: f64 = 2.0;

pub(crate) async fn run(s: &Scenario, url: &str) -> anyhow::Result<BenchReport> {
    let mut report = BenchReport::new(
        "healthz",
        format!(
            "{} rooms x {} nodes (fanout {}, depth {}), batches moving every node, {} in flight \
             per room, /healthz every {} ms, {} s at {} Hz, {:?}",
            s.rooms,
            s.nodes,
            s.fanout,
            s.depth,
            s.heavy_in_flight,
            PROBE_EVERY.as_millis(),
            s.duration,
            s.tick_hz,
            s.format
        )
        .to_lowercase(),
    );
    setup::with_rooms(s, url, s.rooms, async |client, world, rooms| {
        measure(s, client, world, rooms, &mut report).await
    })
    .await?;
    Ok(report)
}

/// The heavy senders: `--heavy-in-flight` connections per room, each keeping whole-room
/// batches in flight until told to stop.
struct Heavy {
    senders: JoinSet<()>,
    conns: Vec<canopy_client::Connection>,
    stop: stop::StopSender,
    errors: Arc<ErrorTally>,
    acked: Arc<AtomicU64>,
    ack_us: Arc<std::sync::Mutex<Histogram<u64>>>,
}

impl Heavy {
    async fn start(
        s: &Scenario,
        client: &Client,
        world: &World,
        rooms: &[String],
    ) -> anyhow::Result<Heavy> {
        let (stop, stop_rx) = stop::channel();
        let mut heavy = Heavy {
            senders: JoinSet::new(),
            conns: Vec::new(),
            stop,
            errors: Arc::new(ErrorTally::default()),
            acked: Arc::new(AtomicU64::new(0)),
            ack_us: Arc::new(std::sync::Mutex::new(latency::histogram())),
        };
        let mut options = ConnectOptions::default().format(s.format.format());
        options.request_timeout = Duration::from_secs(300);
        options.reconnect = false;
        for room in rooms {
            for k in 0..s.heavy_in_flight {
                let conn = client.connect(room, options.clone()).await?;
                heavy.conns.push(conn.clone());
                let ops = [move_all(world, 0.25), move_all(world, -0.25)];
                let (errors, acked, ack_us, stop) = (
                    Arc::clone(&heavy.errors),
                    Arc::clone(&heavy.acked),
                    Arc::clone(&heavy.ack_us),
                    stop_rx.clone(),
                );
                heavy.senders.spawn(async move {
                    heavy_loop(conn, ops, k, errors, acked, ack_us, stop).await;
                });
            }
        }
        Ok(heavy)
    }

    /// Stops the loops (they stop waiting for their acks; batches already sent still
    /// apply) and closes their connections.
    async fn stop(mut self) -> (u64, Summary, BTreeMap<String, u64>) {
        self.stop.raise();
        while self.senders.join_next().await.is_some() {}
        for conn in &self.conns {
            conn.close().await;
        }
        let ack = Summary::of(&self.ack_us.lock().unwrap_or_else(|e| e.into_inner()));
        (
            self.acked.load(Ordering::Relaxed),
            ack,
            self.errors.snapshot(),
        )
    }
}

/// What a run measured.
struct Measured {
    idle: Probe,
    heavy: Probe,
    window_s: f64,
    ticks: ServerWindow,
    acked: u64,
    ack: Summary,
    errors: BTreeMap<String, u64>,
}

async fn measure(
    s: &Scenario,
    client: &Client,
    world: &World,
    rooms: &[String],
    report: &mut BenchReport,
) -> anyhow::Result<()> {
    let idle = probe(client, IDLE_PROBE).await;
    let heavy_load = Heavy::start(s, client, world, rooms).await?;
    let scrape_start = metrics_scrape::scrape(client).await?;
    let window = Instant::now();
    let heavy = probe(client, s.load_duration()).await;
    let window_s = window.elapsed().as_secs_f64();
    let scrape_end = metrics_scrape::scrape(client).await?;
    let (acked, ack, errors) = heavy_load.stop().await;
    let mut details = Vec::new();
    for room in rooms {
        details.push(client.get_room(room).await?);
    }
    let m = Measured {
        idle,
        heavy,
        window_s,
        ticks: ServerWindow::between(&scrape_start, &scrape_end, &scrape_end, &details),
        acked,
        ack,
        errors,
    };
    rows(s, world, &m, report);
    checks(s, &m, report);
    Ok(())
}

fn rows(s: &Scenario, world: &World, m: &Measured, report: &mut BenchReport) {
    let period_ms = 1000.0 / f64::from(s.tick_hz);
    let show = |p: &Probe| {
        format!(
            "p50 {:.2} / p99 {:.2} / max {:.2} ms ({} probes, {} samples with the missed \
             ones, {} failed or over {} s)",
            p.latency.p50_ms,
            p.latency.p99_ms,
            p.latency.max_ms,
            p.asked,
            p.latency.count,
            p.failed,
            PROBE_TIMEOUT.as_secs()
        )
    };
    report.row("/healthz, idle", show(&m.idle));
    report.row("/healthz, rooms ticking heavily", show(&m.heavy));
    report.row(
        "heavy batches",
        format!(
            "{} acked in {:.0} s ({} ops each), ack p50 {:.0} / p99 {:.0} / max {:.0} ms",
            m.acked,
            m.window_s,
            world.nodes.len(),
            m.ack.p50_ms,
            m.ack.p99_ms,
            m.ack.max_ms
        ),
    );
    let ticks = &m.ticks;
    report.row(
        "server ticks",
        format!(
            "{} ticks, mean {:.1} ms, p99 {}, slowest {:.0} ms, {} slow (period {period_ms:.1} ms)",
            ticks.ticks,
            ticks.tick_mean_ms,
            if ticks.tick_p99_ms_upper.is_finite() {
                format!("<= {:.0} ms", ticks.tick_p99_ms_upper)
            } else {
                "above the largest bucket (1 s)".to_string()
            },
            ticks.tick_max_ms,
            ticks.slow_ticks
        ),
    );
    report.row("errors", crate::observe::errors::summary(&m.errors));
    for (k, v) in [
        ("healthz_idle_p99_ms", m.idle.latency.p99_ms),
        ("healthz_p99_ms", m.heavy.latency.p99_ms),
        ("healthz_max_ms", m.heavy.latency.max_ms),
        ("tick_mean_ms", ticks.tick_mean_ms),
        ("ack_mean_ms", m.ack.mean_ms),
    ] {
        report.figure(k, v);
    }
}

fn checks(s: &Scenario, m: &Measured, report: &mut BenchReport) {
    let period_ms = 1000.0 / f64::from(s.tick_hz);
    let heavy = &m.heavy.latency;
    report.check(
        "/healthz p99 while heavy",
        heavy.count > 0 && heavy.p99_ms <= P99_LIMIT_MS,
        format!(
            "{:.2} ms over {} samples, limit {P99_LIMIT_MS:.0} ms",
            heavy.p99_ms, heavy.count
        ),
    );
    let over_budget = m.ticks.slow_ticks > 0 || m.ack.mean_ms >= OVER_BUDGET_PERIODS * period_ms;
    report.check(
        "workload over the rooms' budget",
        over_budget && m.acked > 0,
        format!(
            "{} slow ticks, mean ack {:.0} ms (over budget: a slow tick, or a mean ack >= {:.0} ms)",
            m.ticks.slow_ticks,
            m.ack.mean_ms,
            OVER_BUDGET_PERIODS * period_ms
        ),
    );
    report.check(
        "no errors",
        m.errors.is_empty(),
        format!("{} errors", m.errors.values().sum::<u64>()),
    );
}

/// A batch that moves every node of `world` by `dx` from its home.
fn move_all(world: &World, dx: f32) -> Vec<Op> {
    world
        .nodes
        .iter()
        .map(|n| Op::SetLocal {
            node: n.id as NodeId,
            t: Some([n.local_t[0] + dx, n.local_t[1], n.local_t[2]]),
            r: None,
            s: None,
        })
        .collect()
}

/// Sends heavy batches back to back on `conn` until `stop`, alternating the two.
async fn heavy_loop(
    conn: canopy_client::Connection,
    ops: [Vec<Op>; 2],
    seed: usize,
    errors: Arc<ErrorTally>,
    acked: Arc<AtomicU64>,
    ack_us: Arc<std::sync::Mutex<Histogram<u64>>>,
    mut stop: Stop,
) {
    let mut turn = seed;
    loop {
        let sent = Instant::now();
        let batch = ops[turn % 2].clone();
        turn += 1;
        tokio::select! {
            biased;
            _ = stop.raised() => return,
            answer = conn.edit(batch) => match answer {
                Ok(_) => {
                    acked.fetch_add(1, Ordering::Relaxed);
                    let us = sent.elapsed().as_micros() as u64;
                    latency::record(&mut ack_us.lock().unwrap_or_else(|e| e.into_inner()), us);
                }
                Err(e) => {
                    errors.record(&client_error_code(&e));
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            },
        }
    }
}

/// `/healthz` latency over a window.
struct Probe {
    latency: Summary,
    asked: u64,
    failed: u64,
}

/// Asks `/healthz` every [`PROBE_EVERY`] for `window` over one keep-alive client; a
/// probe waits for the one before, so a slow answer is recorded with the probes it
/// held up (see `latency::record_corrected`).
async fn probe(client: &Client, window: Duration) -> Probe {
    let mut h = latency::histogram();
    let interval_us = PROBE_EVERY.as_micros() as u64;
    let mut failed = 0;
    let started = Instant::now();
    let mut every = tokio::time::interval(PROBE_EVERY);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut asked_n = 0;
    while started.elapsed() < window {
        every.tick().await;
        asked_n += 1;
        let asked = Instant::now();
        if !matches!(
            tokio::time::timeout(PROBE_TIMEOUT, client.health()).await,
            Ok(Ok(()))
        ) {
            failed += 1;
        }
        latency::record_corrected(&mut h, asked.elapsed().as_micros() as u64, interval_us);
    }
    Probe {
        latency: Summary::of(&h),
        asked: asked_n,
        failed,
    }
}
