//! What the outside world asks of a room, carried to its tick through one channel so
//! that the tick stays the only writer of the room's state.

use std::sync::Arc;

use canopy_protocol::Encoding;

use super::edit::PendingEdit;
use super::outbox::{ConnId, Outbox};
use super::scope::Scope;

/// A `subscribe` waiting for the tick: the connection, the scope it asked for, the tick
/// of the copy it says it holds (`since`) and how it wants world transforms written.
#[derive(Debug)]
pub struct SubscribeRequest {
    /// The connection's outbox, where the snapshot (or resumed delta) and later frames go.
    pub outbox: Arc<Outbox>,
    /// The region and mask the connection asked for.
    pub scope: Scope,
    /// The tick of the copy the client holds; `None`: answer with a snapshot.
    pub since: Option<u64>,
    /// How world transforms are written in this subscriber's frames.
    pub encoding: Encoding,
}

impl SubscribeRequest {
    /// A plain subscription: exact encoding, no resume.
    pub fn new(outbox: Arc<Outbox>, scope: Scope) -> Self {
        Self {
            outbox,
            scope,
            since: None,
            encoding: Encoding::Exact,
        }
    }
}

impl From<SubscribeRequest> for RoomCommand {
    fn from(req: SubscribeRequest) -> Self {
        RoomCommand::Subscribe(Box::new(req))
    }
}

/// A request to the room's tick.
#[derive(Debug)]
pub enum RoomCommand {
    /// An admitted edit batch (see [`RoomShared::submit_edits`](super::RoomShared::submit_edits)).
    Edits(PendingEdit),
    /// Start or replace a connection's subscription; answered by the next tick, and
    /// superseded by a later `Subscribe` of the same connection not yet answered.
    /// Boxed: a v1.2 scope (frustum, tiers) is several times the size of the other
    /// commands, and every slot of the room's channel would pay for it.
    Subscribe(Box<SubscribeRequest>),
    /// End a connection's subscription (and drop a `Subscribe` of it not yet answered).
    Unsubscribe {
        /// The connection whose subscription ends.
        conn: ConnId,
    },
    /// Cluster mode, at an owner: the state a relay starts its replica from.
    Capture(
        tokio::sync::oneshot::Sender<
            Result<crate::records::ReplicaStart, crate::records::Animated>,
        >,
    ),
    /// Cluster mode, at a relay: one of the owner's records to replay.
    Replicate(Box<crate::records::ReplicaRecord>),
    /// Cluster mode, at a relay: the owner's answer to a forwarded edit, sent once the
    /// replica shows its tick.
    Answer(
        super::edit::EditReply,
        Result<canopy_protocol::http::EditsResult, crate::refusal::Refusal>,
    ),
}
