//! The contract's error codes, their HTTP statuses, and the error body
//! `{"error":{"code","message","op"?}}`.

use bincode::{Decode, Encode};
use serde::{Deserialize, Serialize};

/// Every error code of the contract. The same codes travel in HTTP error bodies and in
/// WebSocket `error` messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    BadRequest,
    InvalidValue,
    Unauthorized,
    Forbidden,
    UnknownRoom,
    UnknownNode,
    RoomExists,
    DuplicateId,
    Cycle,
    TooLarge,
    RateLimited,
    Overloaded,
    /// (v1.1) No such route.
    NotFound,
    /// (v1.1) The route exists, but not with this method.
    MethodNotAllowed,
}

impl ErrorCode {
    /// Every code, for metrics and tests.
    pub const ALL: [ErrorCode; 14] = [
        ErrorCode::BadRequest,
        ErrorCode::InvalidValue,
        ErrorCode::Unauthorized,
        ErrorCode::Forbidden,
        ErrorCode::UnknownRoom,
        ErrorCode::UnknownNode,
        ErrorCode::RoomExists,
        ErrorCode::DuplicateId,
        ErrorCode::Cycle,
        ErrorCode::TooLarge,
        ErrorCode::RateLimited,
        ErrorCode::Overloaded,
        ErrorCode::NotFound,
        ErrorCode::MethodNotAllowed,
    ];

    /// The code as it is written on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::BadRequest => "bad_request",
            ErrorCode::InvalidValue => "invalid_value",
            ErrorCode::Unauthorized => "unauthorized",
            ErrorCode::Forbidden => "forbidden",
            ErrorCode::UnknownRoom => "unknown_room",
            ErrorCode::UnknownNode => "unknown_node",
            ErrorCode::RoomExists => "room_exists",
            ErrorCode::DuplicateId => "duplicate_id",
            ErrorCode::Cycle => "cycle",
            ErrorCode::TooLarge => "too_large",
            ErrorCode::RateLimited => "rate_limited",
            ErrorCode::Overloaded => "overloaded",
            ErrorCode::NotFound => "not_found",
            ErrorCode::MethodNotAllowed => "method_not_allowed",
        }
    }

    /// The HTTP status of the code. `unknown_node` is 404 for a read and 400 inside a
    /// batch: `in_batch` says which.
    pub fn http_status(self, in_batch: bool) -> u16 {
        match self {
            ErrorCode::BadRequest | ErrorCode::InvalidValue => 400,
            ErrorCode::Unauthorized => 401,
            ErrorCode::Forbidden => 403,
            ErrorCode::UnknownRoom => 404,
            ErrorCode::UnknownNode => {
                if in_batch {
                    400
                } else {
                    404
                }
            }
            ErrorCode::RoomExists | ErrorCode::DuplicateId | ErrorCode::Cycle => 409,
            ErrorCode::TooLarge => 413,
            ErrorCode::RateLimited => 429,
            ErrorCode::Overloaded => 503,
            ErrorCode::NotFound => 404,
            ErrorCode::MethodNotAllowed => 405,
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The inner object of an error body.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ErrorInfo {
    pub code: ErrorCode,
    pub message: String,
    /// The index (from 0) of the first bad op, when an op is at fault.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub op: Option<u32>,
}

/// `{"error":{...}}`: the body of every HTTP error.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ErrorBody {
    pub error: ErrorInfo,
}
