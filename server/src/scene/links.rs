//! First-child / next-sibling links: attaching and detaching a node in O(1).
//!
//! Children are kept in attachment order: `add` and `set_parent` append the node at the
//! end of its new parent's child list (`last_child` makes that O(1); `prev` makes the
//! detach O(1)). Invariant: for every live node, `parent`, the parent's
//! `first_child`/`last_child` and the siblings' `prev`/`next` agree. All writes go through
//! the journaled `topo_mut`, so a failed batch can undo them.

use super::Hierarchy;
use super::store::NONE;

impl Hierarchy {
    /// Makes `child` (currently detached) the last child of `parent`, or a root when
    /// `parent` is `NONE`.
    pub(crate) fn link_last(&mut self, parent: u32, child: u32) {
        if parent == NONE {
            let c = self.topo_mut(child);
            c.parent = NONE;
            c.prev = NONE;
            c.next = NONE;
            return;
        }
        let last = self.store.topo[parent as usize].last_child;
        {
            let c = self.topo_mut(child);
            c.parent = parent;
            c.prev = last;
            c.next = NONE;
        }
        if last == NONE {
            let p = self.topo_mut(parent);
            p.first_child = child;
            p.last_child = child;
        } else {
            self.topo_mut(last).next = child;
            self.topo_mut(parent).last_child = child;
        }
    }

    /// Detaches `child` from its parent's child list (its own subtree stays attached to
    /// it). Leaves `child.parent` as it was; the caller overwrites it.
    pub(crate) fn unlink(&mut self, child: u32) {
        let c = self.store.topo[child as usize];
        if c.parent == NONE {
            return;
        }
        if c.prev == NONE {
            self.topo_mut(c.parent).first_child = c.next;
        } else {
            self.topo_mut(c.prev).next = c.next;
        }
        if c.next == NONE {
            self.topo_mut(c.parent).last_child = c.prev;
        } else {
            self.topo_mut(c.next).prev = c.prev;
        }
        let c = self.topo_mut(child);
        c.prev = NONE;
        c.next = NONE;
    }
}
