//! Subscribe flood: one WebSocket of the flood room sends hundreds of
//! whole-room `subscribe` messages and never reads a byte.
//!
//! Every `subscribe` asks for a snapshot of 20,000 nodes; a server that queues each
//! one held gigabytes for one socket (54 MB to 2 GB in 5 s). A bounded server drops
//! superseded snapshots, so the flood costs it a few snapshots at most, and since this
//! client makes no progress at all, its write deadline closes the connection.
//! Invariant: the verdict needs both, the close within the bound and an RSS step 5 s
//! after the flood of at most [`RSS_BUDGET_MIB`], measured while no other
//! large-memory attempt runs (`HostileCtx::quiet`); without an RSS reading the attempt
//! is undecided.

use std::time::{Duration, Instant};

use canopy_protocol::ClientMsg;

use crate::observe::metrics_scrape;
use crate::soak::hostile::raw_ws;
use crate::soak::hostile::runner::{self, HostileCtx};
use crate::soak::hostile::watch::{self, Watched};
use crate::soak::hostile::{Attempt, Kind};
use crate::stop::Stop;

pub(crate) const RULE: &str = "closed by the server within the bound (it never reads, so it makes no \
     progress), and server RSS 5 s after the flood at most 100 MiB above before it";

/// The RSS step a flood may cost: a generous few dozen snapshots of the room (the
/// review saw +2 GB), well above the noise of the soak's storms.
pub(crate) const RSS_BUDGET_MIB: f64 = 100.0;

/// How long a write may block before the server is taken to have stopped reading.
const PATIENCE: Duration = Duration::from_secs(5);

/// When, after the flood was sent, the server's RSS is read.
const RSS_AFTER: Duration = Duration::from_secs(5);

pub(crate) async fn run(ctx: &HostileCtx, stop: Stop) -> Attempt {
    runner::quietly(ctx, attack(ctx, stop)).await
}

async fn attack(ctx: &HostileCtx, mut stop: Stop) -> Attempt {
    let kind = Kind::SubscribeFlood;
    let path = match ctx.flood_room.ws_path(&ctx.base_url, ctx.format) {
        Ok(p) => p,
        Err(e) => return Attempt::harness_error(kind, &e),
    };
    let rss_before = metrics_scrape::scrape(&ctx.admin)
        .await
        .ok()
        .map(|s| s.rss_bytes);
    let began = Instant::now();
    let mut stream = match raw_ws::open_unread(ctx.server, &path, kind).await {
        Ok(s) => s,
        Err(attempt) => return attempt,
    };
    let subscribe = raw_ws::message(&ClientMsg::subscribe(None, u32::MAX), ctx.format);
    let frames = vec![subscribe; ctx.sizes.flood_subscribes];
    let sent = raw_ws::send_frames(&mut stream, &frames, PATIENCE).await;
    tokio::time::sleep(RSS_AFTER).await;
    let rss_after = metrics_scrape::scrape(&ctx.admin)
        .await
        .ok()
        .map(|s| s.rss_bytes);
    let (Ok(client), Ok(server)) = (stream.local_addr(), stream.peer_addr()) else {
        return Attempt::new(
            kind,
            "closed",
            Some(began.elapsed().as_secs_f64()),
            Some(true),
        )
        .with("the socket was gone before the watch began".into());
    };
    let watched = watch::until_closed(client, server, began, ctx.hold, &mut stop).await;
    let step_mib = match (rss_before, rss_after) {
        (Some(b), Some(a)) => Some((a - b) / (1024.0 * 1024.0)),
        _ => None,
    };
    let cost = match step_mib {
        Some(m) => format!(
            "; server RSS {m:+.0} MiB {} s after the flood (limit {RSS_BUDGET_MIB:.0})",
            RSS_AFTER.as_secs()
        ),
        None => "; server RSS not read".to_string(),
    };
    let mut attempt = watch::closed_within(kind, watched, ctx.bound);
    match step_mib {
        Some(m) if m > RSS_BUDGET_MIB && attempt.bounded.is_some() => {
            attempt.bounded = Some(false);
            attempt.did = format!("{}_over_memory_budget", attempt.did);
        }
        None => attempt.bounded = None,
        _ => {}
    }
    let how = match watched {
        Watched::Closed { how, .. } => format!(" ({how})"),
        _ => String::new(),
    };
    attempt.detail = format!(
        "{sent} of {} subscribes sent{how}{cost}",
        ctx.sizes.flood_subscribes
    );
    attempt
}
