//! WebSocket messages in both directions, tagged by `"type"` in JSON.
//!
//! A connection starts unsubscribed; `subscribe` answers a `snapshot`, then `delta`
//! frames follow after every tick that changed something in scope.

use bincode::{Decode, Encode};
use serde::{Deserialize, Serialize};

use crate::compact::CompactRows;
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

/// How a subscriber wants world transforms written in its `snapshot` and `delta` frames
/// (v1.1). `compact` applies to bincode connections only; a JSON connection always gets
/// exact values.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, Encode, Decode,
)]
#[serde(rename_all = "snake_case")]
pub enum Encoding {
    /// Every world transform as eight `f32`s (the default).
    #[default]
    Exact,
    /// Quantized world transforms, delta-coded per connection: see [`crate::compact`].
    Compact,
}

impl Encoding {
    fn is_exact(&self) -> bool {
        *self == Encoding::Exact
    }
}

fn is_false(b: &bool) -> bool {
    !*b
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
        /// (v1.1) The tick of the copy of this scope the client already holds (from an
        /// earlier connection); the server answers with a resuming `delta` when it can.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        since: Option<u64>,
        /// (v1.1) How world transforms are written; `exact` by default.
        #[serde(default, skip_serializing_if = "Encoding::is_exact")]
        encoding: Encoding,
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

impl ClientMsg {
    /// A `subscribe` to `region` (`None`: the whole room) with `mask`, exact encoding and
    /// no resume.
    pub fn subscribe(region: Option<Region>, mask: u32) -> ClientMsg {
        ClientMsg::Subscribe {
            region,
            mask,
            since: None,
            encoding: Encoding::Exact,
        }
    }
}

/// Server to client.
///
/// Construct the two frames with [`ServerMsg::snapshot`] and [`ServerMsg::delta`], which
/// fill in the v1.1 fields with their defaults (no resume, exact encoding).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMsg {
    /// Every node in scope, answering a `subscribe`. `time`: milliseconds since the Unix
    /// epoch when the tick finished.
    Snapshot {
        tick: u64,
        time: u64,
        nodes: Vec<Node>,
        /// (v1.1) For a `compact` subscriber: one absolute compact row per node of
        /// `nodes`, in the same order (see [`crate::compact`]). Absent otherwise.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        compact: Option<CompactRows>,
    },
    /// What changed in scope in a tick (or, merged, in several ticks up to `tick`).
    Delta {
        tick: u64,
        time: u64,
        upsert: Vec<Node>,
        update: Vec<UpdateRow>,
        remove: Vec<NodeId>,
        /// (v1.1) True when this delta answers a `subscribe` with `since`: it brings the
        /// client's copy from that tick up to this one, instead of a snapshot.
        #[serde(default, skip_serializing_if = "is_false")]
        resumed: bool,
        /// (v1.1) For a `compact` subscriber: the compact rows of this frame (one absolute
        /// row per `upsert` node, then the changed world transforms, which `update` then
        /// leaves out). Absent otherwise.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        compact: Option<CompactRows>,
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

impl ServerMsg {
    /// An exact `snapshot`.
    pub fn snapshot(tick: u64, time: u64, nodes: Vec<Node>) -> ServerMsg {
        ServerMsg::Snapshot {
            tick,
            time,
            nodes,
            compact: None,
        }
    }

    /// An exact, not resumed `delta`.
    pub fn delta(
        tick: u64,
        time: u64,
        upsert: Vec<Node>,
        update: Vec<UpdateRow>,
        remove: Vec<NodeId>,
    ) -> ServerMsg {
        ServerMsg::Delta {
            tick,
            time,
            upsert,
            update,
            remove,
            resumed: false,
            compact: None,
        }
    }
}
