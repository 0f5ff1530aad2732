//! The subscriber fleet: which subscribers a scenario has (whole-room and region, slow or
//! not, spread over the rooms), connecting them a few at a time until each has its
//! snapshot, and stopping them.
//!
//! Invariant: the load starts only after every subscriber has applied its first
//! snapshot, so the load window measures steady streaming, not 500 snapshots of
//! 20,000 nodes competing with the edits.

use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, anyhow};
use canopy_client::Client;
use canopy_protocol::message::Region;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::load::stamps::Stamps;
use crate::load::subscriber::{self, SubContext, SubShared, SubSpec};
use crate::load::world::World;
use crate::rawws;
use crate::scenario::Scenario;
use crate::stop::{self, StopSender};
use crate::target::urls;

/// How long a subscriber may take to connect and apply its first snapshot.
const SYNC_TIMEOUT: Duration = Duration::from_secs(120);

/// The subscribers of a scenario: whole-room ones first, then region ones, each kind
/// spread round robin over the rooms and, within a room, over the `nodes` server URLs,
/// with regions placed at random in the world.
pub(crate) fn specs(s: &Scenario, world: &World, nodes: usize) -> Vec<SubSpec> {
    let mut rng = SmallRng::seed_from_u64(s.seed ^ 0x5eed_5ab5);
    let mut specs = Vec::with_capacity(s.subscribers + s.region_subscribers);
    for i in 0..s.subscribers {
        specs.push(SubSpec {
            index: specs.len(),
            room: i % s.rooms,
            node: urls::node_of(i, s.rooms, nodes),
            region: None,
            follow: None,
            slow: s.is_slow(i),
            stalled: s.is_stalled(i),
        });
    }
    for i in 0..s.region_subscribers {
        let region = random_region(&mut rng, world, s.region_size);
        specs.push(SubSpec {
            index: specs.len(),
            room: i % s.rooms,
            node: urls::node_of(i, s.rooms, nodes),
            region: Some(region),
            follow: None,
            slow: s.is_slow(i),
            stalled: s.is_stalled(s.subscribers + i),
        });
    }
    specs
}

/// A `size` x `size` box on the ground plane, spanning the world's height, inside the
/// world where it fits.
fn random_region(rng: &mut SmallRng, world: &World, size: f32) -> Region {
    let half = size / 2.0;
    let mut centre = |a: usize| {
        let (lo, hi) = (world.min[a] + half, world.max[a] - half);
        if lo < hi {
            rng.random_range(lo..=hi)
        } else {
            (world.min[a] + world.max[a]) / 2.0
        }
    };
    let (x, z) = (centre(0), centre(2));
    Region {
        min: [x - half, world.min[1], z - half],
        max: [x + half, world.max[1], z + half],
    }
}

/// The running fleet.
pub(crate) struct Fleet {
    pub subs: Vec<Arc<SubShared>>,
    tasks: Vec<JoinHandle<()>>,
    stop: StopSender,
}

/// Everything connecting needs.
pub(crate) struct Connect<'a> {
    /// One client per server URL; a subscriber connects to `clients[spec.node]`.
    pub clients: &'a [Client],
    pub rooms: &'a [String],
    pub stamps: &'a [Arc<Stamps>],
    pub ctx: Arc<SubContext>,
    pub slow_recv_buffer: u32,
    pub concurrency: usize,
    /// Nodes per room (ids `0..room_nodes`), the size of each mirror.
    pub room_nodes: usize,
}

impl Connect<'_> {
    fn again(&self) -> Self {
        Connect {
            ctx: Arc::clone(&self.ctx),
            ..*self
        }
    }
}

impl Fleet {
    /// Connects `specs` `step` at a time, one fleet per step; after each step `between`
    /// (given how many are synced) may stop it, saying why. Answers the fleets and why
    /// it stopped early (a failed step, or `between`'s reason), if it did.
    pub(crate) async fn connect_in_steps(
        specs: &[SubSpec],
        step: usize,
        c: Connect<'_>,
        mut between: impl AsyncFnMut(usize) -> anyhow::Result<Option<String>>,
    ) -> anyhow::Result<(Vec<Fleet>, Option<String>)> {
        let mut fleets: Vec<Fleet> = Vec::new();
        for chunk in specs.chunks(step.max(1)) {
            match Fleet::connect(chunk.to_vec(), c.again()).await {
                Ok(fleet) => fleets.push(fleet),
                Err(e) => return Ok((fleets, Some(format!("connecting failed: {e:#}")))),
            }
            let synced = fleets.iter().map(|f| f.subs.len()).sum();
            if let Some(why) = between(synced).await? {
                return Ok((fleets, Some(why)));
            }
        }
        Ok((fleets, None))
    }

    /// Connects every subscriber of `specs`, `concurrency` at a time, and waits until
    /// each has applied its snapshot.
    pub(crate) async fn connect(specs: Vec<SubSpec>, c: Connect<'_>) -> anyhow::Result<Fleet> {
        let (stop, stop_rx) = stop::channel();
        let mut fleet = Fleet {
            subs: Vec::with_capacity(specs.len()),
            tasks: Vec::with_capacity(specs.len()),
            stop,
        };
        // ws_urls[node][room].
        let ws_urls: Vec<Vec<String>> = c
            .clients
            .iter()
            .map(|client| {
                c.rooms
                    .iter()
                    .map(|room| rawws::ws_url(client, room, c.ctx.format))
                    .collect::<anyhow::Result<_>>()
            })
            .collect::<anyhow::Result<_>>()?;
        for chunk in specs.chunks(c.concurrency.max(1)) {
            let starts = chunk.iter().map(|spec| {
                let me = Arc::new(SubShared::new(*spec, c.room_nodes));
                let url = ws_urls[spec.node.min(ws_urls.len() - 1)][spec.room].clone();
                // Stalled readers get the small buffer too, so that their stall reaches
                // the server's write deadline sooner.
                let recv = (spec.slow || spec.stalled).then_some(c.slow_recv_buffer);
                let ctx = Arc::clone(&c.ctx);
                let stamps = Arc::clone(&c.stamps[spec.room]);
                let stop = stop_rx.clone();
                async move {
                    let reopen = subscriber::Reopen {
                        url: url.clone(),
                        recv_buffer: recv,
                    };
                    let socket = rawws::open(&url, recv)
                        .await
                        .with_context(|| format!("subscriber {}", spec.index))?;
                    let (synced_tx, synced) = oneshot::channel();
                    let task = tokio::spawn(subscriber::run(
                        socket,
                        Arc::clone(&me),
                        ctx,
                        stamps,
                        synced_tx,
                        reopen,
                        stop,
                    ));
                    match tokio::time::timeout(SYNC_TIMEOUT, synced).await {
                        Ok(Ok(())) => Ok((me, task)),
                        _ => {
                            let why = me
                                .lock()
                                .ended
                                .clone()
                                .unwrap_or_else(|| "no snapshot".into());
                            Err(anyhow!("subscriber {} did not sync: {why}", spec.index))
                        }
                    }
                }
            });
            for started in futures_util::future::join_all(starts).await {
                let (me, task) = started?;
                fleet.subs.push(me);
                fleet.tasks.push(task);
            }
        }
        Ok(fleet)
    }

    /// Stops every subscriber and waits for their tasks.
    pub(crate) async fn stop(self) {
        self.stop.raise();
        for task in self.tasks {
            let _ = task.await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[test]
    fn specs_spread_kinds_rooms_and_slow_readers() {
        let s = Scenario::parse_from([
            "canopy-loadtest",
            "--spawn",
            "--rooms=2",
            "--subscribers=10",
            "--region-subscribers=4",
            "--slow-readers=0.5",
            "--nodes=600",
        ]);
        let world = World::build(s.nodes, s.fanout, s.depth);
        let specs = specs(&s, &world, 1);
        assert_eq!(specs.len(), 14);
        assert!(specs.iter().all(|sp| sp.node == 0));
        assert!(specs.iter().enumerate().all(|(i, sp)| sp.index == i));
        assert_eq!(specs.iter().filter(|sp| sp.region.is_some()).count(), 4);
        assert_eq!(specs.iter().filter(|sp| sp.room == 1).count(), 7);
        assert_eq!(specs.iter().filter(|sp| sp.slow).count(), 7);
        for sp in specs.iter().filter_map(|sp| sp.region) {
            assert!((sp.max[0] - sp.min[0] - s.region_size).abs() < 1e-3);
            assert!(sp.min[0] >= world.min[0] - 1e-3 && sp.max[0] <= world.max[0] + 1e-3);
        }
    }

    #[test]
    fn specs_spread_each_room_over_the_nodes() {
        let s = Scenario::parse_from([
            "canopy-loadtest",
            "--url=http://a:1,http://b:2,http://c:3",
            "--rooms=2",
            "--subscribers=12",
            "--region-subscribers=6",
            "--nodes=600",
        ]);
        let world = World::build(s.nodes, s.fanout, s.depth);
        let specs = specs(&s, &world, 3);
        for room in 0..2 {
            for kind_region in [false, true] {
                let mut per_node = [0; 3];
                for sp in specs
                    .iter()
                    .filter(|sp| sp.room == room && sp.region.is_some() == kind_region)
                {
                    per_node[sp.node] += 1;
                }
                let want = if kind_region { [1, 1, 1] } else { [2, 2, 2] };
                assert_eq!(per_node, want, "room {room}, region {kind_region}");
            }
        }
    }
}
