//! The slot order: settling a tick's structural changes once, at the start of an update.
//!
//! Invariant restored here: every live node's slot is greater than its parent's slot, so
//! that a forward sweep over the slots meets parents before children. `add` appends, so it
//! never breaks the order; `set_parent` under a node with a higher slot does, and records
//! the moved node in `misordered`. Settling relocates each such subtree, in pre-order, to
//! the end of the arrays (cost: the subtree's size, which the update recomputes anyway),
//! leaving holes behind. Removal leaves holes too. Holes are reclaimed by one compaction
//! pass when they outnumber the live nodes, so compaction is amortized O(1) per hole.

use super::Hierarchy;
use super::iter::next_preorder;
use super::store::NONE;

impl Hierarchy {
    /// Makes the slot order valid again and the change lists final (see the module docs).
    pub(crate) fn settle(&mut self) {
        if self.removed_this_tick {
            self.filter_removed_from_changes();
            let slots = &self.slots;
            self.callbacks
                .retain(|id, _| slots.get(*id).is_some_and(|s| s != NONE));
        }
        for i in 0..self.misordered.len() {
            let id = self.misordered[i];
            if let Some(slot) = self.live_slot(id) {
                let parent = self.store.topo[slot].parent;
                // An earlier relocation of an enclosing subtree may have fixed it already.
                if parent != NONE && parent as usize > slot {
                    self.relocate(slot as u32);
                }
            }
        }
        self.misordered.clear();
        if self.dead > 0 && self.dead >= self.live {
            self.compact();
        }
    }

    /// Moves the subtree of `root` to the end of the arrays in pre-order.
    fn relocate(&mut self, root: u32) {
        let base = self.store.len() as u32;
        // Pass 1: copy every node of the subtree, recording where each went.
        let mut cur = root;
        while cur != NONE {
            let new = self.store.push_copy(cur);
            let remap = &mut self.scratch.remap;
            if remap.len() <= cur as usize {
                remap.resize(cur as usize + 1, NONE);
            }
            remap[cur as usize] = new;
            cur = next_preorder(&self.store.topo, root, cur);
        }
        let end = self.store.len() as u32;
        // Pass 2: point the copies' links at the copies. The root's parent and siblings are
        // outside the subtree and stay; every other link stays inside it.
        let remap = &self.scratch.remap;
        let map = |l: u32| if l == NONE { NONE } else { remap[l as usize] };
        for new in base..end {
            let t = &mut self.store.topo[new as usize];
            t.first_child = map(t.first_child);
            t.last_child = map(t.last_child);
            if new != base {
                t.parent = map(t.parent);
                t.next = map(t.next);
                t.prev = map(t.prev);
            }
        }
        // Point the neighbours outside the subtree at the root's copy.
        let r = self.store.topo[base as usize];
        if r.parent != NONE {
            let p = &mut self.store.topo[r.parent as usize];
            if p.first_child == root {
                p.first_child = base;
            }
            if p.last_child == root {
                p.last_child = base;
            }
        }
        if r.prev != NONE {
            self.store.topo[r.prev as usize].next = base;
        }
        if r.next != NONE {
            self.store.topo[r.next as usize].prev = base;
        }
        // Retire the old slots (their internal links are still intact for this walk).
        let mut cur = root;
        while cur != NONE {
            let next = next_preorder(&self.store.topo, root, cur);
            let t = &mut self.store.topo[cur as usize];
            t.flags = 0;
            let id = t.id;
            let new = self.scratch.remap[cur as usize];
            self.slots.relocate(id, new);
            self.dead += 1;
            cur = next;
        }
    }

    /// Squeezes out the holes, keeping the relative order of live slots (so the order
    /// stays valid).
    fn compact(&mut self) {
        let len = self.store.len();
        let remap = &mut self.scratch.remap;
        if remap.len() < len {
            remap.resize(len, NONE);
        }
        let mut w = 0;
        for (s, new) in remap.iter_mut().enumerate().take(len) {
            if self.store.topo[s].alive() {
                *new = w as u32;
                if s != w {
                    self.store.move_down(s, w);
                }
                w += 1;
            }
        }
        self.store.truncate(w);
        let map = |l: u32| if l == NONE { NONE } else { remap[l as usize] };
        for (s, t) in self.store.topo.iter_mut().enumerate() {
            t.parent = map(t.parent);
            t.first_child = map(t.first_child);
            t.last_child = map(t.last_child);
            t.next = map(t.next);
            t.prev = map(t.prev);
            self.slots.relocate(t.id, s as u32);
        }
        self.dead = 0;
    }
}
