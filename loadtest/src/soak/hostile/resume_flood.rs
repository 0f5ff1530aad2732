//! Resume flood: `--resume-flooders` (100) WebSockets of a room with
//! history (a room of this attempt, whose editor moves nodes every other tick) each
//! send `subscribe` with `since` a recent tick every 30 ms for [`FLOOD_FOR`], and read
//! what they are sent.
//!
//! Every such subscribe asks the room for a resumed delta built from its history;
//! before the subscription commands were coalesced and resumed deltas counted against
//! the tick's snapshot budget, the room's tick time blew up and other rooms' edit acks
//! waited. The flooders are a caller of their own (their own source address on an open
//! loopback server, the room's viewer token otherwise), so what their share refuses
//! leaves the load alone. Invariant: the verdict is the room's slowest tick
//! (`tick_ms_max` of `GET /rooms/{room}`, a room of this attempt alone) within
//! [`SLOWEST_TICK_PERIODS`] periods and every batch of its editor acked; measured
//! alone (`runner::quietly`), so no other heavy kind's work is in it.

use std::net::Ipv4Addr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use canopy_client::ConnectOptions;
use canopy_protocol::{ClientMsg, Op, Transform};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::task::JoinSet;

use crate::soak::hostile::raw_ws::{self, Upgrade};
use crate::soak::hostile::rooms::{self, RoomAccess};
use crate::soak::hostile::runner::{self, HostileCtx};
use crate::soak::hostile::{Attempt, Kind};
use crate::stop::Stop;

pub(crate) const RULE: &str = "the attacked room's slowest tick <= 3 tick periods while the \
     flood runs, and every batch of its editor acked";

/// The slowest tick allowed, in tick periods: the soak's limit for a fast client's p99,
/// so the room's own subscribers stay within it. A flood the room does not bound grows
/// its ticks with the flooders; a bounded one still spends real work on 100 resumes a
/// tick, and on a shared machine one tick of 2 periods is noise (seen: 70 ms at 30 Hz).
const SLOWEST_TICK_PERIODS: f64 = 3.0;

/// The flooders' source address on loopback: a caller of their own on an open server.
const SOURCE: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 4);

/// Nodes of the attacked room, and how many the editor moves per batch.
const NODES: u32 = 2_000;
const MOVED: u32 = 200;

/// How long one attempt floods.
const FLOOD_FOR: Duration = Duration::from_secs(20);

/// How often each flooder resubscribes.
const RESEND_EVERY: Duration = Duration::from_millis(30);

/// How often the flooders learn the room's tick (`since` is at most this old).
const TICK_EVERY: Duration = Duration::from_secs(1);

pub(crate) async fn run(ctx: &HostileCtx, stop: Stop) -> Attempt {
    runner::quietly(ctx, attack(ctx, stop)).await
}

/// What the room's editor saw.
#[derive(Default)]
struct Edits {
    acked: usize,
    refused: Vec<String>,
    slowest_ack: Duration,
}

async fn attack(ctx: &HostileCtx, mut stop: Stop) -> Attempt {
    let kind = Kind::ResumeFlood;
    let id = ctx.fresh_room_id("resume");
    let result = async {
        let room = rooms::create(&ctx.admin, &id, ctx.tick_hz).await?;
        ctx.admin.edit(&id, flat(NODES)).await?;
        let tick = Arc::new(AtomicU64::new(ctx.admin.get_room(&id).await?.tick));
        let began = Instant::now();
        let flood = flood(ctx, &room, Arc::clone(&tick));
        let (edits, flood) = tokio::select! {
            _ = stop.raised() => return Ok(None),
            r = async { tokio::join!(edit_and_track(ctx, &id, &tick), flood) } => r,
        };
        let (opened, refused_upgrades, read) = flood?;
        let slowest = ctx.admin.get_room(&id).await?.tick_ms_max;
        Ok(Some((
            began.elapsed(),
            edits?,
            slowest,
            opened,
            refused_upgrades,
            read,
        )))
    }
    .await;
    let _ = ctx.admin.delete_room(&id).await;
    let (took, edits, slowest, opened, refused_upgrades, read) = match result {
        Ok(Some(r)) => r,
        Ok(None) => {
            return Attempt::new(kind, "cut_short", None, None)
                .with("the run ended during the flood".into());
        }
        Err(e) => return Attempt::harness_error(kind, &e),
    };
    let limit_ms = SLOWEST_TICK_PERIODS * 1000.0 / f64::from(ctx.tick_hz);
    let ticked = slowest <= limit_ms;
    let acked = edits.refused.is_empty();
    let did = match (ticked, acked) {
        (true, true) => "ticking_on",
        (false, _) => "tick_stalled",
        (true, false) => "edits_refused",
    };
    Attempt::new(kind, did, Some(took.as_secs_f64()), Some(ticked && acked)).with(format!(
        "{opened} flooders ({refused_upgrades} upgrades refused) resubscribing with `since` \
         every {} ms for {} s, {} KiB read; slowest tick {slowest:.1} ms (limit {limit_ms:.1}); \
         editor: {} batches acked, {} refused{}, slowest ack {} ms",
        RESEND_EVERY.as_millis(),
        FLOOD_FOR.as_secs(),
        read / 1024,
        edits.acked,
        edits.refused.len(),
        edits
            .refused
            .first()
            .map_or(String::new(), |c| format!(" ({c})")),
        edits.slowest_ack.as_millis()
    ))
}

/// `n` nodes side by side, no parent.
fn flat(n: u32) -> Vec<Op> {
    (0..n)
        .map(|i| Op::Add {
            id: Some(i),
            parent: None,
            local: Transform {
                t: [(i % 50) as f32, 0.0, (i / 50) as f32],
                ..Transform::default()
            },
            extent: [0.4; 3],
            mask: u32::MAX,
        })
        .collect()
}

/// The room's editor for [`FLOOD_FOR`]: a batch moving [`MOVED`] nodes every other
/// tick, so the history the flooders resume from keeps changing; it keeps `tick` at
/// the room's tick meanwhile.
async fn edit_and_track(ctx: &HostileCtx, id: &str, tick: &AtomicU64) -> anyhow::Result<Edits> {
    let options = ConnectOptions::default().format(ctx.format).no_reconnect();
    let conn = ctx.admin.connect(id, options).await?;
    let period = Duration::from_secs_f64(2.0 / f64::from(ctx.tick_hz));
    let began = Instant::now();
    let mut edits = Edits::default();
    let mut last_tick_read = Instant::now();
    let mut round = 0u32;
    while began.elapsed() < FLOOD_FOR {
        round += 1;
        let y = (round % 10) as f32;
        let ops = (0..MOVED)
            .map(|k| Op::SetLocal {
                node: (round * MOVED + k) % NODES,
                t: Some([(k % 50) as f32, y, (k / 50) as f32]),
                r: None,
                s: None,
            })
            .collect();
        let sent = Instant::now();
        match conn.edit(ops).await {
            Ok(_) => edits.acked += 1,
            Err(e) => edits
                .refused
                .push(crate::observe::errors::client_error_code(&e)),
        }
        edits.slowest_ack = edits.slowest_ack.max(sent.elapsed());
        if last_tick_read.elapsed() >= TICK_EVERY {
            if let Ok(r) = ctx.admin.get_room(id).await {
                tick.store(r.tick, Ordering::Relaxed);
            }
            last_tick_read = Instant::now();
        }
        tokio::time::sleep(period.saturating_sub(sent.elapsed())).await;
    }
    conn.close().await;
    Ok(edits)
}

/// Runs the flooders for [`FLOOD_FOR`]; returns how many opened, how many upgrades were
/// refused, and the bytes they read.
async fn flood(
    ctx: &HostileCtx,
    room: &RoomAccess,
    tick: Arc<AtomicU64>,
) -> anyhow::Result<(usize, usize, u64)> {
    let path = room.ws_path(&ctx.base_url, ctx.format)?;
    let read = Arc::new(AtomicU64::new(0));
    let mut tasks = JoinSet::new();
    let mut refused = 0;
    for _ in 0..ctx.sizes.resume_flooders {
        let stream = match raw_ws::open_from(ctx.server, &path, None, SOURCE).await? {
            Upgrade::Open(s) => s,
            Upgrade::Refused(_) => {
                refused += 1;
                continue;
            }
        };
        let (mut rx, mut tx) = stream.into_split();
        let read = Arc::clone(&read);
        tasks.spawn(async move {
            let mut buf = vec![0u8; 64 << 10];
            while let Ok(n) = rx.read(&mut buf).await {
                if n == 0 {
                    break;
                }
                read.fetch_add(n as u64, Ordering::Relaxed);
            }
        });
        let (tick, format) = (Arc::clone(&tick), ctx.format);
        tasks.spawn(async move {
            let mut every = tokio::time::interval(RESEND_EVERY);
            loop {
                every.tick().await;
                let mut msg = ClientMsg::subscribe(None, u32::MAX);
                if let ClientMsg::Subscribe { since, .. } = &mut msg {
                    *since = Some(tick.load(Ordering::Relaxed));
                }
                if tx.write_all(&raw_ws::message(&msg, format)).await.is_err() {
                    break;
                }
            }
        });
    }
    let opened = ctx.sizes.resume_flooders - refused;
    tokio::time::sleep(FLOOD_FOR).await;
    tasks.abort_all();
    Ok((opened, refused, read.load(Ordering::Relaxed)))
}
