//! The soak's over-quota caller: a query client that asks more often than the server's
//! per-caller query rate allows, and counts `rate_limited` answers as expected.
//!
//! The server keys its limit by token, else by address, and every other harness
//! connection shares one address; so this client binds 127.0.0.2 as its source address
//! when the server is on loopback, making it a caller of its own whose refusals leave
//! the measured query load alone. Invariant: an answer is either a result, an expected
//! `rate_limited`, or an error of the run.

use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use canopy_client::{Client, ClientError};
use canopy_protocol::query::NearestQuery;
use canopy_protocol::{ErrorCode, Query};
use serde::Serialize;
use tokio::task::JoinSet;
use tokio::time::MissedTickBehavior;

use crate::observe::errors::ErrorTally;
use crate::stop::Stop;

/// The over-quota caller's source address on loopback.
const SOURCE: IpAddr = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2));

/// Queries in flight at most: beyond that the client skips a beat rather than pile up.
const MAX_IN_FLIGHT: usize = 64;

/// What the over-quota caller saw.
#[derive(Debug, Default, Serialize)]
pub(crate) struct QuotaStats {
    pub sent: AtomicU64,
    pub answered: AtomicU64,
    pub rate_limited: AtomicU64,
}

/// A client of the server at `url` from its own address when the server is local.
pub(crate) fn client(url: &str, token: Option<&str>) -> anyhow::Result<Client> {
    client_from(url, token, SOURCE)
}

/// A client of the server at `url` from `source` when the server is local: another
/// caller than the harness's others on an open server (callers are told apart by
/// address there).
pub(crate) fn client_from(
    url: &str,
    token: Option<&str>,
    source: IpAddr,
) -> anyhow::Result<Client> {
    let mut client = Client::new(url)?;
    let local = matches!(
        client.base_url().host_str(),
        Some("127.0.0.1" | "localhost")
    );
    if local {
        // The SDK's pool limits, so that no request goes out on a connection the
        // server is closing as idle.
        let http = reqwest::Client::builder()
            .local_address(source)
            .timeout(canopy_client::DEFAULT_HTTP_TIMEOUT)
            .pool_idle_timeout(canopy_client::POOL_IDLE_TIMEOUT)
            .build()?;
        client = client.with_http_client(http);
    }
    if let Some(t) = token {
        client = client.with_token(t.to_string());
    }
    Ok(client)
}

/// Sends `rate` cheap queries per second to `room` until `stop` is raised.
pub(crate) async fn run(
    client: Client,
    room: String,
    rate: f64,
    stats: Arc<QuotaStats>,
    errors: Arc<ErrorTally>,
    mut stop: Stop,
) {
    if rate <= 0.0 {
        return;
    }
    let mut every = tokio::time::interval(Duration::from_secs_f64(1.0 / rate));
    every.set_missed_tick_behavior(MissedTickBehavior::Skip);
    let mut in_flight = JoinSet::new();
    loop {
        tokio::select! {
            biased;
            _ = stop.raised() => break,
            _ = every.tick() => {}
        }
        while in_flight.try_join_next().is_some() {}
        if in_flight.len() >= MAX_IN_FLIGHT {
            continue;
        }
        stats.sent.fetch_add(1, Ordering::Relaxed);
        let (client, room, stats, errors) = (
            client.clone(),
            room.clone(),
            Arc::clone(&stats),
            Arc::clone(&errors),
        );
        in_flight.spawn(async move {
            let q = Query::Nearest(NearestQuery {
                point: Some([0.0; 3]),
                around: None,
                k: 1,
                max_dist: None,
                mask: u32::MAX,
            });
            match client.query(&room, &q).await {
                Ok(_) => {
                    stats.answered.fetch_add(1, Ordering::Relaxed);
                }
                Err(ClientError::Api {
                    code: ErrorCode::RateLimited,
                    ..
                }) => {
                    stats.rate_limited.fetch_add(1, Ordering::Relaxed);
                }
                Err(e) => errors.record_client("over-quota query", &e),
            }
        });
    }
    while in_flight.join_next().await.is_some() {}
}
