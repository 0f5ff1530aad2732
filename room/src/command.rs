//! What the outside world asks of a room, carried to its tick through one channel so
//! that the tick stays the only writer of the room's state.
//!
//! Invariant: a connection has at most one subscription command on its way to the room:
//! its `subscribe`s and `unsubscribe`s are coalesced in its [`SubscriptionSlot`] (only
//! the last one matters, since a newer one replaces an older one not yet answered), and
//! the slot is sent only when it turns from empty to full. With edits counted against
//! the pending budgets, what waits in the channel is bounded by the room's connections
//! and its pending batches, however fast a client sends.

use std::sync::Arc;

use canopy_protocol::Encoding;

use super::budget::CallerId;
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
    /// Who asked: its snapshot is charged to this caller's share of the unsent
    /// snapshot bytes.
    pub caller: CallerId,
}

impl SubscribeRequest {
    /// A plain subscription: exact encoding, no resume.
    pub fn new(outbox: Arc<Outbox>, scope: Scope) -> Self {
        Self {
            outbox,
            scope,
            since: None,
            encoding: Encoding::Exact,
            caller: CallerId::of("addr:local"),
        }
    }
}

/// What a connection last asked of its subscription.
#[derive(Debug)]
pub enum Intent {
    /// Start or replace the subscription (boxed, as in [`RoomCommand::Subscribe`]).
    Subscribe(Box<SubscribeRequest>),
    /// End it.
    Unsubscribe(ConnId),
}

/// A connection's latest subscription [`Intent`], not yet taken by the room.
#[derive(Debug, Default)]
pub struct SubscriptionSlot {
    latest: parking_lot::Mutex<Option<Intent>>,
}

impl SubscriptionSlot {
    /// Replaces what waits with `intent`; true when the slot was empty, and then the
    /// caller sends it to the room ([`RoomCommand::Subscription`]); otherwise a command
    /// carrying the slot is already on its way and will find the new intent.
    pub fn put(&self, intent: Intent) -> bool {
        self.latest.lock().replace(intent).is_none()
    }

    /// Takes what waits (the room, when the slot's command arrives).
    pub fn take(&self) -> Option<Intent> {
        self.latest.lock().take()
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
    /// A connection's coalesced subscription change: the room applies what the slot
    /// holds when the command arrives.
    Subscription(Arc<SubscriptionSlot>),
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
