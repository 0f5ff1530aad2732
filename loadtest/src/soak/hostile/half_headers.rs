//! Half-sent headers: a TCP connection sends the first half of an HTTP
//! request's headers and then nothing.
//!
//! The old server had no header-read timeout: such a connection was held forever, and
//! a few hundred of them exhaust the server's file descriptors. Invariant: the verdict
//! is the close within the bound (a `408` before the close counts as the same).

use crate::soak::hostile::runner::HostileCtx;
use crate::soak::hostile::watch;
use crate::soak::hostile::{Attempt, Kind};
use crate::stop::Stop;

pub(crate) const RULE: &str = "closed by the server within the bound (a header-read timeout)";

pub(crate) async fn run(ctx: &HostileCtx, mut stop: Stop) -> Attempt {
    let half = format!(
        "GET /healthz HTTP/1.1\r\nHost: {}\r\nUser-Agent: canopy-loadtest-hostile\r\n",
        ctx.server
    );
    let mut attempt =
        watch::sent_then_watched(ctx, Kind::HalfHeaders, None, &half, &mut stop).await;
    attempt.detail = format!(
        "{} B of headers, no blank line; {}",
        half.len(),
        attempt.detail
    );
    attempt
}
