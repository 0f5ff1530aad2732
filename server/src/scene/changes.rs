//! The per-tick change set ([`TickChanges`]) and the moment it is reset.
//!
//! A tick runs from one update to the next. The lists of a tick are cleared by the first
//! mutation (or update) after the previous update, not by the update itself, so that
//! [`Hierarchy::changes`](super::Hierarchy::changes) keeps answering for the last tick
//! until something new happens. Invariant: a node carries the `NEW`, `REPARENTED` or
//! `RESHAPED` flag exactly when it is listed in the matching list of the current tick;
//! each id appears at most once per list.

use canopy_protocol::NodeId;

use super::Hierarchy;
use super::store::SlotFlags;

/// What one tick changed, as lists of ids (no copies of the room).
///
/// After an update the lists are final: every listed node in `added`, `reparented`,
/// `reshaped` and `moved` is alive. Between mutations and the update they may still name
/// nodes that a later remove of the same tick took away. A node may be in several lists;
/// the consumer dedupes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TickChanges {
    /// Added during this tick and still alive, in the order they were added.
    pub added: Vec<NodeId>,
    /// Every node (whole subtrees) removed this tick that existed before the tick began.
    pub removed: Vec<NodeId>,
    /// Alive, existed before the tick, parent changed at least once this tick (the final
    /// parent may equal the original one).
    pub reparented: Vec<NodeId>,
    /// Alive, existed before the tick, extent or mask set this tick (possibly to the same
    /// value).
    pub reshaped: Vec<NodeId>,
    /// Alive, existed before the tick, world transform recomputed by the update and
    /// different (bitwise) from the previous tick's.
    pub moved: Vec<NodeId>,
    /// World transforms recomputed by the update: the cost measure of the tick.
    pub recomputed: usize,
}

impl TickChanges {
    /// Empties every list, keeping their allocations.
    pub fn clear(&mut self) {
        self.added.clear();
        self.removed.clear();
        self.reparented.clear();
        self.reshaped.clear();
        self.moved.clear();
        self.recomputed = 0;
    }

    /// The flagged lists by number: 0 `added`, 1 `reparented`, 2 `reshaped`.
    fn list(&self, which: usize) -> &[NodeId] {
        match which {
            0 => &self.added,
            1 => &self.reparented,
            _ => &self.reshaped,
        }
    }

    /// True when the tick changed nothing.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty()
            && self.removed.is_empty()
            && self.reparented.is_empty()
            && self.reshaped.is_empty()
            && self.moved.is_empty()
    }
}

impl Hierarchy {
    /// Starts a new tick's change set if the last update closed the previous one. The
    /// previous lists are kept in `spare` (swapped, not copied) so that a failed batch can
    /// put them back, and their flags are cleared through the journal.
    pub(crate) fn open_tick(&mut self) {
        if !self.tick_closed {
            return;
        }
        self.tick_closed = false;
        self.journal.reset_in_batch = self.journal.active;
        std::mem::swap(&mut self.changes, &mut self.spare);
        self.changes.clear();
        // Clear the per-tick flags of the nodes the previous tick listed. Ids of nodes
        // removed since are skipped: their slots are dead and hold no flags that matter.
        for (flag, which) in [
            (SlotFlags::NEW, 0),
            (SlotFlags::REPARENTED, 1),
            (SlotFlags::RESHAPED, 2),
        ] {
            let len = self.spare.list(which).len();
            for i in 0..len {
                if let Some(slot) = self.live_slot(self.spare.list(which)[i]) {
                    self.topo_mut(slot).flags.remove(flag);
                }
            }
        }
        self.removed_this_tick = false;
    }

    /// Undoes [`open_tick`](Self::open_tick) for a failed batch (its flag changes are
    /// undone by the journal).
    pub(crate) fn unopen_tick(&mut self) {
        std::mem::swap(&mut self.changes, &mut self.spare);
        self.tick_closed = true;
    }

    /// Called at the end of an update: the next mutation or update starts a new tick.
    pub(crate) fn close_tick(&mut self) {
        self.tick_closed = true;
    }

    /// Drops, from the lists of the current tick, the nodes a later remove of the same
    /// tick took away, so that the lists are final. Costs the length of the lists, and
    /// runs only in a tick that removed something.
    pub(crate) fn filter_removed_from_changes(&mut self) {
        if !self.removed_this_tick {
            return;
        }
        let slots = &self.slots;
        let alive = |id: &NodeId| slots.is_live(*id);
        self.changes.added.retain(alive);
        self.changes.reparented.retain(alive);
        self.changes.reshaped.retain(alive);
    }
}
