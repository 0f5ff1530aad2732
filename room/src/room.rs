//! The [`Room`] type: a room's synchronous state, owned by its tick thread, with its
//! constructors, its commands and its end.

use std::sync::Arc;
use std::sync::mpsc::{self, Receiver};

use canopy_protocol::message::Region;
use canopy_scene::HierarchyLimits;
use canopy_scene::octree::OctreeConfig;

use crate::budget::{SharedBudget, Shares};
use crate::command::{RoomCommand, SubscribeRequest};
use crate::delta::{self, DeltaParts};
use crate::diff::TickDiff;
use crate::edit::{EditQueue, PendingEdit};
use crate::gate::{DurableGate, FramePassage};
use crate::in_scope::InScopeShares;
use crate::metrics::RoomMetrics;
use crate::mode::{Durability, Role};
use crate::outbox::{ConnId, Outbox};
use crate::replica::{RelayLink, ReplayState};
use crate::restore_error::RestoreError;
use crate::scene_state::SceneState;
use crate::shared::EditLimits;
use crate::shared::{RoomInstance, RoomShared, SharedParts};
use crate::subscribe::SubscribeQueue;
use crate::subscribers::Subscribers;
use crate::tokens::{RoomTokens, TokenDigest};
use crate::{compact, replica, resume};
use canopy_protocol::Op;

/// A cluster room whose journal has stored nothing of its waiting records for this
/// long refuses new batches (see `apply.rs`).
pub const JOURNAL_STALL_MS: u64 = 1_000;

/// Limits and settings every room of a server shares.
#[derive(Debug, Clone)]
pub struct RoomConfig {
    /// What may wait for a room's tick.
    pub edits: EditLimits,
    /// Ops one tick applies before later batches wait for the next tick (the first
    /// batch of a tick is applied whatever its size).
    pub tick_op_budget: usize,
    /// Nodes one tick puts into new snapshots before later subscriptions wait for the
    /// next tick (the first is answered whatever its size; a snapshot shared by several
    /// subscribers counts once).
    pub tick_snapshot_budget: usize,
    /// Bytes of encoded snapshots (and resumed deltas) not yet written to their
    /// subscribers, server-wide (`canopy_unsent_snapshot_bytes`), with each caller's and
    /// each room's share of them (`subscribe.rs`): readers that never read cannot make
    /// the server hold one room-sized snapshot per tick for each of them, nor one caller
    /// or room hold what the others need. Shared by every room of a server.
    pub snapshot_bytes: Arc<SharedBudget>,
    /// Subscribers per room; more answer `overloaded`.
    pub max_subscribers: usize,
    /// Ids the room's region subscribers hold in their in-scope sets, each set shared
    /// by the subscribers of one scope counted once; a region subscription that would
    /// add a set past it answers `overloaded`.
    pub max_in_scope_entries: usize,
    /// A caller's share of `max_in_scope_entries` is `1/in_scope_caller_divisor` of it
    /// (`--caller-share-divisor`): a caller past it is refused `overloaded` on a
    /// subscription that adds a set (`in_scope.rs`).
    pub in_scope_caller_divisor: u64,
    /// Whether a logged room's delta frames and snapshots wait for durability.
    pub frames: FramePassage,
    /// How far back a subscription may resume (`since`).
    pub history: resume::HistoryLimits,
    /// Live nodes, depth and per-batch ancestor walks of the room's hierarchy.
    pub hierarchy: HierarchyLimits,
    /// The shape of the room's octree (spatial index).
    pub octree: OctreeConfig,
}

impl RoomConfig {
    /// The default of `--tick-op-budget`.
    pub const DEFAULT_TICK_OP_BUDGET: usize = 65_536;
    /// The default of `--tick-snapshot-budget`.
    pub const DEFAULT_TICK_SNAPSHOT_BUDGET: usize = 1_000_000;
    /// The default of `--max-unsent-snapshot-bytes`: 256 MiB.
    pub const DEFAULT_MAX_UNSENT_SNAPSHOT_BYTES: usize = 256 << 20;
    /// The default of `--max-subscribers-per-room`.
    pub const DEFAULT_MAX_SUBSCRIBERS: usize = 10_000;
    /// The default of `--max-in-scope-entries-per-room`: 8,388,608 ids (about 80 MB),
    /// two distinct region scopes covering a room of the largest size.
    pub const DEFAULT_MAX_IN_SCOPE_ENTRIES: usize = 1 << 23;

    /// The unsent snapshot bytes of a server: `ceiling` bytes, of which a caller holds at
    /// most `1/caller_divisor` and a room `1/room_divisor`.
    pub fn snapshot_budget(
        ceiling: usize,
        caller_divisor: u64,
        room_divisor: u64,
    ) -> Arc<SharedBudget> {
        let ceiling = u64::try_from(ceiling).unwrap_or(u64::MAX);
        SharedBudget::new(
            "unsent snapshot bytes",
            Shares::divided(ceiling, caller_divisor, room_divisor),
        )
    }
}

impl Default for RoomConfig {
    fn default() -> Self {
        Self {
            edits: EditLimits::DEFAULT,
            tick_op_budget: Self::DEFAULT_TICK_OP_BUDGET,
            tick_snapshot_budget: Self::DEFAULT_TICK_SNAPSHOT_BUDGET,
            snapshot_bytes: Self::snapshot_budget(
                Self::DEFAULT_MAX_UNSENT_SNAPSHOT_BYTES,
                Shares::DEFAULT_DIVISOR,
                Shares::DEFAULT_DIVISOR,
            ),
            max_subscribers: Self::DEFAULT_MAX_SUBSCRIBERS,
            max_in_scope_entries: Self::DEFAULT_MAX_IN_SCOPE_ENTRIES,
            in_scope_caller_divisor: Shares::DEFAULT_DIVISOR,
            frames: FramePassage::Durable,
            history: resume::HistoryLimits::DEFAULT,
            hierarchy: HierarchyLimits::default(),
            octree: OctreeConfig::default(),
        }
    }
}

/// A room's state, owned by its tick thread.
#[derive(Debug)]
pub struct Room {
    pub(crate) shared: Arc<RoomShared>,
    pub(crate) config: RoomConfig,
    pub(crate) metrics: Arc<RoomMetrics>,
    pub(crate) commands: Receiver<RoomCommand>,
    pub(crate) edits: EditQueue,
    pub(crate) subscribes: SubscribeQueue,
    pub(crate) subscribers: Subscribers,
    /// Each caller's part of the region subscribers' in-scope entries.
    pub(crate) in_scope: InScopeShares,
    pub(crate) diff: TickDiff,
    pub(crate) parts: DeltaParts,
    /// This tick's outboxes for the flushers (capacity kept from tick to tick).
    pub(crate) flush_batch: Vec<Arc<Outbox>>,
    /// The outboxes a tick's fan-out found locked, pushed at its end (`fanout.rs`).
    pub(crate) locked_outboxes: Vec<(Arc<Outbox>, Arc<delta::SharedDelta>)>,
    /// Subscribers whose followed node this tick removed, for their errors (reused).
    pub(crate) lost_follows: Vec<(Arc<Outbox>, canopy_protocol::NodeId)>,
    /// The boxes of the tick's changed nodes, for follow scopes (reused).
    pub(crate) changed_boxes: crate::follow::ChangedBoxes,
    pub(crate) history: resume::History,
    pub(crate) compact: compact::CompactState,
    /// How the room's ticks become durable (fixed when it is made).
    pub(crate) durability: Durability,
    /// The room itself, or a relay's replica of it (fixed when it is made).
    pub(crate) role: Role,
    /// The number of the last record this room made for its feed (cluster mode).
    pub(crate) record_seq: u64,
    /// This tick's applied batches, ids written in, for its record (kept only when the
    /// room's mode records them; the list's capacity is reused from tick to tick).
    pub(crate) tick_batches: Vec<Vec<Op>>,
    pub(crate) stopped: bool,
}

/// Who a room is: what every constructor needs besides its scene and mode.
#[derive(Debug)]
pub struct RoomSpec {
    /// The room's id.
    pub id: String,
    /// Its tick rate.
    pub tick_hz: u32,
    /// The server's room settings.
    pub config: RoomConfig,
    /// The collectors its ticks count into.
    pub metrics: Arc<RoomMetrics>,
    /// Its editor and viewer tokens, when the server has access control.
    pub tokens: Option<RoomTokens>,
}

impl Room {
    /// A new empty room at tick 0, in memory.
    pub fn new(
        id: String,
        tick_hz: u32,
        config: RoomConfig,
        metrics: Arc<RoomMetrics>,
        tokens: Option<RoomTokens>,
    ) -> Room {
        let scene = SceneState::new(config.hierarchy, config.octree);
        let spec = RoomSpec {
            id,
            tick_hz,
            config,
            metrics,
            tokens,
        };
        Self::owner(spec, scene, Durability::memory())
    }

    /// A room showing `scene` (a new one, or one restored from the log) that takes
    /// edits, made durable as `durability` says. Its subscribers can resume from its
    /// current tick on.
    pub fn owner(spec: RoomSpec, scene: SceneState, durability: Durability) -> Room {
        Self::build(spec, scene, durability, RoomInstance::random(), None)
    }

    fn build(
        spec: RoomSpec,
        scene: SceneState,
        durability: Durability,
        instance: RoomInstance,
        replica: Option<(RelayLink, ReplayState)>,
    ) -> Room {
        let (tx, rx) = mpsc::channel();
        let RoomSpec {
            id,
            tick_hz,
            config,
            metrics,
            tokens,
        } = spec;
        let history = resume::History::new(config.history, scene.tick());
        let need = durability.log().map_or(0, |log| log.last_seq);
        let gate = DurableGate::new(durability.gate_source(), config.frames, need);
        let (relay, role) = match replica {
            Some((relay, replay)) => (Some(relay), Role::Replica(replay)),
            None => (None, Role::Owner),
        };
        let shared = Arc::new(RoomShared::new(SharedParts {
            id,
            tick_hz,
            instance,
            scene,
            tokens,
            limits: config.edits,
            commands: tx,
            gate,
            relay,
            feeds: durability.feed().is_some(),
        }));
        let in_scope = InScopeShares::new(
            &shared.id,
            config.max_in_scope_entries,
            config.in_scope_caller_divisor,
        );
        Room {
            shared,
            in_scope,
            config,
            metrics,
            commands: rx,
            edits: EditQueue::default(),
            subscribes: SubscribeQueue::default(),
            subscribers: Subscribers::default(),
            diff: TickDiff::default(),
            parts: DeltaParts::default(),
            flush_batch: Vec::new(),
            locked_outboxes: Vec::new(),
            lost_follows: Vec::new(),
            changed_boxes: Default::default(),
            history,
            compact: compact::CompactState::default(),
            durability,
            role,
            record_seq: 0,
            tick_batches: Vec::new(),
            stopped: false,
        }
    }

    /// The spec and instance of a room another node made, from its `start`.
    fn spec_of(
        id: String,
        config: RoomConfig,
        metrics: Arc<RoomMetrics>,
        start: &replica::ReplicaStart,
    ) -> Result<(RoomSpec, RoomInstance), RestoreError> {
        let instance = RoomInstance::parse(&start.instance)
            .ok_or_else(|| RestoreError::Instance(start.instance.clone()))?;
        let tokens = start.tokens.clone().map(|(editor, viewer)| RoomTokens {
            editor: TokenDigest::from_stored(&editor),
            viewer: TokenDigest::from_stored(&viewer),
        });
        let spec = RoomSpec {
            id,
            tick_hz: start.tick_hz,
            config,
            metrics,
            tokens,
        };
        Ok((spec, instance))
    }

    /// A relay's read-only replica of a room owned by another node, built from the
    /// owner's `start`; its connections' edits go to `upstream` (see `replica.rs`).
    pub fn replica(
        id: String,
        config: RoomConfig,
        metrics: Arc<RoomMetrics>,
        start: &replica::ReplicaStart,
        upstream: tokio::sync::mpsc::Sender<PendingEdit>,
    ) -> Result<Room, RestoreError> {
        let scene = SceneState::new(config.hierarchy, config.octree);
        let scene = replica::rebuild(start, &[], scene)?;
        let (spec, instance) = Self::spec_of(id, config, metrics, start)?;
        let relay = RelayLink {
            upstream,
            early: std::sync::atomic::AtomicBool::new(false),
        };
        let replay = ReplayState {
            instance: start.instance.clone(),
            applied: start.seq,
            ..ReplayState::default()
        };
        Ok(Self::build(
            spec,
            scene,
            Durability::memory(),
            instance,
            Some((relay, replay)),
        ))
    }

    /// A room this node takes over from its cluster journal: the owner's `start` and
    /// every record stored after it, replayed, journaled on as `durability` says (the
    /// feed and mark the takeover made). The room goes on as the same instance (the
    /// state is exactly the last stored record's), numbering records after the last
    /// one, so a relay's replica can follow it; its clock goes on from the last record
    /// by the wall time since (`now_ms`), as if it had ticked idle meanwhile, so its
    /// ticks stay past any the old owner showed.
    pub fn taken_over(
        spec: (String, RoomConfig, Arc<RoomMetrics>),
        start: &replica::ReplicaStart,
        records: &[replica::ReplicaRecord],
        now_ms: u64,
        durability: Durability,
    ) -> Result<Room, RestoreError> {
        let (id, config, metrics) = spec;
        let scene = SceneState::new(config.hierarchy, config.octree);
        let mut scene = replica::rebuild(start, records, scene)?;
        let idle = now_ms.saturating_sub(scene.time_ms()) * u64::from(start.tick_hz.max(1));
        let tick = scene.tick() + idle.div_ceil(1000).max(1);
        scene.restore_clock(tick, now_ms.max(scene.time_ms()));
        let (spec, instance) = Self::spec_of(id, config, metrics, start)?;
        let mut room = Self::build(spec, scene, durability, instance, None);
        room.record_seq = last_record(start, records);
        Ok(room)
    }

    /// The last record number this room made (cluster mode).
    pub fn record_seq(&self) -> u64 {
        self.record_seq
    }

    /// The part of the room the edges (HTTP, WebSocket) hold: its id, command channel
    /// and statistics.
    pub fn shared(&self) -> &Arc<RoomShared> {
        &self.shared
    }

    /// True once the room was deleted or shut down; its thread drops it.
    pub fn is_stopped(&self) -> bool {
        self.stopped
    }

    /// Number of subscribed connections.
    pub fn subscriber_count(&self) -> usize {
        self.subscribers.len()
    }

    /// The tick period, in nanoseconds.
    pub fn period_ns(&self) -> u64 {
        1_000_000_000 / u64::from(self.shared.tick_hz.max(1))
    }

    /// Queues a subscription for the next tick; a scope the room refuses (checked at the
    /// edge too) is answered with its error and changes nothing.
    fn take_subscribe(&mut self, req: SubscribeRequest) {
        match req.scope.check(self.shared.tick_hz) {
            Ok(()) => self.subscribes.push(req),
            Err(e) => req
                .outbox
                .push_reply(&crate::refusal::Refusal::from(e).to_ws(None, None)),
        }
    }

    /// Takes one command: edits and subscriptions wait for the next tick (in order, the
    /// latest subscription of a connection superseding an earlier one not yet
    /// answered); an unsubscription takes effect at once.
    pub fn handle(&mut self, cmd: RoomCommand) {
        match cmd {
            RoomCommand::Edits(edit) => self.edits.push(edit),
            // Checked at the edge too; a refused scope changes nothing here either.
            RoomCommand::Subscribe(req) => self.take_subscribe(*req),
            RoomCommand::Unsubscribe { conn } => self.unsubscribe(conn),
            RoomCommand::Subscription(slot) => match slot.take() {
                Some(crate::command::Intent::Subscribe(req)) => self.take_subscribe(*req),
                Some(crate::command::Intent::Unsubscribe(conn)) => self.unsubscribe(conn),
                None => {}
            },
            RoomCommand::Capture(reply) => {
                let _ = reply.send(self.replica_start());
            }
            // Only a replica takes its owner's records and answers.
            RoomCommand::Replicate(record) => {
                if let Role::Replica(replay) = &mut self.role {
                    replay.queue.push_back(*record);
                }
            }
            RoomCommand::Answer(reply, outcome) => match &mut self.role {
                Role::Replica(replay) => replay.answers.push_back((reply, outcome)),
                Role::Owner => reply.send(outcome),
            },
        }
    }

    /// Takes every command that arrived since the last tick.
    pub(crate) fn take_commands(&mut self) {
        while let Ok(cmd) = self.commands.try_recv() {
            if !matches!(cmd, RoomCommand::Edits(_)) {
                self.shared.command_taken();
            }
            self.handle(cmd);
        }
    }

    pub(crate) fn unsubscribe(&mut self, conn: ConnId) {
        self.subscribes.cancel(conn);
        if let Some(sub) = self.subscribers.remove(conn) {
            sub.outbox.clear_frames();
            self.metrics.subscribers.dec();
            if !self.subscribers.list.iter().any(|s| s.outbox.is_compact()) {
                self.compact.deactivate();
            }
        }
        self.shared
            .stats
            .set_subscribers(self.subscribers.len() as u64);
    }

    /// Answers what waits (batches with [`RoomShared::closed_refusal`]), closes every subscriber with
    /// `closed` and the close `code`, and stops.
    pub fn stop(&mut self, cause: crate::CloseCause) {
        self.take_commands();
        self.checkpoint_on_stop();
        self.shared.mark_closed(cause);
        for edit in self.edits.drain() {
            self.shared.release(&edit);
            edit.reply.send(Err(self.shared.closed_refusal()));
        }
        for req in self.subscribes.drain() {
            req.outbox.close(cause);
        }
        for s in self.subscribers.drain() {
            s.outbox.close(cause);
            self.metrics.subscribers.dec();
        }
        self.shared.stats.set_subscribers(0);
        self.stopped = true;
    }

    /// Panics unless the room keeps its invariants: its scene (hierarchy, octree and the
    /// octree's agreement with it), its history, its subscriber list and each
    /// subscriber's outbox are well formed. For tests, after every tick or command.
    pub fn assert_well_formed(&self) {
        self.shared.scene.read().assert_well_formed();
        self.history.assert_well_formed();
        self.subscribers.assert_well_formed();
        let scene = self.shared.scene.read();
        for sub in &self.subscribers.list {
            sub.outbox.assert_well_formed();
            sub.assert_well_formed(&scene);
        }
        self.assert_in_scope_sets();
    }

    /// Each region subscriber's in-scope set is the nodes of its scope at the tick just
    /// finished, which is what lets subscribers of one scope share one set (frustum and
    /// follow scopes check their own, `Subscriber::assert_well_formed`).
    fn assert_in_scope_sets(&self) {
        let scene = self.shared.scene.read();
        for sub in &self.subscribers.list {
            if sub.scope.is_whole_room() {
                assert!(sub.in_scope.is_empty(), "a whole-room subscriber holds ids");
                continue;
            }
            let Some(r) = &sub.scope.region else {
                continue;
            };
            let (min, max) = (glam::Vec3::from_array(r.min), glam::Vec3::from_array(r.max));
            let mut ids = Vec::new();
            scene.octree().region(min, max, sub.scope.mask, &mut ids);
            let want: rustc_hash::FxHashSet<_> = ids.into_iter().collect();
            assert!(
                *sub.in_scope == want,
                "connection {}'s in-scope set is not its scope's nodes",
                sub.outbox.conn
            );
        }
    }

    /// Ids held in the in-scope sets of the room's region subscribers, each shared set
    /// counted once (tests and diagnostics).
    pub fn in_scope_entries(&self) -> usize {
        self.subscribers.in_scope_entries()
    }

    /// The region of each subscriber (tests and diagnostics).
    pub fn subscriber_regions(&self) -> Vec<Option<Region>> {
        self.subscribers
            .list
            .iter()
            .map(|s| s.scope.region)
            .collect()
    }
}

/// The last record a taken-over room's journal holds: its start's, or its last
/// record's after it.
fn last_record(start: &replica::ReplicaStart, records: &[replica::ReplicaRecord]) -> u64 {
    records.last().map_or(start.seq, |r| r.seq.max(start.seq))
}

/// A room id is 1 to 64 characters of `[A-Za-z0-9_-]` (docs/protocol.md §1); cluster
/// node names follow the same rule (they become NATS subject tokens).
pub fn valid_room_id(id: &str) -> bool {
    (1..=64).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}
