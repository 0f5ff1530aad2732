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
    /// `bad_request` (400): a malformed body or message, a missing field, an unknown op,
    /// an invalid room id.
    BadRequest,
    /// `invalid_value` (400): a number out of its allowed range, NaN or infinite.
    InvalidValue,
    /// `unauthorized` (401): no token, or an expired one.
    Unauthorized,
    /// `forbidden` (403): a wrong token, or one without the right (a viewer editing,
    /// another room).
    Forbidden,
    /// `unknown_room` (404): no such room.
    UnknownRoom,
    /// `unknown_node` (404 for a read, 400 inside a batch): no such node.
    UnknownNode,
    /// `room_exists` (409): `POST /rooms` with an id in use.
    RoomExists,
    /// `duplicate_id` (409): an `add` with an id in use or used before.
    DuplicateId,
    /// `cycle` (409): a `set_parent` that would make a node its own ancestor.
    Cycle,
    /// `too_large` (413): over a size, count or answer limit.
    TooLarge,
    /// `rate_limited` (429): over the query rate.
    RateLimited,
    /// `overloaded` (503): over a capacity limit, or a request that took too long.
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
    /// What went wrong; also decides the HTTP status.
    pub code: ErrorCode,
    /// A description for people; its wording may change.
    pub message: String,
    /// The index (from 0) of the first bad op, when an op is at fault.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub op: Option<u32>,
}

/// `{"error":{...}}`: the body of every HTTP error.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ErrorBody {
    /// The error itself.
    pub error: ErrorInfo,
}
