//! The HTTP API of the contract (docs/protocol.md §3), plus the WebSocket upgrade route.
//!
//! Routes are grouped by access level, each group under its access layer (`access.rs`),
//! so a new route cannot fall into the wrong class by accident. Around all of them: the
//! origin and host guard and CORS (`guard.rs`), a request timeout (except for edits,
//! which keep their own deadline so that a batch answered with an error is never
//! applied), and a tracing span per request.
//!
//! **Architecture invariant**: only `http` and `ws` know axum's routing and extractors;
//! handlers translate between JSON bodies and the room's calls, and every refusal
//! becomes the contract's body in one place (`error.rs`).

mod access;
mod body;
mod cluster;
mod edits;
pub mod error;
mod inspector;
pub mod meta;
mod nodes;
pub mod path;
mod queries;
mod rooms;

mod guard;
mod observe;

pub use cluster::serve_passed;

use axum::Router;
use axum::error_handling::HandleErrorLayer;
use axum::routing::{delete, get, post};
use canopy_protocol::ErrorCode;
use tower::ServiceBuilder;
use tower_http::trace::TraceLayer;
use utoipa::OpenApi;

use crate::http::error::RefusalResponse;
use crate::state::AppState;
use canopy_room::refusal::Refusal;

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
        cluster::overview,
        edits::post_edits,
        nodes::list_nodes,
        nodes::get_node,
        nodes::octree,
        queries::region,
        queries::sphere,
        queries::ray,
        queries::nearest,
    )
)]
pub struct ApiDoc;

/// Turns the request timeout into the contract's `503 overloaded`.
async fn timed_out(e: tower::BoxError) -> axum::response::Response {
    let message = if e.is::<tower::timeout::error::Elapsed>() {
        "the request took longer than the request timeout".to_string()
    } else {
        format!("the request failed: {e}")
    };
    Refusal::new(ErrorCode::Overloaded, message).into_response()
}

/// The whole HTTP and WebSocket application over `state`.
pub fn app(state: AppState) -> Router {
    let timeout = state.config.request_timeout;
    let bounded = || {
        ServiceBuilder::new()
            .layer(HandleErrorLayer::new(timed_out))
            .timeout(timeout)
    };
    let open = Router::new()
        .route("/healthz", get(meta::healthz))
        .route("/readyz", get(meta::readyz))
        .route("/openapi.json", get(meta::openapi))
        .merge(inspector::routes());
    let admin = Router::new()
        .route("/metrics", get(meta::metrics))
        .route("/rooms", post(rooms::create_room).get(rooms::list_rooms))
        .route("/rooms/{room}", delete(rooms::delete_room))
        .route("/cluster", get(cluster::overview))
        .route_layer(axum::middleware::from_fn_with_state(
            state.clone(),
            access::admin,
        ));
    let read = Router::new()
        .route("/rooms/{room}", get(rooms::get_room))
        .route("/rooms/{room}/nodes", get(nodes::list_nodes))
        .route("/rooms/{room}/nodes/{id}", get(nodes::get_node))
        .route("/rooms/{room}/octree", get(nodes::octree))
        .route("/rooms/{room}/query/region", post(queries::region))
        .route("/rooms/{room}/query/sphere", post(queries::sphere))
        .route("/rooms/{room}/query/ray", post(queries::ray))
        .route("/rooms/{room}/query/nearest", post(queries::nearest))
        .route("/rooms/{room}/ws", get(crate::ws::upgrade))
        .route_layer(axum::middleware::from_fn_with_state(
            state.clone(),
            access::room::<false>,
        ));
    // Edits keep their own deadline (see `edits.rs`): a timeout layer would answer 503
    // while the batch might still be applied.
    let write = Router::new()
        .route("/rooms/{room}/edits", post(edits::post_edits))
        .route_layer(axum::middleware::from_fn_with_state(
            state.clone(),
            access::room::<true>,
        ));
    let mut router = Router::new()
        .merge(open.route_layer(bounded()))
        .merge(admin.route_layer(bounded()))
        .merge(read.route_layer(bounded()))
        .merge(write)
        .route_layer(axum::middleware::from_fn_with_state(
            state.clone(),
            observe::observe,
        ))
        .fallback(meta::not_found)
        .method_not_allowed_fallback(meta::method_not_allowed)
        // Inside the guard (an Origin or Host refused here is refused before anything is
        // passed on), outside the routes and their access checks, which the owner runs.
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            cluster::route,
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            guard::origin_and_host,
        ));
    if let Some(cors) = guard::cors(&state.origins) {
        router = router.layer(cors);
    }
    router
        // Spans name the path only: the query string may hold a token, which must
        // never reach the logs. The access middleware records who the caller is; the
        // access line itself is written by `observe.rs`.
        .layer(
            TraceLayer::new_for_http()
                .make_span_with(|req: &axum::extract::Request| {
                    tracing::info_span!(
                        "http",
                        method = %req.method(),
                        path = %req.uri().path(),
                        caller = tracing::field::Empty,
                    )
                })
                .on_response(())
                .on_failure(()),
        )
        .with_state(state)
}
