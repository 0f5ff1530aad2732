//! Rooms: an independent world each, with its scene, its subscribers and its tick.
//!
//! A [`Room`] is plain synchronous state driven by [`Room::handle`] (commands as they
//! arrive) and [`Room::tick`] (once per period); the async loop that calls them lives in
//! `crate::ticker`. Everything else reaches a room through its [`RoomShared`]: commands
//! go through its channel, queries take a read lock on its scene.
//!
//! **Architecture invariant**: room code never awaits or does I/O, and each room's tick
//! (with `handle`, on the same task) is the only writer of its scene.

pub mod command;
pub mod delta;
pub mod diff;
pub mod merge;
pub mod outbox;
pub mod query;
pub mod scene_state;
pub mod scope;
mod stats;
mod tick;
pub use tick::TickReport;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use canopy_protocol::message::Region;
use canopy_protocol::{ErrorCode, NodeId, ServerMsg};
use parking_lot::RwLock;
use rustc_hash::FxHashSet;
use tokio::sync::mpsc;

use crate::metrics::Metrics;
use crate::octree::OctreeConfig;
use crate::scene::HierarchyLimits;
pub use command::{EditFailure, EditReply, RoomCommand};
use delta::DeltaParts;
use diff::TickDiff;
use outbox::{ConnId, Outbox};
pub use scene_state::SceneState;
use scope::Scope;
pub use stats::RoomStats;

/// Limits and settings every room of a server shares.
#[derive(Debug, Clone)]
pub struct RoomConfig {
    /// Edit batches that may wait for a room's next tick; more answer `overloaded`.
    pub max_pending_batches: usize,
    /// Subscribers per room; more answer `overloaded`.
    pub max_subscribers: usize,
    /// Delta frames that may wait for a slow connection before its changes are merged.
    pub outbox_frames: usize,
    pub hierarchy: HierarchyLimits,
    pub octree: OctreeConfig,
}

impl Default for RoomConfig {
    fn default() -> Self {
        Self {
            max_pending_batches: 4096,
            max_subscribers: 10_000,
            outbox_frames: 8,
            hierarchy: HierarchyLimits::default(),
            octree: OctreeConfig::default(),
        }
    }
}

/// The part of a room that other tasks hold: its identity, its scene behind a lock
/// (written only by the tick), its statistics and the way to send it commands.
#[derive(Debug)]
pub struct RoomShared {
    pub id: String,
    pub tick_hz: u32,
    pub scene: RwLock<SceneState>,
    pub stats: RoomStats,
    /// The room's editor and viewer tokens, when the server has an admin token.
    pub tokens: Option<crate::access::RoomTokens>,
    commands: mpsc::UnboundedSender<RoomCommand>,
    pending_batches: AtomicUsize,
    max_pending_batches: usize,
    closed: AtomicBool,
}

impl RoomShared {
    /// Queues an edit batch for the next tick, or refuses it at once with `overloaded`
    /// when too many batches are already waiting (so a flood is refused within
    /// microseconds instead of growing a queue).
    pub fn submit_edits(
        &self,
        ops: Vec<canopy_protocol::Op>,
        reply: EditReply,
    ) -> Result<(), EditFailure> {
        if self.closed.load(Ordering::Acquire) {
            return Err(EditFailure {
                code: ErrorCode::UnknownRoom,
                message: format!("room {} was deleted", self.id),
                op: None,
            });
        }
        let waiting = self.pending_batches.fetch_add(1, Ordering::AcqRel);
        if waiting >= self.max_pending_batches {
            self.pending_batches.fetch_sub(1, Ordering::AcqRel);
            return Err(EditFailure {
                code: ErrorCode::Overloaded,
                message: format!(
                    "room {} has {waiting} edit batches waiting for its tick (limit {})",
                    self.id, self.max_pending_batches
                ),
                op: None,
            });
        }
        if self
            .commands
            .send(RoomCommand::Edits { ops, reply })
            .is_err()
        {
            self.pending_batches.fetch_sub(1, Ordering::AcqRel);
            return Err(EditFailure {
                code: ErrorCode::UnknownRoom,
                message: format!("room {} is closed", self.id),
                op: None,
            });
        }
        Ok(())
    }

    /// Sends a command other than edits; false when the room has stopped.
    pub fn send(&self, cmd: RoomCommand) -> bool {
        self.commands.send(cmd).is_ok()
    }

    /// Edit batches waiting for the next tick.
    pub fn pending_batches(&self) -> usize {
        self.pending_batches.load(Ordering::Acquire)
    }

    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    /// Marks the room deleted: new edits are refused from now on.
    pub fn mark_closed(&self) {
        self.closed.store(true, Ordering::Release);
    }
}

/// One subscribed connection, as the room sees it.
#[derive(Debug)]
struct Subscriber {
    outbox: Arc<Outbox>,
    scope: Scope,
    /// For region scopes: the ids the client holds now.
    in_scope: FxHashSet<NodeId>,
}

/// An edit batch waiting for the tick.
#[derive(Debug)]
struct PendingEdit {
    ops: Vec<canopy_protocol::Op>,
    reply: EditReply,
}

/// A room's state, owned by its task.
#[derive(Debug)]
pub struct Room {
    shared: Arc<RoomShared>,
    config: RoomConfig,
    metrics: Arc<Metrics>,
    pending: Vec<PendingEdit>,
    subscribers: Vec<Subscriber>,
    diff: TickDiff,
    parts: DeltaParts,
    stopped: bool,
}

impl Room {
    /// A new empty room at tick 0, with the receiving end of its command channel.
    pub fn new(
        id: String,
        tick_hz: u32,
        config: RoomConfig,
        metrics: Arc<Metrics>,
        tokens: Option<crate::access::RoomTokens>,
    ) -> (Room, mpsc::UnboundedReceiver<RoomCommand>) {
        let (tx, rx) = mpsc::unbounded_channel();
        let shared = Arc::new(RoomShared {
            id,
            tick_hz,
            scene: RwLock::new(SceneState::new(config.hierarchy, config.octree)),
            stats: RoomStats::default(),
            tokens,
            commands: tx,
            pending_batches: AtomicUsize::new(0),
            max_pending_batches: config.max_pending_batches,
            closed: AtomicBool::new(false),
        });
        let room = Room {
            shared,
            config,
            metrics,
            pending: Vec::new(),
            subscribers: Vec::new(),
            diff: TickDiff::default(),
            parts: DeltaParts::default(),
            stopped: false,
        };
        (room, rx)
    }

    pub fn shared(&self) -> &Arc<RoomShared> {
        &self.shared
    }

    /// True once the room was deleted or shut down; its task should end.
    pub fn is_stopped(&self) -> bool {
        self.stopped
    }

    /// Number of subscribed connections.
    pub fn subscriber_count(&self) -> usize {
        self.subscribers.len()
    }

    /// Handles one command. Edits wait for the next tick; subscriptions are answered at
    /// once with a snapshot of the last tick's state.
    pub fn handle(&mut self, cmd: RoomCommand) {
        match cmd {
            RoomCommand::Edits { ops, reply } => self.pending.push(PendingEdit { ops, reply }),
            RoomCommand::Subscribe { outbox, scope } => self.subscribe(outbox, scope),
            RoomCommand::Unsubscribe { conn } => self.unsubscribe(conn),
            RoomCommand::Delete => self.stop("room deleted", 1000),
        }
    }

    fn subscribe(&mut self, outbox: Arc<Outbox>, scope: Scope) {
        let existing = self
            .subscribers
            .iter()
            .position(|s| s.outbox.conn == outbox.conn);
        if existing.is_none() && self.subscribers.len() >= self.config.max_subscribers {
            outbox.push_msg(ServerMsg::Error {
                seq: None,
                id: None,
                code: ErrorCode::Overloaded,
                message: format!(
                    "room {} has {} subscribers, the limit",
                    self.shared.id, self.config.max_subscribers
                ),
                op: None,
            });
            return;
        }
        let mut in_scope = existing
            .map(|i| std::mem::take(&mut self.subscribers[i].in_scope))
            .unwrap_or_default();
        let snapshot = {
            let scene = self.shared.scene.read();
            let nodes = scope::snapshot(&scene, &scope, &mut in_scope);
            ServerMsg::Snapshot {
                tick: scene.tick,
                time: scene.time_ms,
                nodes,
                compact: None,
            }
        };
        outbox.restart_with(snapshot);
        let sub = Subscriber {
            outbox,
            scope,
            in_scope,
        };
        match existing {
            Some(i) => self.subscribers[i] = sub,
            None => {
                self.subscribers.push(sub);
                self.metrics.subscribers.inc();
            }
        }
        self.shared
            .stats
            .set_subscribers(self.subscribers.len() as u64);
    }

    fn unsubscribe(&mut self, conn: ConnId) {
        if let Some(i) = self.subscribers.iter().position(|s| s.outbox.conn == conn) {
            let sub = self.subscribers.swap_remove(i);
            sub.outbox.clear_frames();
            self.metrics.subscribers.dec();
        }
        self.shared
            .stats
            .set_subscribers(self.subscribers.len() as u64);
    }

    /// Answers waiting edits, closes every subscriber with `closed` and stops.
    pub fn stop(&mut self, reason: &str, close_code: u16) {
        self.shared.mark_closed();
        for p in self.pending.drain(..) {
            self.shared.pending_batches.fetch_sub(1, Ordering::AcqRel);
            p.reply.send(Err(EditFailure {
                code: ErrorCode::UnknownRoom,
                message: format!(
                    "room {} was deleted before the batch was applied",
                    self.shared.id
                ),
                op: None,
            }));
        }
        for s in self.subscribers.drain(..) {
            s.outbox.close(reason, close_code);
            self.metrics.subscribers.dec();
        }
        self.shared.stats.set_subscribers(0);
        self.stopped = true;
    }

    /// The region of a subscriber (tests and diagnostics).
    pub fn subscriber_regions(&self) -> Vec<Option<Region>> {
        self.subscribers.iter().map(|s| s.scope.region).collect()
    }
}
