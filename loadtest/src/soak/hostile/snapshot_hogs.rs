//! Snapshot hogs: `--snapshot-hogs` (110) WebSockets of the flood room (a
//! room of the world's size), each subscribing to the whole room with a mask of its own
//! so that no two share a snapshot, each with a 4 KiB receive buffer; half read
//! nothing, half trickle about 6 KB/s. They are one caller, of their own: the flood
//! room's viewer token, and on an open loopback server their own source address.
//!
//! Before the fair shares their unsent snapshots filled the server-wide cap, and a
//! subscriber of another room got no snapshot while they stayed. A bounded server
//! refuses the caller's subscriptions past its share of the unsent snapshot bytes
//! (`overloaded`), serves other callers meanwhile, and closes every hog (the write
//! deadline or the minimum read rate for those it sent a snapshot, the idle limit for
//! the refused, which answer no ping). Invariant: the verdict needs all three, every
//! hog closed within the bound, a subscriber of another room served its snapshot
//! within [`PROBE_WITHIN`] while the hogs hold theirs, and an RSS step of at most
//! [`RSS_BUDGET_MIB`], measured alone (`runner::quietly`); an attempt without an RSS
//! reading is undecided.

use std::net::{Ipv4Addr, SocketAddr};
use std::time::{Duration, Instant};

use canopy_client::{ConnectOptions, Scope};
use canopy_protocol::ClientMsg;
use tokio::io::AsyncReadExt;
use tokio::net::TcpStream;
use tokio::task::JoinSet;

use crate::observe::metrics_scrape;
use crate::soak::hostile::raw_ws::{self, SMALL_RECV_BUFFER, Upgrade};
use crate::soak::hostile::rooms;
use crate::soak::hostile::runner::{self, HostileCtx};
use crate::soak::hostile::watch;
use crate::soak::hostile::{Attempt, Kind};
use crate::stop::Stop;

pub(crate) const RULE: &str = "every hog closed by the server within the bound, a subscriber of \
     another room (another caller) served its snapshot within 2 s meanwhile, and server RSS 5 s \
     after the subscriptions at most 100 MiB above before";

/// The hogs' source address on loopback: a caller of their own on an open server.
const SOURCE: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 3);

/// The RSS step the hogs may cost: their caller's share of the unsent snapshot bytes
/// (32 MiB by default) and a snapshot over, with room to spare; unbounded, 110 unsent
/// snapshots of a 20,000-node room cost several hundred MiB.
const RSS_BUDGET_MIB: f64 = 100.0;

/// How long the other room's subscriber may wait for its snapshot.
const PROBE_WITHIN: Duration = Duration::from_secs(2);

/// When, after the subscriptions were sent, the probe subscribes and RSS is read: the
/// room's ticks have answered (or refused) every hog by then.
const SETTLE: Duration = Duration::from_secs(5);

/// A trickling hog reads this much every [`TRICKLE_EVERY`]: about 6 KB/s, far below
/// the server's minimum read rate.
const TRICKLE_BYTES: usize = 600;
const TRICKLE_EVERY: Duration = Duration::from_millis(100);

/// How long a subscribe may take to write.
const PATIENCE: Duration = Duration::from_secs(5);

pub(crate) async fn run(ctx: &HostileCtx, stop: Stop) -> Attempt {
    runner::quietly(ctx, attack(ctx, stop)).await
}

/// The hogs' sockets: those that read nothing, and the tricklers' tasks.
struct Hogs {
    conns: Vec<(SocketAddr, SocketAddr)>,
    unread: Vec<TcpStream>,
    tricklers: JoinSet<()>,
    refused_upgrades: usize,
}

async fn attack(ctx: &HostileCtx, mut stop: Stop) -> Attempt {
    let kind = Kind::SnapshotHogs;
    let path = match ctx.flood_room.ws_path(&ctx.base_url, ctx.format) {
        Ok(p) => p,
        Err(e) => return Attempt::harness_error(kind, &e),
    };
    let rss_before = rss(ctx).await;
    let began = Instant::now();
    let mut hogs = match open_hogs(ctx, &path).await {
        Ok(h) => h,
        Err(e) => return Attempt::harness_error(kind, &e),
    };
    tokio::time::sleep(SETTLE).await;
    let probe = probe_other_room(ctx).await;
    let rss_after = rss(ctx).await;
    let watched = watch::until_all_closed(&hogs.conns, began, ctx.hold, &mut stop).await;
    hogs.tricklers.abort_all();
    drop(hogs.unread);
    let mut attempt = watched.attempt(kind, ctx.bound);
    let step_mib = rss_before
        .zip(rss_after)
        .map(|(b, a)| (a - b) / (1024.0 * 1024.0));
    if attempt.bounded.is_some() {
        match (&probe, step_mib) {
            (_, None) => attempt.bounded = None,
            (Err(_), _) => {
                attempt.bounded = Some(false);
                attempt.did = format!("{}_other_room_unserved", attempt.did);
            }
            (Ok(_), Some(m)) if m > RSS_BUDGET_MIB => {
                attempt.bounded = Some(false);
                attempt.did = format!("{}_over_memory_budget", attempt.did);
            }
            _ => {}
        }
    }
    attempt.detail = format!(
        "{} hogs with masks of their own, {SMALL_RECV_BUFFER} B buffers, half reading nothing, \
         half {} B/s ({} upgrades refused): {}; other room's snapshot {}; server RSS {}",
        ctx.sizes.snapshot_hogs,
        TRICKLE_BYTES as u128 * 1000 / TRICKLE_EVERY.as_millis(),
        hogs.refused_upgrades,
        attempt.detail,
        match &probe {
            Ok(d) => format!("in {} ms", d.as_millis()),
            Err(e) => format!("not served: {e}"),
        },
        match step_mib {
            Some(m) => format!("{m:+.0} MiB (limit {RSS_BUDGET_MIB:.0})"),
            None => "not read".to_string(),
        }
    );
    attempt
}

async fn rss(ctx: &HostileCtx) -> Option<f64> {
    metrics_scrape::scrape(&ctx.admin)
        .await
        .ok()
        .map(|s| s.rss_bytes)
}

/// Opens the hogs and sends each its subscribe (mask `u32::MAX - i`: every node of the
/// world is on every layer, so each gets the whole room, in a snapshot of its own).
async fn open_hogs(ctx: &HostileCtx, path: &str) -> anyhow::Result<Hogs> {
    let mut hogs = Hogs {
        conns: Vec::new(),
        unread: Vec::new(),
        tricklers: JoinSet::new(),
        refused_upgrades: 0,
    };
    for i in 0..ctx.sizes.snapshot_hogs {
        let upgrade = raw_ws::open_from(ctx.server, path, Some(SMALL_RECV_BUFFER), SOURCE).await?;
        let mut stream = match upgrade {
            Upgrade::Open(s) => s,
            Upgrade::Refused(_) => {
                hogs.refused_upgrades += 1;
                continue;
            }
        };
        let mask = u32::MAX - i as u32;
        let subscribe = [raw_ws::message(
            &ClientMsg::subscribe(None, mask),
            ctx.format,
        )];
        raw_ws::send_frames(&mut stream, &subscribe, PATIENCE).await;
        hogs.conns.push((stream.local_addr()?, stream.peer_addr()?));
        if i % 2 == 0 {
            hogs.unread.push(stream);
        } else {
            hogs.tricklers.spawn(trickle(stream));
        }
    }
    Ok(hogs)
}

/// Reads [`TRICKLE_BYTES`] every [`TRICKLE_EVERY`] until the server closes; then holds
/// the socket until the attempt ends (aborted), so the watch sees the server's close.
async fn trickle(mut stream: TcpStream) {
    let mut buf = vec![0u8; TRICKLE_BYTES];
    loop {
        tokio::time::sleep(TRICKLE_EVERY).await;
        match stream.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
    }
    std::future::pending::<()>().await;
}

/// How long a subscriber of a small room of its own, the harness's own caller, waits
/// for its snapshot while the hogs hold theirs.
async fn probe_other_room(ctx: &HostileCtx) -> anyhow::Result<Duration> {
    let room = ctx.fresh_room_id("hogs-probe");
    let result = async {
        rooms::create(&ctx.admin, &room, ctx.tick_hz).await?;
        ctx.admin.edit(&room, rooms::chain(10)).await?;
        let options = ConnectOptions::default().format(ctx.format).no_reconnect();
        let conn = ctx.admin.connect(&room, options).await?;
        let asked = Instant::now();
        let got = tokio::time::timeout(PROBE_WITHIN, conn.subscribe(Scope::room())).await;
        let waited = asked.elapsed();
        conn.close().await;
        match got {
            Ok(Ok(_)) => Ok(waited),
            Ok(Err(e)) => Err(anyhow::Error::from(e)),
            Err(_) => anyhow::bail!("no snapshot within {} s", PROBE_WITHIN.as_secs()),
        }
    }
    .await;
    let _ = ctx.admin.delete_room(&room).await;
    result
}
