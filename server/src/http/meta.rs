//! `GET /healthz`, `GET /readyz`, `GET /metrics` and `GET /openapi.json`.

use axum::Json;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use std::sync::atomic::Ordering;
use utoipa::OpenApi;

use crate::registry::AppState;

/// Liveness: 200 while the process serves requests.
#[utoipa::path(get, path = "/healthz", responses((status = 200, description = "Alive", body = String)))]
pub async fn healthz() -> &'static str {
    "ok"
}

/// Readiness: 200 until shutdown begins, then 503 so load balancers stop sending.
#[utoipa::path(get, path = "/readyz", responses((status = 200, description = "Ready", body = String), (status = 503, description = "Shutting down", body = String)))]
pub async fn readyz(State(app): State<AppState>) -> (StatusCode, &'static str) {
    if app.ready.load(Ordering::Acquire) && !app.shutdown.is_cancelled() {
        (StatusCode::OK, "ready")
    } else {
        (StatusCode::SERVICE_UNAVAILABLE, "shutting down")
    }
}

/// Prometheus text exposition.
#[utoipa::path(get, path = "/metrics", responses((status = 200, description = "Prometheus text", body = String, content_type = "text/plain")))]
pub async fn metrics(State(app): State<AppState>) -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4")],
        app.metrics.render(),
    )
}

/// The OpenAPI 3 document of this HTTP API.
#[utoipa::path(get, path = "/openapi.json", responses((status = 200, description = "OpenAPI document", body = Object)))]
pub async fn openapi() -> impl IntoResponse {
    Json(super::ApiDoc::openapi())
}
