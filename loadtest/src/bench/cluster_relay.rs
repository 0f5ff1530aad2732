//! Benchmark `cluster-relay`: one room on a cluster, its whole-room
//! subscribers spread over the nodes round robin, so that most are served by relays
//! (read-only replicas fed by the owner's per-tick records) and the rest by the owner,
//! while one editor on the owner sends 200 changes a tick at 30 Hz.
//!
//! Reported: p99 edit-to-delta overall and per node, which node owns the room, and the
//! latency a relay adds (p99 of the relays' subscribers minus the owner's, same run).
//! Bounds: p99 under `--max-p99-ticks` (3 ticks = 100 ms at 30 Hz) and a relay adding at
//! most 5 ms. Invariant: subscribers keep no mirror (as in `many-subscribers`: 6,000
//! mirrors of 20,000 nodes would not fit) but check every frame's stamps, so each
//! sample is the load test's edit-to-delta; the machine's CPU is reported with the
//! figures, since on a small machine the harness and the nodes share its cores.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, ensure};

use crate::bench::edit_window::EditWindow;
use crate::bench::table::BenchReport;
use crate::load::editor::EditStats;
use crate::load::fleet::{Connect, Fleet};
use crate::load::setup;
use crate::load::stamps::{Clock, Stamps};
use crate::load::subscriber::{Counters, SubContext, SubShared, SubSpec};
use crate::load::world::World;
use crate::observe::cluster_view::NodeMap;
use crate::observe::cpu::CpuTimes;
use crate::observe::errors::ErrorTally;
use crate::report::gather;
use crate::report::per_node;
use crate::report::per_node::ClusterLatency;
use crate::report::run_report::{CpuReport, DeltaGroup, EditReport, LatencyReport};
use crate::run::clients;
use crate::scenario::Scenario;
use crate::target::fd_limit::FdLimit;
use crate::target::urls;

/// The most a relay may add to the p99, in milliseconds.
pub(crate) const RELAY_ADDED_MS: f64 = 5.0;

/// Subscribers connected at a time between progress lines.
const CONNECT_STEP: usize = 500;

/// Descriptors besides one per subscriber.
const FD_HEADROOM: u64 = 64;

/// How long the cluster is left to settle before the load.
const SETTLE: Duration = Duration::from_secs(3);

/// The subscribers: all whole-room, of room 0, node `i % nodes`.
pub(crate) fn specs(subscribers: usize, nodes: usize) -> Vec<SubSpec> {
    (0..subscribers)
        .map(|index| SubSpec::whole_room(index, urls::round_robin(index, nodes)))
        .collect()
}

pub(crate) async fn run(s: &Scenario, urls: &[String], fd: FdLimit) -> anyhow::Result<BenchReport> {
    ensure!(
        urls.len() >= 2,
        "--bench cluster-relay needs several nodes: --url with a list, or --cluster-spawn"
    );
    let mut report = BenchReport::new(
        "cluster-relay",
        format!(
            "1 room x {} nodes (fanout {}, depth {}) on a cluster of {} nodes, {} whole-room \
             {:?} subscribers round robin over the nodes, {} editor(s) on the owner x {}/s x \
             {} set_local ops, {} s at {} Hz",
            s.nodes,
            s.fanout,
            s.depth,
            urls.len(),
            s.subscribers,
            s.format,
            s.editors,
            s.edit_rate,
            s.batch_size,
            s.duration,
            s.tick_hz
        )
        .to_lowercase(),
    );
    let needed = s.subscribers as u64 + FD_HEADROOM;
    if !fd.allows(needed) {
        bail!(
            "{} subscribers need {needed} open files but the soft limit is {:?}; raise the \
             hard limit (prlimit --nofile=30000, or ulimit -Hn)",
            s.subscribers,
            fd.soft
        );
    }
    let clients = clients(urls, s.token.as_deref())?;
    for c in &clients {
        setup::wait_healthy(c, Duration::from_secs(10)).await?;
    }
    let world = World::build(s.nodes, s.fanout, s.depth);
    let rooms = setup::room_ids(1, s.seed);
    setup::create_rooms(&clients[0], &rooms, s.tick_hz, &world).await?;
    let result = measure(s, &clients, &world, &rooms, &mut report).await;
    setup::delete_rooms(&clients[0], &rooms).await;
    result?;
    Ok(report)
}

/// What the window measured, for the report.
struct Measured {
    connected: usize,
    aborted: Option<String>,
    overall: LatencyReport,
    by_node: ClusterLatency,
    edits: EditReport,
    deltas: Vec<DeltaGroup>,
    cpu: CpuReport,
    errors: BTreeMap<String, u64>,
}

async fn measure(
    s: &Scenario,
    clients: &[canopy_client::Client],
    world: &World,
    rooms: &[String],
    report: &mut BenchReport,
) -> anyhow::Result<()> {
    let urls: Vec<String> = clients
        .iter()
        .map(|c| c.base_url().as_str().trim_end_matches('/').to_string())
        .collect();
    let map = NodeMap::read(&urls, s.token.as_deref(), rooms).await?;
    let Some(owner) = map.owner_of(&rooms[0]) else {
        bail!(
            "room {} is owned by {:?}, none of the targeted nodes",
            rooms[0],
            map.owners.get(&rooms[0])
        );
    };
    report.row("room owner", map.label(owner));
    tokio::time::sleep(SETTLE).await;
    let clock = Clock::start();
    let errors = Arc::new(ErrorTally::default());
    let stamps = vec![Arc::new(Stamps::new(world.nodes.len()))];
    let connect = Connect {
        clients,
        rooms,
        stamps: &stamps,
        ctx: SubContext::streaming(s.format.format(), clock, &errors, 1, false),
        slow_recv_buffer: s.slow_recv_buffer,
        concurrency: s.connect_concurrency,
        room_nodes: 0,
    };
    let connect_started = Instant::now();
    let specs = specs(s.subscribers, clients.len());
    let (fleets, aborted) = Fleet::connect_in_steps(&specs, CONNECT_STEP, connect, async |n| {
        eprintln!("cluster-relay: {n} subscribers synced");
        Ok(None)
    })
    .await?;
    let subs: Vec<Arc<SubShared>> = fleets.iter().flat_map(|f| f.subs.iter().cloned()).collect();
    report.row(
        "connecting",
        format!(
            "{} of {} subscribers synced their snapshot in {:.1} s{}",
            subs.len(),
            s.subscribers,
            connect_started.elapsed().as_secs_f64(),
            aborted
                .as_ref()
                .map(|a| format!("; {a}"))
                .unwrap_or_default()
        ),
    );
    tokio::time::sleep(SETTLE).await;
    let stats = Arc::new(EditStats::default());
    let window = EditWindow {
        s,
        client: &clients[owner],
        world,
        rooms,
        stamps: &stamps,
        clock,
        stats: &stats,
        errors: &errors,
        seed: s.seed,
    };
    let counters_start = Counters::of_all(&subs);
    let cpu_start = CpuTimes::now();
    let (window_s, _rss) = window.run(s.load_duration()).await?;
    let cpu = CpuTimes::now().since(&cpu_start);
    let counters_end = Counters::of_all(&subs);
    tokio::time::sleep(Duration::from_millis(500)).await;
    let overall = gather::latency_report(&subs, s);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let m = Measured {
        connected: subs.len(),
        aborted,
        by_node: per_node::cluster_latency(&subs, &map, rooms, overall.tick_ms),
        overall,
        edits: gather::edit_report(&stats, window_s),
        deltas: gather::delta_groups(&subs, &counters_start, &counters_end, window_s),
        cpu: CpuReport::new(cpu, window_s, cores, false),
        errors: errors.snapshot(),
    };
    drop(subs);
    for fleet in fleets {
        fleet.stop().await;
    }
    rows(&m, report);
    checks(s, &m, report);
    Ok(())
}

fn rows(m: &Measured, report: &mut BenchReport) {
    let f = &m.overall.fast;
    report.row(
        "edit-to-delta latency",
        if f.count == 0 {
            "no samples".into()
        } else {
            format!(
                "p50 {:.1} / p95 {:.1} / p99 {:.1} / max {:.1} ms (n={}) = {:.2} ticks at p99",
                f.p50_ms, f.p95_ms, f.p99_ms, f.max_ms, f.count, m.overall.p99_ticks
            )
        },
    );
    for (k, v) in per_node::rows(&m.by_node) {
        report.row(&k, v);
    }
    if let Some(g) = m.deltas.first() {
        report.row(
            "deltas per subscriber",
            format!(
                "{:.1} frames/s (min {:.1}, max {:.1}; {} subscribers)",
                g.frames_per_s.mean, g.frames_per_s.min, g.frames_per_s.max, g.subscribers
            ),
        );
    }
    let edits = &m.edits;
    report.row(
        "edits",
        format!(
            "{:.1} batches/s ({:.0} ops/s) sent, {} of {} acked, ack {:.1} ms at p99",
            edits.batches_per_s,
            edits.ops_per_s,
            edits.acks,
            edits.batches_sent,
            edits.ack_latency.p99_ms
        ),
    );
    let c = &m.cpu;
    report.row(
        "cpu (load window)",
        format!(
            "harness {:.2} cores; machine {:.2} of {} cores busy ({:.2} of them the nodes, \
             NATS and other processes)",
            c.harness_cores, c.machine_busy_cores, c.cores, c.other_processes_cores
        ),
    );
    report.row("errors", crate::observe::errors::summary(&m.errors));
    let by_node = &m.by_node;
    for (k, v) in [
        ("p99_ms", f.p99_ms),
        ("owner_p99_ms", by_node.owner.p99_ms),
        ("relay_p99_ms", by_node.relay.p99_ms),
        (
            "relay_added_p99_ms",
            by_node.relay_added_p99_ms.unwrap_or(f64::NAN),
        ),
        ("subscribers_connected", m.connected as f64),
        ("machine_busy_cores", c.machine_busy_cores),
    ] {
        report.figure(k, v);
    }
    for n in &by_node.nodes {
        report.figure(&format!("p99_ms {}", n.node), n.fast.p99_ms);
    }
}

fn checks(s: &Scenario, m: &Measured, report: &mut BenchReport) {
    let (f, by_node) = (&m.overall.fast, &m.by_node);
    let limit_ms = s.max_p99_ticks * m.overall.tick_ms;
    report.check(
        "every subscriber connected",
        m.aborted.is_none() && m.connected == s.subscribers,
        format!("{} of {}", m.connected, s.subscribers),
    );
    report.check(
        "p99 edit-to-delta",
        f.count > 0 && f.p99_ms < limit_ms,
        format!(
            "{:.1} ms ({:.2} ticks), limit under {limit_ms:.1} ms ({} ticks)",
            f.p99_ms, m.overall.p99_ticks, s.max_p99_ticks
        ),
    );
    report.check(
        "relay-added p99",
        by_node
            .relay_added_p99_ms
            .is_some_and(|ms| ms <= RELAY_ADDED_MS),
        match by_node.relay_added_p99_ms {
            Some(ms) => format!(
                "{ms:+.1} ms (relays {:.1} ms, owner {:.1} ms), limit {RELAY_ADDED_MS} ms",
                by_node.relay.p99_ms, by_node.owner.p99_ms
            ),
            None => "not measured".into(),
        },
    );
    report.check(
        "no errors",
        m.errors.is_empty(),
        format!("{} errors", m.errors.values().sum::<u64>()),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subscribers_go_round_robin_over_the_nodes() {
        let nodes: Vec<usize> = specs(7, 3).iter().map(|s| s.node).collect();
        assert_eq!(nodes, [0, 1, 2, 0, 1, 2, 0]);
        assert!(specs(4, 1).iter().all(|s| s.node == 0 && s.room == 0));
    }
}
