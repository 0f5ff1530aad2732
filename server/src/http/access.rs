//! The access layers of the HTTP routes (docs/protocol.md §6), one per access level, applied to
//! the route groups in `mod.rs`: each reads the token (`Authorization: Bearer`, the
//! scheme in any case, or the `token` query parameter on the WebSocket route), answers
//! `401 unauthorized` or `403 forbidden` before any body is read, and records who the
//! caller is for the handlers (role and rate-limit key).

use std::collections::HashMap;
use std::net::SocketAddr;

use axum::extract::{ConnectInfo, Query, Request, State};

use super::path::Path;
use axum::http::header;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use canopy_protocol::ErrorCode;

use super::error::ApiError;
use crate::access::{self, AccessError, Caller, Need, Role};
use crate::state::AppState;
use canopy_room::refusal::Refusal;

/// The access level of a route group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Level {
    /// Server-wide routes: rooms, metrics. The admin token only.
    Admin,
    /// Reading a room (its summary, nodes, queries, subscriptions): its editor or viewer
    /// token, or the admin token.
    RoomRead,
    /// Editing a room: its editor token or the admin token.
    RoomWrite,
}

fn bearer(req: &Request) -> Option<String> {
    bearer_of(req.headers())
}

fn bearer_of(headers: &axum::http::HeaderMap) -> Option<String> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.trim().split_once(' ')?;
    // RFC 7235: the scheme is case-insensitive.
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim().to_string())
}

pub(super) fn query_token(req: &Request) -> Option<String> {
    if !req.uri().path().ends_with("/ws") {
        return None;
    }
    let Query(q) = Query::<HashMap<String, String>>::try_from_uri(req.uri()).ok()?;
    q.get("token").cloned()
}

/// The caller's address: the connecting peer, or the address a trusted proxy names.
fn peer(app: &AppState, req: &Request) -> String {
    let Some(ConnectInfo(addr)) = req.extensions().get::<ConnectInfo<SocketAddr>>() else {
        return "local".to_string();
    };
    let header = |name: &str| req.headers().get(name).and_then(|v| v.to_str().ok());
    app.proxies
        .caller(addr.ip(), header("forwarded"), header("x-forwarded-for"))
        .to_string()
}

/// Who the caller is, for the access log: a role and its room, never a token.
fn describe(role: Role, room: Option<&str>, addr: &str) -> String {
    match (role, room) {
        (Role::Admin, _) => format!("admin@{addr}"),
        (Role::Editor, Some(r)) => format!("editor:{r}@{addr}"),
        (Role::Viewer, Some(r)) => format!("viewer:{r}@{addr}"),
        _ => addr.to_string(),
    }
}

/// Checks the caller against `level` and records it for the handler.
async fn check(
    app: AppState,
    level: Level,
    room: Option<String>,
    mut req: Request,
    next: Next,
) -> Response {
    let token = bearer(&req).or_else(|| query_token(&req));
    let room_name = room.clone();
    let need = match (level, room) {
        (Level::Admin, _) | (_, None) => Need::Admin,
        (Level::RoomRead, Some(r)) => Need::RoomRead(r),
        (Level::RoomWrite, Some(r)) => Need::RoomWrite(r),
    };
    let found = access::authorize(
        app.config.admin_token(),
        app.jwt.as_ref(),
        token.as_deref(),
        &need,
        |room| app.rooms.get(room).and_then(|r| r.tokens),
    );
    let granted = match found {
        Ok(g) => g,
        Err(e) => return ApiError::from(refusal(e)).into_response(),
    };
    let addr = peer(&app, &req);
    let role = granted.role;
    let who = match &granted.sub {
        Some(sub) => format!("{sub}@{addr}"),
        None => describe(role, room_name.as_deref(), &addr),
    };
    tracing::Span::current().record("caller", &who);
    let rate_key = match (&granted.sub, &token, role) {
        (Some(sub), _, _) => format!("sub:{sub}"),
        (None, Some(t), Role::Admin | Role::Editor | Role::Viewer) => format!("token:{t}"),
        _ => format!("addr:{addr}"),
    };
    req.extensions_mut().insert(Caller {
        role,
        rate_key,
        expires: granted.expires,
        who,
    });
    next.run(req).await
}

/// The contract's answer to a refused token: 401 without one (or with an expired JWT),
/// 403 with one that does not grant the request.
fn refusal(e: AccessError) -> Refusal {
    let code = match e {
        AccessError::Missing | AccessError::Expired => ErrorCode::Unauthorized,
        AccessError::Wrong => ErrorCode::Forbidden,
    };
    Refusal::new(code, e.to_string())
}

/// The admin check, for handlers outside the route groups (the fallbacks).
pub(super) fn admin_only(app: &AppState, headers: &axum::http::HeaderMap) -> Result<(), ApiError> {
    let token = bearer_of(headers);
    access::authorize(
        app.config.admin_token(),
        app.jwt.as_ref(),
        token.as_deref(),
        &Need::Admin,
        |_| None,
    )
    .map(|_| ())
    .map_err(|e| refusal(e).into())
}

/// The layer of the admin routes.
pub(super) async fn admin(State(app): State<AppState>, req: Request, next: Next) -> Response {
    check(app, Level::Admin, None, req, next).await
}

/// The layer of the routes of one room (`{room}` in the path): reading it, or with
/// `WRITE` editing it.
pub(super) async fn room<const WRITE: bool>(
    State(app): State<AppState>,
    Path(params): Path<HashMap<String, String>>,
    req: Request,
    next: Next,
) -> Response {
    let level = if WRITE {
        Level::RoomWrite
    } else {
        Level::RoomRead
    };
    check(app, level, params.get("room").cloned(), req, next).await
}

/// What a node that does not hold a room may say about a request for it before it spends
/// anything on the request (reads its body, passes it on, copies the room for a replica).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum BeforeHop {
    /// The server is open, or the token (the admin's, or a JWT) grants the request here.
    Granted,
    /// A room token this node cannot check (only the owner holds the room's token
    /// digests until a replica is here): the owner decides.
    OwnerDecides,
}

/// The access check a node makes before routing a request for `room` to its owner:
/// without a token, with an expired or unfit JWT, or with a wrong admin token the caller
/// is refused here, so an anonymous client costs this node nothing but the answer.
pub(super) fn before_hop(
    app: &AppState,
    req: &Request,
    room: &str,
    write: bool,
    admin_route: bool,
) -> Result<BeforeHop, Refusal> {
    let token = bearer(req).or_else(|| query_token(req));
    let need = match (admin_route, write) {
        (true, _) => Need::Admin,
        (false, true) => Need::RoomWrite(room.to_string()),
        (false, false) => Need::RoomRead(room.to_string()),
    };
    let local = |room: &str| app.rooms.get(room).and_then(|r| r.tokens);
    match access::authorize(
        app.config.admin_token(),
        app.jwt.as_ref(),
        token.as_deref(),
        &need,
        local,
    ) {
        Ok(_) => Ok(BeforeHop::Granted),
        Err(AccessError::Wrong)
            if !admin_route
                && local(room).is_none()
                && !token
                    .as_deref()
                    .is_some_and(crate::access::jwt::looks_like_jwt) =>
        {
            Ok(BeforeHop::OwnerDecides)
        }
        Err(e) => Err(refusal(e)),
    }
}
