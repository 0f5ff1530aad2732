//! [`Refusal`]: the one shape every refused request takes on its way to a client, built
//! by `From` from each layer's typed error and turned into the contract's answer in one
//! place per edge (an HTTP error body in the server's `http/error.rs`, a WebSocket `error` message by
//! [`Refusal::to_ws`]).
//!
//! Invariant: a refusal's message is written for people and never carries a token; its
//! code is one of the contract's (docs/protocol.md §3), and `op` is set only when an op of a batch
//! is at fault.

use canopy_protocol::{ErrorCode, ServerMsg};

use canopy_scene::{BatchError, SceneError};

/// A refused request: the contract's code, a message for people and, for a batch, the
/// index of the first bad op.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Refusal {
    /// The contract's error code (its HTTP status goes with it).
    pub code: ErrorCode,
    /// What went wrong, for people.
    pub message: String,
    /// The index of the batch's first bad op, when an op is at fault.
    pub op: Option<u32>,
}

impl Refusal {
    /// A refusal with `code` and `message`, naming no op.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            op: None,
        }
    }

    /// `bad_request`: malformed or missing input.
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::BadRequest, message)
    }

    /// `invalid_value`: a value out of its range.
    pub fn invalid_value(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidValue, message)
    }

    /// `too_large`: over a size or count limit.
    pub fn too_large(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::TooLarge, message)
    }

    /// `overloaded`: a budget is full or a deadline passed; try again later.
    pub fn overloaded(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Overloaded, message)
    }

    /// `unknown_room` for `room`.
    pub fn unknown_room(room: &str) -> Self {
        Self::new(ErrorCode::UnknownRoom, format!("no room {room}"))
    }

    /// The WebSocket `error` message of this refusal, answering the `edits` with `seq`
    /// or the `query` with `id` when there is one.
    pub fn to_ws(&self, seq: Option<u64>, id: Option<u64>) -> ServerMsg {
        ServerMsg::Error {
            seq,
            id,
            code: self.code,
            message: self.message.clone(),
            op: self.op,
        }
    }
}

impl From<BatchError> for Refusal {
    fn from(e: BatchError) -> Self {
        Refusal {
            code: e.code(),
            message: e.to_string(),
            op: Some(e.op),
        }
    }
}

impl From<SceneError> for Refusal {
    fn from(e: SceneError) -> Self {
        Refusal::new(e.code(), e.to_string())
    }
}

impl From<canopy_protocol::DecodeError> for Refusal {
    fn from(e: canopy_protocol::DecodeError) -> Self {
        Refusal {
            op: e.op(),
            ..Refusal::new(e.code(), e.to_string())
        }
    }
}

impl From<crate::query::QueryError> for Refusal {
    fn from(e: crate::query::QueryError) -> Self {
        Refusal::new(e.code(), e.to_string())
    }
}
