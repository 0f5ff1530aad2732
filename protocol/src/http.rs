//! Request and response bodies of the HTTP API that are not shared with WebSocket
//! messages.

use bincode::{Decode, Encode};
use serde::{Deserialize, Serialize};

use crate::model::{Node, NodeId, Transform};

/// `POST /rooms` body; both fields optional.
///
/// The schema states the contract's bounds (docs/protocol.md §1) so that schema-driven clients and
/// test generators send what the server accepts; the server still checks them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CreateRoom {
    /// 1 to 64 characters of `[A-Za-z0-9_-]`; without it the server picks one.
    #[serde(default)]
    #[cfg_attr(
        feature = "openapi",
        schema(min_length = 1, max_length = 64, pattern = "^[A-Za-z0-9_-]{1,64}$")
    )]
    pub id: Option<String>,
    /// Ticks per second, 1 to 240; without it the server's default.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 240))]
    pub tick_hz: Option<u32>,
}

/// `201` answer to `POST /rooms`. The tokens are present when the server runs with an
/// admin token.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RoomCreated {
    /// The new room's id: the one asked for, or `room-N` when none was given.
    pub id: String,
    /// The room's tick rate, ticks per second (1 to 240).
    pub tick_hz: u32,
    /// A random token that may read, edit, subscribe and query in this room only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub editor_token: Option<String>,
    /// A random token that may read, subscribe and query (not edit) in this room only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub viewer_token: Option<String>,
}

/// One room in `GET /rooms`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RoomSummary {
    /// The room's id.
    pub id: String,
    /// The room's last finished tick.
    pub tick: u64,
    /// Live nodes in the room.
    pub nodes: u64,
    /// WebSocket connections currently subscribed to the room.
    pub subscribers: u64,
    /// The room's tick rate, ticks per second.
    pub tick_hz: u32,
}

/// `GET /rooms`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RoomList {
    /// Every room, sorted by id.
    pub rooms: Vec<RoomSummary>,
}

/// `GET /rooms/{room}`: the summary, the last tick's duration and more statistics.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RoomDetail {
    /// The room's id.
    pub id: String,
    /// The room's last finished tick.
    pub tick: u64,
    /// Live nodes in the room.
    pub nodes: u64,
    /// WebSocket connections currently subscribed to the room.
    pub subscribers: u64,
    /// The room's tick rate, ticks per second.
    pub tick_hz: u32,
    /// The last tick's duration in milliseconds.
    pub tick_ms: f64,
    /// The longest tick so far, in milliseconds.
    pub tick_ms_max: f64,
    /// Ticks that took longer than their period.
    pub slow_ticks: u64,
    /// World transforms recomputed by the last tick.
    pub recomputed_last_tick: u64,
    /// Edit batches applied so far.
    pub batches_applied: u64,
    /// Edit batches refused with an error so far.
    pub batches_rejected: u64,
    /// Edit batches waiting for the next tick.
    pub pending_batches: u64,
    /// Octree cells in use.
    pub octree_cells: u64,
    /// The largest number of per-node entries merged for one slow subscriber and not yet
    /// sent, over the room's life (bounded by the nodes in that subscriber's scope).
    pub pending_merge_entries_peak: u64,
    /// Frames sent to slow subscribers that merged several ticks.
    pub merged_frames: u64,
    /// The room's instance (16 hex digits, as in the WebSocket upgrade's
    /// `canopy-room-instance` header): a client that cannot read upgrade headers (a
    /// browser) learns it here before it connects, and names it in the upgrade's
    /// `instance` parameter when it resumes (docs/protocol.md, Resuming).
    #[serde(default)]
    pub instance: String,
}

/// `200` answer to `POST /rooms/{room}/edits`: the tick that applied the batch and the id
/// of every `add`, in order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct EditsResult {
    /// The tick that applied the batch.
    pub tick: u64,
    /// The id of each `add` of the batch, in order, whether given or assigned.
    pub ids: Vec<NodeId>,
}

/// `GET /rooms/{room}/nodes/{id}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct NodeDetail {
    /// The node's id.
    pub id: NodeId,
    /// The parent's id, or `null` for a root.
    pub parent: Option<NodeId>,
    /// The direct children's ids, in attachment order.
    pub children: Vec<NodeId>,
    /// The transform relative to the parent.
    pub local: Transform,
    /// The world transform (the local one composed with the parent's world transform).
    pub world: Transform,
    /// Half-sizes `[hx, hy, hz]` of the node's box; `[0, 0, 0]` is a point.
    #[cfg_attr(feature = "openapi", schema(min_items = 3, max_items = 3))]
    pub extent: [f32; 3],
    /// The node's layer bits.
    pub mask: u32,
    /// The tick whose state this is.
    pub tick: u64,
}

/// `GET /rooms/{room}/nodes`: every node at one tick.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct NodesSnapshot {
    /// The tick whose state this is.
    pub tick: u64,
    /// Every node of the room, parents before children.
    pub nodes: Vec<Node>,
}

/// One cell of a room's octree in `GET /rooms/{room}/octree` (v1.1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct OctreeCell {
    /// The low corner of the cell's loose bounds.
    #[cfg_attr(feature = "openapi", schema(min_items = 3, max_items = 3))]
    pub min: [f32; 3],
    /// The high corner of the cell's loose bounds.
    #[cfg_attr(feature = "openapi", schema(min_items = 3, max_items = 3))]
    pub max: [f32; 3],
    /// 0 for a root cell, growing by one per level.
    pub depth: u32,
    /// Objects stored in this cell itself (not in its children).
    pub objects: u32,
}

/// `GET /rooms/{room}/octree` (v1.1): every cell of the room's octree at one tick; the
/// `objects` of all cells add up to the room's node count.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct OctreeCells {
    /// The tick whose state this is.
    pub tick: u64,
    /// Every cell of the octree.
    pub cells: Vec<OctreeCell>,
}

/// `GET /healthz` (v1.1 allows more fields than the status): which server and protocol
/// version answers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Health {
    /// `"ok"`.
    pub status: String,
    /// The server's version (its crate version).
    pub version: String,
    /// The wire contract's version, `major.minor` (see [`crate::PROTOCOL_VERSION`]).
    pub protocol: String,
}

/// One node of a cluster in `GET /cluster`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ClusterNode {
    /// The node's name (`--cluster-node`).
    pub id: String,
    /// The base URL other nodes reach its HTTP at (`--cluster-url`).
    pub url: String,
    /// Rooms whose lease it holds, as the registry has it.
    pub rooms: u64,
    /// Subscribed WebSocket connections it serves, from its last heartbeat.
    pub subscribers: u64,
    /// Milliseconds since its last heartbeat was seen by the answering node.
    pub seen_ms_ago: u64,
}

/// One room's lease in `GET /cluster`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ClusterRoom {
    /// The room's id.
    pub id: String,
    /// The node that holds its lease.
    pub owner: String,
    /// The lease's epoch: the registry revision at which this owner acquired it; a
    /// later owner always has a higher one.
    pub epoch: u64,
}

/// `GET /cluster`: the cluster as the answering node sees it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ClusterView {
    /// True in cluster mode (`--nats-url`); a single server answers false and no nodes.
    pub enabled: bool,
    /// The answering node's name.
    pub node: Option<String>,
    /// The lease length every node uses, in seconds.
    pub lease_secs: u64,
    /// Every node with a live heartbeat, sorted by id.
    pub nodes: Vec<ClusterNode>,
    /// Every room with a live lease, sorted by id.
    pub rooms: Vec<ClusterRoom>,
}
