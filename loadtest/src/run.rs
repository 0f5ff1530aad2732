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

use crate::load::editor::{self, EditStats, Editor, EditorContext};
use crate::load::fleet::{self, Connect, Fleet};
use crate::load::queries::{self, QueryPlan, QueryStats, QueryTarget};
use crate::load::setup;
use crate::load::stamps::{Clock, Stamps};
use crate::load::subscriber::{Counters, SoakSub, SubContext, SubShared};
use crate::load::world::World;
use crate::observe::cluster_view::NodeMap;
use crate::observe::cpu::CpuTimes;
use crate::observe::errors::ErrorTally;
use crate::observe::metrics_scrape::{self, ServerWindow};
use crate::observe::verify;
use crate::report::checks;
use crate::report::gather;
use crate::report::progress;
use crate::report::run_report::{CpuReport, Report};
use crate::scenario::FormatArg;
use crate::scenario::{QueryVia, Scenario};
use crate::soak::invalid::{InvalidEdits, InvalidPlan};
use crate::soak::session::Soak;
use crate::soak::verdict;
use crate::stop;

/// WebSocket connections per room that carry queries.
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

async fn load_and_check(
    s: &Scenario,
    target: &Target,
    nodes: &Nodes,
    world: &World,
    rooms: &[String],
    setup_started: Instant,
) -> anyhow::Result<Report> {
    let client = &nodes.clients[0];
    let clock = Clock::start();
    let errors = Arc::new(ErrorTally::default());
    let stamps: Vec<Arc<Stamps>> = rooms
        .iter()
        .map(|_| Arc::new(Stamps::new(world.nodes.len())))
        .collect();
    let format = s.format.format();
    // What the soak provokes on purpose is counted here, apart from the errors.
    let expected = Arc::new(ErrorTally::default());

    let sub_ctx = Arc::new(SubContext {
        format,
        clock,
        errors: Arc::clone(&errors),
        // Slow readers read at full speed until the load starts, so that they sync
        // their snapshot as fast as anyone.
        pausing: AtomicBool::new(false),
        resume: Notify::new(),
        pause: Duration::from_millis(s.slow_pause_ms),
        period: Duration::from_millis(s.slow_period_ms),
        soak: s.soak.then(|| SoakSub {
            stall: Duration::from_secs_f64(s.stall_secs()),
            stall_every: Duration::from_secs_f64(s.stall_every),
            expected: Arc::clone(&expected),
        }),
        keep_mirror: true,
        decode_every: 1,
        compact_counters: false,
    });
    let fleet = Fleet::connect(
        fleet::specs(s, world, nodes.clients.len()),
        Connect {
            clients: &nodes.clients,
            rooms,
            stamps: &stamps,
            ctx: Arc::clone(&sub_ctx),
            slow_recv_buffer: s.slow_recv_buffer,
            concurrency: s.connect_concurrency,
            room_nodes: world.nodes.len(),
        },
    )
    .await?;

    let options = ConnectOptions::default().format(format);
    let editors = connect_editors(s, nodes, world, rooms, &stamps, &options).await?;
    let query_target = match s.query_via {
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
    };
    let query_conns: Vec<Connection> = match &query_target {
        QueryTarget::Ws(c) => c.iter().flatten().cloned().collect(),
        QueryTarget::Http(..) => Vec::new(),
    };
    let editor_conns: Vec<Connection> = editors.iter().map(|e| e.conn.clone()).collect();
    let setup_s = setup_started.elapsed().as_secs_f64();

    // The load window.
    let edit_stats = Arc::new(EditStats::default());
    let query_stats = Arc::new(QueryStats::default());
    let (stop_tx, stop_rx) = stop::channel();
    let scrape_start = metrics_scrape::scrape(client).await?;
    let cpu_start = CpuTimes::now();
    let counters_start = Counters::of_all(&fleet.subs);
    sub_ctx.start_pauses();
    let window_started = Instant::now();
    let edit_ctx = EditorContext {
        rate: s.edit_rate,
        batch_size: s.batch_size,
        clock,
        stats: Arc::clone(&edit_stats),
        errors: Arc::clone(&errors),
        invalid: s.soak.then(|| InvalidEdits {
            share: s.invalid_batches,
            plan: InvalidPlan {
                cycle: world.cycle_pair(),
                nan_on_wire: s.format == FormatArg::Bincode,
            },
            expected: Arc::clone(&expected),
        }),
    };
    let soak = if s.soak {
        Some(Soak::start(
            s,
            client,
            rooms,
            world,
            &fleet.subs,
            &errors,
            &stop_rx,
        )?)
    } else {
        None
    };
    let mut load = Vec::new();
    for (i, ed) in editors.into_iter().enumerate() {
        let seed = s.seed.wrapping_mul(1_000_003).wrapping_add(i as u64);
        load.push(tokio::spawn(editor::run(
            ed,
            edit_ctx.clone(),
            seed,
            stop_rx.clone(),
        )));
    }
    let plan = QueryPlan {
        rate: s.queries,
        mix: s.query_mix,
        seed: s.seed ^ 0x9e37_79b9,
        min: world.min,
        max: world.max,
        clock,
        stats: Arc::clone(&query_stats),
        errors: Arc::clone(&errors),
    };
    load.push(tokio::spawn(queries::run(
        query_target,
        plan,
        stop_rx.clone(),
    )));
    let shown = tokio::spawn(progress::run(
        progress::Sources {
            edits: Arc::clone(&edit_stats),
            queries: Arc::clone(&query_stats),
            errors: Arc::clone(&errors),
            subs: fleet.subs.clone(),
        },
        s.load_duration(),
        stop_rx.clone(),
    ));
    tokio::time::sleep(s.load_duration()).await;
    stop_tx.raise();
    let window = window_started.elapsed().as_secs_f64();
    let counters_end = Counters::of_all(&fleet.subs);
    for task in load {
        task.await.context("a load task panicked")?;
    }
    let _ = shown.await;
    let soak = match soak {
        Some(soak) => Some(soak.finish(s, &fleet.subs, &expected).await),
        None => None,
    };
    let cpu = CpuTimes::now().since(&cpu_start);
    let scrape_end = metrics_scrape::scrape(client).await?;

    // Quiesce: slow readers read at full speed again, then traffic settles.
    sub_ctx.end_pauses();
    let settle_timeout = Duration::from_secs_f64(s.settle_timeout);
    let settled_in = settle(&fleet.subs, clock, s.tick(), settle_timeout).await;
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
    for conn in editor_conns.iter().chain(&query_conns) {
        conn.close().await;
    }
    let subs = fleet.subs.clone();
    fleet.stop().await;

    let mut report = Report {
        scenario: s.clone(),
        target: target.label.clone(),
        setup_s,
        window_s: window,
        edits: gather::edit_report(&edit_stats, window),
        latency: gather::latency_report(&subs, s),
        per_node: nodes.map.as_ref().map(|m| {
            crate::report::per_node::cluster_latency(&subs, m, rooms, s.tick().as_secs_f64() * 1e3)
        }),
        deltas: gather::delta_groups(&subs, &counters_start, &counters_end, window),
        queries: gather::query_report(&query_stats, window),
        errors: errors.snapshot(),
        server: ServerWindow::between(&scrape_start, &scrape_end, &scrape_after, &details),
        cpu: CpuReport::new(
            cpu,
            window,
            std::thread::available_parallelism().map_or(1, |n| n.get()),
            target.in_process,
        ),
        verify,
        soak,
        checks: Vec::new(),
        passed: false,
    };
    report.checks = checks::evaluate(&report);
    if let Some(soak) = &report.soak {
        report.checks.extend(verdict::checks(s, soak));
    }
    report.passed = report.checks.iter().all(|c| c.passed);
    Ok(report)
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
async fn settle(
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
