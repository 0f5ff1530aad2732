//! The body of an edit request: a batch of ops, read so that a malformed op is named by
//! its index (`op_index.rs`).

use bincode::{Decode, Encode};
use serde::{Deserialize, Serialize};

use crate::ops::Op;

/// `{"ops":[...]}`: the body of `POST /rooms/{room}/edits`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Batch {
    /// The ops, checked and applied in order, all or none.
    #[serde(deserialize_with = "crate::op_index::deserialize_ops")]
    pub ops: Vec<Op>,
}
