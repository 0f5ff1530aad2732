//! The one place where a `Refusal` becomes the contract's HTTP error: the body
//! `{"error":{"code","message","op"?}}` with the status of its code. `unknown_node` is
//! 404 for a read and 400 inside a batch; [`InBatch`] says which. Handlers answer
//! [`ApiError`], which every layer's refusal converts into with `?`.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use canopy_protocol::{ErrorBody, ErrorInfo};

use canopy_room::refusal::Refusal;

fn respond(r: Refusal, in_batch: bool) -> Response {
    let status =
        StatusCode::from_u16(r.code.http_status(in_batch)).unwrap_or(StatusCode::BAD_REQUEST);
    let body = ErrorBody {
        error: ErrorInfo {
            code: r.code,
            message: r.message,
            op: r.op,
        },
    };
    (status, Json(body)).into_response()
}

/// Answers a refusal as an HTTP response where a handler builds the response itself
/// (`Refusal` is the room crate's type, so it cannot implement axum's `IntoResponse`).
pub trait RefusalResponse {
    /// The contract's error answer for this refusal.
    fn into_response(self) -> Response;
}

impl RefusalResponse for Refusal {
    fn into_response(self) -> Response {
        respond(self, false)
    }
}

/// A refused HTTP request (a read's `unknown_node` is 404).
#[derive(Debug)]
pub struct ApiError(pub Refusal);

impl<E: Into<Refusal>> From<E> for ApiError {
    fn from(e: E) -> Self {
        ApiError(e.into())
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        respond(self.0, false)
    }
}

/// A refusal of an edit batch: `unknown_node` answers 400 (a bad op), not 404.
#[derive(Debug)]
pub struct InBatch(pub Refusal);

impl<E: Into<Refusal>> From<E> for InBatch {
    fn from(e: E) -> Self {
        InBatch(e.into())
    }
}

impl IntoResponse for InBatch {
    fn into_response(self) -> Response {
        respond(self.0, true)
    }
}
