//! Running the hostile clients while the load runs: the rooms they attack are built
//! first, then every chosen kind attacks in a loop of its own, one attempt after
//! another, until the load ends; at the end the rooms are deleted and the attempts
//! handed to the report.
//!
//! Invariant: each kind has exactly one attempt in flight from its first until the
//! load ends, so the pressure on the server is the same all through the run, the RSS
//! baseline and the last minute both see it, and RSS growth after warm-up means the
//! server kept what earlier attempts cost. The attempt the end of the run cuts short is
//! undecided (see `watch`), never a verdict.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use canopy_client::Client;
use canopy_protocol::Format;
use tokio::task::JoinHandle;

use crate::load::world::World;
use crate::scenario::Scenario;
use crate::soak::hostile::rooms::{self, RoomAccess};
use crate::soak::hostile::{
    Attempt, Kind, deleted_room, half_headers, idle_tcp, idle_ws, noop_batches, ping_flood,
    resume_flood, snapshot_hogs, subscribe_flood, trickled_headers, unfinished_message,
    unread_nodes, unread_queries, unread_subscriber,
};
use crate::stop::Stop;

/// How long an attempt with a large memory effect keeps `quiet` after it ended, so
/// that the server's freeing it is over before another attempt measures RSS.
pub(crate) const QUIET_SETTLE: Duration = Duration::from_secs(5);

/// The pause between two attempts of a kind (the quick kinds would otherwise churn
/// through rooms and sockets many times a second).
const BETWEEN_ATTEMPTS: Duration = Duration::from_secs(5);

/// How much longer than the bound an attempt holds its connections before it gives
/// up: long enough that a close at the bound is seen.
pub(crate) const HOLD_BEYOND_BOUND: Duration = Duration::from_secs(5);

/// The sizes of the attacks (see the `--flood-*`, `--unread-queries`, `--idle-sockets`,
/// `--noop-*`, `--snapshot-hogs` and `--resume-flooders` flags).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sizes {
    pub flood_subscribes: usize,
    pub flood_pings: usize,
    pub unread_queries: usize,
    pub idle_sockets: usize,
    pub noop_ops: usize,
    pub noop_depth: u32,
    pub noop_batches: usize,
    pub snapshot_hogs: usize,
    pub resume_flooders: usize,
}

/// Runs `attack` alone (holding the quiet lock, so that no other measuring kind runs
/// meanwhile) and leaves the server [`QUIET_SETTLE`] to settle before the next.
pub(crate) async fn quietly(ctx: &HostileCtx, attack: impl Future<Output = Attempt>) -> Attempt {
    let quiet = ctx.quiet.lock().await;
    let attempt = attack.await;
    tokio::time::sleep(QUIET_SETTLE).await;
    drop(quiet);
    attempt
}

/// What every hostile kind shares.
#[derive(Debug)]
pub(crate) struct HostileCtx {
    /// The harness's own client (the admin token, when the server has one).
    pub admin: Client,
    pub base_url: String,
    pub server: SocketAddr,
    pub format: Format,
    pub tick_hz: u32,
    /// What "within the bound" means (`--hostile-close-within`).
    pub bound: Duration,
    /// How long an attempt holds its connections at most.
    pub hold: Duration,
    pub sizes: Sizes,
    /// The room of the floods and the idle WebSockets.
    pub flood_room: RoomAccess,
    /// The room of the unread queries (nothing else subscribes to it).
    pub unread_room: RoomAccess,
    /// Prefix of the short-lived rooms' ids.
    pub prefix: String,
    /// Held by attempts whose memory effect is large (floods, no-op batches) and by the
    /// idle-WebSocket attempt while it measures its own cost, so those never overlap.
    pub quiet: tokio::sync::Mutex<()>,
    serial: AtomicU64,
}

impl HostileCtx {
    /// A fresh id for a short-lived room of `what`.
    pub(crate) fn fresh_room_id(&self, what: &str) -> String {
        let n = self.serial.fetch_add(1, Ordering::Relaxed);
        format!("{}-{what}-{n}", self.prefix)
    }
}

/// The running hostile clients.
pub(crate) struct Hostile {
    attempts: Arc<Mutex<Vec<Attempt>>>,
    task: JoinHandle<()>,
}

impl Hostile {
    /// Starts the kinds `s.hostile` against the server of `client`; they stop with
    /// `stop`.
    pub(crate) fn start(
        s: &Scenario,
        client: &Client,
        rooms: &[String],
        world: Arc<World>,
        stop: &Stop,
    ) -> Hostile {
        let attempts = Arc::new(Mutex::new(Vec::new()));
        let plan = Plan {
            kinds: s.hostile_kinds(),
            admin: client.clone(),
            prefix: format!("{}-hostile", rooms[0]),
            format: s.format.format(),
            tick_hz: s.tick_hz,
            bound: Duration::from_secs_f64(s.hostile_close_within),
            sizes: s.hostile_sizes(),
            world,
        };
        let task = tokio::spawn(run(plan, Arc::clone(&attempts), stop.clone()));
        Hostile { attempts, task }
    }

    /// Waits for the kinds (after the load's stop) and returns every attempt.
    pub(crate) async fn finish(self) -> Vec<Attempt> {
        let _ = self.task.await;
        std::mem::take(&mut *self.attempts.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

struct Plan {
    kinds: Vec<Kind>,
    admin: Client,
    prefix: String,
    format: Format,
    tick_hz: u32,
    bound: Duration,
    sizes: Sizes,
    world: Arc<World>,
}

async fn run(plan: Plan, attempts: Arc<Mutex<Vec<Attempt>>>, stop: Stop) {
    let record = |a: Attempt| attempts.lock().unwrap_or_else(|e| e.into_inner()).push(a);
    let ctx = match build(&plan).await {
        Ok(ctx) => Arc::new(ctx),
        Err(e) => {
            // Without its rooms no kind can attack: each gets an undecided attempt.
            for &kind in &plan.kinds {
                record(Attempt::harness_error(kind, &e));
            }
            return;
        }
    };
    let mut loops = Vec::new();
    for &kind in &plan.kinds {
        loops.push(tokio::spawn(kind_loop(
            kind,
            Arc::clone(&ctx),
            Arc::clone(&attempts),
            stop.clone(),
        )));
    }
    for task in loops {
        if let Err(e) = task.await {
            tracing::error!(error = %e, "a hostile kind panicked");
        }
    }
    for room in [&ctx.flood_room.id, &ctx.unread_room.id] {
        let _ = ctx.admin.delete_room(room).await;
    }
}

async fn build(plan: &Plan) -> anyhow::Result<HostileCtx> {
    let base_url = plan
        .admin
        .base_url()
        .as_str()
        .trim_end_matches('/')
        .to_string();
    let server = rooms::server_addr(&base_url).await?;
    let flood_room = rooms::create_with_world(
        &plan.admin,
        &format!("{}-flood", plan.prefix),
        plan.tick_hz,
        &plan.world,
    )
    .await?;
    let unread_room = rooms::create_with_world(
        &plan.admin,
        &format!("{}-unread", plan.prefix),
        plan.tick_hz,
        &plan.world,
    )
    .await?;
    Ok(HostileCtx {
        admin: plan.admin.clone(),
        base_url,
        server,
        format: plan.format,
        tick_hz: plan.tick_hz,
        bound: plan.bound,
        hold: plan.bound + HOLD_BEYOND_BOUND,
        sizes: plan.sizes,
        flood_room,
        unread_room,
        prefix: plan.prefix.clone(),
        quiet: tokio::sync::Mutex::new(()),
        serial: AtomicU64::new(0),
    })
}

/// One kind's attempts, back to back, until the load ends.
async fn kind_loop(
    kind: Kind,
    ctx: Arc<HostileCtx>,
    attempts: Arc<Mutex<Vec<Attempt>>>,
    mut stop: Stop,
) {
    loop {
        let attempt = attack(kind, &ctx, stop.clone()).await;
        tracing::debug!(?attempt, "hostile attempt");
        attempts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(attempt);
        tokio::select! {
            _ = stop.raised() => return,
            _ = tokio::time::sleep(BETWEEN_ATTEMPTS) => {}
        }
    }
}

async fn attack(kind: Kind, ctx: &HostileCtx, stop: Stop) -> Attempt {
    match kind {
        Kind::SubscribeFlood => subscribe_flood::run(ctx, stop).await,
        Kind::PingFlood => ping_flood::run(ctx, stop).await,
        Kind::UnreadQueries => unread_queries::run(ctx, stop).await,
        Kind::HalfHeaders => half_headers::run(ctx, stop).await,
        Kind::TrickledHeaders => trickled_headers::run(ctx, stop).await,
        Kind::IdleTcp => idle_tcp::run(ctx, stop).await,
        Kind::IdleWs => idle_ws::run(ctx, stop).await,
        Kind::NoopBatches => noop_batches::run(ctx, stop).await,
        Kind::DeletedRoom => deleted_room::run(ctx, stop).await,
        Kind::UnreadNodes => unread_nodes::run(ctx, stop).await,
        Kind::UnreadSubscriber => unread_subscriber::run(ctx, stop).await,
        Kind::UnfinishedMessage => unfinished_message::run(ctx, stop).await,
        Kind::SnapshotHogs => snapshot_hogs::run(ctx, stop).await,
        Kind::ResumeFlood => resume_flood::run(ctx, stop).await,
    }
}
