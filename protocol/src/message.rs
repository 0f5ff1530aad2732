//! WebSocket messages in both directions, tagged by `"type"` in JSON.
//!
//! A connection starts unsubscribed; `subscribe` answers a `snapshot`, then `delta`
//! frames follow after every tick that changed something in scope.

use bincode::{Decode, Encode};
use serde::{Deserialize, Serialize};

use crate::compact::CompactRows;
use crate::error::ErrorCode;
use crate::interest::{Follow, Frustum, Tier};
use crate::model::{Node, NodeId, UpdateRow, all_layers};
use crate::ops::Op;
use crate::query::{Hits, Query};

/// The closed box of a region subscription.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Region {
    /// The box's low corner `[x, y, z]`, world units; at most `max` on every axis.
    #[cfg_attr(feature = "openapi", schema(min_items = 3, max_items = 3))]
    pub min: [f32; 3],
    /// The box's high corner `[x, y, z]`, world units; at least `min` on every axis.
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
///
/// Its bincode form is written by hand (`message_bincode.rs`): a `subscribe` that uses
/// none of the v1.2 fields keeps the v1.1 layout (variant 0), so that servers of v1.1
/// read it, and one that does is variant 5, with the v1.2 fields after the others.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientMsg {
    /// Start or change the subscription; `region: null` (or absent) is the whole room.
    /// At most one of `region`, `follow` and `frustum` is given; none is the whole room.
    Subscribe {
        /// The box whose intersecting nodes (by world AABB) are in scope; `None` (null or
        /// absent in JSON) is the whole room.
        #[serde(default)]
        region: Option<Region>,
        /// Only nodes with `node.mask & mask != 0` are in scope; all 32 bits by default.
        #[serde(default = "all_layers")]
        mask: u32,
        /// (v1.1) The tick of the copy of this scope the client already holds (from an
        /// earlier connection); the server answers with a resuming `delta` when it can.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        since: Option<u64>,
        /// (v1.1) How world transforms are written; `exact` by default.
        #[serde(default, skip_serializing_if = "Encoding::is_exact")]
        encoding: Encoding,
        /// (v1.2) The scope is the sphere around a node, following it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        follow: Option<Follow>,
        /// (v1.2) The scope is a camera's view volume.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        frustum: Option<Frustum>,
        /// (v1.2) At most this many frames a second (1 to the room's tick rate); changes
        /// between two sends are merged.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        send_hz: Option<u32>,
        /// (v1.2) Distance tiers: farther nodes' changes go out on every k-th send only.
        /// Empty (or absent): every in-scope change goes out on every send.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tiers: Vec<Tier>,
    },
    /// End the subscription: no more frames are sent; not answered.
    Unsubscribe,
    /// An edit batch, answered by `ack` or `error` with the same `seq`.
    Edits {
        /// Chosen by the client to match the answer to this batch; echoed in `ack`/`error`.
        seq: u64,
        /// The batch's ops, applied in order, all or none.
        #[serde(deserialize_with = "crate::op_index::deserialize_ops")]
        ops: Vec<Op>,
    },
    /// A query, answered by `query_result` (or `error`) with the same `id`.
    Query {
        /// Chosen by the client to match the answer; echoed in `query_result`/`error`.
        id: u64,
        /// The query itself (tagged by `kind` in JSON).
        query: Query,
    },
    /// A liveness probe, answered by `pong` with the same `nonce` and the room's tick.
    Ping {
        /// Chosen by the client; echoed in the `pong`.
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
            follow: None,
            frustum: None,
            send_hz: None,
            tiers: Vec::new(),
        }
    }

    /// True for a `subscribe` that uses a v1.2 field (its bincode form is variant 5).
    pub fn uses_v1_2(&self) -> bool {
        matches!(
            self,
            ClientMsg::Subscribe { follow, frustum, send_hz, tiers, .. }
                if follow.is_some() || frustum.is_some() || send_hz.is_some() || !tiers.is_empty()
        )
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
        /// The tick whose state this is (the last finished tick).
        tick: u64,
        /// Milliseconds since the Unix epoch when that tick finished.
        time: u64,
        /// Every node in scope at `tick`, in full (world transforms).
        nodes: Vec<Node>,
        /// (v1.1) For a `compact` subscriber: one absolute compact row per node of
        /// `nodes`, in the same order (see [`crate::compact`]). Absent otherwise.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        compact: Option<CompactRows>,
    },
    /// What changed in scope in a tick (or, merged, in several ticks up to `tick`).
    Delta {
        /// The tick this frame brings the client's copy up to; strictly increasing.
        tick: u64,
        /// Milliseconds since the Unix epoch when that tick finished.
        time: u64,
        /// Nodes that entered the scope or whose parent, extent or mask changed, in full.
        upsert: Vec<Node>,
        /// In-scope nodes whose world transform alone changed.
        update: Vec<UpdateRow>,
        /// Nodes that left the scope (removed or moved out of the region).
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
    /// An `edits` batch was applied (and, with persistence on, is durable).
    Ack {
        /// The `seq` of the `edits` message this answers.
        seq: u64,
        /// The tick that applied the batch.
        tick: u64,
        /// The id of each `add` of the batch, in order, whether given or assigned.
        ids: Vec<NodeId>,
    },
    /// An error. `seq` is set when it answers an `edits` message, `id` when it answers a
    /// `query`; neither when the message itself could not be read.
    Error {
        /// The `seq` of the `edits` message this refuses; absent otherwise.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seq: Option<u64>,
        /// The `id` of the `query` message this refuses; absent otherwise.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<u64>,
        /// What went wrong, as one of the contract's error codes.
        code: ErrorCode,
        /// A description for people; its wording may change.
        message: String,
        /// The index (from 0) of the batch's first bad op, when an op is at fault.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        op: Option<u32>,
    },
    /// The answer to a `query` message.
    QueryResult {
        /// The `id` of the `query` message this answers.
        id: u64,
        /// The tick whose state the query was answered against.
        tick: u64,
        /// The matching ids, ascending: set for region and sphere queries.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        nodes: Option<Vec<NodeId>>,
        /// The hits, sorted: set for ray and nearest queries.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        hits: Option<Hits>,
    },
    /// The answer to a `ping`.
    Pong {
        /// The `nonce` of the `ping` this answers.
        nonce: u64,
        /// The room's current tick.
        tick: u64,
    },
    /// Sent before the server closes the connection on purpose.
    Closed {
        /// Why, e.g. `room deleted` or `server shutting down`; also the close frame's reason.
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
