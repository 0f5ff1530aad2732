//! One tick of a room, as a list of phases in the order the contract fixes: take the
//! commands that arrived, apply waiting batches within the op budget, advance the scene
//! (update callbacks, propagation, classification, octree refit), record (queue the
//! tick's record where the room's mode sends it; what follows waits for it to be
//! durable), answer
//! the batches with the tick, fan the deltas out, answer subscriptions with snapshots,
//! and record.
//!
//! Invariant: the scene's write lock is held only while the scene changes (apply and
//! advance); answers, deltas and snapshots are built under a read lock, so queries run
//! alongside them. Acks go out before the delta of the same tick, so on a WebSocket the
//! ack of a batch comes ahead of the frame that shows it.

use std::sync::Arc;
use std::time::Instant;

use canopy_protocol::http::EditsResult;
use parking_lot::RwLockWriteGuard;

use super::Room;
use super::record::{Measured, TickReport};

impl Room {
    /// Runs one tick. `now_ms` is the wall clock (ms since the Unix epoch) that the
    /// tick's frames carry as `time`.
    pub fn tick(&mut self, now_ms: u64) -> TickReport {
        if matches!(self.role, crate::mode::Role::Replica(_)) {
            self.take_commands();
            let crate::mode::Role::Replica(replay) = &mut self.role else {
                unreachable!("matched just above")
            };
            let mut replay = std::mem::take(replay);
            let report = self.replica_tick(&mut replay, now_ms);
            self.role = crate::mode::Role::Replica(replay);
            return report;
        }
        let started = Instant::now();
        self.take_commands();
        let shared = Arc::clone(&self.shared);
        let dt = 1.0 / shared.tick_hz.max(1) as f32;

        let mut scene = shared.scene.write();
        let _span = tracing::debug_span!("tick", tick = scene.tick() + 1).entered();
        let mut applied = self.apply(&mut scene);
        let advance = scene.advance(dt, now_ms, &mut self.diff);
        let scene = RwLockWriteGuard::downgrade(scene);

        let tick = advance.tick;
        let durable_at = self.record_tick(&scene, &mut applied);
        for (reply, result) in applied.replies.drain(..) {
            reply.send_durable(result.map(|ids| EditsResult { tick, ids }), durable_at);
        }
        self.history.record(tick, &self.diff);
        let frames_merged = self.fan_out(&scene, now_ms);
        let snapshots = self.answer_subscribes(&scene);
        let nodes = scene.hierarchy().len() as u64;
        let octree_cells = self.octree_cells_now(&scene);
        drop(scene);

        self.record(Measured {
            started,
            applied,
            advance,
            frames_merged,
            snapshots,
            nodes,
            octree_cells,
        })
    }
}
