//! The HTTP API of the contract (`shared/API.md` §3), plus the WebSocket upgrade route.
//!
//! **Architecture invariant**: only `http` and `ws` know axum's routing and
//! extractors; handlers translate between JSON bodies and the room's calls, and every
//! error becomes the contract's body in one place (`error.rs`).

pub mod auth;
pub mod body;
pub mod edits;
pub mod error;
pub mod meta;
pub mod nodes;
pub mod queries;
pub mod rooms;

use axum::Router;
use axum::routing::{get, post};
use tower_http::trace::TraceLayer;
use utoipa::OpenApi;

use crate::registry::AppState;

/// The OpenAPI document, assembled from the handlers' annotations.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "Canopy",
        description = "Networked scene-state server: transform hierarchies, spatial queries and change streams."
    ),
    paths(
        meta::healthz,
        meta::readyz,
        meta::metrics,
        meta::openapi,
        rooms::create_room,
        rooms::list_rooms,
        rooms::get_room,
        rooms::delete_room,
        edits::post_edits,
        nodes::list_nodes,
        nodes::get_node,
        queries::region,
        queries::sphere,
        queries::ray,
        queries::nearest,
    )
)]
pub struct ApiDoc;

/// The whole HTTP and WebSocket application over `state`.
pub fn app(state: AppState) -> Router {
    Router::new()
        .route("/healthz", get(meta::healthz))
        .route("/readyz", get(meta::readyz))
        .route("/metrics", get(meta::metrics))
        .route("/openapi.json", get(meta::openapi))
        .route("/rooms", post(rooms::create_room).get(rooms::list_rooms))
        .route("/rooms/{room}", get(rooms::get_room).delete(rooms::delete_room))
        .route("/rooms/{room}/edits", post(edits::post_edits))
        .route("/rooms/{room}/nodes", get(nodes::list_nodes))
        .route("/rooms/{room}/nodes/{id}", get(nodes::get_node))
        .route("/rooms/{room}/query/region", post(queries::region))
        .route("/rooms/{room}/query/sphere", post(queries::sphere))
        .route("/rooms/{room}/query/ray", post(queries::ray))
        .route("/rooms/{room}/query/nearest", post(queries::nearest))
        .route("/rooms/{room}/ws", get(crate::ws::upgrade))
        // Spans name the path only: the query string may hold a token, which must
        // never reach the logs.
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            auth::require,
        ))
        .layer(
            TraceLayer::new_for_http().make_span_with(|req: &axum::extract::Request| {
                tracing::info_span!("http", method = %req.method(), path = %req.uri().path())
            }),
        )
        .with_state(state)
}
