//! Benchmark `cluster-placement`: `--rooms` rooms (300) created on a cluster,
//! first through the nodes in turn, then all through the first node, each time read
//! back from `GET /cluster` as rooms per node.
//!
//! Bound: every node holds within 20% of the mean (rooms over live nodes) of each
//! phase's rooms. Invariant: only the rooms this run created are counted (a shared
//! cluster may hold others), and they are deleted after each phase.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use anyhow::{Context, ensure};
use canopy_client::Client;
use canopy_protocol::http::ClusterView;

use crate::bench::table::BenchReport;
use crate::load::setup;
use crate::observe::cluster_view;
use crate::run::clients;
use crate::scenario::Scenario;
use crate::target::urls;

/// The largest deviation from the mean allowed, as a fraction.
pub(crate) const BALANCE: f64 = 0.20;

/// The largest deviation of any node's count from the mean, as a fraction of it.
/// `counts` has every live node (zero rooms included).
pub(crate) fn worst_deviation(counts: &BTreeMap<String, u64>) -> f64 {
    if counts.is_empty() {
        return f64::INFINITY;
    }
    let total: u64 = counts.values().sum();
    let mean = total as f64 / counts.len() as f64;
    if mean == 0.0 {
        return f64::INFINITY;
    }
    counts
        .values()
        .map(|&c| (c as f64 - mean).abs() / mean)
        .fold(0.0, f64::max)
}

pub(crate) async fn run(s: &Scenario, urls_: &[String]) -> anyhow::Result<BenchReport> {
    ensure!(
        urls_.len() >= 2,
        "--bench cluster-placement needs several nodes: --url with a list, or --cluster-spawn"
    );
    let mut report = BenchReport::new(
        "cluster-placement",
        format!(
            "{} rooms created on a cluster of {} nodes, through the nodes in turn, then all \
             through the first; rooms per node from GET /cluster",
            s.rooms,
            urls_.len()
        ),
    );
    let clients = clients(urls_, s.token.as_deref())?;
    for c in &clients {
        setup::wait_healthy(c, Duration::from_secs(10)).await?;
    }
    for (phase, through_all) in [("in turn", true), ("through one", false)] {
        let rooms: Vec<String> = setup::room_ids(s.rooms, s.seed)
            .into_iter()
            .map(|r| format!("{r}-{}", if through_all { "turn" } else { "one" }))
            .collect();
        let started = Instant::now();
        let (created, outcome) = create_rooms(s, &clients, &rooms, through_all).await;
        let took = started.elapsed().as_secs_f64();
        let view = cluster_view::fetch(&urls_[0], s.token.as_deref()).await;
        setup::delete_rooms(&clients[0], &rooms[..created]).await;
        outcome?;
        let view = view?;
        let (counts, unlisted) = rooms_per_node(&view, &rooms);
        let phase = Phase {
            name: phase,
            created,
            took,
        };
        phase_rows(&phase, &counts, unlisted, &mut report);
        // Let the deletions reach the registry before the next phase places rooms.
        tokio::time::sleep(Duration::from_secs(2)).await;
    }
    Ok(report)
}

/// Creates `rooms`, through the nodes in turn or all through the first; answers how
/// many were created and whether every creation went through.
async fn create_rooms(
    s: &Scenario,
    clients: &[Client],
    rooms: &[String],
    through_all: bool,
) -> (usize, anyhow::Result<()>) {
    let mut created = 0;
    for (i, room) in rooms.iter().enumerate() {
        let via = if through_all {
            &clients[urls::round_robin(i, clients.len())]
        } else {
            &clients[0]
        };
        if let Err(e) = via.ensure_room(room, Some(s.tick_hz)).await {
            return (
                created,
                Err(e).with_context(|| format!("creating room {room}")),
            );
        }
        created += 1;
    }
    (created, Ok(()))
}

/// The owner of each of `rooms` in `view`, counted per live node; answers the counts and
/// how many were owned by nodes not listed as live.
fn rooms_per_node(view: &ClusterView, rooms: &[String]) -> (BTreeMap<String, u64>, usize) {
    let mut counts: BTreeMap<String, u64> = view.nodes.iter().map(|n| (n.id.clone(), 0)).collect();
    let mut unlisted = 0;
    for r in view.rooms.iter().filter(|r| rooms.contains(&r.id)) {
        match counts.get_mut(&r.owner) {
            Some(c) => *c += 1,
            None => unlisted += 1,
        }
    }
    (counts, unlisted)
}

/// One phase of the benchmark: its name, how many rooms it created, in how long.
struct Phase<'a> {
    name: &'a str,
    created: usize,
    took: f64,
}

fn phase_rows(
    p: &Phase<'_>,
    counts: &BTreeMap<String, u64>,
    unlisted: usize,
    report: &mut BenchReport,
) {
    let (phase, created, took) = (p.name, p.created, p.took);
    let listed: u64 = counts.values().sum();
    let worst = worst_deviation(counts);
    report.row(
        &format!("rooms per node, {phase}"),
        format!(
            "{} (mean {:.1}; {listed} of {created} rooms listed with a lease{}; created in \
             {took:.1} s)",
            counts
                .iter()
                .map(|(n, c)| format!("{n} {c}"))
                .collect::<Vec<_>>()
                .join(", "),
            listed as f64 / counts.len().max(1) as f64,
            if unlisted > 0 {
                format!(", {unlisted} on nodes not live")
            } else {
                String::new()
            }
        ),
    );
    for (n, c) in counts {
        report.figure(&format!("rooms {phase} {n}"), *c as f64);
    }
    report.check(
        &format!("balance, {phase}"),
        listed == created as u64 && worst <= BALANCE,
        format!(
            "worst node {:.1}% from the mean, limit {:.0}%",
            worst * 100.0,
            BALANCE * 100.0
        ),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deviation_is_from_the_mean_of_every_live_node() {
        let counts = |v: &[u64]| -> BTreeMap<String, u64> {
            v.iter()
                .enumerate()
                .map(|(i, &c)| (format!("n{i}"), c))
                .collect()
        };
        assert_eq!(worst_deviation(&counts(&[100, 100, 100])), 0.0);
        let w = worst_deviation(&counts(&[120, 100, 80]));
        assert!((w - 0.2).abs() < 1e-9);
        assert!(worst_deviation(&counts(&[150, 150, 0])) > BALANCE);
        assert!(worst_deviation(&counts(&[])).is_infinite());
    }
}
