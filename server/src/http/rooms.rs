//! `POST /rooms`, `GET /rooms`, `GET /rooms/{room}` and `DELETE /rooms/{room}`.

use axum::Json;
use axum::extract::State;

use super::path::Path;
use axum::http::StatusCode;
use canopy_protocol::http::{CreateRoom, RoomCreated, RoomDetail, RoomList, RoomSummary};

use super::body::JsonBody;
use super::error::ApiError;
use crate::state::AppState;
use canopy_room::refusal::Refusal;

/// Creates a room; without an id the server picks one (`room-N`).
#[utoipa::path(post, path = "/rooms", request_body(content = CreateRoom, description = "Both fields optional"),
    responses(
        (status = 201, description = "Created", body = RoomCreated),
        (status = 400, description = "Malformed body or room id", body = canopy_protocol::ErrorBody),
        (status = 409, description = "room_exists", body = canopy_protocol::ErrorBody),
        (status = 413, description = "too_large", body = canopy_protocol::ErrorBody),
        (status = 503, description = "overloaded: too many rooms", body = canopy_protocol::ErrorBody),
    ))]
pub(super) async fn create_room(
    State(app): State<AppState>,
    JsonBody(body): JsonBody<CreateRoom>,
) -> Result<(StatusCode, Json<RoomCreated>), ApiError> {
    // Shown in this answer only: the room keeps their digests.
    let issued = app.issue_tokens();
    let room = match app.cluster() {
        None => app.create_room(body.id, body.tick_hz, issued.as_ref())?,
        Some(cluster) => {
            // Checked before the lease is taken, so that a bad request holds no name.
            app.check_new_room(body.id.as_deref(), body.tick_hz)?;
            // A replica left of a room deleted at its owner moments ago must not take
            // the id of the room created now.
            if let Some(id) = body.id.as_deref()
                && app.room(id).is_ok_and(|r| r.is_replica())
            {
                cluster.drop_replica(&app, id, "its room is being created again");
            }
            let claim = cluster.claim(body.id, || app.next_room_name()).await?;
            // A cluster's rooms are kept in its journal (JetStream), not in this node's
            // data dir, so that any node can take them over.
            let (durability, feed) =
                cluster.journal_feed(&claim.id, crate::cluster::JournalFrom::New);
            let room = match app.create_room_journaled(
                claim.id.clone(),
                body.tick_hz,
                durability,
                issued.as_ref(),
            ) {
                Ok(room) => room,
                Err(e) => {
                    cluster.release(&claim.id).await;
                    return Err(e.into());
                }
            };
            let stored = cluster.hold_started(&app, &room, feed);
            use crate::cluster::NotStored;
            let stored = match stored {
                Some(rx) => rx
                    .await
                    .unwrap_or_else(|_| Err(NotStored::Failed("the journal stopped".into()))),
                None => Err(NotStored::Failed("the room's journal did not start".into())),
            };
            if let Err(why) = stored {
                app.unload_room(&room.id, canopy_room::CloseCause::RoomDeleted);
                cluster.release(&room.id).await;
                if matches!(why, NotStored::Exists) {
                    return Err(crate::state::RegistryError::RoomExists(room.id.clone()).into());
                }
                return Err(Refusal::overloaded(format!(
                    "room {} could not be stored in the cluster's journal ({why}); it was \
                     not created",
                    room.id
                ))
                .into());
            }
            room
        }
    };
    if let Err(why) = room.gate.durable(room.gate.need()).await {
        return Err(Refusal::overloaded(format!(
            "the storage failed before room {} was durable ({why}); a restart may not have it",
            room.id
        ))
        .into());
    }
    tracing::info!(room = %room.id, tick_hz = room.tick_hz, "room created");
    Ok((
        StatusCode::CREATED,
        Json(RoomCreated {
            id: room.id.clone(),
            tick_hz: room.tick_hz,
            editor_token: issued.as_ref().map(|t| t.editor.clone()),
            viewer_token: issued.as_ref().map(|t| t.viewer.clone()),
        }),
    ))
}

/// Every room with its tick, node and subscriber counts.
#[utoipa::path(get, path = "/rooms", responses((status = 200, description = "The rooms", body = RoomList)))]
pub(super) async fn list_rooms(State(app): State<AppState>) -> Json<RoomList> {
    let mut rooms: Vec<RoomSummary> = app
        .rooms
        .iter()
        // A relay's replicas are listed by their owners.
        .filter(|r| !r.is_replica())
        .map(|r| {
            let s = r.stats.view();
            RoomSummary {
                id: r.id.clone(),
                tick: s.tick,
                nodes: s.nodes,
                subscribers: s.subscribers,
                tick_hz: r.tick_hz,
            }
        })
        .collect();
    rooms.sort_by(|a, b| a.id.cmp(&b.id));
    Json(RoomList { rooms })
}

/// One room's summary and statistics.
#[utoipa::path(get, path = "/rooms/{room}", params(("room" = String, Path, description = "Room id")),
    responses(
        (status = 200, description = "The room", body = RoomDetail),
        (status = 404, description = "unknown_room", body = canopy_protocol::ErrorBody),
    ))]
pub(super) async fn get_room(
    State(app): State<AppState>,
    Path(room): Path<String>,
) -> Result<Json<RoomDetail>, ApiError> {
    let r = app.room(&room)?;
    let s = r.stats.view();
    Ok(Json(RoomDetail {
        id: r.id.clone(),
        tick: s.tick,
        nodes: s.nodes,
        subscribers: s.subscribers,
        tick_hz: r.tick_hz,
        tick_ms: s.tick_ms,
        tick_ms_max: s.tick_ms_max,
        slow_ticks: s.slow_ticks,
        recomputed_last_tick: s.recomputed_last_tick,
        batches_applied: s.batches_applied,
        batches_rejected: s.batches_rejected,
        pending_batches: r.pending_batches() as u64,
        octree_cells: s.octree_cells,
        pending_merge_entries_peak: s.pending_merge_entries_peak,
        merged_frames: s.merged_frames,
        instance: r.instance.to_header(),
    }))
}

/// Deletes a room; its subscribers get `closed`.
#[utoipa::path(delete, path = "/rooms/{room}", params(("room" = String, Path, description = "Room id")),
    responses(
        (status = 204, description = "Deleted"),
        (status = 404, description = "unknown_room", body = canopy_protocol::ErrorBody),
    ))]
pub(super) async fn delete_room(
    State(app): State<AppState>,
    Path(room): Path<String>,
) -> Result<StatusCode, ApiError> {
    if let Some(cluster) = app.cluster()
        && app.room(&room)?.gate.journal().is_some()
    {
        // The journal goes first: a room deleted here but still in it would be taken
        // over by another node.
        cluster
            .forget(&room)
            .await
            .map_err(|e| Refusal::overloaded(format!("room {room} was not deleted: {e}")))?;
    }
    let seq = app.delete_room(&room)?;
    if let Some(cluster) = app.cluster() {
        cluster.release(&room).await;
    }
    if let Some(p) = app.persist.as_ref().filter(|_| seq > 0)
        && let Err(e) = p.durable(seq).await
    {
        return Err(Refusal::overloaded(format!(
            "room {room} is deleted, but the storage failed before that was durable \
             ({e}); a restart may bring it back"
        ))
        .into());
    }
    tracing::info!(%room, "room deleted");
    Ok(StatusCode::NO_CONTENT)
}
