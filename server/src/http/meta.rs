//! `GET /healthz`, `GET /readyz`, `GET /metrics` and `GET /openapi.json`.

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::IntoResponse;
use std::sync::OnceLock;
use utoipa::OpenApi;

use canopy_protocol::ErrorCode;
use canopy_protocol::http::Health;

use crate::http::error::ApiError;
use crate::state::AppState;
use canopy_room::refusal::Refusal;

/// Liveness: 200 while the process serves requests, with the server's and the wire
/// contract's versions.
#[utoipa::path(get, path = "/healthz", responses((status = 200, description = "Alive", body = Health)))]
pub async fn healthz() -> Json<Health> {
    Json(Health {
        status: "ok".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        protocol: canopy_protocol::PROTOCOL_VERSION.into(),
    })
}

/// Any path that is no route: `404 not_found` with the contract's body. On a server with
/// an admin token, only the admin learns that (docs/protocol.md §6: every other request needs a
/// token), so others get 401 or 403 as for any admin route.
pub async fn not_found(
    State(app): State<AppState>,
    headers: HeaderMap,
    method: axum::http::Method,
    uri: axum::http::Uri,
) -> ApiError {
    super::observe::record(
        &app,
        method.as_str(),
        "unmatched",
        404,
        std::time::Instant::now(),
    );
    if let Err(r) = super::access::admin_only(&app, &headers) {
        return r;
    }
    ApiError(Refusal::new(
        ErrorCode::NotFound,
        format!("no route {} (see /openapi.json)", uri.path()),
    ))
}

/// A route asked with a method it does not take: `405 method_not_allowed` (after the
/// same access check as [`not_found`]).
pub async fn method_not_allowed(
    State(app): State<AppState>,
    headers: HeaderMap,
    method: axum::http::Method,
    uri: axum::http::Uri,
) -> ApiError {
    if let Err(r) = super::access::admin_only(&app, &headers) {
        return r;
    }
    ApiError(Refusal::new(
        ErrorCode::MethodNotAllowed,
        format!("{} does not take {method}", uri.path()),
    ))
}

/// Readiness: 200 until shutdown begins, then 503 so load balancers stop sending.
#[utoipa::path(get, path = "/readyz", responses((status = 200, description = "Ready", body = String), (status = 503, description = "Shutting down", body = String)))]
pub async fn readyz(State(app): State<AppState>) -> (StatusCode, &'static str) {
    if app.lifecycle.is_serving() {
        (StatusCode::OK, "ready")
    } else {
        (StatusCode::SERVICE_UNAVAILABLE, "shutting down")
    }
}

/// Prometheus text exposition.
#[utoipa::path(get, path = "/metrics", responses((status = 200, description = "Prometheus text", body = String, content_type = "text/plain")))]
pub async fn metrics(State(app): State<AppState>) -> impl IntoResponse {
    let held =
        |b: &canopy_room::budget::SharedBudget| i64::try_from(b.held().0).unwrap_or(i64::MAX);
    app.metrics
        .whole_room_reads
        .set(held(&app.whole_room_reads));
    app.metrics
        .partial_message_bytes
        .set(held(&app.partial_messages));
    (
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4")],
        app.metrics.render(),
    )
}

/// The OpenAPI 3 document of this HTTP API.
#[utoipa::path(get, path = "/openapi.json", responses((status = 200, description = "OpenAPI document", body = Object)))]
pub async fn openapi() -> impl IntoResponse {
    static DOC: OnceLock<serde_json::Value> = OnceLock::new();
    Json(DOC.get_or_init(document).clone())
}

/// The document utoipa derives, with two corrections it cannot express:
/// * ids, masks and `k` are `u32`, which utoipa writes as `int32` with `minimum: 0`,
///   implying a maximum of 2^31-1; the contract allows the whole `u32` range;
/// * `POST /rooms` takes an optional body (both fields are optional).
pub fn document() -> serde_json::Value {
    let mut doc = serde_json::to_value(super::ApiDoc::openapi()).expect("the document serializes");
    widen_u32(&mut doc);
    if let Some(body) = doc.pointer_mut("/paths/~1rooms/post/requestBody") {
        body["required"] = serde_json::Value::Bool(false);
    }
    doc
}

fn widen_u32(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(map) => {
            // An unsigned field without an explicit maximum is a u32.
            let is_u32 = map.get("format").and_then(|f| f.as_str()) == Some("int32")
                && map
                    .get("minimum")
                    .and_then(|m| m.as_f64())
                    .is_some_and(|m| m >= 0.0)
                && !map.contains_key("maximum");
            if is_u32 {
                map.insert("format".into(), "int64".into());
                map.insert("maximum".into(), u32::MAX.into());
            }
            map.values_mut().for_each(widen_u32);
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(widen_u32),
        _ => {}
    }
}
