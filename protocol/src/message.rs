//! WebSocket messages in both directions, tagged by `"type"` in JSON.
//!
//! A connection starts unsubscribed; `subscribe` answers a `snapshot`, then `delta`
//! frames follow after every tick that changed something in scope.

use bincode::{Decode, Encode};
use serde::{Deserialize, Serialize};

use crate::error::ErrorCode;
use crate::model::{Node, NodeId, UpdateRow, all_layers};
use crate::ops::Op;
use crate::query::{Hits, Query};

/// The closed box of a region subscription.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Region {
    #[cfg_attr(feature = "openapi", schema(min_items = 3, max_items = 3))]
    pub min: [f32; 3],
    #[cfg_attr(feature = "openapi", schema(min_items = 3, max_items = 3))]
    pub max: [f32; 3],
}

/// Client to server.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientMsg {
    /// Start or change the subscription; `region: null` (or absent) is the whole room.
    Subscribe {
        #[serde(default)]
        region: Option<Region>,
        #[serde(default = "all_layers")]
        mask: u32,
    },
    Unsubscribe,
    /// An edit batch, answered by `ack` or `error` with the same `seq`.
    Edits {
        seq: u64,
        ops: Vec<Op>,
    },
    /// A query, answered by `query_result` (or `error`) with the same `id`.
    Query {
        id: u64,
        query: Query,
    },
    Ping {
        nonce: u64,
    },
}

/// Server to client.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMsg {
    /// Every node in scope, answering a `subscribe`. `time`: milliseconds since the Unix
    /// epoch when the tick finished.
    Snapshot {
        tick: u64,
        time: u64,
        nodes: Vec<Node>,
    },
    /// What changed in scope in a tick (or, merged, in several ticks up to `tick`).
    Delta {
        tick: u64,
        time: u64,
        upsert: Vec<Node>,
        update: Vec<UpdateRow>,
        remove: Vec<NodeId>,
    },
    Ack {
        seq: u64,
        tick: u64,
        ids: Vec<NodeId>,
    },
    /// An error. `seq` is set when it answers an `edits` message, `id` when it answers a
    /// `query`; neither when the message itself could not be read.
    Error {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seq: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<u64>,
        code: ErrorCode,
        message: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        op: Option<u32>,
    },
    QueryResult {
        id: u64,
        tick: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        nodes: Option<Vec<NodeId>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        hits: Option<Hits>,
    },
    Pong {
        nonce: u64,
        tick: u64,
    },
    /// Sent before the server closes the connection on purpose.
    Closed {
        reason: String,
    },
}
