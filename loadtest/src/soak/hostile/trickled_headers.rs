//! Trickled headers (slowloris): a TCP connection sends an HTTP request
//! line and then one header line every few seconds, never ending the headers.
//!
//! Each line resets any idle timer, so only a deadline for the whole head (a
//! header-read timeout) ends it. Invariant: the verdict is the close within the bound,
//! seen either in the kernel's tables or as a failed write.

use std::time::{Duration, Instant};

use tokio::io::AsyncWriteExt;

use crate::soak::hostile::raw_ws;
use crate::soak::hostile::runner::HostileCtx;
use crate::soak::hostile::watch::{self, Watched};
use crate::soak::hostile::{Attempt, Kind};
use crate::stop::Stop;

pub(crate) const RULE: &str =
    "closed by the server within the bound, though a header line arrives every 5 s";

/// One header line this often.
const TRICKLE_EVERY: Duration = Duration::from_secs(5);

pub(crate) async fn run(ctx: &HostileCtx, mut stop: Stop) -> Attempt {
    let kind = Kind::TrickledHeaders;
    let began = Instant::now();
    let mut stream = match raw_ws::connect(ctx.server, None).await {
        Ok(s) => s,
        Err(e) => return Attempt::harness_error(kind, &e),
    };
    let (Ok(client), Ok(server)) = (stream.local_addr(), stream.peer_addr()) else {
        return Attempt::new(kind, "closed", Some(0.0), Some(true));
    };
    let mut line = format!("GET /healthz HTTP/1.1\r\nHost: {}\r\n", ctx.server);
    let mut lines = 0u32;
    loop {
        if stream.write_all(line.as_bytes()).await.is_err() {
            let after = began.elapsed();
            return Attempt::new(
                kind,
                "closed",
                Some(after.as_secs_f64()),
                Some(after <= ctx.bound),
            )
            .with(format!("a write failed after {lines} header lines"));
        }
        lines += 1;
        line = format!("X-Trickle-{lines}: {}\r\n", "x".repeat(8));
        // Watch until the next line is due, then send it.
        let next = began.elapsed() + TRICKLE_EVERY;
        let hold = ctx.hold.min(next);
        match watch::until_closed(client, server, began, hold, &mut stop).await {
            Watched::KeptOpen { .. } if began.elapsed() < ctx.hold => continue,
            watched => {
                let mut attempt = watch::closed_within(kind, watched, ctx.bound);
                attempt.detail = format!("{lines} header lines sent; {}", attempt.detail);
                return attempt;
            }
        }
    }
}
