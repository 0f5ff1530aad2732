//! Replication of a room's ticks (cluster mode): the owner's feed of applied batches,
//! and the relay's read-only replica that replays them.
//!
//! The owner's tick turns the batches it applied (ids written in, as its log keeps them)
//! into one [`ReplicaRecord`] per tick, numbered without gaps and encoded once, and
//! queues it for the bus without waiting. A relay builds its replica from a
//! [`ReplicaStart`] (the owner's state at a record number, taken by the owner's own
//! tick, so the two agree) and then replays every later record in its own tick, under
//! the owner's tick numbers: applying the same batches to the same state gives the same
//! world transforms bit for bit, so its subscribers get the owner's frames.
//! Invariants: a replica takes no edit of its own (its connections' edits go to the
//! owner, and each answer waits until the replica shows the tick it names), and a
//! record that does not follow the last one applied ends the replica (its clients
//! subscribe again and get a fresh one): it never shows a state the owner did not have.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use canopy_protocol::Transform;
use canopy_protocol::http::EditsResult;
use parking_lot::RwLockWriteGuard;

use super::RestoreError;
use super::Room;
use super::edit::EditReply;
use super::record::{Measured, TickReport};
use super::scene_state::{Advance, SceneState};
use crate::applied::Applied;
pub use crate::records::{
    Animated, FEED_BACKLOG_BYTES, FedRecord, FeedLink, FeedQueue, RelayLink, ReplicaRecord,
    ReplicaStart, StartNode, feed_channel,
};
use crate::refusal::Refusal;
use crate::shared::RoomShared;

/// A relay room's replay bookkeeping (tick thread only; the room's [`crate::mode::Role`]).
#[derive(Debug, Default)]
pub(crate) struct ReplayState {
    /// The instance replayed.
    pub instance: String,
    /// The last record applied.
    pub applied: u64,
    /// Records taken from the commands, in arrival order.
    pub queue: VecDeque<ReplicaRecord>,
    /// Answers of forwarded edits, in the order the edits were sent; each leaves once
    /// the ones before it have and the replica shows its tick.
    pub answers: VecDeque<(EditReply, Result<EditsResult, Refusal>)>,
}

/// Rebuilds a scene from a start and the records after it (as recovery rebuilds one
/// from a snapshot and the log): records the start already includes are skipped, the
/// others must follow it without a gap. The tick and time are the last record's.
pub fn rebuild(
    start: &ReplicaStart,
    records: &[ReplicaRecord],
    mut scene: SceneState,
) -> Result<SceneState, RestoreError> {
    let limits = scene.hierarchy().limits();
    let h = scene.hierarchy_mut();
    h.set_limits(canopy_scene::HierarchyLimits {
        max_nodes: usize::MAX,
        max_depth: usize::MAX,
        max_batch_walk: usize::MAX,
    });
    for n in &start.nodes {
        h.restore_node(n.id, n.parent, n.local, n.extent, n.mask)?;
    }
    let retired = start.retired.iter().flat_map(|&(a, b)| a..=b);
    h.restore_ids(retired, start.next_id)?;
    let (mut seq, mut tick, mut time_ms) = (start.seq, start.tick, start.time_ms);
    for record in records.iter().filter(|r| r.seq > start.seq) {
        if record.seq != seq + 1 {
            return Err(RestoreError::Gap {
                got: record.seq,
                after: seq,
            });
        }
        for (i, batch) in record.batches.iter().enumerate() {
            scene.apply(batch).map_err(|error| RestoreError::Replay {
                batch: i,
                seq: record.seq,
                tick: record.tick,
                error,
            })?;
        }
        (seq, tick, time_ms) = (record.seq, record.tick, record.time_ms);
    }
    scene.hierarchy_mut().set_limits(limits);
    let dt = 1.0 / start.tick_hz.max(1) as f32;
    scene.advance(dt, time_ms, &mut super::diff::TickDiff::default());
    scene.restore_clock(tick, time_ms);
    Ok(scene)
}

/// Turns this tick's acks into errors: its record will never be stored.
fn refuse_unstored(applied: &mut Applied, journal: &super::JournalMark) {
    applied.refuse_acks(&format!(
        "the batch was applied on this node but its journal could not store it ({}); it is \
         not acknowledged and another node taking the room over will not have it",
        journal.failure().unwrap_or("journal stopped")
    ));
}

/// The feed phase of an owner's tick: this tick's `batches` as record number `seq`,
/// queued for the journal and the bus without waiting. With a `journal` the record is
/// what the tick's acks wait for: the gate is pointed at it and its number returned;
/// without one (relays only) a record the bus cannot take is dropped and 0 returned.
pub(crate) fn feed(
    link: &FeedLink,
    journal: Option<&super::JournalMark>,
    shared: &RoomShared,
    record: ReplicaRecord,
    applied: &mut Applied,
) -> u64 {
    let room = &shared.id;
    let ops = record.batches.iter().map(Vec::len).sum();
    let cost = FedRecord::cost(ops);
    let queued = link
        .queued
        .fetch_add(cost, std::sync::atomic::Ordering::AcqRel);
    if queued + cost > FEED_BACKLOG_BYTES {
        link.queued
            .fetch_sub(cost, std::sync::atomic::Ordering::AcqRel);
        match journal {
            Some(j) => {
                j.fail(format!(
                    "room {room}'s journal fell {queued} bytes behind its ticks"
                ));
                refuse_unstored(applied, j);
            }
            None => {
                tracing::warn!(%room, seq = record.seq, "replica feed behind: record dropped, relays start again");
            }
        }
        return 0;
    }
    let seq = record.seq;
    let sent = link.tx.send(FedRecord { ops, cost, record }).is_ok();
    match journal {
        Some(j) if !sent => {
            j.fail(format!("room {room}'s journal stopped"));
            refuse_unstored(applied, j);
            0
        }
        Some(j) => {
            j.queued(seq);
            shared.gate.set_need(seq);
            seq
        }
        None => 0,
    }
}

impl Room {
    /// The owner's state now, for a relay to start from (taken by the tick thread, so
    /// that it matches the record count); refused for a room changed by server code
    /// (update callbacks), whose changes no record carries.
    pub(super) fn replica_start(&self) -> Result<ReplicaStart, Animated> {
        let scene = self.shared.scene.read();
        if scene.hierarchy().callback_count() > 0 {
            return Err(Animated(self.shared.id.clone()));
        }
        let state = super::durable::capture(&scene);
        Ok(ReplicaStart {
            instance: self.shared.instance.to_header(),
            tick_hz: self.shared.tick_hz,
            seq: self.record_seq,
            tick: state.tick,
            time_ms: state.time_ms,
            nodes: state
                .nodes
                .iter()
                .map(|n| StartNode {
                    id: n.id,
                    parent: n.parent,
                    local: Transform {
                        t: n.t,
                        r: n.r,
                        s: n.s,
                    },
                    extent: n.extent,
                    mask: n.mask,
                })
                .collect(),
            retired: state.retired,
            next_id: state.next_id,
            tokens: self
                .shared
                .tokens
                .as_ref()
                .map(|t| (t.editor.to_stored(), t.viewer.to_stored())),
        })
    }

    /// A relay's tick: replays every record that arrived, each as one tick of the
    /// owner's number (apply, advance, answers, fan-out), then answers subscriptions.
    pub(super) fn replica_tick(&mut self, replay: &mut ReplayState, now_ms: u64) -> TickReport {
        let started = Instant::now();
        if let Some(link) = self.shared.relay.as_ref() {
            link.early.store(false, Ordering::Release);
        }
        let shared = Arc::clone(&self.shared);
        let dt = 1.0 / shared.tick_hz.max(1) as f32;
        let mut advance = Advance::default();
        let mut merged = 0;
        while let Some(record) = replay.queue.pop_front() {
            if record.seq <= replay.applied {
                continue;
            }
            if record.seq != replay.applied + 1 || record.instance != replay.instance {
                tracing::warn!(room = %shared.id, expected = replay.applied + 1, got = record.seq, "replica out of step with its owner: ending it");
                self.stop(crate::CloseCause::ReplicaLost);
                return TickReport::default();
            }
            let mut scene = shared.scene.write();
            for batch in &record.batches {
                if let Err(e) = scene.apply(batch) {
                    drop(scene);
                    tracing::error!(room = %shared.id, seq = record.seq, error = %e, "a replayed batch was refused: ending the replica");
                    self.stop(crate::CloseCause::ReplicaLost);
                    return TickReport::default();
                }
            }
            let time = scene.time_ms();
            scene.restore_clock(record.tick.saturating_sub(1), time);
            let a = scene.advance(dt, record.time_ms, &mut self.diff);
            let scene = RwLockWriteGuard::downgrade(scene);
            replay.applied = record.seq;
            advance.tick = a.tick;
            advance.recomputed += a.recomputed;
            advance.changed += a.changed;
            Self::release_answers(replay, a.tick);
            self.history.record(a.tick, &self.diff);
            merged += self.fan_out(&scene, record.time_ms);
        }
        let scene = shared.scene.read();
        Self::release_answers(replay, scene.tick());
        advance.tick = scene.tick();
        let snapshots = self.answer_subscribes(&scene);
        let nodes = scene.hierarchy().len() as u64;
        let octree_cells = self.octree_cells_now(&scene);
        drop(scene);
        let _ = now_ms;
        self.record(Measured {
            started,
            applied: Applied::default(),
            advance,
            frames_merged: merged,
            snapshots,
            nodes,
            octree_cells,
        })
    }

    /// Sends the answers whose turn has come: in order, each once the replica shows
    /// its tick (an error waits only for the answers before it).
    fn release_answers(replay: &mut ReplayState, shown: u64) {
        while let Some((_, outcome)) = replay.answers.front() {
            if matches!(outcome, Ok(r) if r.tick > shown) {
                break;
            }
            let (reply, outcome) = replay.answers.pop_front().expect("a front");
            reply.send(outcome);
        }
    }
}
