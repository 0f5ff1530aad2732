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

mod figures;
mod phases;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use anyhow::bail;
use canopy_client::Client;

use crate::bench::BenchName;
use crate::bench::server_rss::{self, ServerDelays};
use crate::bench::table::BenchReport;
use crate::load::setup;
use crate::load::stamps::Clock;
use crate::load::subscriber::SubShared;
use crate::load::world::World;
use crate::observe::errors::ErrorTally;
use crate::report::run_report::{EditReport, LatencyReport};
use crate::scenario::{EncodingArg, FormatArg, Scenario};
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
    setup::with_rooms(s, url, 1, async |client, world, rooms| {
        measure(s, client, world, rooms, limit_bytes, &mut report).await
    })
    .await?;
    Ok(report)
}

/// What one run measured, phase by phase (RSS figures in bytes).
struct Measured {
    /// The room just created.
    fresh: f64,
    /// The room after the warm-up's edits, nobody subscribed.
    alone: f64,
    connected: Connected,
    /// Every subscriber connected and synced, before any edit.
    synced: f64,
    loaded: Loaded,
    left: Left,
    errors: BTreeMap<String, u64>,
}

/// The connecting phase.
struct Connected {
    /// Subscribers connected and synced.
    count: usize,
    seconds: f64,
    /// The largest RSS read between connection steps.
    peak: f64,
    /// Why connecting stopped early, if it did.
    aborted: Option<String>,
}

/// The loaded window: editors running, every subscriber streamed.
struct Loaded {
    window_s: f64,
    median: f64,
    max: f64,
    /// The server's CPU seconds before and after the window.
    cpu: (Option<f64>, Option<f64>),
    delays: (ServerDelays, ServerDelays),
    latency: LatencyReport,
    edits: EditReport,
    /// The fewest rows any decoding subscriber was streamed in the window.
    rows_per_sub: f64,
    /// Mean delta bytes per second of the decoding and of the counting subscribers.
    decoding_rate: Option<f64>,
    counting_rate: Option<f64>,
    ops_sent: f64,
}

/// After every subscriber left.
struct Left {
    after: f64,
    /// Whether the server counted the connections gone within [`LEAVE_TIMEOUT`].
    gone: bool,
    connections: f64,
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
    let env = phases::Env {
        s,
        client,
        world,
        rooms,
        clock,
        errors: &errors,
    };
    let alone = env.warm_up().await?;
    let stamps = vec![Arc::new(crate::load::stamps::Stamps::new(
        world.nodes.len(),
    ))];
    let (fleets, connected) = env.connect_all(&stamps, alone).await?;
    let subs: Vec<Arc<SubShared>> = fleets.iter().flat_map(|f| f.subs.iter().cloned()).collect();
    tokio::time::sleep(SETTLE).await;
    let synced = server_rss::median_rss(client, SAMPLES, SAMPLE_EVERY).await?;
    let loaded = env.load_window(&stamps, &subs, synced).await?;
    // Everyone leaves (the editors already have).
    drop(subs);
    let left = env.leave(fleets, conns_before).await?;
    let m = Measured {
        fresh,
        alone,
        connected,
        synced,
        loaded,
        left,
        errors: errors.snapshot(),
    };
    figures::rows(s, &m, report);
    figures::checks(s, &m, limit_bytes, report);
    Ok(())
}
