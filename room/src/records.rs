//! What an owner's tick hands to its cluster, as values: its records ([`ReplicaRecord`]),
//! the start a relay builds its replica from ([`ReplicaStart`]), the channel they
//! travel to the cluster's feed task ([`FeedLink`], [`FeedQueue`]), and a relay's
//! link back to the owner ([`RelayLink`]). The cluster encodes them; the room never does.
//!
//! Invariant: a feed's backlog is bounded by [`FEED_BACKLOG_BYTES`] of estimated bytes,
//! charged when a record is queued and given back when the feed task takes it.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use bincode::{Decode, Encode};
use canopy_protocol::{NodeId, Op, Transform};
use tokio::sync::mpsc;

use crate::edit::PendingEdit;

/// A room a relay cannot copy: server code animates it (update callbacks), and no
/// record carries what they change.
#[derive(Debug, Clone, thiserror::Error)]
#[error("room {0} is animated by server code (update callbacks), which a relay cannot replay")]
pub struct Animated(pub String);

/// One owner tick that applied batches, as relays replay it.
#[derive(Debug, Clone, Encode, Decode)]
pub struct ReplicaRecord {
    /// The room instance (`RoomInstance::to_header`) the record belongs to.
    pub instance: String,
    /// 1 for the instance's first record, one more for each next one.
    pub seq: u64,
    /// The owner's tick.
    pub tick: u64,
    /// When the owner's tick finished, ms since the Unix epoch.
    pub time_ms: u64,
    /// The batches the tick applied, in order, every id written in.
    pub batches: Vec<Vec<Op>>,
}

/// A node of a [`ReplicaStart`].
#[derive(Debug, Clone, Copy, Encode, Decode)]
pub struct StartNode {
    /// Its id.
    pub id: NodeId,
    /// Its parent.
    pub parent: Option<NodeId>,
    /// Its local transform.
    pub local: Transform,
    /// Its box's half extents.
    pub extent: [f32; 3],
    /// Its layers.
    pub mask: u32,
}

/// What a relay builds its replica from: the owner's state after record `seq`.
#[derive(Debug, Clone, Encode, Decode)]
pub struct ReplicaStart {
    /// The room instance.
    pub instance: String,
    /// The room's tick rate.
    pub tick_hz: u32,
    /// The last record this state includes (0: none yet).
    pub seq: u64,
    /// Its tick and time.
    pub tick: u64,
    /// When that tick finished.
    pub time_ms: u64,
    /// Every live node, parents before children.
    pub nodes: Vec<StartNode>,
    /// Ids retired for good, as ranges.
    pub retired: Vec<(NodeId, NodeId)>,
    /// The id counter.
    pub next_id: u64,
    /// The room's editor and viewer tokens, so the relay checks access as the owner
    /// does (cluster traffic is trusted, see docs/cluster.md).
    /// Their digests ([`crate::tokens::TokenDigest::to_stored`]), never the tokens.
    pub tokens: Option<(String, String)>,
}

/// One record on its way to the journal and the bus (which encode it).
#[derive(Debug)]
pub struct FedRecord {
    /// How many ops its batches hold (for the journal's compaction).
    pub ops: usize,
    /// What the backlog counts for it ([`FedRecord::cost`]), given back when the feed
    /// takes it.
    pub cost: usize,
    /// The record.
    pub record: ReplicaRecord,
}

impl FedRecord {
    /// What a record is charged against [`FEED_BACKLOG_BYTES`]: its ops at the log's
    /// estimate per op, plus its header. An estimate, so that the room need not encode
    /// what the cluster will encode once.
    pub fn cost(ops: usize) -> usize {
        64 + ops * crate::applied::LOGGED_BYTES_PER_OP
    }
}

/// The owner's side: where a room's records go, set once cluster mode takes the room.
#[derive(Debug)]
pub struct FeedLink {
    /// Records for the journal and the bus, in order. Unbounded in count; bounded in
    /// estimated bytes by `queued` against [`FEED_BACKLOG_BYTES`].
    pub tx: mpsc::UnboundedSender<FedRecord>,
    /// Bytes sent and not yet taken by the feed task.
    pub queued: Arc<std::sync::atomic::AtomicUsize>,
}

/// The receiving side of a room's feed: what the cluster's feed task takes its records
/// from, counting each off `queued` as it does.
#[derive(Debug)]
pub struct FeedQueue {
    /// The records, in order.
    pub rx: mpsc::UnboundedReceiver<FedRecord>,
    /// What the records still queued cost against [`FEED_BACKLOG_BYTES`].
    pub queued: Arc<std::sync::atomic::AtomicUsize>,
}

/// A new feed: the link a room is made with, and the queue its feed task reads.
pub fn feed_channel() -> (FeedLink, FeedQueue) {
    let (tx, rx) = mpsc::unbounded_channel();
    let queued = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let link = FeedLink {
        tx,
        queued: Arc::clone(&queued),
    };
    (link, FeedQueue { rx, queued })
}

/// How far the bus may fall behind a room's ticks, in bytes. Past it, a record of a
/// room not journaled is dropped (relays see the gap and start again), and a
/// journaled room's journal is failed: nothing is acknowledged that cannot be stored.
/// A lease lasts seconds, and a room whose journal stalls stops taking edits once it
/// lapses, so in practice this is reached only by a NATS server that takes messages
/// far slower than the room makes them.
pub const FEED_BACKLOG_BYTES: usize = 256 << 20;

/// The relay's side: where its connections' edits go, and its wish to tick early.
#[derive(Debug)]
pub struct RelayLink {
    /// Edits for the owner, taken by the cluster's forwarder in order.
    pub upstream: mpsc::Sender<PendingEdit>,
    /// Set with a record or an answer waiting: the tick thread runs the room now
    /// rather than at its next period.
    pub early: AtomicBool,
}
