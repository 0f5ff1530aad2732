//! A WebSocket message begun and never finished: a connection sends the first fragment
//! of a binary message (FIN clear, 1 MiB), then every second a pong and another 64 KiB
//! continuation, never the final fragment.
//!
//! Pongs counted as activity and the server held the unfinished message for as long as
//! the connection lived (16 MiB per connection). A bounded server closes it once the
//! message is not completed within its deadline (`--ws-message-deadline-secs`), or when
//! the caller's unfinished bytes pass its share. Invariant: the verdict is the close
//! within the bound; the client keeps sending, so only the server can end it.

use std::time::{Duration, Instant};

use tokio::io::AsyncWriteExt;

use crate::soak::hostile::raw_ws::{self, Upgrade};
use crate::soak::hostile::runner::HostileCtx;
use crate::soak::hostile::watch::{self, Watched};
use crate::soak::hostile::{Attempt, Kind};
use crate::stop::Stop;

pub(crate) const RULE: &str = "closed by the server within the bound (the message deadline or the caller's share of unfinished-message bytes; pongs are not progress)";

/// The first fragment's payload.
const FIRST: usize = 1 << 20;
/// Each later fragment's payload.
const MORE: usize = 64 << 10;

/// `payload` as one masked client frame with `opcode`, FIN clear (a fragment) or set.
fn fragment(opcode: u8, fin: bool, len: usize) -> Vec<u8> {
    let mut f = raw_ws::frame(&vec![0u8; len], true);
    f[0] = if fin { 0x80 } else { 0 } | opcode;
    f
}

pub(crate) async fn run(ctx: &HostileCtx, mut stop: Stop) -> Attempt {
    let kind = Kind::UnfinishedMessage;
    let path = match ctx.flood_room.ws_path(&ctx.base_url, ctx.format) {
        Ok(p) => p,
        Err(e) => return Attempt::harness_error(kind, &e),
    };
    let began = Instant::now();
    let mut stream = match raw_ws::open(ctx.server, &path, None).await {
        Ok(Upgrade::Open(s)) => s,
        Ok(Upgrade::Refused(status)) => {
            return Attempt::new(kind, "refused_upgrade", Some(0.0), Some(true)).with(status);
        }
        Err(e) => return Attempt::harness_error(kind, &e),
    };
    let (Ok(client), Ok(server)) = (stream.local_addr(), stream.peer_addr()) else {
        return Attempt::new(kind, "closed", Some(0.0), Some(true));
    };
    let feeder = async {
        let mut sent = 0usize;
        let first = fragment(0x2, false, FIRST);
        if stream.write_all(&first).await.is_err() {
            return sent;
        }
        sent += FIRST;
        loop {
            tokio::time::sleep(Duration::from_secs(1)).await;
            let mut more = fragment(0xA, true, 0);
            more.extend(fragment(0x0, false, MORE));
            if stream.write_all(&more).await.is_err() {
                return sent;
            }
            sent += MORE;
        }
    };
    let mut sent = 0;
    let watched = tokio::select! {
        w = watch::until_closed(client, server, began, ctx.hold, &mut stop) => w,
        n = feeder => {
            sent = n;
            watch::until_closed(client, server, began, ctx.hold, &mut stop).await
        }
    };
    let mut attempt = watch::closed_within(kind, watched, ctx.bound);
    let how = match watched {
        Watched::Closed { how, .. } => format!(" ({how})"),
        _ => String::new(),
    };
    attempt.detail = format!(
        "a {FIRST}-byte first fragment, then a pong and a {MORE}-byte continuation a \
         second, never the last{how}{}",
        if sent > 0 {
            format!("; {sent} bytes sent before the server closed")
        } else {
            String::new()
        }
    );
    attempt
}
