//! Serving the application on a listener until a shutdown signal, then shutting down in
//! order: readiness drops, rooms run a last tick (answering accepted edits) and close
//! their subscribers with `closed` and 1001, WebSocket tasks are awaited within a bound.
//! axum's own graceful shutdown does not wait for upgraded connections, hence the
//! task tracker.

use std::future::Future;
use std::sync::atomic::Ordering;
use std::time::Duration;

use axum::serve::ListenerExt;
use tokio::net::TcpListener;

use crate::http::app;
use crate::registry::AppState;

/// Serves `state` on `listener` until `shutdown` completes, then shuts down gracefully.
pub async fn run(
    listener: TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let token = state.shutdown.clone();
    let ready = state.clone();
    let signal = async move {
        shutdown.await;
        ready.ready.store(false, Ordering::Release);
        tracing::info!("shutting down");
        token.cancel();
    };
    let router = app(state.clone());
    // Forget rate-limit buckets of callers that went quiet, so the limiter's memory
    // follows the number of active callers.
    let sweeper = state.clone();
    state.tasks.spawn(async move {
        let mut every = tokio::time::interval(Duration::from_secs(10));
        loop {
            tokio::select! {
                _ = sweeper.shutdown.cancelled() => break,
                _ = every.tick() => sweeper.query_limiter.sweep(),
            }
        }
    });
    let send_buffer = state.config.send_buffer_bytes;
    let listener = listener.tap_io(move |tcp| {
        // Without this, loopback send buffers grow to megabytes and a stalled reader
        // hides behind them long before the outbox notices and starts merging.
        if send_buffer > 0 {
            let _ = socket2::SockRef::from(&*tcp).set_send_buffer_size(send_buffer);
        }
        let _ = tcp.set_nodelay(true);
    });
    axum::serve(
        listener,
        router.into_make_service_with_connect_info::<std::net::SocketAddr>(),
    )
    .with_graceful_shutdown(signal)
    .await?;
    state.shutdown.cancel();
    state.tasks.close();
    let grace = Duration::from_secs(state.config.shutdown_grace_secs.max(1));
    if tokio::time::timeout(grace, state.tasks.wait())
        .await
        .is_err()
    {
        tracing::warn!(
            remaining = state.tasks.len(),
            "tasks still running after the shutdown grace period"
        );
    }
    tracing::info!("stopped");
    Ok(())
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
