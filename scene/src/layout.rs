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
use super::slot::Slot;
use super::store::SlotFlags;

impl Hierarchy {
    /// Makes the slot order valid again and the change lists final (see the module docs).
    pub(crate) fn settle(&mut self) {
        if self.removed_this_tick {
            self.filter_removed_from_changes();
            let slots = &self.slots;
            self.callbacks.retain(|id, _| slots.is_live(*id));
        }
        for i in 0..self.misordered.len() {
            let id = self.misordered[i];
            if let Some(slot) = self.live_slot(id) {
                let parent = self.store.topo[slot].parent;
                // An earlier relocation of an enclosing subtree may have fixed it already.
                if parent.is_some() && parent > slot {
                    self.relocate(slot);
                }
            }
        }
        self.misordered.clear();
        if self.dead > 0 && self.dead >= self.live {
            self.compact();
        }
    }

    /// Moves the subtree of `root` to the end of the arrays in pre-order.
    fn relocate(&mut self, root: Slot) {
        let base = self.store.end();
        // Pass 1: copy every node of the subtree, recording where each went.
        let mut cur = root;
        while cur.is_some() {
            let new = self.store.push_copy(cur);
            let remap = &mut self.scratch.remap;
            remap.grow_to(cur.index() + 1, Slot::NONE);
            remap[cur] = new;
            cur = next_preorder(&self.store.topo, root, cur);
        }
        let end = self.store.end();
        // Pass 2: point the copies' links at the copies. The root's parent and siblings are
        // outside the subtree and stay; every other link stays inside it.
        let remap = &self.scratch.remap;
        let map = |l: Slot| if l.is_none() { Slot::NONE } else { remap[l] };
        for new in base.up_to(end) {
            let t = &mut self.store.topo[new];
            t.first_child = map(t.first_child);
            t.last_child = map(t.last_child);
            if new != base {
                t.parent = map(t.parent);
                t.next = map(t.next);
                t.prev = map(t.prev);
            }
        }
        // Point the neighbours outside the subtree at the root's copy.
        let r = self.store.topo[base];
        if r.parent.is_some() {
            let p = &mut self.store.topo[r.parent];
            if p.first_child == root {
                p.first_child = base;
            }
            if p.last_child == root {
                p.last_child = base;
            }
        }
        if r.prev.is_some() {
            self.store.topo[r.prev].next = base;
        }
        if r.next.is_some() {
            self.store.topo[r.next].prev = base;
        }
        // Retire the old slots (their internal links are still intact for this walk).
        let mut cur = root;
        while cur.is_some() {
            let next = next_preorder(&self.store.topo, root, cur);
            let t = &mut self.store.topo[cur];
            t.flags = SlotFlags::empty();
            let id = t.id;
            let new = self.scratch.remap[cur];
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
        remap.grow_to(len, Slot::NONE);
        let mut w = Slot::new(0);
        for (s, new) in remap.enumerate_mut().take(len) {
            if self.store.topo[s].alive() {
                *new = w;
                if s != w {
                    self.store.move_down(s, w);
                }
                w = Slot::at(w.index() + 1);
            }
        }
        self.store.truncate(w.index());
        let map = |l: Slot| if l.is_none() { Slot::NONE } else { remap[l] };
        for (s, t) in self.store.topo.enumerate_mut() {
            t.parent = map(t.parent);
            t.first_child = map(t.first_child);
            t.last_child = map(t.last_child);
            t.next = map(t.next);
            t.prev = map(t.prev);
            self.slots.relocate(t.id, s);
        }
        self.dead = 0;
    }
}
