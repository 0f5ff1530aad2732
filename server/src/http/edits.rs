//! `POST /rooms/{room}/edits`: queue a batch for the room's tick and answer once that
//! tick has applied (or refused) it.
//!
//! Invariant: an answer that is an error means the batch is never applied. The request
//! keeps its own deadline instead of the router's timeout: when it passes, the batch is
//! withdrawn if the tick has not taken it yet (then `503 overloaded`, and it will never
//! be applied); if the tick already took it, the request waits for its real outcome. A
//! client that goes away before the tick takes its batch withdraws it the same way.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Extension, State};

use super::path::Path;
use canopy_protocol::Batch;
use canopy_protocol::http::EditsResult;
use tokio::sync::oneshot;

use super::body::JsonBody;
use super::error::InBatch;
use crate::access::Caller;
use crate::state::AppState;
use canopy_room::edit::check_batch_size;
use canopy_room::{EditReply, EditTicket};

/// Withdraws the batch if the request is dropped before the tick takes it.
struct Withdraw(Arc<EditTicket>);

impl Drop for Withdraw {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

/// Applies an edit batch atomically at the room's next tick.
#[utoipa::path(post, path = "/rooms/{room}/edits", params(("room" = String, Path, description = "Room id")),
    request_body = Batch,
    responses(
        (status = 200, description = "Applied", body = EditsResult),
        (status = 400, description = "bad_request, invalid_value or unknown_node", body = canopy_protocol::ErrorBody),
        (status = 404, description = "unknown_room", body = canopy_protocol::ErrorBody),
        (status = 409, description = "duplicate_id or cycle", body = canopy_protocol::ErrorBody),
        (status = 413, description = "too_large", body = canopy_protocol::ErrorBody),
        (status = 503, description = "overloaded: refused, never applied", body = canopy_protocol::ErrorBody),
    ))]
pub(super) async fn post_edits(
    State(app): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(room): Path<String>,
    JsonBody(batch): JsonBody<Batch>,
) -> Result<Json<EditsResult>, InBatch> {
    let room = app.room(&room)?;
    check_batch_size(batch.ops.len(), app.config.max_ops_per_batch)?;
    let (tx, rx) = oneshot::channel();
    let ticket = Arc::new(EditTicket::default());
    // Shared by the caller's concurrent requests: one editor cannot take the room's
    // whole pending budget by opening more connections.
    let quota = app.edit_quotas.of(&caller.rate_key);
    room.submit_edits(
        batch.ops,
        EditReply::Oneshot(tx),
        Arc::clone(&ticket),
        Some(quota),
    )?;
    let _withdraw = Withdraw(Arc::clone(&ticket));
    let deadline = app.config.request_timeout;
    let until = tokio::time::Instant::now() + deadline;
    let result = canopy_room::edit_wait::outcome(&room, rx, &ticket, until, deadline).await?;
    Ok(Json(result))
}
