//! First-child / next-sibling links: attaching and detaching a node in O(1).
//!
//! Children are kept in attachment order: `add` and `set_parent` append the node at the
//! end of its new parent's child list (`last_child` makes that O(1); `prev` makes the
//! detach O(1)). Invariant: for every live node, `parent`, the parent's
//! `first_child`/`last_child` and the siblings' `prev`/`next` agree. All writes go through
//! the journaled `topo_mut`, so a failed batch can undo them.

use super::Hierarchy;
use super::slot::Slot;

impl Hierarchy {
    /// Makes `child` (currently detached) the last child of `parent`, or a root when
    /// `parent` is [`Slot::NONE`].
    pub(crate) fn link_last(&mut self, parent: Slot, child: Slot) {
        if parent.is_none() {
            let c = self.topo_mut(child);
            c.parent = Slot::NONE;
            c.prev = Slot::NONE;
            c.next = Slot::NONE;
            return;
        }
        let last = self.store.topo[parent].last_child;
        {
            let c = self.topo_mut(child);
            c.parent = parent;
            c.prev = last;
            c.next = Slot::NONE;
        }
        if last.is_none() {
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
    pub(crate) fn unlink(&mut self, child: Slot) {
        let c = self.store.topo[child];
        if c.parent.is_none() {
            return;
        }
        if c.prev.is_none() {
            self.topo_mut(c.parent).first_child = c.next;
        } else {
            self.topo_mut(c.prev).next = c.next;
        }
        if c.next.is_none() {
            self.topo_mut(c.parent).last_child = c.prev;
        } else {
            self.topo_mut(c.next).prev = c.prev;
        }
        let c = self.topo_mut(child);
        c.prev = Slot::NONE;
        c.next = Slot::NONE;
    }
}
