//! One tick of a room, in the order the contract and the architecture fix:
//! apply the accepted edit batches atomically and in order, run the update callbacks,
//! propagate dirty world transforms, classify the changes, refit the octree from them,
//! answer the edits with the tick number, then build each scope's delta and fan it out.
//!
//! Invariant: the scene's write lock is held only while the scene changes; deltas are
//! built under a read lock, so queries run alongside fan-out.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use canopy_protocol::http::EditsResult;
use parking_lot::RwLockWriteGuard;

use super::delta::SharedDelta;
use super::diff::{ADDED, MOVED, REMOVED, RESHAPED};
use super::scope;
use super::{EditFailure, Room};

/// What one tick did, for the caller's logs and tests.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct TickReport {
    pub tick: u64,
    pub batches_applied: usize,
    pub batches_rejected: usize,
    pub recomputed: usize,
    pub changed_nodes: usize,
    pub frames_merged: usize,
    pub duration_ns: u64,
}

impl Room {
    /// Runs one tick. `now_ms` is the wall clock (ms since the Unix epoch) that frames
    /// carry as `time`; `period_ns` is the tick period, to count slow ticks.
    pub fn tick(&mut self, now_ms: u64, period_ns: u64) -> TickReport {
        let started = Instant::now();
        let shared = Arc::clone(&self.shared);
        let mut report = TickReport::default();
        let mut outcomes = Vec::with_capacity(self.pending.len());

        let mut scene = shared.scene.write();
        let tick = scene.tick + 1;
        let _span = tracing::debug_span!("tick", tick).entered();
        report.tick = tick;
        for p in self.pending.drain(..) {
            shared.pending_batches.fetch_sub(1, Ordering::AcqRel);
            let result = scene
                .hierarchy
                .apply_batch(&p.ops)
                .map_err(|e| EditFailure {
                    code: e.code,
                    message: e.message,
                    op: Some(e.op),
                });
            match &result {
                Ok(_) => report.batches_applied += 1,
                Err(e) => {
                    report.batches_rejected += 1;
                    self.metrics.rejected(e.code);
                }
            }
            outcomes.push((p.reply, result));
        }
        let dt = 1.0 / shared.tick_hz as f32;
        scene.hierarchy.run_update_callbacks(tick, dt);
        report.recomputed = scene.hierarchy.update_dirty().recomputed;

        // Classify before the refit: the octree still holds every node's old mask.
        {
            let state = &mut *scene;
            self.diff.rebuild(state.hierarchy.changes(), &state.octree);
        }
        for e in &self.diff.entries {
            if e.flags & REMOVED != 0 {
                scene.octree.remove(e.id);
            } else if e.flags & (ADDED | MOVED | RESHAPED) != 0
                && let Some(b) = scene.object_box(e.id)
            {
                scene.octree.insert_or_update(e.id, b);
            }
        }
        scene.tick = tick;
        scene.time_ms = now_ms;
        report.changed_nodes = self.diff.entries.len();
        let scene = RwLockWriteGuard::downgrade(scene);

        // Answer the edits before fanning out, so that on a WebSocket the ack of a
        // batch comes ahead of the delta that shows it.
        for (reply, result) in outcomes {
            reply.send(result.map(|ids| EditsResult { tick, ids }));
        }

        if !self.diff.is_empty() && !self.subscribers.is_empty() {
            // Whole-room scopes with the same mask share one delta, encoded at most once
            // per format however many subscribers read it.
            let mut groups: Vec<(u32, Option<Arc<SharedDelta>>)> = Vec::new();
            for sub in &mut self.subscribers {
                let delta = match &sub.scope.region {
                    None => {
                        let mask = sub.scope.mask;
                        match groups.iter().find(|(m, _)| *m == mask) {
                            Some((_, d)) => d.clone(),
                            None => {
                                scope::whole_room_parts(&self.diff, &scene, mask, &mut self.parts);
                                let d = (!self.parts.is_empty()).then(|| {
                                    Arc::new(SharedDelta::new(
                                        tick,
                                        now_ms,
                                        std::mem::take(&mut self.parts),
                                    ))
                                });
                                groups.push((mask, d.clone()));
                                d
                            }
                        }
                    }
                    Some(region) => {
                        scope::region_parts(
                            &self.diff,
                            &scene,
                            region,
                            sub.scope.mask,
                            &mut sub.in_scope,
                            &mut self.parts,
                        );
                        (!self.parts.is_empty()).then(|| {
                            Arc::new(SharedDelta::new(
                                tick,
                                now_ms,
                                std::mem::take(&mut self.parts),
                            ))
                        })
                    }
                };
                if let Some(d) = delta
                    && sub.outbox.push_delta(&d)
                {
                    report.frames_merged += 1;
                }
            }
        }
        let nodes = scene.hierarchy.len() as u64;
        drop(scene);
        let (mut pending, mut merged) = (0, 0);
        for sub in &self.subscribers {
            pending = sub
                .outbox
                .pending_entries
                .load(Ordering::Relaxed)
                .max(pending);
            merged += sub.outbox.merged_frames.load(Ordering::Relaxed);
        }
        shared.stats.observe_pending(pending, merged);

        let took = started.elapsed().as_nanos() as u64;
        report.duration_ns = took;
        let slow = period_ns > 0 && took > period_ns;
        shared
            .stats
            .record_tick(tick, nodes, took, slow, report.recomputed as u64);
        shared.stats.record_batches(
            report.batches_applied as u64,
            report.batches_rejected as u64,
        );
        self.metrics.tick_seconds.observe(took as f64 / 1e9);
        self.metrics
            .nodes_recomputed
            .inc_by(report.recomputed as u64);
        self.metrics
            .batches_applied
            .inc_by(report.batches_applied as u64);
        if slow {
            self.metrics.slow_ticks.inc();
        }
        report
    }
}
