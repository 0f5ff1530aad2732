//! One run, phase by phase: build the rooms, connect the subscribers (each synced to
//! its snapshot), connect editors and query connections, run the load for the
//! scenario's duration while scraping the server before and after, quiesce (stop the
//! load, let slow readers catch up, let traffic settle), check every mirror, and
//! gather the report.
//!
//! Invariant: the measured window is exactly the time editors and queries were sending;
//! the server's numbers (tick histogram, merged frames, CPU) are differences over that
//! window, and the final check only starts once nothing is being sent any more.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;
use canopy_client::{Client, ConnectOptions, Connection};
use canopy_protocol::NodeId;
use tokio::sync::Notify;

use crate::load::editor::{self, Editor};
use crate::load::fleet::{self, Connect, Fleet};
use crate::load::queries::QueryTarget;
use crate::load::setup;
use crate::load::stamps::{Clock, Stamps};
use crate::load::subscriber::{SoakSub, SubContext, SubShared};
use crate::load::world::World;
use crate::observe::cluster_view::NodeMap;
use crate::observe::errors::ErrorTally;
use crate::observe::metrics_scrape;
use crate::observe::verify;
use crate::report::run_report::Report;
use crate::scenario::{QueryVia, Scenario};

/// WebSocket connections per room that carry queries.
mod window;

const QUERY_CONNS_PER_ROOM: usize = 2;

/// Where the run points.
#[derive(Clone, Debug)]
pub(crate) struct Target {
    /// The server's URL, or a cluster's nodes' (rooms are created through the first).
    pub urls: Vec<String>,
    /// Shown in the report.
    pub label: String,
    /// Whether the server runs in this process (only then is its CPU time ours to see).
    pub in_process: bool,
}

/// Runs the scenario against `target` and returns its report (checks included).
pub(crate) async fn run(s: Scenario, target: Target) -> anyhow::Result<Report> {
    let clients = clients(&target.urls, s.token.as_deref())?;
    let client = clients[0].clone();
    for c in &clients {
        setup::wait_healthy(c, Duration::from_secs(10)).await?;
    }
    let setup_started = Instant::now();
    let world = World::build(s.nodes, s.fanout, s.depth);
    let rooms = setup::room_ids(s.rooms, s.seed);
    setup::create_rooms(&client, &rooms, s.tick_hz, &world).await?;
    let nodes = Nodes::read(&clients, &target.urls, s.token.as_deref(), &rooms).await;
    let result = match nodes {
        Ok(nodes) => load_and_check(&s, &target, &nodes, &world, &rooms, setup_started).await,
        Err(e) => Err(e),
    };
    if !s.keep_rooms {
        setup::delete_rooms(&client, &rooms).await;
    }
    result
}

/// One SDK client per URL, with the token.
pub(crate) fn clients(urls: &[String], token: Option<&str>) -> anyhow::Result<Vec<Client>> {
    urls.iter()
        .map(|u| {
            let c = Client::new(u)?;
            Ok(match token {
                Some(t) => c.with_token(t.to_string()),
                None => c,
            })
        })
        .collect()
}

/// The servers a run targets: one client per URL and, with several, the cluster's
/// names and owners.
pub(crate) struct Nodes {
    pub clients: Vec<Client>,
    /// `None` with one URL: a single server's run never asks `GET /cluster`.
    pub map: Option<NodeMap>,
}

impl Nodes {
    /// Reads the cluster's view when there are several URLs.
    pub(crate) async fn read(
        clients: &[Client],
        urls: &[String],
        token: Option<&str>,
        rooms: &[String],
    ) -> anyhow::Result<Nodes> {
        let map = if urls.len() > 1 {
            Some(NodeMap::read(urls, token, rooms).await?)
        } else {
            None
        };
        Ok(Nodes {
            clients: clients.to_vec(),
            map,
        })
    }

    /// The client editor `k` of `room` connects through.
    pub(crate) fn editor_client(&self, s: &Scenario, room: &str, k: usize) -> &Client {
        let i = self
            .map
            .as_ref()
            .map_or(0, |m| m.editor_node(room, k, s.editors_anywhere));
        &self.clients[i.min(self.clients.len() - 1)]
    }
}

/// What every phase of a run shares: the clock the stamps are taken on, the error
/// tallies, and each room's stamps.
pub(crate) struct RunContext {
    pub clock: Clock,
    pub errors: Arc<ErrorTally>,
    /// What the soak provokes on purpose, counted apart from the errors.
    pub expected: Arc<ErrorTally>,
    pub stamps: Vec<Arc<Stamps>>,
}

async fn load_and_check(
    s: &Scenario,
    target: &Target,
    nodes: &Nodes,
    world: &World,
    rooms: &[String],
    setup_started: Instant,
) -> anyhow::Result<Report> {
    let client = &nodes.clients[0];
    let run = RunContext {
        clock: Clock::start(),
        errors: Arc::new(ErrorTally::default()),
        expected: Arc::new(ErrorTally::default()),
        stamps: rooms
            .iter()
            .map(|_| Arc::new(Stamps::new(world.nodes.len())))
            .collect(),
    };
    let sub_ctx = subscriber_context(s, &run);
    let fleet = Fleet::connect(
        fleet::specs(s, world, nodes.clients.len()),
        Connect {
            clients: &nodes.clients,
            rooms,
            stamps: &run.stamps,
            ctx: Arc::clone(&sub_ctx),
            slow_recv_buffer: s.slow_recv_buffer,
            concurrency: s.connect_concurrency,
            room_nodes: world.nodes.len(),
        },
    )
    .await?;
    let options = ConnectOptions::default().format(s.format.format());
    let editors = connect_editors(s, nodes, world, rooms, &run.stamps, &options).await?;
    let query_target = query_target(s, client, rooms, &options).await?;
    let mut conns: Vec<Connection> = editors.iter().map(|e| e.conn.clone()).collect();
    if let QueryTarget::Ws(c) = &query_target {
        conns.extend(c.iter().flatten().cloned());
    }
    let setup_s = setup_started.elapsed().as_secs_f64();

    let load = window::Load {
        s,
        client,
        world,
        rooms,
        run: &run,
        sub_ctx: &sub_ctx,
        subs: &fleet.subs,
    };
    let measured = load.run(editors, query_target).await?;

    // Quiesce: slow readers read at full speed again, then traffic settles.
    sub_ctx.end_pauses();
    let settle_timeout = Duration::from_secs_f64(s.settle_timeout);
    let settled_in = settle(&fleet.subs, run.clock, s.tick(), settle_timeout).await;
    let verify = verify::verify(
        client,
        rooms,
        &fleet.subs,
        settle_timeout.saturating_sub(settled_in),
    )
    .await?;
    let scrape_after = metrics_scrape::scrape(client).await?;
    let mut details = Vec::new();
    for room in rooms {
        details.push(client.get_room(room).await?);
    }
    for conn in &conns {
        conn.close().await;
    }
    let subs = fleet.subs.clone();
    fleet.stop().await;
    let after = window::After {
        setup_s,
        scrape_after,
        details,
        verify,
    };
    Ok(measured.report(s, target, nodes, rooms, &run, &subs, after))
}

/// How the run's subscribers behave: slow readers pause only once the load started (so
/// they sync their snapshot as fast as anyone), soak stalls when soaking, mirrors kept.
fn subscriber_context(s: &Scenario, run: &RunContext) -> Arc<SubContext> {
    Arc::new(SubContext {
        format: s.format.format(),
        clock: run.clock,
        errors: Arc::clone(&run.errors),
        pausing: AtomicBool::new(false),
        resume: Notify::new(),
        pause: Duration::from_millis(s.slow_pause_ms),
        period: Duration::from_millis(s.slow_period_ms),
        soak: s.soak.then(|| SoakSub {
            stall: Duration::from_secs_f64(s.stall_secs()),
            stall_every: Duration::from_secs_f64(s.stall_every),
            expected: Arc::clone(&run.expected),
        }),
        keep_mirror: true,
        decode_every: 1,
        compact_counters: false,
    })
}

/// Where the queries go: HTTP through `client`, or [`QUERY_CONNS_PER_ROOM`] WebSocket
/// connections per room.
async fn query_target(
    s: &Scenario,
    client: &Client,
    rooms: &[String],
    options: &ConnectOptions,
) -> anyhow::Result<QueryTarget> {
    Ok(match s.query_via {
        QueryVia::Http => QueryTarget::Http(client.clone(), rooms.to_vec()),
        QueryVia::Ws => {
            let mut per_room = Vec::new();
            for room in rooms {
                let mut conns = Vec::new();
                for _ in 0..QUERY_CONNS_PER_ROOM {
                    conns.push(client.connect(room, options.clone()).await?);
                }
                per_room.push(conns);
            }
            QueryTarget::Ws(per_room)
        }
    })
}

/// Connects the editors, each with its share of its room's leaves, each through the
/// node `nodes` picks for it (the room's owner unless `--editors-anywhere`).
pub(crate) async fn connect_editors(
    s: &Scenario,
    nodes: &Nodes,
    world: &World,
    rooms: &[String],
    stamps: &[Arc<Stamps>],
    options: &ConnectOptions,
) -> anyhow::Result<Vec<Editor>> {
    let leaves: Vec<(NodeId, [f32; 3])> = world.leaves().map(|n| (n.id, n.local_t)).collect();
    let mut editors = Vec::with_capacity(s.editors);
    for (r, room) in rooms.iter().enumerate() {
        let here = (r..s.editors).step_by(rooms.len()).count();
        for share in editor::share_out(&leaves, here) {
            let client = nodes.editor_client(s, room, editors.len());
            editors.push(Editor {
                conn: client
                    .connect(room, options.clone())
                    .await
                    .with_context(|| format!("connecting an editor to {room}"))?,
                leaves: share,
                stamps: Arc::clone(&stamps[r]),
            });
        }
    }
    Ok(editors)
}

/// Waits until no subscriber has received a frame for a few ticks (at least a second
/// after the load stopped), or until `timeout`. Returns how long it waited.
pub(crate) async fn settle(
    subs: &[Arc<SubShared>],
    clock: Clock,
    tick: Duration,
    timeout: Duration,
) -> Duration {
    let started = Instant::now();
    let quiet = (tick * 5).max(Duration::from_millis(300)).as_micros() as u64;
    tokio::time::sleep(Duration::from_secs(1).min(timeout)).await;
    while started.elapsed() < timeout {
        let last = subs
            .iter()
            .map(|s| s.last_frame_us.load(Ordering::Relaxed))
            .max()
            .unwrap_or(0);
        if clock.now_us().saturating_sub(last) >= quiet {
            break;
        }
        tokio::time::sleep(tick).await;
    }
    started.elapsed()
}
