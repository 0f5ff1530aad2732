//! World transform propagation: the dirty update (cost O(dirty nodes)) and the full sweep.
//!
//! Both first settle the tick's structural changes (`layout.rs`), so that parents come
//! before children in slot order. `update_dirty` then sorts the tick's dirty roots that
//! have children by slot and walks each one's subtree with the stackless pre-order walk,
//! recomputing every node from its parent's world transform, then recomputes the dirty
//! leaves, four at a time through `lanes.rs` (the same bits as one at a time); a root
//! already reached through an earlier root's subtree carries this update's
//! stamp and is skipped, so each node is recomputed at most once, and never a node outside
//! the edited subtrees. `update_all` is one linear sweep (split across threads in big
//! rooms by `par_sweep.rs`).
//! Invariant on return: every live world transform equals its parent's world composed
//! with its local transform, and the change set of the tick is final.

use super::Hierarchy;
use super::changes::TickChanges;
use super::iter::next_preorder;
use super::lanes::{self, gather4, scatter4};
use super::par_sweep::{self, ParallelSweep};
use super::slot::Slot;
use super::store::{SlotFlags, Trs};
use super::sweep;

impl Hierarchy {
    /// Settles the tick's structural changes and recomputes only the dirty subtrees.
    /// Allocates nothing in steady state.
    pub fn update_dirty(&mut self) -> &TickChanges {
        self.begin_update();
        let stamp = self.fresh_stamp();
        let mut roots = std::mem::take(&mut self.scratch.root_slots);
        let mut leaves = std::mem::take(&mut self.scratch.leaf_slots);
        roots.clear();
        leaves.clear();
        for &id in &self.dirty_roots {
            if let Some(slot) = self.slots.live(id) {
                if self.store.topo[slot].first_child.is_none() {
                    leaves.push(slot);
                } else {
                    roots.push(slot);
                }
            }
        }
        // Slot order puts an ancestor's walk before a descendant root's, which then finds
        // itself stamped and is skipped. Only roots with children can be ancestors, and a
        // leaf root walked after them all is skipped the same way, so the leaves (most
        // dirty roots in a game: moved objects) need no sorting, which at 20 edits a frame
        // was a third of the update.
        roots.sort_unstable();
        self.warm_roots(&roots);
        self.warm_roots(&leaves);
        let mut recomputed = 0;
        for &root in &roots {
            if self.store.topo[root].stamp == stamp {
                continue;
            }
            let mut cur = root;
            while cur.is_some() {
                self.recompute(cur, stamp);
                recomputed += 1;
                cur = next_preorder(&self.store.topo, root, cur);
            }
        }
        // The leaves four at a time (see `recompute4`), in list order.
        let mut group = [Slot::NONE; 4];
        let mut grouped = 0;
        for &leaf in &leaves {
            let t = &mut self.store.topo[leaf];
            if t.stamp == stamp {
                continue;
            }
            // Stamped as it joins the group, so that a repeated leaf joins once.
            t.stamp = stamp;
            group[grouped] = leaf;
            grouped += 1;
            if grouped == 4 {
                self.recompute4(group);
                grouped = 0;
            }
            recomputed += 1;
        }
        for &leaf in &group[..grouped] {
            self.recompute(leaf, stamp);
        }
        self.scratch.root_slots = roots;
        self.scratch.leaf_slots = leaves;
        self.end_update(recomputed)
    }

    /// Settles the tick's structural changes and recomputes every world transform in one
    /// forward sweep, on several threads in a room big enough for that to pay (see
    /// [`ParallelSweep`] and `par_sweep.rs`; same result either way, bit for bit).
    pub fn update_all(&mut self) -> &TickChanges {
        self.begin_update();
        // Plain slices indexed by `Slot::index`, so that the sweep has no bounds checks.
        let topo = self.store.topo.as_slice();
        let xf = &mut self.store.xf.as_mut_slice()[..topo.len()];
        let moved = &mut self.changes.moved;
        let threads = self.parallel.threads_for(self.live, topo.len());
        if threads > 1 && self.scratch.sweep.parallel_turn(self.parallel.back_off) {
            let chunk = self.parallel.chunk_slots;
            par_sweep::sweep(topo, xf, moved, threads, chunk, &mut self.scratch.sweep);
            return self.end_full_update();
        }
        // No stamps here: the next dirty update takes a fresh stamp anyway, and not
        // writing the links back keeps the sweep to one written stream. One run from slot
        // 0: every parent is in it.
        sweep::sweep_run(topo, xf, 0, |_| unreachable!("no slot below 0"), moved);
        self.end_full_update()
    }

    fn end_full_update(&mut self) -> &TickChanges {
        if self.record_recomputed {
            // Kept out of the sweep: it is a test hook.
            let topo = &self.store.topo;
            let ids = topo.iter().filter(|t| t.alive()).map(|t| t.id);
            self.recomputed_ids.extend(ids);
        }
        let recomputed = self.live;
        self.end_update(recomputed)
    }

    /// Sets when [`update_all`](Self::update_all) uses several threads.
    pub fn set_parallel_sweep(&mut self, parallel: ParallelSweep) {
        self.parallel = parallel;
    }

    /// When [`update_all`](Self::update_all) uses several threads.
    pub fn parallel_sweep(&self) -> ParallelSweep {
        self.parallel
    }

    /// In a room too large for the caches, the dirty roots are scattered and each costs
    /// a chain of cache misses (its links, then its parent's world transform). Reading
    /// those lines for all roots in two tight passes first lets the misses of different
    /// roots overlap instead of queueing one root after another; the recompute pass then
    /// finds them in cache.
    fn warm_roots(&self, roots: &[Slot]) {
        const SMALL_ROOM: usize = 1 << 15;
        if roots.len() < 2 || self.store.len() < SMALL_ROOM {
            return;
        }
        let topo = &self.store.topo;
        let xf = &self.store.xf;
        let mut acc = 0u32;
        for &r in roots {
            acc ^= topo[r].parent.raw() ^ xf[r].world.s().to_bits();
        }
        for &r in roots {
            let p = topo[r].parent;
            if p.is_some() {
                acc ^= xf[p].world.s().to_bits();
            }
        }
        std::hint::black_box(acc);
    }

    fn begin_update(&mut self) {
        self.flush_pending();
        self.settle();
        if self.record_recomputed {
            self.recomputed_ids.clear();
        }
    }

    fn end_update(&mut self, recomputed: usize) -> &TickChanges {
        self.dirty_roots.clear();
        self.changes.recomputed = recomputed;
        self.updated = true;
        &self.changes
    }

    /// Recomputes four stamped slots whose parents are current, in one pass of the
    /// four-lane arithmetic (`lanes.rs`, the same bits as one at a time): a dirty leaf
    /// alone waits out the latency of its square root and division, four share it.
    fn recompute4(&mut self, slots: [Slot; 4]) {
        let topo = &self.store.topo;
        let t = slots.map(|s| &topo[s]);
        if t.iter().any(|t| t.parent.is_none()) {
            // A root leaf's world is its local transform: one at a time.
            for s in slots {
                self.recompute(s, self.stamp);
            }
            return;
        }
        let xf = &self.store.xf;
        let parents = gather4(t.map(|t| &xf[t.parent].world));
        let locals = gather4(slots.map(|s| &xf[s].local));
        let worlds = scatter4(lanes::compose(&parents, &locals));
        for (slot, world) in slots.into_iter().zip(worlds) {
            let t = &self.store.topo[slot];
            sweep::store(
                t,
                &mut self.store.xf[slot].world,
                world,
                &mut self.changes.moved,
            );
            if self.record_recomputed {
                self.recomputed_ids.push(t.id);
            }
        }
    }

    /// Recomputes one slot's world transform from its parent's (already current) one.
    #[inline(always)]
    fn recompute(&mut self, slot: Slot, stamp: u32) {
        let topo = &mut self.store.topo[slot];
        topo.stamp = stamp;
        let parent = topo.parent;
        let flags = topo.flags;
        let id = topo.id;
        let local = &self.store.xf[slot].local;
        let world = if parent.is_none() {
            *local
        } else {
            Trs::compose(&self.store.xf[parent].world, local)
        };
        let old = &mut self.store.xf[slot].world;
        if !world.same_bits(old) {
            *old = world;
            if !flags.contains(SlotFlags::NEW) {
                self.changes.moved.push(id);
            }
        }
        if self.record_recomputed {
            self.recomputed_ids.push(id);
        }
    }
}
