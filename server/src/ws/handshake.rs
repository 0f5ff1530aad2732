//! The WebSocket upgrade of `GET /rooms/{room}/ws`: refuse what cannot become a session
//! (an unknown room, a foreign origin, a bad format, a room at its connection cap, a
//! request that is not a WebSocket handshake) with the contract's HTTP error, otherwise
//! answer `101` and hand the upgraded connection to a session.
//!
//! The handshake is done here rather than by axum's `WebSocketUpgrade` so that the
//! socket library can be configured as the session needs (small buffers, raw frames for
//! fragmented sends) and so that the answer names the protocol version: it selects the
//! `canopy.1` subprotocol when the client offers it, and always carries the
//! `canopy-protocol` header.
//!
//! Invariant: every connection counted in the room's `connections` at the upgrade is
//! given back exactly once, by the session or here if the upgrade never completes.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use axum::Extension;
use axum::extract::{Query, Request, State};

use crate::http::path::Path;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use canopy_protocol::{
    ErrorCode, Format, PROTOCOL_HEADER, PROTOCOL_VERSION, ROOM_INSTANCE_HEADER, WS_SUBPROTOCOL,
};
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;

use super::session::{SessionParams, serve};
use super::socket::Socket;
use crate::access::Caller;
use crate::http::error::ApiError;
use crate::net::admission::ConnPermit;
use crate::state::AppState;
use canopy_room::RoomInstance;
use canopy_room::refusal::Refusal;

/// The socket library's read buffer per connection: small, since client messages are
/// small except for edit batches, which grow it only while they arrive.
pub(super) const READ_BUFFER_BYTES: usize = 8 * 1024;
/// Frames are written out once this much is buffered (and always on flush), for the
/// passed-on connections of `passthrough.rs`, which the socket library writes.
pub(super) const WRITE_BUFFER_BYTES: usize = 16 * 1024;

/// The socket library's settings for reading a session's client messages (it never
/// writes them, see `socket.rs`).
pub fn read_config(max_message_bytes: usize) -> WebSocketConfig {
    WebSocketConfig::default()
        .read_buffer_size(READ_BUFFER_BYTES)
        .max_message_size(Some(max_message_bytes))
        .max_frame_size(Some(max_message_bytes))
}

pub(super) fn has_token(headers: &HeaderMap, name: header::HeaderName, token: &str) -> bool {
    headers.get_all(name).iter().any(|v| {
        v.to_str()
            .is_ok_and(|s| s.split(',').any(|t| t.trim().eq_ignore_ascii_case(token)))
    })
}

/// The `101 Switching Protocols` answer to a handshake with `key`, before the headers
/// of Canopy's own.
pub(super) fn switching_protocols(key: &[u8]) -> Response {
    let mut resp = Response::new(axum::body::Body::empty());
    *resp.status_mut() = StatusCode::SWITCHING_PROTOCOLS;
    let h = resp.headers_mut();
    h.insert(header::UPGRADE, HeaderValue::from_static("websocket"));
    h.insert(header::CONNECTION, HeaderValue::from_static("Upgrade"));
    h.insert(
        header::SEC_WEBSOCKET_ACCEPT,
        HeaderValue::from_str(&derive_accept_key(key)).expect("base64 is a valid header value"),
    );
    resp
}

/// The `Sec-WebSocket-Key` of a valid handshake request.
pub(super) fn handshake_key(headers: &HeaderMap) -> Result<&HeaderValue, Refusal> {
    if !has_token(headers, header::UPGRADE, "websocket")
        || !has_token(headers, header::CONNECTION, "upgrade")
    {
        return Err(Refusal::bad_request(
            "this route takes a WebSocket upgrade (Upgrade: websocket, Connection: Upgrade)",
        ));
    }
    if headers
        .get(header::SEC_WEBSOCKET_VERSION)
        .is_none_or(|v| v != "13")
    {
        return Err(Refusal::bad_request("Sec-WebSocket-Version must be 13"));
    }
    headers
        .get(header::SEC_WEBSOCKET_KEY)
        .ok_or_else(|| Refusal::bad_request("Sec-WebSocket-Key is missing"))
}

/// Upgrades to a WebSocket session on a room.
pub async fn upgrade(
    State(app): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(room): Path<String>,
    Query(params): Query<HashMap<String, String>>,
    mut req: Request,
) -> Result<Response, ApiError> {
    let room = app.room(&room)?;
    may_open(&app, req.headers())?;
    let format = format_of(&params)?;
    let resume_allowed = resume_allowed(&params, &room)?;
    let headers = req.headers();
    let key = handshake_key(headers)?.clone();
    let subprotocol = has_token(headers, header::SEC_WEBSOCKET_PROTOCOL, WS_SUBPROTOCOL);
    let on_upgrade = req
        .extensions_mut()
        .remove::<hyper::upgrade::OnUpgrade>()
        .ok_or_else(|| Refusal::bad_request("this connection cannot be upgraded"))?;
    let max = app.config.max_ws_per_room;
    if room.connections.fetch_add(1, Ordering::AcqRel) >= max {
        room.connections.fetch_sub(1, Ordering::AcqRel);
        return Err(Refusal::overloaded(format!(
            "room {} has {max} WebSocket connections, the limit",
            room.id
        ))
        .into());
    }
    let permit = req.extensions().get::<ConnPermit>().cloned();
    let instance = room.instance;
    let conn = app.next_conn_id();
    let params = SessionParams {
        app,
        room,
        format,
        conn,
        caller,
        resume_allowed,
    };
    spawn_session(params, on_upgrade, permit);
    Ok(switched(key.as_bytes(), subprotocol, instance))
}

/// Refuses the upgrade while the server drains, or for a page of an Origin that may not
/// open WebSockets.
fn may_open(app: &AppState, headers: &axum::http::HeaderMap) -> Result<(), Refusal> {
    if !app.lifecycle.is_serving() {
        return Err(Refusal::overloaded(
            "the server is draining before a shutdown; connect to another",
        ));
    }
    origin_may_open(app, headers)
}

/// Refuses a page of an Origin that may not open WebSockets here (`--allowed-origins`).
pub(super) fn origin_may_open(
    app: &AppState,
    headers: &axum::http::HeaderMap,
) -> Result<(), Refusal> {
    let origin = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok());
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok());
    if !app.origins.permits(origin, host) {
        return Err(Refusal::new(
            ErrorCode::Forbidden,
            "this Origin may not open WebSocket connections (see --allowed-origins)",
        ));
    }
    Ok(())
}

/// The `format` query parameter (bincode when absent).
fn format_of(params: &HashMap<String, String>) -> Result<Format, Refusal> {
    match params.get("format") {
        None => Ok(Format::Bincode),
        Some(f) => Format::parse(f).ok_or_else(|| {
            Refusal::bad_request(format!("format must be bincode or json, got {f:?}"))
        }),
    }
}

/// Whether a `since` on this connection may be honoured. `instance`: the room instance
/// the client's copy came from; a `since` is honoured only when it is the room's current
/// one, so a client that cannot read the upgrade's headers (a browser) still never
/// resumes across instances.
fn resume_allowed(
    params: &HashMap<String, String>,
    room: &canopy_room::RoomShared,
) -> Result<bool, Refusal> {
    match params.get("instance") {
        None => Ok(true),
        Some(text) => Ok(RoomInstance::parse(text).ok_or_else(|| {
            Refusal::new(
                ErrorCode::InvalidValue,
                format!("instance must be 16 hex digits, got {text:?}"),
            )
        })? == room.instance),
    }
}

/// Runs the session once the connection is upgraded (a task of the server's, so that
/// shutdown waits for it); a failed upgrade gives the room's connection slot back.
fn spawn_session(
    params: SessionParams,
    on_upgrade: hyper::upgrade::OnUpgrade,
    permit: Option<ConnPermit>,
) {
    let config = read_config(params.app.config.max_ws_message_bytes);
    // The session's span is a debug one, and a root: the tracing registry keeps a slot
    // (about 300 bytes) for the most spans ever open at once, and a child span keeps
    // its parent, the upgrade request's, open too. Two info spans per session kept
    // 3 MiB after 5,000 sessions had closed (loadtest `many-subscribers`, heaptrack), a
    // tenth of the room's own RSS; the session's info lines name their connection
    // themselves (`session.rs`), and `CANOPY_LOG=debug` brings the span back.
    let span = tracing::debug_span!(
        parent: None,
        "ws",
        room = %params.room.id,
        conn = params.conn,
        format = params.format.as_str(),
        caller = %params.caller.who
    );
    let tasks = params.app.tasks.clone();
    let room = Arc::clone(&params.room);
    tasks.spawn(tracing::Instrument::instrument(
        async move {
            let _permit = permit;
            match on_upgrade.await {
                Ok(upgraded) => {
                    let socket = Socket::from_upgraded(upgraded, config).await;
                    serve(params, socket).await;
                }
                Err(e) => {
                    room.connections.fetch_sub(1, Ordering::AcqRel);
                    tracing::debug!(error = %e, "upgrade failed");
                }
            }
        },
        span,
    ));
}

/// The `101` answer: the accept key, the subprotocol when the client offered it, the
/// protocol version and the room instance.
fn switched(key: &[u8], subprotocol: bool, instance: RoomInstance) -> Response {
    let mut resp = switching_protocols(key);
    let h = resp.headers_mut();
    if subprotocol {
        h.insert(
            header::SEC_WEBSOCKET_PROTOCOL,
            HeaderValue::from_static(WS_SUBPROTOCOL),
        );
    }
    h.insert(PROTOCOL_HEADER, HeaderValue::from_static(PROTOCOL_VERSION));
    h.insert(
        ROOM_INSTANCE_HEADER,
        HeaderValue::from_str(&instance.to_header()).expect("hex is a valid header value"),
    );
    resp
}
