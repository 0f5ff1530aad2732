//! A room's side of persistence: the persist phase of its tick (one record per tick that
//! applied batches, a checkpoint of the tick counter when idle, a snapshot now and
//! then), and the capture and restore of a room's state for snapshots and recovery. What
//! may leave before its record is durable is the gate's (`gate.rs`).
//!
//! Invariants:
//! * The log holds, for every tick that applied a batch, those batches in order, with
//!   every server-assigned id written in, so replay assigns nothing and cannot differ.
//! * Nothing that shows a logged tick leaves the server before the tick is durable: acks
//!   (HTTP and WebSocket), delta frames and snapshots carry the seq of the room's last
//!   record and wait for `durable_seq` to reach it (`DurableGate`). Reads (queries,
//!   `GET /nodes`) show the live state at once.
//! * Room code does no I/O here either: appends only queue bytes for the log thread.

use canopy_protocol::{NodeId, Op, Transform};

use super::RestoreError;
use super::Room;
use super::diff::TickDiff;
use super::gate::LogLink;
use super::scene_state::SceneState;
use crate::applied::Applied;
use crate::shared::RoomShared;
use canopy_store::{PersistError, RecoveredRoom, Replay, RoomState, SnapNode, ranges_of};

/// A logged room's bookkeeping for the persist phase.
#[derive(Debug)]
pub struct RoomLog {
    pub(super) persist: LogLink,
    /// The seq of the room's `created` record: the incarnation its records belong to.
    pub(super) incarnation: u64,
    /// The room's last record (what a snapshot request names).
    pub(super) last_seq: u64,
    /// The tick of the last record, for idle checkpoints.
    pub(super) logged_tick: u64,
    /// Ops logged since the last snapshot: a snapshot is due once they reach the
    /// room's size (so replay after a restart never costs more than about two
    /// snapshots' worth of work) or [`SNAPSHOT_MIN_OPS`].
    pub(super) ops_since_snapshot: usize,
    /// Records appended since the last snapshot, and the tick of that snapshot: a room
    /// with any record after its snapshot is snapshotted again within
    /// [`SNAPSHOT_MAX_AGE_SECS`], so that its records (idle checkpoints included) never
    /// keep an old log segment from being deleted for long.
    pub(super) records_since_snapshot: usize,
    pub(super) snapshot_tick: u64,
}

/// A room with records after its last snapshot is snapshotted at least this often.
pub const SNAPSHOT_MAX_AGE_SECS: u64 = 60;

/// A room is not snapshotted for fewer logged ops than this, however small it is.
pub const SNAPSHOT_MIN_OPS: usize = 10_000;

impl RoomLog {
    /// The bookkeeping of a room logged to `persist`: `incarnation` is the seq of its
    /// `created` record, `last_seq` its last record and `tick` the tick that record left it at.
    pub fn new(persist: LogLink, incarnation: u64, last_seq: u64, tick: u64) -> Self {
        RoomLog {
            persist,
            incarnation,
            last_seq,
            logged_tick: tick,
            ops_since_snapshot: 0,
            records_since_snapshot: 0,
            snapshot_tick: tick,
        }
    }

    /// The log this room is logged to.
    pub fn link(&self) -> &LogLink {
        &self.persist
    }

    /// Counts the `ops` and `records` already in the log after the room's snapshot
    /// (those a restart replayed) toward the next snapshot, so that a room restarted
    /// often is still snapshotted and its replay stays bounded.
    pub fn with_replayed(mut self, ops: usize, records: usize) -> Self {
        self.ops_since_snapshot = ops;
        self.records_since_snapshot = records;
        self
    }
}

/// `ops` as applied, with the ids the batch assigned (`ids`, in the order of its adds)
/// written into its id-less adds.
pub(super) fn with_assigned_ids(mut ops: Vec<Op>, ids: &[NodeId]) -> Vec<Op> {
    let mut ids = ids.iter();
    for op in &mut ops {
        if let Op::Add { id, .. } = op {
            let assigned = ids.next().copied();
            if id.is_none() {
                *id = assigned;
            }
        }
    }
    ops
}

/// A room's state for a snapshot: every live node (local transform, parent, extent,
/// mask) parent before child, the retired ids and the id counter.
pub fn capture(scene: &SceneState) -> RoomState {
    let h = scene.hierarchy();
    let nodes = h
        .iter_nodes()
        .map(|n| {
            let local = h.local(n.id).expect("iterated nodes are live");
            SnapNode {
                id: n.id,
                parent: n.parent,
                t: local.t,
                r: local.r,
                s: local.s,
                extent: n.extent,
                mask: n.mask,
            }
        })
        .collect();
    RoomState {
        tick: scene.tick(),
        time_ms: scene.time_ms(),
        next_id: h.id_counter(),
        nodes,
        retired: ranges_of(h.retired_ids()),
    }
}

/// Rebuilds a room's scene from what recovery found: its snapshot's nodes, ids and
/// counter, then every logged batch after it in order, then one advance so that world
/// transforms and the octree are current; the tick and time are the last record's.
pub fn restore(
    room: &RecoveredRoom,
    mut scene: SceneState,
    tick_hz: u32,
) -> Result<SceneState, RestoreError> {
    let (mut tick, mut time_ms) = (0, room.meta.created_ms);
    let limits = scene.hierarchy().limits();
    scene
        .hierarchy_mut()
        .set_limits(canopy_scene::HierarchyLimits {
            max_nodes: usize::MAX,
            max_depth: usize::MAX,
            max_batch_walk: usize::MAX,
        });
    if let Some((_, state)) = &room.snapshot {
        let h = scene.hierarchy_mut();
        for n in &state.nodes {
            let local = Transform {
                t: n.t,
                r: n.r,
                s: n.s,
            };
            h.restore_node(n.id, n.parent, local, n.extent, n.mask)?;
        }
        let retired = state.retired.iter().flat_map(|&(a, b)| a..=b);
        scene.hierarchy_mut().restore_ids(retired, state.next_id)?;
        (tick, time_ms) = (state.tick, state.time_ms);
    }
    for record in &room.replay {
        match record {
            Replay::Tick {
                seq,
                tick: t,
                time_ms: ms,
                batches,
            } => {
                for (i, batch) in batches.iter().enumerate() {
                    scene.apply(batch).map_err(|error| RestoreError::Replay {
                        batch: i,
                        seq: *seq,
                        tick: *t,
                        error,
                    })?;
                }
                (tick, time_ms) = (*t, *ms);
            }
            Replay::Checkpoint {
                tick: t,
                time_ms: ms,
                ..
            } => (tick, time_ms) = (*t, *ms),
        }
    }
    scene.hierarchy_mut().set_limits(limits);
    let dt = 1.0 / tick_hz.max(1) as f32;
    scene.advance(dt, time_ms, &mut TickDiff::default());
    scene.restore_clock(tick, time_ms);
    Ok(scene)
}

/// The persist phase of a logged room's tick: logs this tick's applied `batches` (or,
/// when idle for a second, a checkpoint of the tick counter), asks for a snapshot when
/// one is due, and points the gate at the record, so that what the tick sends from
/// here on waits for it. Returns the record acks must wait for (0: none).
pub(crate) fn persist(
    log: &mut RoomLog,
    shared: &RoomShared,
    scene: &SceneState,
    batches: &[Vec<Op>],
    applied: &mut Applied,
) -> u64 {
    let gate = &shared.gate;
    let room = &shared.id;
    if gate.failure().is_some() {
        // Nothing is logged any more; what was queued behind a record that never
        // became durable sees the failure, and what is pushed from now on waits for
        // nothing (the batches of this tick were refused before applying).
        gate.set_need(0);
        return 0;
    }
    let (tick, time_ms) = (scene.tick(), scene.time_ms());
    let idle_ticks = u64::from(shared.tick_hz.max(1));
    let appended = if !batches.is_empty() {
        log.ops_since_snapshot += batches.iter().map(Vec::len).sum::<usize>();
        Some(
            log.persist
                .tick_of(room, log.incarnation, tick, time_ms, batches),
        )
    } else if tick >= log.logged_tick + idle_ticks {
        Some(
            log.persist
                .checkpoint_of(room, log.incarnation, tick, time_ms),
        )
    } else {
        None
    };
    match appended {
        None => {}
        Some(Ok(seq)) => {
            log.last_seq = seq;
            log.logged_tick = tick;
            log.records_since_snapshot += 1;
            gate.set_need(seq);
        }
        Some(Err(e)) => {
            let why = if shared.is_closed() || matches!(e, PersistError::Closed) {
                // Deleted or shutting down while it ticked: its last batches go with it.
                format!("room {room} closed before the batch's tick was logged")
            } else {
                let reason = format!("room {room}: the record of tick {tick} was refused: {e}");
                log.persist.fail_with(reason);
                gate.set_need(0);
                format!(
                    "the storage failed before the batch's tick was logged ({e}): it is not \
                     durable and a restart will not have it"
                )
            };
            applied.refuse_acks(&why);
            return 0;
        }
    }
    let due = SNAPSHOT_MIN_OPS.max(scene.hierarchy().len());
    let max_age = SNAPSHOT_MAX_AGE_SECS * idle_ticks;
    let stale = log.records_since_snapshot > 0 && tick >= log.snapshot_tick + max_age;
    if log.ops_since_snapshot >= due || stale {
        log.ops_since_snapshot = 0;
        log.records_since_snapshot = 0;
        log.snapshot_tick = tick;
        let state = capture(scene);
        if let Err(e) = log.persist.request_snapshot(room, log.last_seq, state) {
            tracing::warn!(%room, error = %e, "snapshot not taken");
        }
    }
    log.last_seq
}

impl Room {
    /// Logs the tick counter once more when the room stops (a clean shutdown keeps
    /// the exact tick; after a crash it comes back at most a second of idle ticks
    /// behind, which changed nothing).
    pub(super) fn checkpoint_on_stop(&mut self) {
        let crate::Durability::Log { log, .. } = &mut self.durability else {
            return;
        };
        let (tick, time_ms) = {
            let scene = self.shared.scene.read();
            (scene.tick(), scene.time_ms())
        };
        if tick > log.logged_tick && self.shared.gate.failure().is_none() {
            let room = &self.shared.id;
            // A deleted room's incarnation is gone: that refusal is expected.
            if let Ok(seq) = log
                .persist
                .checkpoint_of(room, log.incarnation, tick, time_ms)
            {
                log.last_seq = seq;
                log.logged_tick = tick;
            }
        }
    }
}
