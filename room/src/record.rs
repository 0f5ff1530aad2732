//! The record phase of a tick: what the tick did, into the room's statistics, the
//! server's metrics and the [`TickReport`] its thread logs. A tick is slow when it took
//! longer than its period; that is decided here, once.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::Room;
use super::scene_state::Advance;
use crate::applied::Applied;

/// What one tick did, for the caller's logs and tests.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct TickReport {
    /// The tick that ran.
    pub tick: u64,
    /// Batches applied.
    pub batches_applied: usize,
    /// Batches refused (an invalid op, a limit), never applied.
    pub batches_rejected: usize,
    /// Batches whose callers gave up before the tick took them: never applied.
    pub batches_cancelled: usize,
    /// Batches left waiting for the next tick by the op budget.
    pub batches_waiting: usize,
    /// World transforms recomputed.
    pub recomputed: usize,
    /// Nodes with any change this tick.
    pub changed_nodes: usize,
    /// Subscribers whose delta was merged into their pending changes (they were behind).
    pub frames_merged: usize,
    /// Subscriptions answered with a snapshot or a resumed delta.
    pub snapshots: usize,
    /// How long the tick took, nanoseconds.
    pub duration_ns: u64,
    /// The tick took longer than its period.
    pub slow: bool,
}

/// What the phases of one tick measured, for [`Room::record`].
pub(super) struct Measured {
    pub started: Instant,
    pub applied: Applied,
    pub advance: Advance,
    pub frames_merged: usize,
    pub snapshots: usize,
    pub nodes: u64,
    /// The octree's cell count when this tick counted it (see `octree_cells_now`).
    pub octree_cells: Option<u64>,
}

impl Room {
    /// The octree's cell count on the first tick of each second, `None` on the others:
    /// counting is a scan of the cells (240,000 in a room of a million nodes, 0.4 ms),
    /// too much to pay every tick for a statistic.
    pub(super) fn octree_cells_now(&self, scene: &super::SceneState) -> Option<u64> {
        let hz = u64::from(self.shared.tick_hz.max(1));
        (scene.tick() % hz == 1 || hz == 1).then(|| scene.octree().cell_count() as u64)
    }

    /// Records how late the thread that ticks this room started its tick, against the
    /// slot the tick grid gave it (`canopy_tick_start_delay_seconds`).
    pub fn record_start_delay(&self, late: Duration) {
        self.metrics
            .tick_start_delay_seconds
            .observe(late.as_secs_f64());
    }

    pub(super) fn record(&mut self, m: Measured) -> TickReport {
        let took = m.started.elapsed().as_nanos() as u64;
        let slow = took > self.period_ns();
        let report = TickReport {
            tick: m.advance.tick,
            batches_applied: m.applied.batches_applied,
            batches_rejected: m.applied.batches_rejected,
            batches_cancelled: m.applied.batches_cancelled,
            batches_waiting: self.edits.len(),
            recomputed: m.advance.recomputed,
            changed_nodes: m.advance.changed,
            frames_merged: m.frames_merged,
            snapshots: m.snapshots,
            duration_ns: took,
            slow,
        };
        let (mut pending, mut merged) = (0, 0);
        for sub in &self.subscribers.list {
            pending = sub
                .outbox
                .pending_entries
                .load(Ordering::Relaxed)
                .max(pending);
            merged += sub.outbox.merged_frames.load(Ordering::Relaxed);
        }
        let stats = &self.shared.stats;
        stats.observe_pending(pending, merged);
        if let Some(cells) = m.octree_cells {
            stats.set_octree_cells(cells);
        }
        stats.record_tick(report.tick, m.nodes, took, slow, report.recomputed as u64);
        stats.record_batches(
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
