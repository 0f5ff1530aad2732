//! The one place where a `Refusal` becomes the contract's HTTP error: the body
//! `{"error":{"code","message","op"?}}` with the status of its code. `unknown_node` is
//! 404 for a read and 400 inside a batch; [`InBatch`] says which.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use canopy_protocol::{ErrorBody, ErrorInfo};

use crate::refusal::Refusal;

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

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        respond(self, false)
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
