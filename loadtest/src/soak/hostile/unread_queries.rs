//! Unread queries: a WebSocket of its own room subscribes, sends whole-room
//! queries and thousands of pings, never reads, and closes its socket two seconds
//! later.
//!
//! With more than 4,096 answers queued and its writer gone, the old reader waited in
//! its throttle loop forever: it never saw the close, never unsubscribed, and the
//! connection, its task and its answers leaked. Nothing else subscribes to this room,
//! so its `subscribers` count (`GET /rooms/{room}`) shows whether the server let the
//! connection go. Invariant: the verdict is the subscriber count falling back to what
//! it was before the attempt, within the bound after the close.

use std::time::{Duration, Instant};

use canopy_protocol::query::RegionQuery;
use canopy_protocol::{ClientMsg, Query};

use crate::soak::hostile::raw_ws;
use crate::soak::hostile::runner::HostileCtx;
use crate::soak::hostile::{Attempt, Kind};
use crate::stop::Stop;

pub(crate) const RULE: &str = "the connection released (its room's subscriber count back) within the bound after the client closed";

/// How long the socket stays open, unread, before the client closes it.
const OPEN_FOR: Duration = Duration::from_secs(2);

/// How long a write may block before the server is taken to have stopped reading.
const PATIENCE: Duration = Duration::from_secs(5);

/// How often the room's subscriber count is read.
const POLL: Duration = Duration::from_secs(1);

pub(crate) async fn run(ctx: &HostileCtx, stop: Stop) -> Attempt {
    let kind = Kind::UnreadQueries;
    let room = &ctx.unread_room.id;
    let path = match ctx.unread_room.ws_path(&ctx.base_url, ctx.format) {
        Ok(p) => p,
        Err(e) => return Attempt::harness_error(kind, &e),
    };
    let before = match ctx.admin.get_room(room).await {
        Ok(r) => r.subscribers,
        Err(e) => return Attempt::harness_error(kind, &e.into()),
    };
    let mut stream = match raw_ws::open_unread(ctx.server, &path, kind).await {
        Ok(s) => s,
        Err(attempt) => return attempt,
    };
    let frames = flood(ctx);
    let sent = raw_ws::send_frames(&mut stream, &frames, PATIENCE).await;
    tokio::time::sleep(OPEN_FOR).await;
    let subscribed = ctx
        .admin
        .get_room(room)
        .await
        .is_ok_and(|r| r.subscribers > before);
    // Unread data in its receive buffer makes the kernel reset rather than close: the
    // harshest way a peer can leave.
    drop(stream);
    let closed = Instant::now();
    let sent_note = format!(
        "{sent} of {} messages sent (1 subscribe, {} queries, {} pings){}",
        frames.len(),
        ctx.sizes.unread_queries,
        ctx.sizes.flood_pings,
        if subscribed {
            ""
        } else {
            "; the subscription was not counted before the close"
        }
    );
    wait_released(ctx, room, before, closed, sent_note, stop).await
}

/// A subscribe, then whole-room queries and pings, all sent without reading a byte.
fn flood(ctx: &HostileCtx) -> Vec<Vec<u8>> {
    let whole = Query::Region(RegionQuery {
        min: [-1e6; 3],
        max: [1e6; 3],
        mask: u32::MAX,
    });
    let mut frames = vec![raw_ws::message(
        &ClientMsg::subscribe(None, u32::MAX),
        ctx.format,
    )];
    frames.extend((0..ctx.sizes.unread_queries as u64).map(|id| {
        raw_ws::message(
            &ClientMsg::Query {
                id,
                query: whole.clone(),
            },
            ctx.format,
        )
    }));
    frames.extend(
        (0..ctx.sizes.flood_pings as u64)
            .map(|nonce| raw_ws::message(&ClientMsg::Ping { nonce }, ctx.format)),
    );
    frames
}

/// Polls the room until the server no longer counts the subscription (released), or
/// gives up after the hold.
async fn wait_released(
    ctx: &HostileCtx,
    room: &str,
    before: u64,
    closed: Instant,
    sent_note: String,
    mut stop: Stop,
) -> Attempt {
    let kind = Kind::UnreadQueries;
    loop {
        match ctx.admin.get_room(room).await {
            Ok(r) if r.subscribers <= before => {
                let after = closed.elapsed();
                return Attempt::new(
                    kind,
                    "released",
                    Some(after.as_secs_f64()),
                    Some(after <= ctx.bound),
                )
                .with(sent_note);
            }
            Ok(_) => {}
            Err(e) => return Attempt::harness_error(kind, &e.into()),
        }
        if closed.elapsed() >= ctx.hold {
            return Attempt::new(kind, "not_released", None, Some(false)).with(format!(
                "{sent_note}; still counted {:.0} s after the close",
                closed.elapsed().as_secs_f64()
            ));
        }
        tokio::select! {
            _ = stop.raised() => {
                return Attempt::new(kind, "cut_short", None, None).with(sent_note);
            }
            _ = tokio::time::sleep(POLL) => {}
        }
    }
}
