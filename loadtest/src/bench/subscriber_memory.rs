//! Server memory per subscriber (benchmarks `rss-per-subscriber` and
//! `many-subscribers`): RSS with the room alone, with every subscriber connected and
//! its snapshot written (applied by the subscriber, so the server has sent it), while
//! one editor loads the room, and after every subscriber has left.
//!
//! The bounds: 500 whole-room subscribers of 20,000 nodes take the server to at
//! most 200 MiB in all in bincode and 300 MiB in JSON, and after they leave RSS is back
//! within 10% of the room alone; 5,000 bincode subscribers stay under 1 GiB with p99
//! edit-to-delta under 3 ticks. Invariant: figures are medians of several `/metrics`
//! samples (the peak while loaded is the largest sample); subscribers keep no mirror
//! (5,000 mirrors would not fit this machine) but check every frame's stamps, so the
//! latency is the load test's.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use canopy_client::{Client, ConnectOptions};
use tokio::sync::Notify;

use crate::bench::BenchName;
use crate::bench::server_rss;
use crate::bench::table::{BenchReport, mib};
use crate::load::editor::{self, EditStats, EditorContext};
use crate::load::fleet::{Connect, Fleet};
use crate::load::setup;
use crate::load::stamps::{Clock, Stamps};
use crate::load::subscriber::{SubContext, SubShared, SubSpec, decodes};
use crate::load::world::World;
use crate::observe::errors::ErrorTally;
use crate::report::gather;
use crate::run::{Nodes, connect_editors};
use crate::scenario::{EncodingArg, FormatArg, Scenario};
use crate::stop;
use crate::target::fd_limit::FdLimit;

const MIB: f64 = 1024.0 * 1024.0;

/// Subscribers connected between two RSS readings (and abort checks).
const CONNECT_STEP: usize = 250;

/// Descriptors the harness needs besides one per subscriber (editors, HTTP, files).
const FD_HEADROOM: u64 = 64;

/// RSS samples per figure and their spacing.
const SAMPLES: usize = 5;
const SAMPLE_EVERY: Duration = Duration::from_millis(400);

/// How long the server is left to settle before a figure is read.
const SETTLE: Duration = Duration::from_secs(3);

/// After the last subscriber left: how long to wait for the server to count them gone,
/// and then how long before reading RSS.
const LEAVE_TIMEOUT: Duration = Duration::from_secs(30);
const AFTER_LEAVE: Duration = Duration::from_secs(8);

/// What the warm-up's editors seed their values with, against the loaded window's.
const WARM_SEED_SALT: u64 = 0x5EED_F00D;

/// The share of the loaded window's ops every subscriber must be streamed as rows.
const STREAMED_SHARE: f64 = 0.9;

/// RSS after leaving may exceed the room alone by this fraction.
const RELEASE_SLACK: f64 = 0.10;

pub(crate) async fn run(
    s: &Scenario,
    bench: BenchName,
    url: &str,
    fd: FdLimit,
) -> anyhow::Result<BenchReport> {
    let json = s.format == FormatArg::Json;
    let limit_bytes = match (bench, json) {
        (BenchName::ManySubscribers, _) => 1024.0 * MIB,
        (_, true) => 300.0 * MIB,
        (_, false) => 200.0 * MIB,
    };
    let name = match bench {
        BenchName::ManySubscribers => "many-subscribers",
        _ => "rss-per-subscriber",
    };
    let mut report = BenchReport::new(
        name,
        format!(
            "1 room x {} nodes (fanout {}, depth {}), {} whole-room {:?} subscribers{}, \
             {} editor(s) x {}/s x {} set_local ops, {} s loaded at {} Hz",
            s.nodes,
            s.fanout,
            s.depth,
            s.subscribers,
            s.format,
            match (s.encoding, s.decode_every) {
                (EncodingArg::Compact, n) => format!(" (compact but 1 in {n}, exact)"),
                (EncodingArg::Exact, 1) => String::new(),
                (EncodingArg::Exact, n) => format!(" (1 in {n} decoding)"),
            },
            s.editors,
            s.edit_rate,
            s.batch_size,
            s.duration,
            s.tick_hz
        )
        .to_lowercase(),
    );
    let needed = s.subscribers as u64 + FD_HEADROOM;
    let show = |v: Option<u64>| v.map_or("unlimited".to_string(), |v| v.to_string());
    report.row(
        "open files",
        format!(
            "harness soft limit {} (was {}), hard {}; it needs {needed}; the server needs \
             as many (with --server-bin it inherits the harness's limit)",
            show(fd.soft),
            show(fd.soft_before),
            show(fd.hard)
        ),
    );
    if !fd.allows(needed) {
        bail!(
            "{} subscribers need {needed} open files but the soft limit is {} even after \
             raising it to the hard limit; raise the hard limit (ulimit -Hn)",
            s.subscribers,
            show(fd.soft)
        );
    }
    let mut client = Client::new(url)?;
    if let Some(token) = &s.token {
        client = client.with_token(token.clone());
    }
    setup::wait_healthy(&client, Duration::from_secs(10)).await?;
    let world = World::build(s.nodes, s.fanout, s.depth);
    let rooms = setup::room_ids(1, s.seed);
    setup::create_rooms(&client, &rooms, s.tick_hz, &world).await?;
    let result = measure(s, &client, &world, &rooms, limit_bytes, &mut report).await;
    setup::delete_rooms(&client, &rooms).await;
    result?;
    Ok(report)
}

async fn measure(
    s: &Scenario,
    client: &Client,
    world: &World,
    rooms: &[String],
    limit_bytes: f64,
    report: &mut BenchReport,
) -> anyhow::Result<()> {
    tokio::time::sleep(SETTLE).await;
    let fresh = server_rss::median_rss(client, SAMPLES, SAMPLE_EVERY).await?;
    let conns_before = server_rss::connections(client).await?;
    let clock = Clock::start();
    let errors = Arc::new(ErrorTally::default());
    // The room's own working size: the same edits for the same time with nobody
    // subscribed, so that what the room keeps whoever listens (the change history for
    // resumes, its per-tick buffers) is in the baseline and not counted as memory the
    // subscribers failed to give back.
    let warm_stamps = vec![Arc::new(Stamps::new(world.nodes.len()))];
    let warm_stats = Arc::new(EditStats::default());
    let warm = EditWindow {
        s,
        client,
        world,
        rooms,
        stamps: &warm_stamps,
        clock,
        stats: &warm_stats,
        errors: &errors,
        // Not the loaded window's seed: the same seed would send every node the value
        // the warm-up left it at, so the loaded window would change (and stream)
        // almost nothing.
        seed: s.seed ^ WARM_SEED_SALT,
    };
    warm.run(s.load_duration()).await?;
    tokio::time::sleep(SETTLE).await;
    let alone = server_rss::median_rss(client, SAMPLES, SAMPLE_EVERY).await?;
    let stamps = vec![Arc::new(Stamps::new(world.nodes.len()))];
    let ctx = Arc::new(SubContext {
        format: s.format.format(),
        clock,
        errors: Arc::clone(&errors),
        pausing: AtomicBool::new(false),
        resume: Notify::new(),
        pause: Duration::ZERO,
        period: Duration::from_secs(1),
        soak: None,
        keep_mirror: false,
        decode_every: s.decode_every,
        compact_counters: s.encoding == EncodingArg::Compact,
    });
    let specs: Vec<SubSpec> = (0..s.subscribers)
        .map(|index| SubSpec {
            index,
            room: 0,
            node: 0,
            region: None,
            slow: false,
            stalled: false,
        })
        .collect();
    // Connect a step at a time, reading RSS in between, so an unbounded server is
    // caught before it takes the machine.
    let connect_started = Instant::now();
    let mut fleets = Vec::new();
    let mut aborted = None;
    let mut connect_peak = alone;
    for chunk in specs.chunks(CONNECT_STEP) {
        let connect = Connect {
            clients: std::slice::from_ref(client),
            rooms,
            stamps: &stamps,
            ctx: Arc::clone(&ctx),
            slow_recv_buffer: s.slow_recv_buffer,
            concurrency: s.connect_concurrency,
            room_nodes: 0,
        };
        match Fleet::connect(chunk.to_vec(), connect).await {
            Ok(fleet) => fleets.push(fleet),
            Err(e) => {
                aborted = Some(format!("connecting failed: {e:#}"));
                break;
            }
        }
        let now = server_rss::rss(client).await?;
        connect_peak = connect_peak.max(now);
        if mib(now) > s.rss_abort_mib {
            aborted = Some(format!(
                "stopped connecting: server RSS {:.0} MiB passed --rss-abort-mib {:.0}",
                mib(now),
                s.rss_abort_mib
            ));
            break;
        }
    }
    let subs: Vec<Arc<SubShared>> = fleets.iter().flat_map(|f| f.subs.iter().cloned()).collect();
    let connected = subs.len();
    let connect_s = connect_started.elapsed().as_secs_f64();
    tokio::time::sleep(SETTLE).await;
    let synced = server_rss::median_rss(client, SAMPLES, SAMPLE_EVERY).await?;

    // The loaded window: the editors run while RSS is sampled every second.
    let stats = Arc::new(EditStats::default());
    let loaded_window = EditWindow {
        s,
        client,
        world,
        rooms,
        stamps: &stamps,
        clock,
        stats: &stats,
        errors: &errors,
        seed: s.seed,
    };
    let cpu_before = server_rss::cpu_seconds(client).await.ok();
    let delay_before = server_rss::ServerDelays::read(client).await;
    let rows_before: Vec<u64> = subs
        .iter()
        .map(|m| m.delta_rows.load(Ordering::Relaxed))
        .collect();
    let bytes_before: Vec<u64> = subs
        .iter()
        .map(|m| m.delta_bytes.load(Ordering::Relaxed))
        .collect();
    let (window_s, mut loaded) = loaded_window.run(s.load_duration()).await?;
    let cpu_after = server_rss::cpu_seconds(client).await.ok();
    let delay_after = server_rss::ServerDelays::read(client).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let latency = gather::latency_report(&subs, s);
    let edits = gather::edit_report(&stats, window_s);
    // The fewest rows any decoding subscriber was streamed in the window (the others,
    // with `--decode-every`, count frames only).
    let rows_per_sub = subs
        .iter()
        .zip(&rows_before)
        .filter(|(m, _)| decodes(m.spec.index, s.decode_every))
        .map(|(m, before)| m.delta_rows.load(Ordering::Relaxed) - before)
        .min()
        .unwrap_or(0) as f64;
    // Delta payload bytes per subscriber per second in the window: the decoding
    // subscribers (always exact) and the counting ones (`--encoding`) apart.
    let mean_rate = |decoding: bool| {
        let (sum, n) = subs
            .iter()
            .zip(&bytes_before)
            .filter(|(m, _)| decodes(m.spec.index, s.decode_every) == decoding)
            .fold((0u64, 0u64), |(sum, n), (m, before)| {
                (
                    sum + (m.delta_bytes.load(Ordering::Relaxed) - before),
                    n + 1,
                )
            });
        (n > 0).then(|| sum as f64 / n as f64 / window_s.max(1e-9))
    };
    let (decoding_rate, counting_rate) = (mean_rate(true), mean_rate(false));
    let ops_sent = stats.ops_sent.load(Ordering::Relaxed) as f64;
    loaded.sort_by(f64::total_cmp);
    let loaded_median = loaded.get(loaded.len() / 2).copied().unwrap_or(synced);
    let loaded_max = loaded.last().copied().unwrap_or(synced).max(synced);

    // Everyone leaves (the editors already have).
    drop(subs);
    for fleet in fleets {
        fleet.stop().await;
    }
    let gone = server_rss::wait_connections(client, conns_before, LEAVE_TIMEOUT).await;
    tokio::time::sleep(AFTER_LEAVE).await;
    let after = server_rss::median_rss(client, SAMPLES, SAMPLE_EVERY).await?;
    let conns_after = server_rss::connections(client).await.unwrap_or(f64::NAN);

    let per_sub = |total: f64| {
        if connected > 0 {
            (total - alone) / connected as f64 / 1024.0
        } else {
            0.0
        }
    };
    report.row(
        "server RSS, room just created",
        format!("{:.1} MiB", mib(fresh)),
    );
    report.row(
        "server RSS, room alone",
        format!(
            "{:.1} MiB, after {:.0} s of the same edits with no subscriber",
            mib(alone),
            s.load_duration().as_secs_f64()
        ),
    );
    report.row(
        "connecting",
        format!(
            "{connected} of {} subscribers synced their snapshot in {connect_s:.1} s; peak RSS {:.1} MiB{}",
            s.subscribers,
            mib(connect_peak),
            aborted.as_ref().map(|a| format!("; {a}")).unwrap_or_default()
        ),
    );
    report.row(
        "server RSS, subscribers connected",
        format!(
            "{:.1} MiB, snapshots written, before any edit ({:+.1} KiB per subscriber)",
            mib(synced),
            per_sub(synced)
        ),
    );
    report.row(
        "server RSS, loaded",
        format!(
            "median {:.1} / max {:.1} MiB over {window_s:.0} s of edits ({:+.1} KiB per subscriber at the max)",
            mib(loaded_median),
            mib(loaded_max),
            per_sub(loaded_max)
        ),
    );
    report.row(
        "server RSS, after they left",
        format!(
            "{:.1} MiB ({:+.1}% of the room alone), {} s after the server counted {} connections{}",
            mib(after),
            (after - alone) / alone * 100.0,
            AFTER_LEAVE.as_secs(),
            conns_after,
            if gone {
                ""
            } else {
                " (it never came back to the count before)"
            }
        ),
    );
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
            edits.batches_per_s,
            edits.acks,
            edits.batches_sent,
            edits.ack_latency.p50_ms,
            edits.ack_latency.p99_ms
        ),
    );
    // What the server's fan-out costs: its CPU over the loaded window, per subscriber
    // and per frame it wrote (one frame per subscriber per tick that changed).
    let frames =
        (s.edit_rate * s.editors as f64).min(f64::from(s.tick_hz)) * window_s * connected as f64;
    match (cpu_before, cpu_after) {
        (Some(a), Some(b)) if b >= a && window_s > 0.0 => {
            let cores = (b - a) / window_s;
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
    // The server's own share of the latency: how late ticks started, and how long frames
    // then waited for a flusher.
    delay_after.report_since(&delay_before, report);
    let kbs = |r: Option<f64>| r.map_or("none".to_string(), |r| format!("{:.1} KB/s", r / 1e3));
    report.row(
        "delta bytes per subscriber",
        format!(
            "{} decoding (exact), {} counting ({}); payloads, without WebSocket headers",
            kbs(decoding_rate),
            kbs(counting_rate),
            s.encoding.name()
        ),
    );
    if let Some(r) = counting_rate {
        report.figure("counting_subscriber_bytes_per_s", r);
    }
    report.row(
        "changes streamed",
        format!(
            "at least {:.0} rows to every decoding subscriber (1 in {}) for {ops_sent:.0} ops sent ({:.1}%)",
            rows_per_sub,
            s.decode_every,
            rows_per_sub / ops_sent.max(1.0) * 100.0
        ),
    );
    let errs = errors.snapshot();
    report.row("errors", crate::observe::errors::summary(&errs));
    for (k, v) in [
        ("rss_fresh_mib", mib(fresh)),
        ("rss_alone_mib", mib(alone)),
        ("rss_connected_mib", mib(synced)),
        ("rss_loaded_max_mib", mib(loaded_max)),
        ("rss_after_mib", mib(after)),
        ("kib_per_subscriber", per_sub(loaded_max)),
        ("p99_ms", latency.fast.p99_ms),
        ("subscribers_connected", connected as f64),
    ] {
        report.figure(k, v);
    }

    let all_connected = aborted.is_none() && connected == s.subscribers;
    let peak = loaded_max.max(connect_peak);
    report.check(
        "server RSS with every subscriber",
        all_connected && peak <= limit_bytes,
        format!(
            "{}peak {:.1} MiB, limit {:.0} MiB",
            if all_connected {
                String::new()
            } else {
                format!("only {connected} of {} connected; ", s.subscribers)
            },
            mib(peak),
            mib(limit_bytes)
        ),
    );
    if s.bench == Some(BenchName::RssPerSubscriber) {
        report.check(
            "RSS after they left",
            gone && after <= alone * (1.0 + RELEASE_SLACK),
            format!(
                "{:.1} MiB vs room alone {:.1} MiB, limit +{:.0}%",
                mib(after),
                mib(alone),
                RELEASE_SLACK * 100.0
            ),
        );
    }
    if s.bench == Some(BenchName::ManySubscribers) {
        let limit_ms = s.max_p99_ticks * latency.tick_ms;
        report.check(
            "p99 edit-to-delta",
            latency.fast.count > 0 && latency.fast.p99_ms <= limit_ms,
            format!(
                "{:.1} ms ({:.2} ticks), limit {limit_ms:.1} ms ({} ticks)",
                latency.fast.p99_ms, latency.p99_ticks, s.max_p99_ticks
            ),
        );
    }
    // The workload proves itself: the loaded window changed what it set, and every
    // subscriber was streamed it (merging a slow client's repeated changes of one node
    // may coalesce a few rows, hence the slack).
    report.check(
        "changes streamed to every subscriber",
        ops_sent > 0.0 && rows_per_sub >= ops_sent * STREAMED_SHARE,
        format!(
            "{:.1}% of the ops sent, limit {:.0}%",
            rows_per_sub / ops_sent.max(1.0) * 100.0,
            STREAMED_SHARE * 100.0
        ),
    );
    report.check(
        "no errors",
        errs.is_empty(),
        format!("{} errors", errs.values().sum::<u64>()),
    );
    Ok(())
}

/// Editors loading the rooms for a while (connected through `client`), RSS of that
/// server sampled every second.
pub(crate) struct EditWindow<'a> {
    pub s: &'a Scenario,
    pub client: &'a Client,
    pub world: &'a World,
    pub rooms: &'a [String],
    pub stamps: &'a [Arc<Stamps>],
    pub clock: Clock,
    pub stats: &'a Arc<EditStats>,
    pub errors: &'a Arc<ErrorTally>,
    /// The editors' random values start from this seed (plus the editor's index).
    pub seed: u64,
}

impl EditWindow<'_> {
    /// Runs the editors for `duration`, then closes them: the window's length in
    /// seconds and the RSS samples taken in it.
    pub(crate) async fn run(&self, duration: Duration) -> anyhow::Result<(f64, Vec<f64>)> {
        let s = self.s;
        let options = ConnectOptions::default().format(s.format.format());
        let nodes = Nodes {
            clients: vec![self.client.clone()],
            map: None,
        };
        let editors =
            connect_editors(s, &nodes, self.world, self.rooms, self.stamps, &options).await?;
        let editor_conns: Vec<_> = editors.iter().map(|e| e.conn.clone()).collect();
        let (stop_tx, stop_rx) = stop::channel();
        let edit_ctx = EditorContext {
            rate: s.edit_rate,
            batch_size: s.batch_size,
            clock: self.clock,
            stats: Arc::clone(self.stats),
            errors: Arc::clone(self.errors),
            invalid: None,
        };
        let mut tasks = Vec::new();
        for (i, ed) in editors.into_iter().enumerate() {
            tasks.push(tokio::spawn(editor::run(
                ed,
                edit_ctx.clone(),
                self.seed.wrapping_add(i as u64),
                stop_rx.clone(),
            )));
        }
        let window = Instant::now();
        let end = tokio::time::Instant::now() + duration;
        let mut samples = Vec::new();
        while tokio::time::Instant::now() < end {
            tokio::time::sleep(Duration::from_secs(1)).await;
            // A server too busy to answer /metrics in time must not stretch the window.
            let left = end.saturating_duration_since(tokio::time::Instant::now());
            if let Ok(Ok(r)) = tokio::time::timeout(left, server_rss::rss(self.client)).await {
                samples.push(r);
            }
        }
        stop_tx.raise();
        for t in tasks {
            t.await.context("an editor panicked")?;
        }
        let window_s = window.elapsed().as_secs_f64();
        for conn in &editor_conns {
            conn.close().await;
        }
        Ok((window_s, samples))
    }
}
