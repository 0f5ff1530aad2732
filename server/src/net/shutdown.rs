//! The end of a server's life: the signal that starts it, and the ordered shutdown
//! once the drain is over.
//!
//! Invariant: the rooms run their last tick (answering every accepted batch and closing
//! their subscribers with `closed` and 1001) before open connections are awaited, and
//! the storage is closed last, after the writers that waited for their final acks and
//! frames to be durable.

use super::accept::Conns;
use crate::state::AppState;

/// Shuts down in order once the listener is closed: rooms' last ticks, open connections
/// within the grace period, then the storage.
pub(super) async fn shut_down(state: &AppState, conns: Conns) {
    state.lifecycle.shut_down();
    tracing::info!("shutting down");
    let grace = state.config.shutdown_grace;
    // The rooms' last ticks answer every accepted batch and close their subscribers.
    let pool = state.clone();
    let _ = tokio::time::timeout(
        grace,
        tokio::task::spawn_blocking(move || pool.pool.shutdown()),
    )
    .await;
    state.tasks.close();
    let drained = async {
        conns.stop.cancel();
        conns.tracker.close();
        conns.tracker.wait().await;
        state.tasks.wait().await;
    };
    if tokio::time::timeout(grace, drained).await.is_err() {
        tracing::warn!(
            remaining = state.tasks.len(),
            "connections still open after the shutdown grace period"
        );
    }
    // Last: the writers above waited for their final acks and frames to be durable.
    if let Some(persist) = state.persist.clone() {
        match tokio::task::spawn_blocking(move || persist.shutdown()).await {
            Ok(Ok(())) => tracing::info!("storage flushed and closed"),
            Ok(Err(e)) => tracing::error!(error = %e, "storage did not close cleanly"),
            Err(e) => tracing::error!(error = %e, "storage shutdown panicked"),
        }
    }
    tracing::info!("stopped");
}

/// Completes on SIGINT or SIGTERM.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
}
