//! `POST /rooms/{room}/edits`: queue a batch for the room's next tick and answer once
//! that tick has applied (or refused) it.

use axum::Json;
use axum::extract::{Path, State};
use canopy_protocol::Batch;
use canopy_protocol::http::EditsResult;
use tokio::sync::oneshot;

use super::body::JsonBody;
use super::error::ApiError;
use crate::registry::AppState;
use crate::room::EditReply;

/// Applies an edit batch atomically at the room's next tick.
#[utoipa::path(post, path = "/rooms/{room}/edits", params(("room" = String, Path, description = "Room id")),
    request_body = Batch,
    responses(
        (status = 200, description = "Applied", body = EditsResult),
        (status = 400, description = "bad_request, invalid_value or unknown_node", body = canopy_protocol::ErrorBody),
        (status = 404, description = "unknown_room", body = canopy_protocol::ErrorBody),
        (status = 409, description = "duplicate_id or cycle", body = canopy_protocol::ErrorBody),
        (status = 413, description = "too_large", body = canopy_protocol::ErrorBody),
        (status = 503, description = "overloaded", body = canopy_protocol::ErrorBody),
    ))]
pub async fn post_edits(
    State(app): State<AppState>,
    Path(room): Path<String>,
    JsonBody(batch): JsonBody<Batch>,
) -> Result<Json<EditsResult>, ApiError> {
    let room = app.room(&room)?;
    check_batch_size(batch.ops.len(), app.config.max_ops_per_batch)?;
    let (tx, rx) = oneshot::channel();
    room.submit_edits(batch.ops, EditReply::Http(tx))?;
    match rx.await {
        Ok(outcome) => Ok(Json(outcome?)),
        Err(_) => Err(ApiError::new(
            canopy_protocol::ErrorCode::UnknownRoom,
            format!("room {} closed before the batch was applied", room.id),
        )),
    }
}

/// Refuses a batch with more ops than the server's limit.
pub fn check_batch_size(ops: usize, limit: usize) -> Result<(), ApiError> {
    if ops > limit {
        let mut e = ApiError::too_large(format!("the batch has {ops} ops, the limit is {limit}"));
        e.in_batch = true;
        return Err(e);
    }
    Ok(())
}
