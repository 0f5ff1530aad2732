//! Traversals: children, the stackless depth-first walk of a subtree, ancestors, and every
//! node in parent-before-child order.
//!
//! None of them allocates. The subtree walk keeps only the current slot: `next` goes to
//! the first child, else climbs to the nearest next sibling, and stops when it climbs back
//! to the subtree's root. Children come in attachment order (see `links.rs`), so the walk
//! is a pre-order in that order.

use canopy_protocol::{Node, NodeId};

use super::Hierarchy;
use super::slot::{Slot, SlotVec};
use super::store::Topo;

/// The next slot of a pre-order walk of the subtree rooted at `root`, after `cur`.
#[inline(always)]
pub(crate) fn next_preorder(topo: &SlotVec<Topo>, root: Slot, cur: Slot) -> Slot {
    let t = &topo[cur];
    if t.first_child.is_some() {
        return t.first_child;
    }
    let mut c = cur;
    loop {
        if c == root {
            return Slot::NONE;
        }
        let t = &topo[c];
        if t.next.is_some() {
            return t.next;
        }
        c = t.parent;
    }
}

/// The children of a node, in attachment order.
#[derive(Clone, Debug)]
pub struct Children<'a> {
    topo: &'a SlotVec<Topo>,
    cur: Slot,
}

impl Iterator for Children<'_> {
    type Item = NodeId;

    fn next(&mut self) -> Option<NodeId> {
        if self.cur.is_none() {
            return None;
        }
        let t = &self.topo[self.cur];
        self.cur = t.next;
        Some(t.id)
    }
}

/// A subtree in pre-order, its root first.
#[derive(Clone, Debug)]
pub struct Descendants<'a> {
    topo: &'a SlotVec<Topo>,
    root: Slot,
    cur: Slot,
}

impl Iterator for Descendants<'_> {
    type Item = NodeId;

    fn next(&mut self) -> Option<NodeId> {
        if self.cur.is_none() {
            return None;
        }
        let id = self.topo[self.cur].id;
        self.cur = next_preorder(self.topo, self.root, self.cur);
        Some(id)
    }
}

/// The ancestors of a node, nearest first, the node itself excluded.
#[derive(Clone, Debug)]
pub struct Ancestors<'a> {
    topo: &'a SlotVec<Topo>,
    cur: Slot,
}

impl Iterator for Ancestors<'_> {
    type Item = NodeId;

    fn next(&mut self) -> Option<NodeId> {
        if self.cur.is_none() {
            return None;
        }
        let p = self.topo[self.cur].parent;
        self.cur = p;
        p.is_some().then(|| self.topo[p].id)
    }
}

impl Hierarchy {
    /// The children of `id` in attachment order (empty for an unknown node).
    pub fn children(&self, id: NodeId) -> Children<'_> {
        let cur = match self.live_slot(id) {
            Some(s) => self.store.topo[s].first_child,
            None => Slot::NONE,
        };
        Children {
            topo: &self.store.topo,
            cur,
        }
    }

    /// The subtree of `id` in pre-order, `id` first (empty for an unknown node).
    /// Stackless and allocation-free.
    pub fn descendants(&self, id: NodeId) -> Descendants<'_> {
        let root = self.slot_of(id);
        Descendants {
            topo: &self.store.topo,
            root,
            cur: root,
        }
    }

    /// The ancestors of `id`, nearest first, excluding `id` (empty for an unknown node or
    /// a root).
    pub fn ancestors(&self, id: NodeId) -> Ancestors<'_> {
        Ancestors {
            topo: &self.store.topo,
            cur: self.slot_of(id),
        }
    }

    /// Every root, in slot order.
    pub fn roots(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.store
            .topo
            .iter()
            .filter(|t| t.alive() && t.parent.is_none())
            .map(|t| t.id)
    }

    /// Every live node, in an order where each node comes after its parent. Between an
    /// update and the next structural change this is the slot order, a straight scan;
    /// otherwise each root's subtree is walked.
    pub fn iter_nodes(&self) -> impl Iterator<Item = Node> + '_ {
        let by_slot = self.misordered.is_empty();
        let scan = by_slot.then(|| {
            self.store
                .topo
                .enumerate()
                .filter(|(_, t)| t.alive())
                .map(|(s, _)| self.node_at(s))
        });
        let walk = (!by_slot).then(|| {
            self.roots()
                .flat_map(|r| self.descendants(r))
                .map(|id| self.node(id).expect("walked nodes are live"))
        });
        scan.into_iter().flatten().chain(walk.into_iter().flatten())
    }

    /// Every live id in slot order (not necessarily parent-before-child before an update).
    pub fn ids(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.store.topo.iter().filter(|t| t.alive()).map(|t| t.id)
    }
}
