//! Guards of the whole HTTP application against web pages that are not the client's
//! own: CORS for the origins in `--allowed-origins` (preflights answered), a refusal of
//! any request whose `Origin` is neither listed nor the server's own (so a page on
//! another site cannot write to an open server with a "simple" request that needs no
//! preflight), and, for an open server on loopback, a refusal of `Host` names other than
//! `localhost` and IP addresses (DNS rebinding).

use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::{HeaderName, Method, header};
use axum::middleware::Next;
use axum::response::Response;
use canopy_protocol::{ErrorCode, PROTOCOL_HEADER};
use tower_http::cors::{AllowOrigin, CorsLayer};

use crate::http::error::RefusalResponse;
use crate::net::origin::{OriginPolicy, host_allowed};
use crate::state::AppState;
use canopy_room::refusal::Refusal;

/// The CORS layer for the listed origins, or none (same-origin only) when none is
/// listed.
pub(super) fn cors(policy: &OriginPolicy) -> Option<CorsLayer> {
    if !policy.lists_any() {
        return None;
    }
    let policy = policy.clone();
    Some(
        CorsLayer::new()
            .allow_origin(AllowOrigin::predicate(move |origin, _| {
                origin.to_str().is_ok_and(|o| policy.is_listed(o))
            }))
            .allow_methods([Method::GET, Method::POST, Method::DELETE])
            .allow_headers([header::AUTHORIZATION, header::CONTENT_TYPE])
            .expose_headers([HeaderName::from_static(PROTOCOL_HEADER)])
            .max_age(Duration::from_secs(600)),
    )
}

/// Refuses cross-site requests and, on a guarded open server, rebinding hosts.
pub(super) async fn origin_and_host(
    State(app): State<AppState>,
    req: Request,
    next: Next,
) -> Response {
    let headers = req.headers();
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok());
    if app.guard_hosts
        && let Some(h) = host
        && !host_allowed(h, &app.config.allowed_hosts)
    {
        return Refusal::new(
            ErrorCode::Forbidden,
            "an open server answers only to localhost, IP addresses and --allowed-hosts",
        )
        .into_response();
    }
    let origin = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok());
    if !app.origins.permits(origin, host) {
        return Refusal::new(
            ErrorCode::Forbidden,
            "requests from this Origin are not allowed (see --allowed-origins)",
        )
        .into_response();
    }
    next.run(req).await
}
