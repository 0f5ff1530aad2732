//! The access middleware: decides what each route needs (API.md §5), reads the token
//! (`Authorization: Bearer`, or the `token` query parameter on WebSocket routes), and
//! answers `401 unauthorized` or `403 forbidden` before any body is read. It also
//! records who the caller is for the handlers (role and rate-limit key) and bounds
//! every request's time.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::Duration;

use axum::extract::{ConnectInfo, Query, Request, State};
use axum::http::{Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use canopy_protocol::ErrorCode;

use super::error::ApiError;
use crate::access::{self, AccessError, Need, Role};
use crate::registry::AppState;

/// Who sent a request, for the handlers.
#[derive(Clone, Debug)]
pub struct Caller {
    pub role: Role,
    /// The key of the caller's query rate limit: its token, else its address.
    pub rate_key: String,
}

/// What a method and path need; `None` for the routes open to everyone.
pub fn classify(method: &Method, path: &str) -> Option<Need> {
    if method == Method::GET && matches!(path, "/healthz" | "/readyz" | "/openapi.json") {
        return None;
    }
    let parts: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    Some(match parts.as_slice() {
        ["rooms", room] if method == Method::GET => Need::RoomRead(room.to_string()),
        ["rooms", room, "edits"] => Need::RoomWrite(room.to_string()),
        ["rooms", room, _, ..] => Need::RoomRead(room.to_string()),
        _ => Need::Admin,
    })
}

fn bearer(req: &Request) -> Option<String> {
    let value = req.headers().get(header::AUTHORIZATION)?.to_str().ok()?;
    let token = value
        .strip_prefix("Bearer ")
        .or_else(|| value.strip_prefix("bearer "))?;
    Some(token.trim().to_string())
}

fn query_token(req: &Request) -> Option<String> {
    if !req.uri().path().ends_with("/ws") {
        return None;
    }
    let Query(q) = Query::<HashMap<String, String>>::try_from_uri(req.uri()).ok()?;
    q.get("token").cloned()
}

/// The middleware.
pub async fn require(State(app): State<AppState>, mut req: Request, next: Next) -> Response {
    let token = bearer(&req).or_else(|| query_token(&req));
    let addr = req
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip().to_string())
        .unwrap_or_else(|| "local".to_string());
    let role = match classify(req.method(), req.uri().path()) {
        None => Role::Open,
        Some(need) => {
            let admin = app.config.admin_token();
            let found = access::authorize(admin, token.as_deref(), &need, |room| {
                app.rooms.get(room).and_then(|r| r.tokens.clone())
            });
            match found {
                Ok(role) => role,
                Err(e @ AccessError::Missing) => {
                    return ApiError::new(ErrorCode::Unauthorized, e.to_string()).into_response();
                }
                Err(e @ AccessError::Wrong) => {
                    return ApiError::new(ErrorCode::Forbidden, e.to_string()).into_response();
                }
            }
        }
    };
    let rate_key = match (&token, role) {
        (Some(t), Role::Admin | Role::Editor | Role::Viewer) => format!("token:{t}"),
        _ => format!("addr:{addr}"),
    };
    req.extensions_mut().insert(Caller { role, rate_key });
    let limit = Duration::from_secs(app.config.request_timeout_secs.max(1));
    match tokio::time::timeout(limit, next.run(req)).await {
        Ok(resp) => resp,
        Err(_) => ApiError::new(
            ErrorCode::Overloaded,
            format!("the request took longer than {} s", limit.as_secs()),
        )
        .into_response(),
    }
}
