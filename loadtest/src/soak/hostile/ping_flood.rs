//! Ping flood: one WebSocket of the flood room sends thousands of `ping`
//! messages and never reads.
//!
//! Pings were not rate-limited and each queues a `pong`; past 4,096 queued messages the
//! old reader stopped reading and, once its writer had given up, never ended. A bounded
//! server either keeps reading and drops the connection when its write deadline or
//! idle limit passes (the client never answers the server's pings), or refuses the
//! flood outright. Invariant: the verdict is the close within the bound.

use std::time::{Duration, Instant};

use canopy_protocol::ClientMsg;

use crate::soak::hostile::raw_ws;
use crate::soak::hostile::runner::HostileCtx;
use crate::soak::hostile::watch::{self, Watched};
use crate::soak::hostile::{Attempt, Kind};
use crate::stop::Stop;

pub(crate) const RULE: &str =
    "closed by the server within the bound (no reads, no pongs: write deadline or idle limit)";

/// How long a write may block before the server is taken to have stopped reading.
const PATIENCE: Duration = Duration::from_secs(5);

pub(crate) async fn run(ctx: &HostileCtx, mut stop: Stop) -> Attempt {
    let kind = Kind::PingFlood;
    let path = match ctx.flood_room.ws_path(&ctx.base_url, ctx.format) {
        Ok(p) => p,
        Err(e) => return Attempt::harness_error(kind, &e),
    };
    let began = Instant::now();
    let mut stream = match raw_ws::open_unread(ctx.server, &path, kind).await {
        Ok(s) => s,
        Err(attempt) => return attempt,
    };
    let frames: Vec<Vec<u8>> = (0..ctx.sizes.flood_pings as u64)
        .map(|nonce| raw_ws::message(&ClientMsg::Ping { nonce }, ctx.format))
        .collect();
    let sent = raw_ws::send_frames(&mut stream, &frames, PATIENCE).await;
    let (Ok(client), Ok(server)) = (stream.local_addr(), stream.peer_addr()) else {
        return Attempt::new(
            kind,
            "closed",
            Some(began.elapsed().as_secs_f64()),
            Some(true),
        );
    };
    let watched = watch::until_closed(client, server, began, ctx.hold, &mut stop).await;
    let mut attempt = watch::closed_within(kind, watched, ctx.bound);
    let how = match watched {
        Watched::Closed { how, .. } => format!(" ({how})"),
        _ => String::new(),
    };
    attempt.detail = format!("{sent} of {} pings sent{how}", ctx.sizes.flood_pings);
    attempt
}
