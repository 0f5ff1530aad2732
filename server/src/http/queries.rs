//! `POST /rooms/{room}/query/{region,sphere,ray,nearest}`: spatial queries answered from
//! one tick's state under a short read lock.

use axum::Extension;
use axum::Json;
use axum::extract::{Path, State};
use canopy_protocol::Query;
use canopy_protocol::query::{
    NearestQuery, NearestResult, NodesResult, RayQuery, RayResult, RegionQuery, SphereQuery,
};

use super::auth::Caller;
use super::body::JsonBody;
use super::error::ApiError;
use crate::registry::AppState;
use crate::room::query::{self, QueryOutput};

/// Validates and runs a query against the room's current tick.
pub fn answer(
    app: &AppState,
    caller: &Caller,
    room: &str,
    q: &Query,
) -> Result<(u64, QueryOutput), ApiError> {
    let room = app.room(room)?;
    query::validate(q)?;
    if !app.query_limiter.check(&caller.rate_key) {
        return Err(ApiError::new(
            canopy_protocol::ErrorCode::RateLimited,
            format!(
                "more than {} queries per second from this caller",
                app.config.query_rate
            ),
        ));
    }
    let kind = match q {
        Query::Region(_) => "region",
        Query::Sphere(_) => "sphere",
        Query::Ray(_) => "ray",
        Query::Nearest(_) => "nearest",
    };
    app.metrics.queries.with_label_values(&[kind]).inc();
    let scene = room.scene.read();
    Ok((scene.tick, query::run(&scene, q)))
}

fn nodes(out: (u64, QueryOutput)) -> Json<NodesResult> {
    match out {
        (tick, QueryOutput::Nodes(nodes)) => Json(NodesResult { tick, nodes }),
        _ => unreachable!("region and sphere queries answer ids"),
    }
}

/// Nodes whose world AABB intersects the closed box, ids ascending.
#[utoipa::path(post, path = "/rooms/{room}/query/region", params(("room" = String, Path, description = "Room id")),
    request_body = RegionQuery,
    responses(
        (status = 200, description = "Ids ascending", body = NodesResult),
        (status = 400, description = "bad_request or invalid_value", body = canopy_protocol::ErrorBody),
        (status = 404, description = "unknown_room", body = canopy_protocol::ErrorBody),
        (status = 413, description = "too_large", body = canopy_protocol::ErrorBody),
        (status = 429, description = "rate_limited", body = canopy_protocol::ErrorBody),
    ))]
pub async fn region(
    State(app): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(room): Path<String>,
    JsonBody(q): JsonBody<RegionQuery>,
) -> Result<Json<NodesResult>, ApiError> {
    answer(&app, &caller, &room, &Query::Region(q)).map(nodes)
}

/// Nodes whose world AABB is within `radius` of `center`, ids ascending.
#[utoipa::path(post, path = "/rooms/{room}/query/sphere", params(("room" = String, Path, description = "Room id")),
    request_body = SphereQuery,
    responses(
        (status = 200, description = "Ids ascending", body = NodesResult),
        (status = 400, description = "bad_request or invalid_value", body = canopy_protocol::ErrorBody),
        (status = 404, description = "unknown_room", body = canopy_protocol::ErrorBody),
        (status = 413, description = "too_large", body = canopy_protocol::ErrorBody),
        (status = 429, description = "rate_limited", body = canopy_protocol::ErrorBody),
    ))]
pub async fn sphere(
    State(app): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(room): Path<String>,
    JsonBody(q): JsonBody<SphereQuery>,
) -> Result<Json<NodesResult>, ApiError> {
    answer(&app, &caller, &room, &Query::Sphere(q)).map(nodes)
}

/// The nearest (or every) node the ray enters, sorted by `t` then id.
#[utoipa::path(post, path = "/rooms/{room}/query/ray", params(("room" = String, Path, description = "Room id")),
    request_body = RayQuery,
    responses(
        (status = 200, description = "Hits sorted by t, then id", body = RayResult),
        (status = 400, description = "bad_request or invalid_value", body = canopy_protocol::ErrorBody),
        (status = 404, description = "unknown_room", body = canopy_protocol::ErrorBody),
        (status = 413, description = "too_large", body = canopy_protocol::ErrorBody),
        (status = 429, description = "rate_limited", body = canopy_protocol::ErrorBody),
    ))]
pub async fn ray(
    State(app): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(room): Path<String>,
    JsonBody(q): JsonBody<RayQuery>,
) -> Result<Json<RayResult>, ApiError> {
    match answer(&app, &caller, &room, &Query::Ray(q))? {
        (tick, QueryOutput::Ray(hits)) => Ok(Json(RayResult { tick, hits })),
        _ => unreachable!("ray queries answer ray hits"),
    }
}

/// The `k` nearest nodes, sorted by distance then id.
#[utoipa::path(post, path = "/rooms/{room}/query/nearest", params(("room" = String, Path, description = "Room id")),
    request_body = NearestQuery,
    responses(
        (status = 200, description = "Hits sorted by distance, then id", body = NearestResult),
        (status = 400, description = "bad_request or invalid_value", body = canopy_protocol::ErrorBody),
        (status = 404, description = "unknown_room", body = canopy_protocol::ErrorBody),
        (status = 413, description = "too_large", body = canopy_protocol::ErrorBody),
        (status = 429, description = "rate_limited", body = canopy_protocol::ErrorBody),
    ))]
pub async fn nearest(
    State(app): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(room): Path<String>,
    JsonBody(q): JsonBody<NearestQuery>,
) -> Result<Json<NearestResult>, ApiError> {
    match answer(&app, &caller, &room, &Query::Nearest(q))? {
        (tick, QueryOutput::Nearest(hits)) => Ok(Json(NearestResult { tick, hits })),
        _ => unreachable!("nearest queries answer nearest hits"),
    }
}
