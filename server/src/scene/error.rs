//! The scene core's error types and the mapping of each to a wire [`ErrorCode`].
//!
//! Every rejection names what was wrong in words (the node, the field, the limit), so
//! that the message can go to the client as it is.

use canopy_protocol::{ErrorCode, NodeId};
use thiserror::Error;

/// Why a single edit was refused (library calls such as
/// [`Hierarchy::set_local`](super::Hierarchy::set_local)).
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum SceneError {
    /// NaN or infinity, a scale `<= 0`, a negative extent, a quaternion of length below
    /// 1e-6, or an edit whose world transform would leave the finite range.
    #[error("invalid value: {0}")]
    InvalidValue(String),
    #[error("unknown node {0}")]
    UnknownNode(NodeId),
    #[error("unknown parent {0}")]
    UnknownParent(NodeId),
    #[error("id {0} is in use or was used before")]
    DuplicateId(NodeId),
    #[error("moving node {node} under {parent} would make it its own ancestor")]
    Cycle { node: NodeId, parent: NodeId },
    #[error("too large: {0}")]
    TooLarge(String),
}

impl SceneError {
    /// The wire code of the error (docs/protocol.md §2).
    pub fn code(&self) -> ErrorCode {
        match self {
            SceneError::InvalidValue(_) => ErrorCode::InvalidValue,
            SceneError::UnknownNode(_) | SceneError::UnknownParent(_) => ErrorCode::UnknownNode,
            SceneError::DuplicateId(_) => ErrorCode::DuplicateId,
            SceneError::Cycle { .. } => ErrorCode::Cycle,
            SceneError::TooLarge(_) => ErrorCode::TooLarge,
        }
    }
}

/// Why a batch was refused: the index of the first bad op and what was wrong with it.
/// Displayed as `"op 3: unknown node 17"`.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("op {op}: {error}")]
pub struct BatchError {
    pub op: u32,
    pub error: SceneError,
}

impl BatchError {
    pub(crate) fn at(op: usize, error: SceneError) -> BatchError {
        BatchError {
            op: op as u32,
            error,
        }
    }

    /// The wire code of the first bad op's error.
    pub fn code(&self) -> ErrorCode {
        self.error.code()
    }
}
