//! What every HTTP request leaves behind: one access line at `info` (method, matched
//! route, status, latency, caller) and the request metrics by route and status.
//!
//! Invariant: nothing client-chosen reaches a label or a log line unbounded: the route
//! is the matched template (`/rooms/{room}/edits`), never the raw path, and neither the
//! query string (which may hold a token) nor any token is ever written.

use std::time::Instant;

use axum::extract::{MatchedPath, Request, State};
use axum::middleware::Next;
use axum::response::Response;

use crate::state::AppState;

/// The route label of a request: its matched template, or `unmatched`.
pub(super) fn route_of(req: &Request) -> String {
    req.extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "unmatched".to_string(), |m| m.as_str().to_string())
}

/// Records one request (as a route layer, so the route is known).
pub(super) async fn observe(State(app): State<AppState>, req: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = req.method().clone();
    let route = route_of(&req);
    let resp = next.run(req).await;
    record(
        &app,
        method.as_str(),
        &route,
        resp.status().as_u16(),
        started,
    );
    resp
}

/// Writes the access line and the metrics of one answered request.
pub(super) fn record(app: &AppState, method: &str, route: &str, status: u16, started: Instant) {
    let secs = started.elapsed().as_secs_f64();
    app.metrics
        .http_requests
        .with_label_values(&[route, &status.to_string()])
        .inc();
    app.metrics
        .http_seconds
        .with_label_values(&[route])
        .observe(secs);
    tracing::info!(
        method,
        route,
        status,
        ms = (secs * 1e4).round() / 10.0,
        "http request"
    );
}
