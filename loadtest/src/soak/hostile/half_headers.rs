//! Half-sent headers (review F6): a TCP connection sends the first half of an HTTP
//! request's headers and then nothing.
//!
//! The old server had no header-read timeout: such a connection was held forever, and
//! a few hundred of them exhaust the server's file descriptors. Invariant: the verdict
//! is the close within the bound (a `408` before the close counts as the same).

use std::time::Instant;

use tokio::io::AsyncWriteExt;

use crate::soak::hostile::raw_ws;
use crate::soak::hostile::runner::HostileCtx;
use crate::soak::hostile::watch;
use crate::soak::hostile::{Attempt, Kind};
use crate::stop::Stop;

pub(crate) const RULE: &str = "closed by the server within the bound (a header-read timeout)";

pub(crate) async fn run(ctx: &HostileCtx, mut stop: Stop) -> Attempt {
    let kind = Kind::HalfHeaders;
    let began = Instant::now();
    let mut stream = match raw_ws::connect(ctx.server, None).await {
        Ok(s) => s,
        Err(e) => return Attempt::harness_error(kind, &e),
    };
    let half = format!(
        "GET /healthz HTTP/1.1\r\nHost: {}\r\nUser-Agent: canopy-loadtest-hostile\r\n",
        ctx.server
    );
    if let Err(e) = stream.write_all(half.as_bytes()).await {
        return Attempt::harness_error(kind, &e.into());
    }
    let (Ok(client), Ok(server)) = (stream.local_addr(), stream.peer_addr()) else {
        return Attempt::new(kind, "closed", Some(0.0), Some(true));
    };
    let watched = watch::until_closed(client, server, began, ctx.hold, &mut stop).await;
    let mut attempt = watch::closed_within(kind, watched, ctx.bound);
    attempt.detail = format!(
        "{} B of headers, no blank line; {}",
        half.len(),
        attempt.detail
    );
    attempt
}
