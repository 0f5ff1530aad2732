//! World transform propagation: the dirty update (cost O(dirty nodes)) and the full sweep.
//!
//! Both first settle the tick's structural changes (`layout.rs`), so that parents come
//! before children in slot order. `update_dirty` then sorts the tick's dirty roots by slot
//! and walks each root's subtree with the stackless pre-order walk, recomputing every node
//! from its parent's world transform; a root already reached through an earlier root's
//! subtree carries this update's stamp and is skipped, so each node is recomputed at most
//! once, and never a node outside the edited subtrees. `update_all` is one linear sweep.
//! Invariant on return: every live world transform equals its parent's world composed
//! with its local transform, and the change set of the tick is final.

use super::Hierarchy;
use super::changes::TickChanges;
use super::iter::next_preorder;
use super::store::{NEW, NONE, Trs};

impl Hierarchy {
    /// Settles the tick's structural changes and recomputes only the dirty subtrees.
    /// Allocates nothing in steady state.
    pub fn update_dirty(&mut self) -> &TickChanges {
        self.begin_update();
        let stamp = self.fresh_stamp();
        let mut roots = std::mem::take(&mut self.scratch.root_slots);
        roots.clear();
        for &id in &self.dirty_roots {
            if let Some(&slot) = self.slots.get(&id)
                && slot != NONE
            {
                roots.push(slot);
            }
        }
        roots.sort_unstable();
        let mut recomputed = 0;
        for &root in &roots {
            if self.store.topo[root as usize].stamp == stamp {
                continue;
            }
            let mut cur = root;
            while cur != NONE {
                self.recompute(cur as usize, stamp);
                recomputed += 1;
                cur = next_preorder(&self.store.topo, root, cur);
            }
        }
        self.scratch.root_slots = roots;
        self.end_update(recomputed)
    }

    /// Settles the tick's structural changes and recomputes every world transform in one
    /// forward sweep.
    pub fn update_all(&mut self) -> &TickChanges {
        self.begin_update();
        let stamp = self.fresh_stamp();
        let mut recomputed = 0;
        for slot in 0..self.store.len() {
            if self.store.topo[slot].alive() {
                self.recompute(slot, stamp);
                recomputed += 1;
            }
        }
        self.end_update(recomputed)
    }

    fn begin_update(&mut self) {
        // An update with no mutation since the previous one is a tick of its own, which
        // changed nothing.
        self.open_tick();
        self.settle();
        if self.record_recomputed {
            self.recomputed_ids.clear();
        }
    }

    fn end_update(&mut self, recomputed: usize) -> &TickChanges {
        self.dirty_roots.clear();
        self.changes.recomputed = recomputed;
        self.close_tick();
        &self.changes
    }

    /// Recomputes one slot's world transform from its parent's (already current) one.
    #[inline(always)]
    fn recompute(&mut self, slot: usize, stamp: u32) {
        let topo = &mut self.store.topo[slot];
        topo.stamp = stamp;
        let parent = topo.parent;
        let flags = topo.flags;
        let id = topo.id;
        let local = &self.store.local[slot];
        let world = if parent == NONE {
            *local
        } else {
            Trs::compose(&self.store.world[parent as usize], local)
        };
        let old = &mut self.store.world[slot];
        if !world.same_bits(old) {
            *old = world;
            if flags & NEW == 0 {
                self.changes.moved.push(id);
            }
        }
        if self.record_recomputed {
            self.recomputed_ids.push(id);
        }
    }
}
