//! Serving the application on a listener: joining the cluster when configured, the
//! background tasks, accepting until the drain is over, then the ordered shutdown.
//!
//! Invariant: SIGTERM (`shutdown`) first drains: readiness fails at once and new
//! WebSocket upgrades are refused while everything else is served for `--drain-secs`;
//! only then does the listener close and the shutdown proper begin.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;

use super::accept::accept_until;
use super::shutdown::shut_down;
use crate::http::app;
use crate::state::AppState;

/// Serves `state` on `listener` until `shutdown` completes, then shuts down gracefully.
pub async fn run(
    listener: TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let router = app(state.clone());
    join_cluster(&state, &listener, &router).await?;
    spawn_background(&state);
    let drain = state.config.drain;
    let drained = {
        let state = state.clone();
        async move {
            shutdown.await;
            state.lifecycle.drain();
            tracing::info!(secs = drain.as_secs_f64(), "draining: readiness is off");
            tokio::time::sleep(drain).await;
        }
    };
    let conns = accept_until(&listener, &state, router, drained).await;
    drop(listener);
    shut_down(&state, conns).await;
    Ok(())
}

/// Joins the cluster when `--nats-url` is set: takes back the leases of the rooms
/// restored from the data dir, serves requests other nodes pass here and the relays'
/// state service, and keeps leases and heartbeats going.
async fn join_cluster(
    state: &AppState,
    listener: &TcpListener,
    router: &axum::Router,
) -> std::io::Result<()> {
    let Some(config) =
        crate::cluster::ClusterConfig::from_server(&state.config, listener.local_addr()?)
    else {
        return Ok(());
    };
    let cluster = crate::cluster::Cluster::join(state, config)
        .await
        .map_err(std::io::Error::other)?;
    let _ = state.cluster.set(Arc::clone(&cluster));
    crate::http::serve_passed(state.clone(), router.clone())
        .await
        .map_err(std::io::Error::other)?;
    tracing::info!(node = cluster.node(), url = %cluster.config.url, "joined the cluster");
    Arc::clone(&cluster)
        .serve_relays(state.clone())
        .await
        .map_err(std::io::Error::other)?;
    state.tasks.spawn(cluster.maintain(state.clone()));
    Ok(())
}

/// The server's own background tasks: forgetting the rate-limit buckets of callers
/// that went quiet (so the limiter's memory follows the active callers), and watching
/// the TLS files for a new certificate.
fn spawn_background(state: &AppState) {
    let sweeper = state.clone();
    state.tasks.spawn(async move {
        let mut every = tokio::time::interval(Duration::from_secs(10));
        loop {
            tokio::select! {
                _ = sweeper.lifecycle.stopping() => break,
                _ = every.tick() => sweeper.query_limiter.sweep(),
            }
        }
    });
    if let Some(tls) = state.tls.clone() {
        let stop = state.lifecycle.token();
        state
            .tasks
            .spawn(async move { tls.watch(stop.cancelled_owned()).await });
    }
}
