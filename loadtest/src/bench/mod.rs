//! `--bench NAME`: the resource benchmarks, each against a server in its
//! own process (`--url`, or `--server-bin` to start one), with RSS read from the
//! server's `/metrics` (`canopy_process_resident_memory_bytes`):
//!
//! - `rss-per-subscriber`: 20,000 nodes and 500 whole-room subscribers, the room alone,
//!   with the subscribers connected (their snapshots written), and after they left
//!   (`subscriber_memory`);
//! - `many-subscribers`: 5,000 bincode subscribers, RSS and p99 edit-to-delta
//!   (`subscriber_memory`);
//! - `healthz`: `/healthz` latency while two rooms of 150,000 nodes tick over their
//!   budget (`healthz`);
//! - `transform-bytes`: bytes per changed node in exact and compact transforms, and
//!   resume against snapshot bytes (`transform_bytes`);
//! - `s2`: "players see their neighbourhood": 20,000 nodes, 500 players whose avatars
//!   walk, subscribed to the whole room and then each following its avatar (`follow`,
//!   `send_hz`, tiers), bytes, frames, server CPU against the baseline and every follow
//!   copy checked (`s2`);
//! - `cluster-relay`: against several nodes, one room of 20,000 nodes with
//!   200 changes a tick, whole-room subscribers spread over the nodes, p99 per node and
//!   the latency a relay adds (`cluster_relay`);
//! - `cluster-placement`: 300 rooms created through the nodes in turn, rooms per node
//!   (`cluster_placement`);
//! - `cluster-failover`: on a cluster the harness started, 20 kills of a room's owner
//!   under an editor and subscribers on every node, failover time, acknowledged-edit
//!   loss and what the clients were told while the room moved (`cluster_failover`,
//!   `move_errors`).
//!
//! Each prints one table (`table`), its workload first. Invariant: a benchmark exits 1
//! when a stated bound is broken and 2 when it could not be carried out; it never
//! asserts on time in a test, it only measures and says.

use clap::ValueEnum;
use serde::Serialize;

use crate::scenario::{FormatArg, Scenario};
use crate::target::fd_limit::FdLimit;

pub(crate) mod cluster_failover;
pub(crate) mod cluster_placement;
pub(crate) mod cluster_relay;
pub(crate) mod edit_window;
pub(crate) mod healthz;
pub(crate) mod move_errors;
pub(crate) mod s2;
pub(crate) mod server_rss;
pub(crate) mod subscriber_memory;
pub(crate) mod table;
pub(crate) mod transform_bytes;

/// The benchmarks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum BenchName {
    /// Server RSS per whole-room subscriber (20,000 nodes, 500 subscribers).
    RssPerSubscriber,
    /// 5,000 bincode subscribers: RSS and p99 edit-to-delta.
    ManySubscribers,
    /// `/healthz` p99 while two rooms of 150,000 nodes tick over their budget.
    Healthz,
    /// Bytes per changed node, exact against compact, and resume bytes.
    TransformBytes,
    /// 500 players following their walking avatars against the whole-room baseline.
    S2,
    /// Several nodes: 6,000 subscribers over them, p99 per node, relay-added latency.
    ClusterRelay,
    /// Several nodes: 300 rooms created through them, balanced within 20%.
    ClusterPlacement,
    /// A started cluster: 20 owner kills, failover time and acknowledged-edit loss.
    ClusterFailover,
}

impl BenchName {
    /// Whether it targets several nodes of a cluster (the others one server).
    pub(crate) fn is_cluster(self) -> bool {
        matches!(
            self,
            BenchName::ClusterRelay | BenchName::ClusterPlacement | BenchName::ClusterFailover
        )
    }

    /// Its name on the command line.
    pub(crate) fn name(self) -> String {
        self.to_possible_value()
            .map_or_else(String::new, |v| v.get_name().to_string())
    }
}

/// Applies a benchmark's workload to the flags that were not given (`given` tells which
/// were), so every figure of the workload stays overridable.
pub(crate) fn apply_defaults(s: &mut Scenario, given: &dyn Fn(&str) -> bool) {
    let Some(bench) = s.bench else { return };
    let mut set = |id: &str, apply: &mut dyn FnMut(&mut Scenario)| {
        if !given(id) {
            apply(s);
        }
    };
    // None of the benchmarks queries or uses region or slow subscribers.
    set("queries", &mut |s| s.queries = 0.0);
    set("region_subscribers", &mut |s| s.region_subscribers = 0);
    set("slow_readers", &mut |s| s.slow_readers = 0.0);
    match bench {
        BenchName::RssPerSubscriber => {
            // One editor at 30 batches/s keeps deltas flowing while RSS is read; 20 ops
            // rather than 200, since 500 JSON subscribers decoding 200 rows a tick are
            // more than a harness on a 2-core machine can read, and a reader that falls
            // behind holds server memory that is not the subscriber's own.
            set("subscribers", &mut |s| s.subscribers = 500);
            set("editors", &mut |s| s.editors = 1);
            set("batch_size", &mut |s| s.batch_size = 20);
            set("duration", &mut |s| s.duration = 20.0);
        }
        BenchName::ManySubscribers => {
            set("subscribers", &mut |s| s.subscribers = 5000);
            set("editors", &mut |s| s.editors = 1);
            set("batch_size", &mut |s| s.batch_size = 20);
            set("duration", &mut |s| s.duration = 30.0);
            set("format", &mut |s| s.format = FormatArg::Bincode);
        }
        BenchName::Healthz => {
            set("rooms", &mut |s| s.rooms = 2);
            set("nodes", &mut |s| s.nodes = 150_000);
            set("subscribers", &mut |s| s.subscribers = 0);
            set("editors", &mut |s| s.editors = 0);
            set("duration", &mut |s| s.duration = 30.0);
        }
        BenchName::ClusterRelay => {
            // The S1 shape over the nodes: 200 changes a tick at 30 Hz.
            set("rooms", &mut |s| s.rooms = 1);
            set("nodes", &mut |s| s.nodes = 20_000);
            set("subscribers", &mut |s| s.subscribers = 6000);
            set("editors", &mut |s| s.editors = 1);
            set("batch_size", &mut |s| s.batch_size = 200);
            set("edit_rate", &mut |s| s.edit_rate = 30.0);
            set("duration", &mut |s| s.duration = 30.0);
            set("format", &mut |s| s.format = FormatArg::Bincode);
        }
        BenchName::S2 => {
            // One room of 20,000 nodes on a plane (its own layout, not the trees), 500
            // players, the editor's batch every tick: every avatar plus 200 random
            // nodes. Whole-room frames of 700 rows at 30 Hz are more than a harness on
            // a 2-core machine can decode 500 times over: 1 reader in 10 decodes, the
            // others count (follow readers all decode and keep copies).
            set("rooms", &mut |s| s.rooms = 1);
            set("nodes", &mut |s| s.nodes = 20_000);
            set("subscribers", &mut |s| s.subscribers = 500);
            set("editors", &mut |s| s.editors = 1);
            set("batch_size", &mut |s| s.batch_size = 200);
            set("edit_rate", &mut |s| s.edit_rate = f64::from(s.tick_hz));
            set("duration", &mut |s| s.duration = 20.0);
            set("decode_every", &mut |s| s.decode_every = 10);
            set("format", &mut |s| s.format = FormatArg::Bincode);
        }
        BenchName::ClusterPlacement => {
            set("rooms", &mut |s| s.rooms = 300);
            set("nodes", &mut |s| s.nodes = 1);
            set("subscribers", &mut |s| s.subscribers = 0);
            set("editors", &mut |s| s.editors = 0);
        }
        BenchName::ClusterFailover => {
            set("rooms", &mut |s| s.rooms = 1);
            set("nodes", &mut |s| s.nodes = 2000);
            set("subscribers", &mut |s| s.subscribers = 0);
            set("editors", &mut |s| s.editors = 1);
        }
        BenchName::TransformBytes => {
            // The S1 shape: 20,000 nodes, 200 random nodes and a probe a tick.
            set("rooms", &mut |s| s.rooms = 1);
            set("nodes", &mut |s| s.nodes = 20_000);
            set("subscribers", &mut |s| s.subscribers = 0);
            set("editors", &mut |s| s.editors = 0);
            set("batch_size", &mut |s| s.batch_size = 200);
            set("edit_rate", &mut |s| s.edit_rate = 30.0);
            set("duration", &mut |s| s.duration = 20.0);
            set("format", &mut |s| s.format = FormatArg::Bincode);
        }
    }
}

/// Runs benchmark `bench` against `url` and prints its table; returns whether every
/// bound held.
pub(crate) async fn run(
    s: &Scenario,
    urls: &[String],
    label: &str,
    fd: FdLimit,
    cluster: Option<&mut crate::target::cluster::SpawnedCluster>,
) -> anyhow::Result<table::BenchReport> {
    let bench = s.bench.expect("run only for --bench");
    let url = urls[0].as_str();
    let mut report = match bench {
        BenchName::RssPerSubscriber | BenchName::ManySubscribers => {
            subscriber_memory::run(s, bench, url, fd).await?
        }
        BenchName::Healthz => healthz::run(s, url).await?,
        BenchName::TransformBytes => transform_bytes::run(s, url).await?,
        BenchName::S2 => s2::run(s, url, fd).await?,
        BenchName::ClusterRelay => cluster_relay::run(s, urls, fd).await?,
        BenchName::ClusterPlacement => cluster_placement::run(s, urls).await?,
        BenchName::ClusterFailover => cluster_failover::run(s, urls, cluster).await?,
    };
    report.target = label.to_string();
    report.passed = report.checks.iter().all(|c| c.passed);
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[test]
    fn workloads_fill_only_flags_not_given() {
        let mut s = Scenario::parse_from([
            "canopy-loadtest",
            "--url=http://127.0.0.1:9",
            "--bench=many-subscribers",
            "--subscribers=300",
        ]);
        apply_defaults(&mut s, &|id| id == "subscribers");
        assert_eq!((s.subscribers, s.editors, s.batch_size), (300, 1, 20));
        assert_eq!((s.queries, s.region_subscribers), (0.0, 0));
        s.validate().unwrap();
        let mut h =
            Scenario::parse_from(["canopy-loadtest", "--url=http://x:1", "--bench=healthz"]);
        apply_defaults(&mut h, &|_| false);
        assert_eq!((h.rooms, h.nodes, h.subscribers), (2, 150_000, 0));
        let spawned = Scenario::parse_from(["canopy-loadtest", "--spawn", "--bench=healthz"]);
        assert!(spawned.validate().is_err());
        let several = Scenario::parse_from([
            "canopy-loadtest",
            "--url=http://a:1,http://b:2",
            "--bench=healthz",
        ]);
        assert!(several.validate().is_err(), "a one-server benchmark");
        let mut relay = Scenario::parse_from([
            "canopy-loadtest",
            "--url=http://a:1,http://b:2,http://c:3",
            "--bench=cluster-relay",
        ]);
        apply_defaults(&mut relay, &|_| false);
        relay.validate().unwrap();
        assert_eq!(
            (relay.subscribers, relay.batch_size, relay.nodes),
            (6000, 200, 20_000)
        );
        assert_eq!(relay.node_count(), 3);
        let mut s2 = Scenario::parse_from(["canopy-loadtest", "--spawn", "--bench=s2"]);
        apply_defaults(&mut s2, &|_| false);
        assert_eq!(
            (s2.nodes, s2.subscribers, s2.batch_size, s2.edit_rate),
            (20_000, 500, 200, 30.0)
        );
        assert_eq!((s2.region_subscribers, s2.decode_every), (0, 10));
    }
}
