//! Idle TCP sockets: hundreds of connections that send nothing at all,
//! while `/healthz` is asked over fresh connections.
//!
//! 300 idle sockets exhausted a 256-descriptor server (`accept error: Too many open
//! files`, health checks timing out). A bounded server closes connections that send no
//! request within a timeout, caps connections, and keeps answering health checks.
//! Invariant: the attempt is one group of sockets; it is bounded only when every
//! socket was closed within the bound and every health check was answered.

use std::time::{Duration, Instant};

use canopy_client::Client;

use crate::observe::tcp_state::{Held, TcpTable};
use crate::soak::hostile::raw_ws;
use crate::soak::hostile::runner::HostileCtx;
use crate::soak::hostile::{Attempt, Kind};
use crate::stop::Stop;

pub(crate) const RULE: &str =
    "every idle socket closed within the bound, and /healthz answered within 1 s meanwhile";

/// Health checks while the sockets are open, and how long each may take.
const HEALTH_CHECKS: usize = 3;
const HEALTH_LIMIT: Duration = Duration::from_secs(1);

/// How often the sockets are looked at.
const POLL: Duration = Duration::from_secs(1);

pub(crate) async fn run(ctx: &HostileCtx, mut stop: Stop) -> Attempt {
    let kind = Kind::IdleTcp;
    let began = Instant::now();
    let mut sockets = Vec::with_capacity(ctx.sizes.idle_sockets);
    let mut refused = 0usize;
    for _ in 0..ctx.sizes.idle_sockets {
        match raw_ws::connect(ctx.server, None).await {
            Ok(s) => sockets.push(s),
            // A server at its connection cap may refuse: bounded behaviour, counted.
            Err(_) => refused += 1,
        }
    }
    let mut health = Vec::new();
    for _ in 0..HEALTH_CHECKS {
        health.push(health_check(&ctx.base_url).await);
    }
    let healthy = health.iter().all(|h| h.is_some_and(|d| d <= HEALTH_LIMIT));
    let worst = health
        .iter()
        .map(|h| {
            h.map_or("timed out".to_string(), |d| {
                format!("{:.0} ms", d.as_secs_f64() * 1e3)
            })
        })
        .collect::<Vec<_>>()
        .join(", ");
    let ends: Vec<_> = sockets
        .iter()
        .filter_map(|s| Some((s.local_addr().ok()?, s.peer_addr().ok()?)))
        .collect();
    let mut closed_at: Vec<Option<Duration>> = vec![None; ends.len()];
    loop {
        let table = TcpTable::read();
        for (i, &(client, server)) in ends.iter().enumerate() {
            if closed_at[i].is_none()
                && matches!(table.verdict(client, server), Held::Closed { .. })
            {
                closed_at[i] = Some(began.elapsed());
            }
        }
        let open = closed_at.iter().filter(|c| c.is_none()).count();
        if open == 0 || began.elapsed() >= ctx.hold {
            break;
        }
        tokio::select! {
            _ = stop.raised() => {
                return Attempt::new(kind, "cut_short", None, None)
                    .with(format!("{open} of {} still open when the run ended", ends.len()));
            }
            _ = tokio::time::sleep(POLL) => {}
        }
    }
    drop(sockets);
    let open = closed_at.iter().filter(|c| c.is_none()).count();
    let last = closed_at.iter().flatten().max().copied();
    let summary = format!(
        "{} sockets ({refused} refused at connect); /healthz {worst}",
        ctx.sizes.idle_sockets
    );
    if open == 0 {
        let after = last.unwrap_or_default();
        Attempt::new(
            kind,
            if healthy {
                "closed_all"
            } else {
                "closed_all_health_failed"
            },
            Some(after.as_secs_f64()),
            Some(after <= ctx.bound && healthy),
        )
        .with(summary)
    } else {
        Attempt::new(kind, "kept_open", None, Some(false)).with(format!(
            "{summary}; {open} of {} still open after {:.0} s",
            ends.len(),
            began.elapsed().as_secs_f64()
        ))
    }
}

/// How long `/healthz` took over a fresh connection; `None` when it failed or took
/// more than 5 s.
async fn health_check(base_url: &str) -> Option<Duration> {
    // A client of its own per check, so the check needs a fresh accept, as a load
    // balancer's would.
    let client = Client::new(base_url).ok()?;
    let started = Instant::now();
    match tokio::time::timeout(Duration::from_secs(5), client.health()).await {
        Ok(Ok(())) => Some(started.elapsed()),
        _ => None,
    }
}
