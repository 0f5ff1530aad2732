//! A subscriber that never reads: a WebSocket subscribes to the whole flood room and
//! then reads nothing, not even the server's pings.
//!
//! Each such subscriber holds its snapshot in the server until it is written, and its
//! writer task until the write deadline. Invariant: the verdict is the close within the
//! bound (the write deadline, or the idle limit for a peer that answers no ping), so a
//! crowd of them can cost the server only what they hold meanwhile.

use std::time::{Duration, Instant};

use canopy_protocol::ClientMsg;

use crate::soak::hostile::raw_ws::{self, SMALL_RECV_BUFFER};
use crate::soak::hostile::runner::HostileCtx;
use crate::soak::hostile::watch;
use crate::soak::hostile::{Attempt, Kind};
use crate::stop::Stop;

pub(crate) const RULE: &str = "closed by the server within the bound (the write deadline, or the idle limit for a peer that answers no ping)";

/// How long the subscribe may take to write.
const PATIENCE: Duration = Duration::from_secs(5);

pub(crate) async fn run(ctx: &HostileCtx, mut stop: Stop) -> Attempt {
    let kind = Kind::UnreadSubscriber;
    let began = Instant::now();
    let path = match ctx.flood_room.ws_path(&ctx.base_url, ctx.format) {
        Ok(p) => p,
        Err(e) => return Attempt::harness_error(kind, &e),
    };
    let mut stream = match raw_ws::open_unread(ctx.server, &path, kind).await {
        Ok(s) => s,
        Err(attempt) => return attempt,
    };
    let subscribe = [raw_ws::message(
        &ClientMsg::subscribe(None, u32::MAX),
        ctx.format,
    )];
    let sent = raw_ws::send_frames(&mut stream, &subscribe, PATIENCE).await;
    let (Ok(client), Ok(server)) = (stream.local_addr(), stream.peer_addr()) else {
        return Attempt::new(kind, "closed", Some(0.0), Some(true));
    };
    let watched = watch::until_closed(client, server, began, ctx.hold, &mut stop).await;
    let mut attempt = watch::closed_within(kind, watched, ctx.bound);
    attempt.detail = format!(
        "{sent} whole-room subscribe sent, receive buffer {SMALL_RECV_BUFFER} B, nothing \
         read; {}",
        attempt.detail
    );
    drop(stream);
    attempt
}
