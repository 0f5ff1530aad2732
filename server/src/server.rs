//! Serving the application on a listener until a shutdown signal, then shutting down in
//! order: readiness drops, the listener closes, rooms run a last tick (answering accepted
//! edits) and close their subscribers with `closed` and 1001, and HTTP and WebSocket
//! connections are awaited within the grace period.
//!
//! Connections are accepted here, not by `axum::serve`, so that every one is admitted
//! against the connection caps (`admission.rs`) and served with a header-read timeout
//! that also bounds idle keep-alive connections: a client that sends half its headers,
//! or nothing, is closed after `--http-header-timeout-secs`, and one that stops reading
//! an answer is closed once it has accepted nothing for `--request-timeout-secs`
//! (`write_deadline.rs`; a WebSocket keeps its own write deadline instead).

use std::future::Future;
use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tower::ServiceExt;

use crate::http::app;
use crate::state::AppState;
use crate::write_deadline::WriteDeadline;

/// Applies the per-connection socket options.
fn tune(tcp: &TcpStream, send_buffer: usize) {
    // Without a small send buffer, loopback buffers grow to megabytes and a stalled
    // reader hides behind them long before the outbox notices and starts merging.
    if send_buffer > 0 {
        let _ = socket2::SockRef::from(tcp).set_send_buffer_size(send_buffer);
    }
    let _ = tcp.set_nodelay(true);
}

/// Serves one HTTP/1 connection until it ends (or is upgraded); once `stop` is
/// cancelled, it finishes the request in flight and closes.
async fn serve_until_stopped<I, S, B>(
    conn: hyper::server::conn::http1::UpgradeableConnection<I, S>,
    stop: tokio_util::sync::CancellationToken,
) -> hyper::Result<()>
where
    S: hyper::service::HttpService<Incoming, ResBody = B>,
    S::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    I: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static,
    B: hyper::body::Body + 'static,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    tokio::pin!(conn);
    tokio::select! {
        done = conn.as_mut() => return done,
        () = stop.cancelled() => {}
    }
    conn.as_mut().graceful_shutdown();
    conn.await
}

/// Whether hyper ended a connection because its write deadline passed
/// (`write_deadline.rs`), rather than for any other reason.
fn stalled(e: &hyper::Error) -> bool {
    std::error::Error::source(e)
        .and_then(|s| s.downcast_ref::<std::io::Error>())
        .is_some_and(|io| io.kind() == std::io::ErrorKind::TimedOut)
}

/// Serves `state` on `listener` until `shutdown` completes, then shuts down gracefully.
pub async fn run(
    listener: TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let router = app(state.clone());
    if let Some(config) =
        crate::cluster::ClusterConfig::from_server(&state.config, listener.local_addr()?)
    {
        let cluster = crate::cluster::Cluster::join(&state, config)
            .await
            .map_err(std::io::Error::other)?;
        let _ = state.cluster.set(std::sync::Arc::clone(&cluster));
        crate::http::serve_passed(state.clone(), router.clone())
            .await
            .map_err(std::io::Error::other)?;
        tracing::info!(node = cluster.node(), url = %cluster.config.url, "joined the cluster");
        std::sync::Arc::clone(&cluster)
            .serve_relays(state.clone())
            .await
            .map_err(std::io::Error::other)?;
        state.tasks.spawn(cluster.maintain(state.clone()));
    }
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
    if let Some(tls) = state.tls.clone() {
        let stop = state.shutdown.clone();
        state
            .tasks
            .spawn(async move { tls.watch(stop.cancelled_owned()).await });
    }
    // hyper's own HTTP/1 builder rather than hyper-util's `auto` one: `auto` wraps the
    // socket in a private type, and a WebSocket upgrade must get the `TcpStream` back
    // (`Upgraded::downcast`) for the flushers' non-blocking writes (`ws/socket.rs`).
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(state.config.http_header_timeout)
        .keep_alive(true);
    // Open HTTP connections (not upgraded ones: the session tasks are in `state.tasks`),
    // and the signal that asks them to finish their request and close.
    let conns = tokio_util::task::TaskTracker::new();
    let stop_conns = tokio_util::sync::CancellationToken::new();
    let send_buffer = state.config.send_buffer_bytes;
    let mut last_accept_error: Option<Instant> = None;
    // SIGTERM starts the drain: readiness fails at once, the listener stays open for
    // `--drain-secs`, then the shutdown proper begins.
    let drain = state.config.drain;
    let drained = {
        let state = state.clone();
        async move {
            shutdown.await;
            state.draining.store(true, Ordering::Release);
            tracing::info!(secs = drain.as_secs(), "draining: readiness is off");
            tokio::time::sleep(drain).await;
        }
    };
    tokio::pin!(drained);
    loop {
        let (tcp, peer) = tokio::select! {
            _ = &mut drained => break,
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    // Out of descriptors, say: log once a second, back off a little so
                    // the loop does not spin, and keep serving what is open.
                    if last_accept_error.is_none_or(|t| t.elapsed() > Duration::from_secs(1)) {
                        tracing::warn!(error = %e, "accept failed");
                        last_accept_error = Some(Instant::now());
                    }
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                }
            },
        };
        let permit = match state.connections.admit(peer.ip()) {
            Ok(p) => p,
            Err(refused) => {
                state.metrics.connections_refused.inc();
                tracing::debug!(%peer, %refused, "connection refused");
                drop(tcp);
                continue;
            }
        };
        tune(&tcp, send_buffer);
        let router = router.clone();
        let service = hyper::service::service_fn(move |mut req: hyper::Request<Incoming>| {
            req.extensions_mut().insert(ConnectInfo::<SocketAddr>(peer));
            req.extensions_mut().insert(permit.clone());
            router.clone().oneshot(req.map(axum::body::Body::new))
        });
        let conn_token = conns.token();
        let stop_conn = stop_conns.clone();
        let http = http.clone();
        let first_byte = state.config.http_header_timeout;
        let write_stall = state.config.request_timeout;
        let tls = state.tls.clone();
        let metrics = std::sync::Arc::clone(&state.metrics);
        tokio::spawn(async move {
            // hyper's header timeout starts with the first byte; a socket that never
            // sends one (nor a TLS hello) is closed here after the same time.
            let mut probe = [0u8; 1];
            if tokio::time::timeout(first_byte, tcp.peek(&mut probe))
                .await
                .is_err()
            {
                tracing::debug!(%peer, "nothing sent: closing");
                return;
            }
            let result = match tls {
                None => {
                    let io = TokioIo::new(WriteDeadline::new(tcp, write_stall));
                    let conn = http.serve_connection(io, service);
                    serve_until_stopped(conn.with_upgrades(), stop_conn).await
                }
                Some(tls) => {
                    let tcp = WriteDeadline::new(tcp, write_stall);
                    let handshake = tokio::time::timeout(first_byte, tls.acceptor().accept(tcp));
                    let stream = match handshake.await {
                        Ok(Ok(s)) => s,
                        Ok(Err(e)) => {
                            tracing::debug!(%peer, error = %e, "TLS handshake failed");
                            return;
                        }
                        Err(_) => {
                            tracing::debug!(%peer, "TLS handshake timed out");
                            return;
                        }
                    };
                    let conn = http.serve_connection(TokioIo::new(stream), service);
                    serve_until_stopped(conn.with_upgrades(), stop_conn).await
                }
            };
            if let Err(e) = result {
                if stalled(&e) {
                    metrics.http_write_stalls.inc();
                }
                tracing::debug!(error = %e, "connection ended");
            }
            drop(conn_token);
        });
    }

    state.ready.store(false, Ordering::Release);
    tracing::info!("shutting down");
    drop(listener);
    state.shutdown.cancel();
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
        stop_conns.cancel();
        conns.close();
        conns.wait().await;
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
