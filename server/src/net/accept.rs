//! Accepting connections and serving each: admission against the connection caps
//! (`admission.rs`), socket options, a first-byte and header-read timeout that also
//! bounds idle keep-alive connections, TLS when configured, and a write deadline on
//! every HTTP connection (`write_deadline.rs`; a WebSocket keeps its own instead).
//!
//! Invariant: every accepted connection is admitted or closed at once, and every one
//! served is tracked by [`Conns`], so the shutdown can ask it to finish and wait for it.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tower::ServiceExt;

use super::admission::ConnPermit;
use super::write_deadline::WriteDeadline;
use crate::state::AppState;

/// The open HTTP connections (not upgraded ones: the sessions are in `state.tasks`),
/// and the signal that asks them to finish their request and close.
#[derive(Debug, Default)]
pub(super) struct Conns {
    pub(super) tracker: TaskTracker,
    pub(super) stop: CancellationToken,
}

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

/// Accepts and serves connections on `listener` until `until` completes.
pub(super) async fn accept_until(
    listener: &TcpListener,
    state: &AppState,
    router: Router,
    until: impl std::future::Future<Output = ()>,
) -> Conns {
    // hyper's own HTTP/1 builder rather than hyper-util's `auto` one: `auto` wraps the
    // socket in a private type, and a WebSocket upgrade must get the `TcpStream` back
    // (`Upgraded::downcast`) for the flushers' non-blocking writes (`ws/socket.rs`).
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(state.config.http_header_timeout)
        .keep_alive(true);
    let conns = Conns::default();
    let mut last_accept_error: Option<Instant> = None;
    tokio::pin!(until);
    loop {
        let (tcp, peer) = tokio::select! {
            _ = &mut until => break,
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
        tune(&tcp, state.config.send_buffer_bytes);
        let conn = Conn {
            tcp,
            peer,
            permit,
            router: router.clone(),
            http: http.clone(),
            stop: conns.stop.clone(),
        };
        let state = state.clone();
        conns.tracker.spawn(async move { conn.serve(&state).await });
    }
    conns
}

/// One accepted connection, admitted, and what serving it needs.
struct Conn {
    tcp: TcpStream,
    peer: SocketAddr,
    permit: ConnPermit,
    router: Router,
    http: hyper::server::conn::http1::Builder,
    stop: CancellationToken,
}

impl Conn {
    /// Serves the connection until it ends, over TLS when the server has it.
    async fn serve(self, state: &AppState) {
        let Conn {
            tcp,
            peer,
            permit,
            router,
            http,
            stop,
        } = self;
        let service = hyper::service::service_fn(move |mut req: hyper::Request<Incoming>| {
            req.extensions_mut().insert(ConnectInfo::<SocketAddr>(peer));
            req.extensions_mut().insert(permit.clone());
            router.clone().oneshot(req.map(axum::body::Body::new))
        });
        let first_byte = state.config.http_header_timeout;
        // hyper's header timeout starts with the first byte; a socket that never sends
        // one (nor a TLS hello) is closed here after the same time.
        let mut probe = [0u8; 1];
        if tokio::time::timeout(first_byte, tcp.peek(&mut probe))
            .await
            .is_err()
        {
            tracing::debug!(%peer, "nothing sent: closing");
            return;
        }
        let tcp = WriteDeadline::new(tcp, state.config.request_timeout);
        let result = match state.tls.clone() {
            None => {
                let conn = http.serve_connection(TokioIo::new(tcp), service);
                serve_until_stopped(conn.with_upgrades(), stop).await
            }
            Some(tls) => {
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
                serve_until_stopped(conn.with_upgrades(), stop).await
            }
        };
        if let Err(e) = result {
            if stalled(&e) {
                let metrics: &Arc<crate::metrics::Metrics> = &state.metrics;
                metrics.http_write_stalls.inc();
            }
            tracing::debug!(error = %e, "connection ended");
        }
    }
}
