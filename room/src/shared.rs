//! [`RoomShared`]: the part of a room that other tasks and threads hold. Its identity,
//! its scene behind a lock (written only by the room's tick), its statistics, the
//! admission of edit batches and subscriptions, and the signal that the room is gone.
//!
//! Invariants: a batch is queued only within the room's and its connection's pending
//! limits (in batches and in ops), checked and counted before it is sent, so a flood is
//! refused within microseconds instead of growing a queue; once [`RoomShared::is_closed`]
//! is true nothing new is accepted, and every task holding the room sees
//! [`RoomShared::closed`] complete.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, OnceLock};

use canopy_protocol::{ErrorCode, Op};
use parking_lot::RwLock;
use tokio_util::sync::CancellationToken;

use super::command::RoomCommand;
use super::edit::{EditQuota, EditReply, EditTicket, PendingEdit};
use super::gate::DurableGate;
use super::packed_ops::PackedOps;
use super::scene_state::SceneState;
use super::stats::RoomStats;
use crate::close::CloseCause;
use crate::refusal::Refusal;
use crate::tokens::RoomTokens;

/// How much may wait for a room's tick (docs/protocol.md leaves it to the server;
/// docs/configuration.md lists the flags).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EditLimits {
    /// Batches waiting in one room.
    pub max_pending_batches: usize,
    /// Ops waiting in one room, over all its batches.
    pub max_pending_ops: usize,
    /// Ops one editor (the quota a batch is admitted under: its caller's, across its
    /// connections and requests) may have waiting, so one editor cannot take the whole
    /// room's budget.
    pub max_pending_ops_per_conn: usize,
}

impl EditLimits {
    /// The flags' defaults: 4,096 batches, 1,048,576 ops per room, 524,288 per connection.
    pub const DEFAULT: EditLimits = EditLimits {
        max_pending_batches: 4096,
        max_pending_ops: 1 << 20,
        max_pending_ops_per_conn: 1 << 19,
    };
}

impl Default for EditLimits {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// Commands other than edits (subscription changes, cluster records and answers) that
/// may wait in one room's channel. Subscription changes are coalesced to one per
/// connection (`command.rs`), so this is a backstop far above what clients reach: a room
/// has at most `--max-ws-per-room` of them waiting.
pub const MAX_QUEUED_COMMANDS: usize = 1 << 16;

/// Wakes the thread that ticks a room.
pub(crate) struct Waker(Box<dyn Fn() + Send + Sync>);

impl std::fmt::Debug for Waker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Waker")
    }
}

/// The shared half of a room.
#[derive(Debug)]
pub struct RoomShared {
    /// The room's id.
    pub id: String,
    /// Its tick rate, ticks per second (1 to 240).
    pub tick_hz: u32,
    /// This room's instance (see [`canopy_protocol::ROOM_INSTANCE_HEADER`]): random, so a
    /// room created again under the same id, or on another server, has another one.
    pub instance: RoomInstance,
    /// What a connection's writer must wait for before sending acks, frames and
    /// snapshots of a logged room (see `durable.rs`); open for rooms kept in memory.
    pub gate: Arc<DurableGate>,
    /// Written only by the room's tick; everybody else takes read locks (a
    /// `parking_lot` lock: readers never hold it across an await, and the tick holds the
    /// write side only while the scene changes).
    pub scene: RwLock<SceneState>,
    /// The room's running statistics, readable without the scene lock.
    pub stats: RoomStats,
    /// The room's editor and viewer tokens, when the server has an admin token.
    pub tokens: Option<RoomTokens>,
    /// Open WebSocket connections of this room (subscribed or not), for the cap.
    pub connections: AtomicUsize,
    /// Until when this server may take edits for the room (cluster mode: its lease in
    /// the registry; otherwise forever).
    pub lease: super::lease::LeaseClock,
    /// Cluster mode, at a relay: where a replica's edits go (a replica takes no edits of
    /// its own); `None` for the room itself. Fixed when the room is made.
    pub relay: Option<crate::records::RelayLink>,
    /// Whether the room's records go to a cluster feed (it is owned by this node in a
    /// cluster). Fixed when the room is made.
    pub feeds: bool,
    /// Outboxes the tick filled for the WebSocket edge's flushers to write.
    pub flush: Arc<super::flush::FlushQueue>,
    commands: Sender<RoomCommand>,
    limits: EditLimits,
    pending_batches: AtomicUsize,
    pending_ops: AtomicUsize,
    /// Commands other than edits in the channel (bounded by [`MAX_QUEUED_COMMANDS`]).
    queued_commands: AtomicUsize,
    closed: CancellationToken,
    /// Why the room was closed, set once by the first [`RoomShared::mark_closed`]: the
    /// tick thread and the sessions close their subscribers with it, so that a room
    /// moving to another node never tells them it was deleted.
    close_cause: OnceLock<CloseCause>,
    /// Wakes the thread that ticks this room (set when the room is placed on one), so a
    /// deletion takes effect without waiting for the next tick of a slow room.
    wake: OnceLock<Waker>,
}

/// What a room's shared handle is made of, all fixed when the room is made.
pub(crate) struct SharedParts {
    pub id: String,
    pub tick_hz: u32,
    pub instance: RoomInstance,
    pub scene: SceneState,
    pub tokens: Option<RoomTokens>,
    pub limits: EditLimits,
    pub commands: Sender<RoomCommand>,
    pub gate: Arc<DurableGate>,
    pub relay: Option<crate::records::RelayLink>,
    pub feeds: bool,
}

impl RoomShared {
    pub(crate) fn new(parts: SharedParts) -> Self {
        let SharedParts {
            id,
            tick_hz,
            instance,
            scene,
            tokens,
            limits,
            commands,
            gate,
            relay,
            feeds,
        } = parts;
        RoomShared {
            id,
            tick_hz,
            instance,
            gate,
            scene: RwLock::new(scene),
            stats: RoomStats::default(),
            tokens,
            connections: AtomicUsize::new(0),
            lease: super::lease::LeaseClock::unbounded(),
            relay,
            feeds,
            flush: Arc::default(),
            commands,
            limits,
            pending_batches: AtomicUsize::new(0),
            pending_ops: AtomicUsize::new(0),
            queued_commands: AtomicUsize::new(0),
            closed: CancellationToken::new(),
            close_cause: OnceLock::new(),
            wake: OnceLock::new(),
        }
    }

    /// Queues an edit batch whose answer nobody waits for (benchmarks, tests, tools
    /// driving a room directly): [`RoomShared::submit_edits`] with a reply that is
    /// dropped, no ticket to cancel and no connection quota.
    pub fn submit_unanswered(&self, ops: Vec<Op>) -> Result<(), Refusal> {
        let (tx, _unread) = tokio::sync::oneshot::channel();
        let ticket = Arc::new(EditTicket::default());
        self.submit_edits(ops, EditReply::Oneshot(tx), ticket, None)
    }

    /// Queues an edit batch for the room's tick, or refuses it at once: as
    /// [`RoomShared::closed_refusal`] once the room is closed, `overloaded` when the room or the connection (`quota`)
    /// already has as much waiting as its limits allow.
    pub fn submit_edits(
        &self,
        ops: Vec<Op>,
        reply: EditReply,
        ticket: Arc<EditTicket>,
        quota: Option<Arc<EditQuota>>,
    ) -> Result<(), Refusal> {
        if self.is_closed() {
            return Err(self.closed_refusal());
        }
        if let Some(why) = self.gate.failure() {
            return Err(Refusal::overloaded(format!(
                "edits are refused: the storage failed ({why}); reads and subscriptions \
                 go on, and a restart recovers every acknowledged batch"
            )));
        }
        if !self.lease.writable() {
            return Err(self.lease_lapsed());
        }
        let cost = ops.len().max(1);
        let l = self.limits;
        if let Some(q) = &quota {
            let held = q.ops.fetch_add(cost, Ordering::AcqRel);
            if held > 0 && held + cost > l.max_pending_ops_per_conn {
                q.ops.fetch_sub(cost, Ordering::AcqRel);
                return Err(Refusal::overloaded(format!(
                    "this editor has {held} ops waiting for room {}'s tick (limit {} per \
                     caller, over all its connections and requests)",
                    self.id, l.max_pending_ops_per_conn
                )));
            }
            q.batches.fetch_add(1, Ordering::AcqRel);
        }
        let batches = self.pending_batches.fetch_add(1, Ordering::AcqRel);
        let held = self.pending_ops.fetch_add(cost, Ordering::AcqRel);
        let refused = if batches >= l.max_pending_batches {
            Some(format!(
                "room {} has {batches} edit batches waiting for its tick (limit {})",
                self.id, l.max_pending_batches
            ))
        } else if held > 0 && held + cost > l.max_pending_ops {
            Some(format!(
                "room {} has {held} ops waiting for its tick (limit {})",
                self.id, l.max_pending_ops
            ))
        } else {
            None
        };
        if let Some(message) = refused {
            self.release_cost(cost, quota.as_deref());
            return Err(Refusal::overloaded(message));
        }
        // Packed while it waits, and the decoded list freed here, on the thread that
        // allocated it (a pending op takes a fraction of its decoded 64 bytes).
        let packed = PackedOps::pack(&ops);
        drop(ops);
        let edit = PendingEdit {
            ops: packed,
            reply,
            ticket,
            quota,
        };
        if let Some(relay) = self.relay.as_ref() {
            // A replica: the batch goes to the owner, whose forwarder releases it.
            return match relay.upstream.try_send(edit) {
                Ok(()) => Ok(()),
                Err(e) => {
                    let edit = e.into_inner();
                    self.release(&edit);
                    Err(Refusal::overloaded(format!(
                        "room {}'s owner is behind with this node's edits",
                        self.id
                    )))
                }
            };
        }
        if let Err(e) = self.commands.send(RoomCommand::Edits(edit)) {
            let RoomCommand::Edits(edit) = e.0 else {
                unreachable!("the command sent was an edit")
            };
            self.release(&edit);
            return Err(self.closed_refusal());
        }
        Ok(())
    }

    /// True for a relay's replica of a room another node owns.
    pub fn is_replica(&self) -> bool {
        self.relay.as_ref().is_some()
    }

    /// A relay asks its tick thread to run it now: a record or an answer waits.
    pub fn wake_early(&self) {
        if let Some(relay) = self.relay.as_ref() {
            relay.early.store(true, Ordering::Release);
        }
        self.wake();
    }

    /// Whether the room asked to run before its next period (and forgets the wish).
    pub fn take_early(&self) -> bool {
        self.relay
            .as_ref()
            .is_some_and(|r| r.early.swap(false, Ordering::AcqRel))
    }

    /// The refusal of an edit while this server holds no valid lease on the room.
    pub(crate) fn lease_lapsed(&self) -> Refusal {
        Refusal::overloaded(format!(
            "this server's lease on room {} has lapsed (the cluster registry could not be \
             reached in time, or another node owns the room now); the edit is not applied",
            self.id
        ))
    }

    /// Stops counting a batch that left the queue (taken by the tick, or refused).
    pub fn release(&self, edit: &PendingEdit) {
        self.release_cost(edit.cost(), edit.quota.as_deref());
    }

    fn release_cost(&self, cost: usize, quota: Option<&EditQuota>) {
        self.pending_batches.fetch_sub(1, Ordering::AcqRel);
        self.pending_ops.fetch_sub(cost, Ordering::AcqRel);
        if let Some(q) = quota {
            q.batches.fetch_sub(1, Ordering::AcqRel);
            q.ops.fetch_sub(cost, Ordering::AcqRel);
        }
    }

    /// Sends a command other than edits; false when the room has stopped or already has
    /// [`MAX_QUEUED_COMMANDS`] of them waiting (the channel's bound: edits have their
    /// own, the pending budgets).
    pub fn send(&self, cmd: RoomCommand) -> bool {
        if self.is_closed() {
            return false;
        }
        let queued = self.queued_commands.fetch_add(1, Ordering::AcqRel);
        if queued >= MAX_QUEUED_COMMANDS || self.commands.send(cmd).is_err() {
            self.queued_commands.fetch_sub(1, Ordering::AcqRel);
            return false;
        }
        true
    }

    /// The tick took a command other than edits off the channel.
    pub(crate) fn command_taken(&self) {
        self.queued_commands.fetch_sub(1, Ordering::AcqRel);
    }

    /// Commands other than edits waiting for the tick.
    pub fn queued_commands(&self) -> usize {
        self.queued_commands.load(Ordering::Acquire)
    }

    /// Edit batches waiting for the next tick.
    pub fn pending_batches(&self) -> usize {
        self.pending_batches.load(Ordering::Acquire)
    }

    /// Ops waiting for the next tick.
    pub fn pending_ops(&self) -> usize {
        self.pending_ops.load(Ordering::Acquire)
    }

    /// True once the room is deleted or stopped: nothing new is accepted.
    pub fn is_closed(&self) -> bool {
        self.closed.is_cancelled()
    }

    /// Completes once the room is deleted or stopped.
    pub fn closed(&self) -> tokio_util::sync::WaitForCancellationFuture<'_> {
        self.closed.cancelled()
    }

    /// Why the room was closed (deleted when nothing said otherwise); meaningful once
    /// [`RoomShared::is_closed`].
    pub fn close_cause(&self) -> CloseCause {
        self.close_cause
            .get()
            .copied()
            .unwrap_or(CloseCause::RoomDeleted)
    }

    /// The refusal of a request that finds the room closed, so never applied: only a
    /// deleted room is `unknown_room`; one that moves on (or a replica that lost its
    /// owner) lives on elsewhere, so the request is `overloaded`: try again.
    pub fn closed_refusal(&self) -> Refusal {
        let id = &self.id;
        match self.close_cause() {
            CloseCause::RoomDeleted => {
                Refusal::new(ErrorCode::UnknownRoom, format!("room {id} was deleted"))
            }
            CloseCause::Moving | CloseCause::ReplicaLost => Refusal::overloaded(format!(
                "room {id} is moving between nodes; nothing was applied: try again"
            )),
            other => Refusal::overloaded(format!(
                "room {id} stopped ({}); nothing was applied",
                other.reason()
            )),
        }
    }

    /// Marks the room closed for `cause` (deleted, moving to another node, a replica
    /// that lost its owner, the server stopping): nothing new is accepted and its tick
    /// thread is woken to answer what waits and close its subscribers with that cause.
    /// The first cause given stays.
    pub fn mark_closed(&self, cause: CloseCause) {
        let _ = self.close_cause.set(cause);
        self.flush.close();
        self.closed.cancel();
        self.wake();
    }

    /// Wakes the room's tick thread, if it has one yet.
    pub fn wake(&self) {
        if let Some(w) = self.wake.get() {
            (w.0)();
        }
    }

    pub(crate) fn set_waker(&self, waker: Box<dyn Fn() + Send + Sync>) {
        let _ = self.wake.set(Waker(waker));
    }
}

/// The identity of one room's timeline of ticks, written as 16 hex digits in the
/// WebSocket upgrade's [`canopy_protocol::ROOM_INSTANCE_HEADER`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoomInstance(u64);

impl Drop for RoomShared {
    fn drop(&mut self) {
        // Flusher tasks hold the queue, not the room: end them however the room goes.
        self.flush.close();
    }
}

impl RoomInstance {
    /// A fresh random instance. `RandomState` is seeded from the OS once per process
    /// and stepped per call, so no extra dependency is needed for 64 unguessable-enough
    /// bits (they only tell timelines apart; they are not a secret).
    pub(crate) fn random() -> Self {
        use std::hash::{BuildHasher, Hasher};
        static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos()),
        );
        RoomInstance(h.finish())
    }

    /// The header value: 16 lower-case hex digits.
    pub fn to_header(self) -> String {
        format!("{:016x}", self.0)
    }

    /// Reads the header form back: exactly 16 hex digits (either case).
    pub fn parse(text: &str) -> Option<Self> {
        (text.len() == 16 && text.bytes().all(|b| b.is_ascii_hexdigit()))
            .then(|| u64::from_str_radix(text, 16).ok().map(RoomInstance))
            .flatten()
    }
}
