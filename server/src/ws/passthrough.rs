//! Cluster mode: a WebSocket opened at a node that does not own its room is passed on
//! to the owner's HTTP, message for message, so the client gets the owner's session
//! (its snapshot, deltas, acks and close codes) as if it had connected there.
//!
//! The upgrade is answered only after the owner has accepted it, with the owner's
//! headers (protocol version, room instance), and an owner's refusal is returned as it
//! is. Invariant: one message is in flight each way, so a client that stops reading
//! stops this node reading from the owner, and the owner's slow-client policy (merging,
//! the write deadline) sees the client's pace.

use std::sync::Arc;

use axum::extract::Request;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use futures_util::{SinkExt, StreamExt};
use hyper_util::rt::TokioIo;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::{Role, WebSocketConfig};

use super::handshake::{READ_BUFFER_BYTES, WRITE_BUFFER_BYTES, handshake_key, switching_protocols};
use crate::cluster::{Cluster, FORWARDED_HEADER, RoomRecord};
use crate::http::error::ApiError;
use crate::state::AppState;
use canopy_room::refusal::Refusal;

/// Request headers the owner needs from the client (the credentials and the caller);
/// `Origin` is checked here, against this node's host, and not passed.
const PASSED: [&str; 5] = [
    "authorization",
    "sec-websocket-protocol",
    "user-agent",
    "forwarded",
    "x-forwarded-for",
];

/// Passes the WebSocket upgrade `req` on to the room's owner.
pub(crate) async fn pass_on(
    app: AppState,
    cluster: Arc<Cluster>,
    owner: RoomRecord,
    mut req: Request,
) -> Response {
    let headers = req.headers().clone();
    if let Err(r) = super::handshake::origin_may_open(&app, &headers) {
        return ApiError::from(r).into_response();
    }
    let key = match handshake_key(&headers) {
        Ok(k) => k.clone(),
        Err(r) => return ApiError::from(r).into_response(),
    };
    let Some(on_upgrade) = req.extensions_mut().remove::<hyper::upgrade::OnUpgrade>() else {
        return ApiError::from(Refusal::bad_request("this connection cannot be upgraded"))
            .into_response();
    };
    let path = req.uri().path_and_query().map_or("/", |p| p.as_str());
    let max = app.config.max_ws_message_bytes;
    let config = WebSocketConfig::default()
        .read_buffer_size(READ_BUFFER_BYTES)
        .write_buffer_size(WRITE_BUFFER_BYTES)
        .max_message_size(Some(max))
        .max_frame_size(Some(max));
    let upstream = Upstream {
        owner: &owner,
        node: cluster.node(),
        config,
        timeout: app.config.request_timeout,
    };
    let (upstream, answer) = match upstream.connect(path, &headers).await {
        Ok(pair) => pair,
        Err(response) => return response,
    };
    let mut resp = switching_protocols(key.as_bytes());
    let h = resp.headers_mut();
    for (n, v) in answer.headers() {
        if n == header::SEC_WEBSOCKET_PROTOCOL || n.as_str().starts_with("canopy-") {
            h.append(n, v.clone());
        }
    }
    let passed = cluster.metrics.websockets_passed.clone();
    let stop = app.lifecycle.token();
    app.tasks.spawn(async move {
        let Ok(upgraded) = on_upgrade.await else {
            return;
        };
        passed.inc();
        let client =
            WebSocketStream::from_raw_socket(TokioIo::new(upgraded), Role::Server, Some(config))
                .await;
        pipe(client, upstream, stop).await;
        passed.dec();
    });
    resp
}

/// The owner's side of a passed-on WebSocket.
struct Upstream<'a> {
    owner: &'a RoomRecord,
    /// This node's name, in [`FORWARDED_HEADER`].
    node: &'a str,
    config: WebSocketConfig,
    timeout: std::time::Duration,
}

type OwnerSocket = WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

impl Upstream<'_> {
    /// Opens the WebSocket to `path` at the owner with the client's [`PASSED`] headers.
    /// `Err` is the answer for the client: the owner's own refusal unchanged, or
    /// `overloaded` when the owner cannot be reached.
    async fn connect(
        &self,
        path: &str,
        headers: &axum::http::HeaderMap,
    ) -> Result<
        (
            OwnerSocket,
            tokio_tungstenite::tungstenite::handshake::client::Response,
        ),
        Response,
    > {
        let base = self
            .owner
            .url
            .replacen("http://", "ws://", 1)
            .replacen("https://", "wss://", 1);
        let target = format!("{base}{path}");
        let mut request = target
            .as_str()
            .into_client_request()
            .map_err(|e| self.unreachable(e.to_string()))?;
        for name in PASSED {
            for value in headers.get_all(name) {
                request.headers_mut().append(name, value.clone());
            }
        }
        request.headers_mut().insert(
            FORWARDED_HEADER,
            HeaderValue::from_str(self.node).expect("a node name is a valid header value"),
        );
        let connect =
            tokio_tungstenite::connect_async_with_config(request, Some(self.config), true);
        match tokio::time::timeout(self.timeout, connect).await {
            Err(_) => Err(self.unreachable(format!("no answer within {:?}", self.timeout))),
            Ok(Err(tokio_tungstenite::tungstenite::Error::Http(refused))) => {
                Err(owner_refusal(*refused))
            }
            Ok(Err(e)) => Err(self.unreachable(e.to_string())),
            Ok(Ok(pair)) => Ok(pair),
        }
    }

    fn unreachable(&self, why: String) -> Response {
        ApiError::from(Refusal::overloaded(format!(
            "the room's owner, node {}, could not be reached at {} ({why}); connect again",
            self.owner.node, self.owner.url
        )))
        .into_response()
    }
}

/// The owner's own refusal of the upgrade (a bad token, an unknown format, a full room),
/// for the client unchanged.
fn owner_refusal(refused: axum::http::Response<Option<Vec<u8>>>) -> Response {
    let (parts, body) = refused.into_parts();
    let mut response = Response::new(axum::body::Body::from(body.unwrap_or_default()));
    *response.status_mut() = parts.status;
    for (n, v) in &parts.headers {
        if n == header::CONTENT_TYPE || n.as_str().starts_with("canopy-") {
            response.headers_mut().append(n, v.clone());
        }
    }
    response
}

/// Copies messages both ways until either side closes (its close frame is passed on)
/// or the server shuts down.
async fn pipe<C, U>(client: C, upstream: U, stop: tokio_util::sync::CancellationToken)
where
    C: futures_util::Stream<
            Item = Result<
                tokio_tungstenite::tungstenite::Message,
                tokio_tungstenite::tungstenite::Error,
            >,
        > + futures_util::Sink<tokio_tungstenite::tungstenite::Message>
        + Unpin,
    U: futures_util::Stream<
            Item = Result<
                tokio_tungstenite::tungstenite::Message,
                tokio_tungstenite::tungstenite::Error,
            >,
        > + futures_util::Sink<tokio_tungstenite::tungstenite::Message>
        + Unpin,
{
    use tokio_tungstenite::tungstenite::Message;
    let (mut to_client, mut from_client) = client.split();
    let (mut to_owner, mut from_owner) = upstream.split();
    loop {
        tokio::select! {
            _ = stop.cancelled() => break,
            m = from_owner.next() => match m {
                // Pings and pongs are each side's own: both libraries answer them.
                Some(Ok(Message::Ping(_) | Message::Pong(_))) => {}
                Some(Ok(m)) => {
                    let close = matches!(m, Message::Close(_));
                    if to_client.send(m).await.is_err() || close {
                        break;
                    }
                }
                _ => break,
            },
            m = from_client.next() => match m {
                Some(Ok(Message::Ping(_) | Message::Pong(_))) => {}
                Some(Ok(m)) => {
                    let close = matches!(m, Message::Close(_));
                    if to_owner.send(m).await.is_err() || close {
                        break;
                    }
                }
                _ => break,
            },
        }
    }
    let _ = to_client.close().await;
    let _ = to_owner.close().await;
}
