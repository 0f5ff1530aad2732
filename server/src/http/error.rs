//! The one place where the typed errors of every layer become the contract's error
//! bodies: `{"error":{"code","message","op"?}}` with the status of the code.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use canopy_protocol::{ErrorBody, ErrorCode, ErrorInfo};

use crate::registry::RegistryError;
use crate::room::EditFailure;
use crate::room::query::QueryError;

/// An error answer of the HTTP API.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    pub code: ErrorCode,
    pub message: String,
    pub op: Option<u32>,
    /// Inside an edit batch `unknown_node` is 400, for a read 404.
    pub in_batch: bool,
}

impl ApiError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            op: None,
            in_batch: false,
        }
    }

    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::BadRequest, message)
    }

    pub fn too_large(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::TooLarge, message)
    }

    /// The body the contract gives this error.
    pub fn body(&self) -> ErrorBody {
        ErrorBody {
            error: ErrorInfo {
                code: self.code,
                message: self.message.clone(),
                op: self.op,
            },
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.code.http_status(self.in_batch))
            .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        (status, Json(self.body())).into_response()
    }
}

impl From<RegistryError> for ApiError {
    fn from(e: RegistryError) -> Self {
        ApiError::new(e.code(), e.to_string())
    }
}

impl From<EditFailure> for ApiError {
    fn from(e: EditFailure) -> Self {
        ApiError {
            code: e.code,
            message: e.message,
            op: e.op,
            in_batch: true,
        }
    }
}

impl From<QueryError> for ApiError {
    fn from(e: QueryError) -> Self {
        ApiError::new(e.code(), e.to_string())
    }
}
