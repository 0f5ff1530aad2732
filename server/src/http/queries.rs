//! `POST /rooms/{room}/query/{region,sphere,ray,nearest}`: the HTTP face of
//! `crate::queries`, which both edges share.

use axum::Json;
use axum::extract::{Extension, State};

use super::path::Path;
use canopy_protocol::Query;
use canopy_protocol::query::{
    NearestQuery, NearestResult, NodesResult, RayQuery, RayResult, RegionQuery, SphereQuery,
};

use super::body::JsonBody;
use super::error::ApiError;
use crate::access::Caller;
use crate::queries::Answer;
use crate::state::AppState;
use canopy_room::query::QueryOutput;

/// The refusals every query route may answer, for the OpenAPI document (the bodies are
/// built by `ApiError`; this type only describes them).
#[derive(utoipa::IntoResponses)]
#[allow(dead_code)]
enum QueryRefusals {
    /// bad_request or invalid_value
    #[response(status = 400)]
    BadRequest(canopy_protocol::ErrorBody),
    /// unknown_room (or unknown_node for a query `around` a node the room lacks)
    #[response(status = 404)]
    Unknown(canopy_protocol::ErrorBody),
    /// too_large
    #[response(status = 413)]
    TooLarge(canopy_protocol::ErrorBody),
    /// rate_limited
    #[response(status = 429)]
    RateLimited(canopy_protocol::ErrorBody),
}

async fn answer(app: &AppState, caller: &Caller, room: &str, q: Query) -> Result<Answer, ApiError> {
    let room = app.room(room)?;
    Ok(crate::queries::answer(app, caller, &room, q).await?)
}

fn nodes(a: Answer) -> Json<NodesResult> {
    match a.output {
        QueryOutput::Nodes(nodes) => Json(NodesResult {
            tick: a.tick,
            nodes,
        }),
        _ => unreachable!("region and sphere queries answer ids"),
    }
}

/// Nodes whose world AABB intersects the closed box, ids ascending.
#[utoipa::path(post, path = "/rooms/{room}/query/region", params(("room" = String, Path, description = "Room id")),
    request_body = RegionQuery,
    responses(
        (status = 200, description = "Ids ascending", body = NodesResult),
        QueryRefusals,
    ))]
pub(super) async fn region(
    State(app): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(room): Path<String>,
    JsonBody(q): JsonBody<RegionQuery>,
) -> Result<Json<NodesResult>, ApiError> {
    answer(&app, &caller, &room, Query::Region(q))
        .await
        .map(nodes)
}

/// Nodes whose world AABB is within `radius` of `center`, ids ascending.
#[utoipa::path(post, path = "/rooms/{room}/query/sphere", params(("room" = String, Path, description = "Room id")),
    request_body = SphereQuery,
    responses(
        (status = 200, description = "Ids ascending", body = NodesResult),
        QueryRefusals,
    ))]
pub(super) async fn sphere(
    State(app): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(room): Path<String>,
    JsonBody(q): JsonBody<SphereQuery>,
) -> Result<Json<NodesResult>, ApiError> {
    answer(&app, &caller, &room, Query::Sphere(q))
        .await
        .map(nodes)
}

/// The nearest (or every) node the ray enters, sorted by `t` then id.
#[utoipa::path(post, path = "/rooms/{room}/query/ray", params(("room" = String, Path, description = "Room id")),
    request_body = RayQuery,
    responses(
        (status = 200, description = "Hits sorted by t, then id", body = RayResult),
        QueryRefusals,
    ))]
pub(super) async fn ray(
    State(app): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(room): Path<String>,
    JsonBody(q): JsonBody<RayQuery>,
) -> Result<Json<RayResult>, ApiError> {
    let a = answer(&app, &caller, &room, Query::Ray(q)).await?;
    match a.output {
        QueryOutput::Ray(hits) => Ok(Json(RayResult { tick: a.tick, hits })),
        _ => unreachable!("ray queries answer ray hits"),
    }
}

/// The `k` nearest nodes, sorted by distance then id.
#[utoipa::path(post, path = "/rooms/{room}/query/nearest", params(("room" = String, Path, description = "Room id")),
    request_body = NearestQuery,
    responses(
        (status = 200, description = "Hits sorted by distance, then id", body = NearestResult),
        QueryRefusals,
    ))]
pub(super) async fn nearest(
    State(app): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(room): Path<String>,
    JsonBody(q): JsonBody<NearestQuery>,
) -> Result<Json<NearestResult>, ApiError> {
    let a = answer(&app, &caller, &room, Query::Nearest(q)).await?;
    match a.output {
        QueryOutput::Nearest(hits) => Ok(Json(NearestResult { tick: a.tick, hits })),
        _ => unreachable!("nearest queries answer nearest hits"),
    }
}
