//! A room's running statistics, written by its tick and read by `GET /rooms/{room}`
//! without taking the scene lock.

use std::sync::atomic::{AtomicU64, Ordering};

/// Statistics of one room, all atomics so that readers never wait for the tick.
#[derive(Debug, Default)]
pub struct RoomStats {
    tick: AtomicU64,
    nodes: AtomicU64,
    subscribers: AtomicU64,
    last_tick_ns: AtomicU64,
    max_tick_ns: AtomicU64,
    slow_ticks: AtomicU64,
    recomputed_last: AtomicU64,
    batches_applied: AtomicU64,
    batches_rejected: AtomicU64,
    pending_peak: AtomicU64,
    merged_frames: AtomicU64,
    octree_cells: AtomicU64,
}

/// A consistent-enough copy of the statistics for a response.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StatsView {
    pub tick: u64,
    pub nodes: u64,
    pub subscribers: u64,
    pub tick_ms: f64,
    pub tick_ms_max: f64,
    pub slow_ticks: u64,
    pub recomputed_last_tick: u64,
    pub batches_applied: u64,
    pub batches_rejected: u64,
    pub pending_merge_entries_peak: u64,
    pub merged_frames: u64,
    pub octree_cells: u64,
}

impl RoomStats {
    /// Sets the number of subscribed connections.
    pub fn set_subscribers(&self, n: u64) {
        self.subscribers.store(n, Ordering::Relaxed);
    }

    /// Sets the number of live nodes outside a tick ([`RoomStats::record_tick`] sets it
    /// on every tick).
    pub fn set_nodes(&self, n: u64) {
        self.nodes.store(n, Ordering::Relaxed);
    }

    /// Records one finished tick.
    pub fn record_tick(&self, tick: u64, nodes: u64, took_ns: u64, slow: bool, recomputed: u64) {
        self.tick.store(tick, Ordering::Relaxed);
        self.nodes.store(nodes, Ordering::Relaxed);
        self.last_tick_ns.store(took_ns, Ordering::Relaxed);
        self.max_tick_ns.fetch_max(took_ns, Ordering::Relaxed);
        if slow {
            self.slow_ticks.fetch_add(1, Ordering::Relaxed);
        }
        self.recomputed_last.store(recomputed, Ordering::Relaxed);
    }

    /// Sets the number of octree cells in use.
    pub fn set_octree_cells(&self, n: u64) {
        self.octree_cells.store(n, Ordering::Relaxed);
    }

    /// Adds one tick's applied and refused batches to the running totals.
    pub fn record_batches(&self, applied: u64, rejected: u64) {
        self.batches_applied.fetch_add(applied, Ordering::Relaxed);
        self.batches_rejected.fetch_add(rejected, Ordering::Relaxed);
    }

    /// Records the pending merge entries of the most-behind subscriber this tick.
    pub fn observe_pending(&self, entries: u64, merged_frames: u64) {
        self.pending_peak.fetch_max(entries, Ordering::Relaxed);
        self.merged_frames.store(merged_frames, Ordering::Relaxed);
    }

    /// The last finished tick.
    pub fn tick(&self) -> u64 {
        self.tick.load(Ordering::Relaxed)
    }

    /// A copy of every statistic, for `GET /rooms` and `GET /rooms/{room}`.
    pub fn view(&self) -> StatsView {
        let ms = |ns: u64| ns as f64 / 1e6;
        StatsView {
            tick: self.tick.load(Ordering::Relaxed),
            nodes: self.nodes.load(Ordering::Relaxed),
            subscribers: self.subscribers.load(Ordering::Relaxed),
            tick_ms: ms(self.last_tick_ns.load(Ordering::Relaxed)),
            tick_ms_max: ms(self.max_tick_ns.load(Ordering::Relaxed)),
            slow_ticks: self.slow_ticks.load(Ordering::Relaxed),
            recomputed_last_tick: self.recomputed_last.load(Ordering::Relaxed),
            batches_applied: self.batches_applied.load(Ordering::Relaxed),
            batches_rejected: self.batches_rejected.load(Ordering::Relaxed),
            pending_merge_entries_peak: self.pending_peak.load(Ordering::Relaxed),
            merged_frames: self.merged_frames.load(Ordering::Relaxed),
            octree_cells: self.octree_cells.load(Ordering::Relaxed),
        }
    }
}
