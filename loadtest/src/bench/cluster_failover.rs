//! Benchmark `cluster-failover`: a cluster the harness started
//! (`--cluster-spawn N`), one room of `--nodes` nodes, and `--kills` rounds (20) of: an
//! editor at a node that does not own the room adds one node per batch, one batch at a
//! time; after a second the owner is killed with `-9`; the time until another node
//! holds the room's lease (the failover time) and until the editor's batches are
//! acknowledged again (the edit outage) are measured; every batch acknowledged before
//! or after the kill must be in the new owner's state; the killed node is started again
//! (same name and port) before the next round. Meanwhile a whole-room subscriber at
//! every node reconnects whenever it is closed, and every error the editor and the
//! subscribers are told is counted by kind (`move_errors`).
//!
//! Bounds: no acknowledged batch is lost, every failover takes at most the lease plus
//! 2 s, and no client is told `unknown_room` or "room deleted" for the moving room.
//! Invariant: the ids a round sends are unique over the run, so a batch of one round
//! can never stand in for another's.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, bail, ensure};
use canopy_protocol::{Op, Transform};

use crate::bench::move_errors::{self, MoveErrors};
use crate::bench::table::BenchReport;
use crate::load::setup;
use crate::load::world::World;
use crate::observe::cluster_view;
use crate::run::clients;
use crate::scenario::Scenario;
use crate::target::cluster::SpawnedCluster;

/// The room the benchmark uses.
const ROOM: &str = "failover-bench";
/// How long the editor edits before each kill.
const BEFORE_KILL: Duration = Duration::from_secs(1);
/// The longest a failover may take before the round is counted as failed.
const GIVE_UP: Duration = Duration::from_secs(60);

/// The owner of [`ROOM`] and its epoch, as the node at `url` sees them.
async fn owner(url: &str, token: Option<&str>) -> Option<(String, u64, String)> {
    let view = cluster_view::fetch(url, token).await.ok()?;
    let room = view.rooms.iter().find(|r| r.id == ROOM)?;
    let node = view.nodes.iter().find(|n| n.id == room.owner)?;
    Some((room.owner.clone(), room.epoch, node.url.clone()))
}

/// Percentile `p` (0 to 1) of `v`, sorted.
fn percentile(v: &[f64], p: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s[((s.len() - 1) as f64 * p).round() as usize]
}

/// What one kill round measured.
struct Round {
    /// Seconds from the kill until another node held the lease.
    failover: f64,
    /// Seconds from the kill until the editor's batches were acknowledged again.
    outage: f64,
    acked: usize,
    /// Acknowledged batches missing from the new owner's state.
    lost: usize,
}

/// What every round works with.
struct Rounds<'a> {
    urls: &'a [String],
    token: Option<&'a str>,
    clients: Vec<canopy_client::Client>,
    told: Arc<Mutex<MoveErrors>>,
    /// The next node id a batch adds (unique over the run).
    next_id: u32,
}

pub(crate) async fn run(
    s: &Scenario,
    urls: &[String],
    cluster: Option<&mut SpawnedCluster>,
) -> anyhow::Result<BenchReport> {
    let Some(cluster) = cluster else {
        bail!("--bench cluster-failover kills nodes: start them with --cluster-spawn N");
    };
    ensure!(
        urls.len() >= 2,
        "--bench cluster-failover needs at least 2 nodes"
    );
    let token = s.token.as_deref();
    let lease = cluster_view::fetch(&urls[0], token).await?.lease_secs;
    let mut report = BenchReport::new(
        "cluster-failover",
        format!(
            "{} owner kills (kill -9) of one room of {} nodes on a cluster of {} nodes \
             (lease {lease} s); an editor at another node adds one node per batch, one at a \
             time, through each kill",
            s.kills,
            s.nodes,
            urls.len()
        ),
    );
    let clients = clients(urls, token)?;
    for c in &clients {
        setup::wait_healthy(c, Duration::from_secs(10)).await?;
    }
    clients[0].delete_room(ROOM).await.ok();
    let world = World::build(s.nodes, s.fanout, s.depth);
    setup::create_rooms(&clients[0], &[ROOM.to_string()], s.tick_hz, &world).await?;
    let mut rounds = Rounds {
        urls,
        token,
        clients,
        told: Arc::new(Mutex::new(MoveErrors::default())),
        next_id: 10_000_000,
    };
    let stop = Arc::new(AtomicBool::new(false));
    let subscribers = move_errors::subscribe_everywhere(
        urls,
        ROOM,
        token,
        Arc::clone(&rounds.told),
        Arc::clone(&stop),
    );
    let mut done = Vec::new();
    for round in 1..=s.kills {
        let r = rounds.kill_once(cluster, round, s.kills).await?;
        done.push(r);
    }
    stop.store(true, Ordering::Release);
    for s in subscribers {
        s.await.ok();
    }
    let told = *rounds.told.lock().expect("the tally");
    rounds.clients[0].delete_room(ROOM).await.ok();
    report_rounds(&done, lease, &told, &mut report);
    Ok(report)
}

impl Rounds<'_> {
    /// One round: edits through a node that does not own the room, the owner killed
    /// after [`BEFORE_KILL`], edits until they are acknowledged again, the state checked
    /// for every acknowledged batch, and the killed node started again.
    async fn kill_once(
        &mut self,
        cluster: &mut SpawnedCluster,
        round: usize,
        kills: usize,
    ) -> anyhow::Result<Round> {
        let token = self.token;
        let (old, epoch, old_url) = owner(&self.urls[0], token)
            .await
            .context("the room's owner before the kill")?;
        let via = self
            .clients
            .iter()
            .find(|c| c.base_url().as_str().trim_end_matches('/') != old_url)
            .context("a node other than the owner")?
            .clone();
        let via_url = via.base_url().as_str().trim_end_matches('/').to_string();
        let mut acked = Vec::new();
        let started = Instant::now();
        let (mut killed_at, mut moved_at, mut resumed_at) = (None, None, None);
        loop {
            if self.edit_once(&via).await {
                acked.push(self.next_id);
                if moved_at.is_some() && resumed_at.is_none() {
                    resumed_at = Some(Instant::now());
                }
            } else {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            if killed_at.is_none() && started.elapsed() >= BEFORE_KILL {
                cluster
                    .node_at(&old_url)
                    .context("the owner is a node this run started")?
                    .kill()?;
                killed_at = Some(Instant::now());
            }
            let Some(k) = killed_at else { continue };
            if moved_at.is_none()
                && let Some((now, e, _)) = owner(&via_url, token).await
                && now != old
                && e > epoch
            {
                moved_at = Some(Instant::now());
            }
            if resumed_at.is_some() && acked.len() >= 5 {
                break;
            }
            if k.elapsed() > GIVE_UP {
                bail!("round {round}: the room was not taken over within {GIVE_UP:?}");
            }
        }
        let killed = killed_at.expect("killed");
        let since_kill =
            |at: Option<Instant>| at.expect("seen").duration_since(killed).as_secs_f64();
        let state = via
            .nodes(ROOM)
            .await
            .context("the room after the takeover")?;
        let ids: BTreeSet<u32> = state.nodes.iter().map(|n| n.id).collect();
        let r = Round {
            failover: since_kill(moved_at),
            outage: since_kill(resumed_at),
            acked: acked.len(),
            lost: acked.iter().filter(|id| !ids.contains(id)).count(),
        };
        eprintln!(
            "cluster-failover: round {round}/{kills}: {old} killed, taken over in {:.2} s, \
             edits back after {:.2} s, {} acknowledged, {} lost",
            r.failover, r.outage, r.acked, r.lost
        );
        self.restart(cluster, &old, &old_url).await?;
        Ok(r)
    }

    /// Sends one batch adding the next node through `via`; whether it was acknowledged
    /// (an error is tallied by kind).
    async fn edit_once(&mut self, via: &canopy_client::Client) -> bool {
        self.next_id += 1;
        let add = Op::Add {
            id: Some(self.next_id),
            parent: None,
            local: Transform::IDENTITY,
            extent: [0.5; 3],
            mask: 1,
        };
        match tokio::time::timeout(Duration::from_secs(10), via.edit(ROOM, vec![add])).await {
            Ok(Ok(_)) => true,
            Ok(Err(e)) => {
                self.told
                    .lock()
                    .expect("the tally")
                    .add(move_errors::of_edit(&e));
                false
            }
            Err(_) => false,
        }
    }

    /// Starts the killed node again and waits until it is back in the cluster, so there
    /// are always nodes to take the room over in the next round.
    async fn restart(
        &self,
        cluster: &mut SpawnedCluster,
        old: &str,
        old_url: &str,
    ) -> anyhow::Result<()> {
        cluster
            .node_at(old_url)
            .context("the killed node")?
            .kill_and_restart()?;
        let deadline = Instant::now() + Duration::from_secs(20);
        while cluster_view::fetch(old_url, self.token)
            .await
            .map_or(true, |v| v.nodes.len() < self.urls.len())
        {
            ensure!(
                Instant::now() < deadline,
                "{old} did not rejoin within 20 s"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        Ok(())
    }
}

fn report_rounds(rounds: &[Round], lease: u64, told: &MoveErrors, report: &mut BenchReport) {
    let failovers: Vec<f64> = rounds.iter().map(|r| r.failover).collect();
    let outages: Vec<f64> = rounds.iter().map(|r| r.outage).collect();
    let acked_total: usize = rounds.iter().map(|r| r.acked).sum();
    let lost_total: usize = rounds.iter().map(|r| r.lost).sum();
    let p = |v: &[f64], q| percentile(v, q);
    report.row(
        "failover (kill to new lease)",
        format!(
            "p50 {:.2} s, p99 {:.2} s, max {:.2} s over {} kills",
            p(&failovers, 0.5),
            p(&failovers, 0.99),
            p(&failovers, 1.0),
            failovers.len()
        ),
    );
    report.row(
        "edit outage (kill to next ack)",
        format!(
            "p50 {:.2} s, max {:.2} s",
            p(&outages, 0.5),
            p(&outages, 1.0)
        ),
    );
    report.row(
        "acknowledged batches",
        format!("{acked_total}, lost {lost_total}"),
    );
    report.figure("failover p50 s", p(&failovers, 0.5));
    report.figure("failover max s", p(&failovers, 1.0));
    report.figure("outage max s", p(&outages, 1.0));
    report.figure("acknowledged", acked_total as f64);
    report.figure("lost", lost_total as f64);
    report.check(
        "acknowledged-edit loss",
        lost_total == 0,
        format!("{lost_total} of {acked_total} acknowledged batches lost"),
    );
    told.report(report);
    let limit = lease as f64 + 2.0;
    report.check(
        "failover time",
        p(&failovers, 1.0) <= limit,
        format!(
            "slowest {:.2} s, limit lease + 2 s = {limit:.0} s",
            p(&failovers, 1.0)
        ),
    );
}
