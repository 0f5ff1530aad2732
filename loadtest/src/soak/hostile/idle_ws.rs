//! Idle WebSockets: hundreds of connections to the flood room that answer
//! the server's pings (they read) but never subscribe.
//!
//! An unbounded server pays for each with no cap (about 125 KB each were seen). A
//! bounded server either caps them (refused upgrades, or closes) or keeps each within a
//! per-connection budget (64 KiB beyond the kernel's buffers). The cost is the step in the server's
//! RSS across opening them, measured while no other large-memory attempt runs
//! (`HostileCtx::quiet`), after RSS has held steady for a second. Invariant: when RSS
//! moved by more than half the budget of all the sockets while nothing of this attempt
//! changed, or fell across the opening (an allocator reusing pages it freed before
//! shows no step), the cost cannot be told and the attempt is undecided rather than
//! judged on it.

use std::time::{Duration, Instant};

use tokio::task::JoinSet;

use crate::observe::metrics_scrape;
use crate::rawws;
use crate::soak::hostile::runner::HostileCtx;
use crate::soak::hostile::{Attempt, Kind};
use crate::stop::Stop;

pub(crate) const RULE: &str =
    "refused or closed within the bound, or kept at <= 64 KiB of server RSS each";

/// The per-connection budget an idle WebSocket may cost the server.
pub(crate) const BUDGET_BYTES: f64 = 64.0 * 1024.0;

/// RSS samples before and after opening, and their spacing.
const SAMPLES: usize = 5;
const SAMPLE_EVERY: Duration = Duration::from_millis(200);

/// How long after the last open the server is left to settle before measuring.
const SETTLE: Duration = Duration::from_secs(3);

/// What became of the sockets while they were held.
struct Held {
    /// When the server closed each one it closed, from the first open.
    closed: Vec<Duration>,
    /// Still open at the end.
    kept: usize,
    /// The run stopped first.
    cut_short: bool,
}

pub(crate) async fn run(ctx: &HostileCtx, stop: Stop) -> Attempt {
    let kind = Kind::IdleWs;
    let url = match ctx.flood_room.ws_url(&ctx.base_url, ctx.format) {
        Ok(u) => u,
        Err(e) => return Attempt::harness_error(kind, &e),
    };
    let quiet = ctx.quiet.lock().await;
    let before = steady_rss(ctx, BUDGET_BYTES * ctx.sizes.idle_sockets as f64 / 4.0).await;
    let began = Instant::now();
    let (readers, refused) = open_idle(&url, ctx.sizes.idle_sockets).await;
    tokio::time::sleep(SETTLE).await;
    let after = rss_samples(ctx).await;
    drop(quiet);
    let opened = ctx.sizes.idle_sockets - refused;
    let cost = match (median(&before), median(&after)) {
        (Some(b), Some(a)) if opened > 0 => Some((a - b) / opened as f64),
        _ => None,
    };
    // Noise is how much RSS moved while nothing of this attempt changed: across the
    // samples before opening, and across those after.
    let noise = spread(&before).max(spread(&after));
    let held = hold(
        readers,
        ctx.bound.saturating_sub(began.elapsed()),
        began,
        stop,
    )
    .await;
    let cost_note = match cost {
        Some(c) => format!("{:+.0} KiB of server RSS each", c / 1024.0),
        None => "cost not measured".to_string(),
    };
    let summary = format!(
        "{} opened, {refused} refused, {} closed by the server, {} kept; {cost_note} \
         (RSS noise before: {:.1} MiB)",
        opened,
        held.closed.len(),
        held.kept,
        noise / (1024.0 * 1024.0)
    );
    verdict(&held, opened, cost, noise).with(summary)
}

/// Opens `n` sockets that read (answering pings) and send nothing; answers their
/// readers (each ends with when its socket did) and how many opens were refused.
async fn open_idle(url: &str, n: usize) -> (JoinSet<Instant>, usize) {
    let mut readers = JoinSet::new();
    let mut refused = 0usize;
    for _ in 0..n {
        match rawws::open(url, None).await {
            Ok(mut socket) => {
                readers.spawn(async move {
                    // Reading answers the server's pings; nothing else is expected.
                    while let Some(Ok(_)) = socket.next().await {}
                    Instant::now()
                });
            }
            Err(_) => refused += 1,
        }
    }
    (readers, refused)
}

/// Holds the sockets for `left` (the rest of the bound), counting the ones the server
/// closes.
async fn hold(
    mut readers: JoinSet<Instant>,
    left: Duration,
    began: Instant,
    mut stop: Stop,
) -> Held {
    let mut closed = Vec::new();
    let deadline = tokio::time::sleep(left);
    tokio::pin!(deadline);
    let cut_short = loop {
        tokio::select! {
            _ = stop.raised() => break true,
            _ = &mut deadline => break false,
            ended = readers.join_next(), if !readers.is_empty() => {
                if let Some(Ok(at)) = ended {
                    closed.push(at.duration_since(began));
                }
            }
        }
    };
    let kept = readers.len();
    readers.abort_all();
    Held {
        closed,
        kept,
        cut_short,
    }
}

fn verdict(held: &Held, opened: usize, cost: Option<f64>, noise: f64) -> Attempt {
    let kind = Kind::IdleWs;
    if held.cut_short {
        return Attempt::new(kind, "cut_short", None, None);
    }
    let last_close = held.closed.iter().max().map(|d| d.as_secs_f64());
    if held.kept == 0 {
        let did = if opened == 0 { "refused" } else { "closed" };
        return Attempt::new(kind, did, last_close, Some(true));
    }
    let budget_all = BUDGET_BYTES * opened as f64;
    match cost {
        // RSS that fell while sockets opened was something else being freed, or the
        // allocator reusing pages it had freed before: the step says nothing about
        // these sockets.
        Some(c) if noise > budget_all / 2.0 || c < 0.0 => {
            Attempt::new(kind, "kept_open_cost_unclear", None, None)
        }
        Some(c) => Attempt::new(
            kind,
            if c <= BUDGET_BYTES {
                "kept_open_within_budget"
            } else {
                "kept_open_over_budget"
            },
            None,
            Some(c <= BUDGET_BYTES),
        ),
        None => Attempt::new(kind, "kept_open_cost_unknown", None, None),
    }
}

/// How long to wait at most for RSS to hold steady before measuring.
const STEADY_WITHIN: Duration = Duration::from_secs(20);

/// Samples until a whole set of them spreads less than `within` bytes (or
/// [`STEADY_WITHIN`] passes), and returns the last set.
async fn steady_rss(ctx: &HostileCtx, within: f64) -> Vec<f64> {
    let started = Instant::now();
    loop {
        let samples = rss_samples(ctx).await;
        if spread(&samples) < within || started.elapsed() >= STEADY_WITHIN {
            return samples;
        }
    }
}

async fn rss_samples(ctx: &HostileCtx) -> Vec<f64> {
    let mut out = Vec::with_capacity(SAMPLES);
    for i in 0..SAMPLES {
        if i > 0 {
            tokio::time::sleep(SAMPLE_EVERY).await;
        }
        if let Ok(s) = metrics_scrape::scrape(&ctx.admin).await
            && s.rss_bytes > 0.0
        {
            out.push(s.rss_bytes);
        }
    }
    out
}

fn median(v: &[f64]) -> Option<f64> {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied()
}

fn spread(v: &[f64]) -> f64 {
    let max = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let min = v.iter().copied().fold(f64::INFINITY, f64::min);
    if v.is_empty() { 0.0 } else { max - min }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_and_spread() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[]), None);
        assert_eq!(spread(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(spread(&[]), 0.0);
    }
}
