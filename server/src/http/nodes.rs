//! `GET /rooms/{room}/nodes` and `GET /rooms/{room}/nodes/{id}`: reads of one tick's
//! state.

use axum::Json;
use axum::extract::{Path, State};
use canopy_protocol::ErrorCode;
use canopy_protocol::http::{NodeDetail, NodesSnapshot};

use super::error::ApiError;
use crate::registry::AppState;

/// Every node of the room, parents before children.
#[utoipa::path(get, path = "/rooms/{room}/nodes", params(("room" = String, Path, description = "Room id")),
    responses(
        (status = 200, description = "Every node at one tick", body = NodesSnapshot),
        (status = 404, description = "unknown_room", body = canopy_protocol::ErrorBody),
    ))]
pub async fn list_nodes(
    State(app): State<AppState>,
    Path(room): Path<String>,
) -> Result<Json<NodesSnapshot>, ApiError> {
    let room = app.room(&room)?;
    let scene = room.scene.read();
    Ok(Json(NodesSnapshot {
        tick: scene.tick,
        nodes: scene.hierarchy.iter_nodes().collect(),
    }))
}

/// One node with its children, local and world transforms.
#[utoipa::path(get, path = "/rooms/{room}/nodes/{id}", params(("room" = String, Path, description = "Room id"), ("id" = u32, Path, description = "Node id")),
    responses(
        (status = 200, description = "The node", body = NodeDetail),
        (status = 400, description = "The id is not a u32", body = canopy_protocol::ErrorBody),
        (status = 404, description = "unknown_room or unknown_node", body = canopy_protocol::ErrorBody),
    ))]
pub async fn get_node(
    State(app): State<AppState>,
    Path((room, id)): Path<(String, String)>,
) -> Result<Json<NodeDetail>, ApiError> {
    let room = app.room(&room)?;
    let id: u32 = id
        .parse()
        .map_err(|_| ApiError::bad_request(format!("node id {id:?} is not a u32")))?;
    let scene = room.scene.read();
    let h = &scene.hierarchy;
    let unknown = || {
        ApiError::new(
            ErrorCode::UnknownNode,
            format!("no node {id} in room {}", room.id),
        )
    };
    let node = h.node(id).ok_or_else(unknown)?;
    Ok(Json(NodeDetail {
        id,
        parent: node.parent,
        children: h.children(id).collect(),
        local: h.local(id).ok_or_else(unknown)?,
        world: node.world,
        extent: node.extent,
        mask: node.mask,
        tick: scene.tick,
    }))
}
