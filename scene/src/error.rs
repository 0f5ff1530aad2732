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
    /// The op's `node` does not exist (`unknown_node`).
    #[error("unknown node {0}")]
    UnknownNode(NodeId),
    /// The op's `parent` does not exist (`unknown_node`).
    #[error("unknown parent {0}")]
    UnknownParent(NodeId),
    /// An `add` whose id is live or was used before (`duplicate_id`).
    #[error("id {0} is in use or was used before")]
    DuplicateId(NodeId),
    /// A `set_parent` that would put `node` under its own descendant (`cycle`).
    #[error("moving node {node} under {parent} would make it its own ancestor")]
    Cycle {
        /// The node being moved.
        node: NodeId,
        /// The parent asked for: `node` itself or one of its descendants.
        parent: NodeId,
    },
    /// Over the node, depth or batch-walk limit, or out of unused ids (`too_large`).
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
    /// The index (from 0) of the first bad op in the batch.
    pub op: u32,
    /// What was wrong with it.
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

/// Why stored state (a snapshot, or an owner's start for a relay) could not be rebuilt
/// into a hierarchy. Its checksums passed, so the state contradicts itself: a bug, or a
/// file written by something else.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum RebuildError {
    /// The same id is listed twice.
    #[error("node {0} appears twice")]
    DuplicateNode(NodeId),
    /// A node is listed before its parent (or its parent is missing).
    #[error("node {node} comes before its parent {parent}")]
    ParentAfterChild {
        /// The node listed.
        node: NodeId,
        /// Its parent, not yet listed.
        parent: NodeId,
    },
    /// An id is listed both as a live node and as retired.
    #[error("id {0} is both live and retired")]
    LiveAndRetired(NodeId),
}
