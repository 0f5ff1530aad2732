//! One tick's changes, classified once per node, so that every subscriber scope can
//! turn them into its delta in O(changed) without looking at the room.
//!
//! Invariant: each node appears once in `entries`, with the union of what happened to
//! it this tick; `old_mask` is its mask before the tick (recorded by the hierarchy when
//! a reshape or a remove changed it), which scopes with a mask need to tell whether a
//! removed or re-layered node was in scope.

use canopy_protocol::NodeId;
use rustc_hash::FxHashMap;

use canopy_scene::Hierarchy;

bitflags::bitflags! {
    /// What happened to one node in one tick (several kinds may combine).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub struct NodeChange: u8 {
        /// Added this tick (and still alive).
        const ADDED = 1;
        /// Removed this tick, having existed before it.
        const REMOVED = 1 << 1;
        /// Extent or mask set.
        const RESHAPED = 1 << 2;
        /// Parent changed.
        const REPARENTED = 1 << 3;
        /// World transform changed.
        const MOVED = 1 << 4;
    }
}

/// One node's changes in one tick.
#[derive(Clone, Copy, Debug)]
pub struct DiffEntry {
    /// The node that changed.
    pub id: NodeId,
    /// Everything that happened to it this tick.
    pub change: NodeChange,
    /// The mask before this tick; meaningless for nodes added this tick.
    pub old_mask: u32,
}

/// The classified changes of one tick. The buffers are reused from tick to tick.
#[derive(Debug, Default)]
pub struct TickDiff {
    /// One entry per changed node, each node once.
    pub entries: Vec<DiffEntry>,
    index: FxHashMap<NodeId, u32>,
}

impl TickDiff {
    /// True when nothing changed this tick.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// What happened to `id` this tick, if anything.
    pub fn change_of(&self, id: NodeId) -> Option<NodeChange> {
        self.index
            .get(&id)
            .map(|&i| self.entries[i as usize].change)
    }

    /// Rebuilds the diff from the hierarchy's change set (final after its update).
    pub fn rebuild(&mut self, hierarchy: &Hierarchy) {
        self.entries.clear();
        self.index.clear();
        let changes = hierarchy.changes();
        for r in &changes.removed {
            self.mark(r.id, NodeChange::REMOVED, || r.old_mask);
        }
        for &id in &changes.added {
            self.mark(id, NodeChange::ADDED, || 0);
        }
        for r in &changes.reshaped {
            self.mark(r.id, NodeChange::RESHAPED, || r.old_mask);
        }
        // Only a reshape changes a mask, and reshaped nodes are marked above (with their
        // old mask), so a node met first here has the mask it began the tick with.
        let mask_now = |id: NodeId| hierarchy.mask(id).unwrap_or(0);
        for &id in &changes.reparented {
            self.mark(id, NodeChange::REPARENTED, || mask_now(id));
        }
        for &id in &changes.moved {
            self.mark(id, NodeChange::MOVED, || mask_now(id));
        }
    }

    /// Adds `change` to the entry of `id`, making one (with `old_mask()`) if there is none.
    fn mark(&mut self, id: NodeId, change: NodeChange, old_mask: impl FnOnce() -> u32) {
        match self.index.get(&id) {
            Some(&i) => self.entries[i as usize].change |= change,
            None => {
                self.index.insert(id, self.entries.len() as u32);
                self.entries.push(DiffEntry {
                    id,
                    change,
                    old_mask: old_mask(),
                });
            }
        }
    }
}
