//! The access layers of the HTTP routes (API.md §5), one per access level, applied to
//! the route groups in `mod.rs`: each reads the token (`Authorization: Bearer`, the
//! scheme in any case, or the `token` query parameter on the WebSocket route), answers
//! `401 unauthorized` or `403 forbidden` before any body is read, and records who the
//! caller is for the handlers (role and rate-limit key).

use std::collections::HashMap;
use std::net::SocketAddr;

use axum::extract::{ConnectInfo, Path, Query, Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use canopy_protocol::ErrorCode;

use crate::access::{self, AccessError, Caller, Need, Role};
use crate::refusal::Refusal;
use crate::registry::AppState;

/// The access level of a route group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// Server-wide routes: rooms, metrics. The admin token only.
    Admin,
    /// Reading a room (its summary, nodes, queries, subscriptions): its editor or viewer
    /// token, or the admin token.
    RoomRead,
    /// Editing a room: its editor token or the admin token.
    RoomWrite,
}

fn bearer(req: &Request) -> Option<String> {
    let value = req.headers().get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.trim().split_once(' ')?;
    // RFC 7235: the scheme is case-insensitive.
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim().to_string())
}

fn query_token(req: &Request) -> Option<String> {
    if !req.uri().path().ends_with("/ws") {
        return None;
    }
    let Query(q) = Query::<HashMap<String, String>>::try_from_uri(req.uri()).ok()?;
    q.get("token").cloned()
}

fn peer(req: &Request) -> String {
    req.extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip().to_string())
        .unwrap_or_else(|| "local".to_string())
}

/// Checks the caller against `level` and records it for the handler.
async fn check(app: AppState, level: Level, room: Option<String>, mut req: Request, next: Next) -> Response {
    let token = bearer(&req).or_else(|| query_token(&req));
    let need = match (level, room) {
        (Level::Admin, _) | (_, None) => Need::Admin,
        (Level::RoomRead, Some(r)) => Need::RoomRead(r),
        (Level::RoomWrite, Some(r)) => Need::RoomWrite(r),
    };
    let found = access::authorize(app.config.admin_token(), token.as_deref(), &need, |room| {
        app.rooms.get(room).and_then(|r| r.tokens.clone())
    });
    let role = match found {
        Ok(role) => role,
        Err(e @ AccessError::Missing) => {
            return Refusal::new(ErrorCode::Unauthorized, e.to_string()).into_response();
        }
        Err(e @ AccessError::Wrong) => {
            return Refusal::new(ErrorCode::Forbidden, e.to_string()).into_response();
        }
    };
    let rate_key = match (&token, role) {
        (Some(t), Role::Admin | Role::Editor | Role::Viewer) => format!("token:{t}"),
        _ => format!("addr:{}", peer(&req)),
    };
    req.extensions_mut().insert(Caller { role, rate_key });
    next.run(req).await
}

/// The layer of the admin routes.
pub async fn admin(State(app): State<AppState>, req: Request, next: Next) -> Response {
    check(app, Level::Admin, None, req, next).await
}

/// The layer of the routes that read a room (`{room}` in the path).
pub async fn room_read(
    State(app): State<AppState>,
    Path(params): Path<HashMap<String, String>>,
    req: Request,
    next: Next,
) -> Response {
    let room = params.get("room").cloned();
    check(app, Level::RoomRead, room, req, next).await
}

/// The layer of the routes that edit a room.
pub async fn room_write(
    State(app): State<AppState>,
    Path(params): Path<HashMap<String, String>>,
    req: Request,
    next: Next,
) -> Response {
    let room = params.get("room").cloned();
    check(app, Level::RoomWrite, room, req, next).await
}
