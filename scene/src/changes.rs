//! The change set of the current tick ([`TickChanges`]) and the explicit end of a tick.
//!
//! Invariants: a live node carries the `NEW`, `REPARENTED` or `RESHAPED` flag exactly when
//! the matching list of the current tick names it; each id appears at most once in each
//! list but `moved`; right after an update every node listed in `added`, `reparented`,
//! `reshaped` and `moved` is alive, and `removed` and `reshaped` carry each node's mask
//! as it was when the tick began (so no consumer needs to keep last tick's masks).
//!
//! A tick's lists fill from the end of the previous tick on: batches and `set_local`
//! append to them, an update makes them final, and the consumer (the room) ends the tick
//! with [`Hierarchy::finish_tick`] once it has turned them into its diff. A refused batch
//! truncates them back to where they were.

use canopy_protocol::NodeId;
use rustc_hash::FxHashMap;

use super::Hierarchy;
use super::store::SlotFlags;

/// A node of a change list with the mask it had when the tick began: what a scope with a
/// mask needs to tell whether a removed or re-layered node was in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct WithOldMask {
    /// The node.
    pub id: NodeId,
    /// Its mask when the tick began.
    pub old_mask: u32,
}

/// What one tick changed, as lists of ids (no copies of the room).
///
/// After an update the lists are final: every listed node in `added`, `reparented`,
/// `reshaped` and `moved` is alive. Between edits and the update they may still name
/// nodes that a later remove of the same tick took away. A node may be in several lists;
/// the consumer dedupes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TickChanges {
    /// Added during this tick and still alive, in the order they were added.
    pub added: Vec<NodeId>,
    /// Every node (whole subtrees) removed this tick that existed before the tick began.
    pub removed: Vec<WithOldMask>,
    /// Alive, existed before the tick, parent changed at least once this tick (the final
    /// parent may equal the original one).
    pub reparented: Vec<NodeId>,
    /// Alive, existed before the tick, extent or mask set this tick (possibly to the same
    /// value).
    pub reshaped: Vec<WithOldMask>,
    /// Alive, existed before the tick, world transform recomputed by the update and
    /// different (bitwise) from before. A tick updated more than once lists a node once
    /// per update that moved it.
    pub moved: Vec<NodeId>,
    /// World transforms recomputed by the last update: the cost measure of the tick.
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
    /// Ends the tick: whoever consumes the change set of the last update is done with it.
    /// Empties the lists and clears the per-tick flags of the nodes they name, so that the
    /// next edit starts the next tick. Costs the length of the lists.
    ///
    /// # Panics
    /// If anything was edited since the last update: that edit would be reported in no
    /// tick's change set.
    pub fn finish_tick(&mut self) {
        assert!(
            self.updated,
            "finish_tick after edits that no update has reported"
        );
        let (topo, slots) = (&mut self.store.topo, &self.slots);
        // Right after an update every listed node is alive, so each has its slot.
        let mut clear = |id: NodeId, flag: SlotFlags| {
            if let Some(slot) = slots.live(id) {
                topo[slot].flags.remove(flag);
            }
        };
        for &id in &self.changes.added {
            clear(id, SlotFlags::NEW);
        }
        for &id in &self.changes.reparented {
            clear(id, SlotFlags::REPARENTED);
        }
        for c in &self.changes.reshaped {
            clear(c.id, SlotFlags::RESHAPED);
        }
        self.changes.clear();
        self.removed_this_tick = false;
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
        // Empty here unless an earlier update of the same tick moved something.
        self.changes.moved.retain(alive);
        // A node reshaped and then removed in the same tick began the tick with the mask
        // its reshape recorded, not with the one it was removed with.
        let mut carried = FxHashMap::default();
        self.changes.reshaped.retain(|c| {
            let keep = alive(&c.id);
            if !keep {
                carried.insert(c.id, c.old_mask);
            }
            keep
        });
        if !carried.is_empty() {
            for r in &mut self.changes.removed {
                if let Some(&old_mask) = carried.get(&r.id) {
                    r.old_mask = old_mask;
                }
            }
        }
    }
}
