//! A whole-room read that is never read: a connection asks `GET /rooms/{room}/nodes`
//! and then reads nothing.
//!
//! The server answers two whole-room reads at a time. Before the write deadline, two
//! such sockets held both turns for good (hyper has no write timeout), and every other
//! client's whole-room read then answered `503`. Invariant: the verdict is the close
//! within the bound; the request is sent whole, so nothing but the unread answer can
//! keep the connection open.

use crate::soak::hostile::raw_ws::SMALL_RECV_BUFFER;
use crate::soak::hostile::runner::HostileCtx;
use crate::soak::hostile::watch;
use crate::soak::hostile::{Attempt, Kind};
use crate::stop::Stop;

pub(crate) const RULE: &str =
    "closed by the server within the bound (a whole-room read that accepts nothing is cut off)";

pub(crate) async fn run(ctx: &HostileCtx, mut stop: Stop) -> Attempt {
    let room = &ctx.unread_room;
    let auth = room
        .viewer_token
        .as_ref()
        .map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
    let request = format!(
        "GET /rooms/{}/nodes HTTP/1.1\r\nHost: {}\r\n{auth}\
         User-Agent: canopy-loadtest-hostile\r\n\r\n",
        room.id, ctx.server
    );
    let buffer = Some(SMALL_RECV_BUFFER);
    let mut attempt =
        watch::sent_then_watched(ctx, Kind::UnreadNodes, buffer, &request, &mut stop).await;
    attempt.detail = format!(
        "GET /rooms/{}/nodes sent whole, receive buffer {SMALL_RECV_BUFFER} B, nothing read; {}",
        room.id, attempt.detail
    );
    attempt
}
