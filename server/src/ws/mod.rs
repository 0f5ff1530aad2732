//! The WebSocket endpoint `GET /rooms/{room}/ws?format=bincode|json`: one reader loop
//! that turns client messages into room commands, queries and pongs, and one writer task
//! that drains the connection's [`Outbox`] into the socket.
//!
//! Invariant: only the writer task writes to the socket, and everything it writes comes
//! through the outbox, so acks, snapshots and deltas keep the order the room gave them.

mod reader;
mod writer;

use std::collections::HashMap;

use axum::Extension;
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Response};
use canopy_protocol::{ErrorCode, Format};

use crate::http::auth::Caller;
use crate::http::error::ApiError;
use crate::registry::AppState;

/// Upgrades to a WebSocket connection on a room. An unknown room or format is refused
/// before the upgrade with the contract's HTTP error.
pub async fn upgrade(
    State(app): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(room): Path<String>,
    Query(params): Query<HashMap<String, String>>,
    headers: HeaderMap,
    ws: WebSocketUpgrade,
) -> Result<Response, ApiError> {
    let room = app.room(&room)?;
    let allowed = &app.config.allowed_origins;
    if let Some(origin) = headers.get(header::ORIGIN)
        && !allowed.is_empty()
        && !allowed.iter().any(|a| origin.as_bytes() == a.as_bytes())
    {
        return Err(ApiError::new(
            ErrorCode::Forbidden,
            "this Origin may not open WebSocket connections",
        ));
    }
    let format = match params.get("format") {
        None => Format::Bincode,
        Some(f) => Format::parse(f).ok_or_else(|| {
            ApiError::bad_request(format!("format must be bincode or json, got {f:?}"))
        })?,
    };
    let limit = app.config.max_ws_message_bytes;
    Ok(ws
        .max_message_size(limit)
        .max_frame_size(limit)
        .on_upgrade(move |socket| {
            let tracker = app.tasks.clone();
            let conn = app.next_conn_id();
            let span = tracing::info_span!("ws", room = %room.id, conn, format = format.as_str());
            tracker.track_future(tracing::Instrument::instrument(
                reader::serve(app, room, socket, format, conn, caller),
                span,
            ))
        })
        .into_response())
}
