//! The undo journal that makes a batch atomic.
//!
//! A batch is applied op by op to the real hierarchy, so that each op is checked against
//! exactly the state the earlier ops leave. While a batch runs, every write to a slot that
//! existed before the batch goes through the journaled setters here, which first record
//! the old value; slots appended by the batch are simply truncated away, and the scalar
//! counters and list lengths are saved once in a [`Mark`]. Invariant: after
//! [`Hierarchy::rollback`] the observable state (and the slot layout) is exactly what it
//! was when [`Hierarchy::begin_batch`] ran.

use canopy_protocol::NodeId;
use glam::Vec3;

use super::Hierarchy;
use super::slot::Slot;
use super::store::{Topo, Trs};

/// One recorded old value.
#[derive(Clone, Debug)]
pub(crate) enum Undo {
    Topo(Slot, Topo),
    Local(Slot, Trs),
    Shape(Slot, Vec3, u32),
    /// The id map entry before the write (`None`: the id was not in the map).
    Map(NodeId, Option<Slot>),
}

/// Counters and list lengths at the start of a batch.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Mark {
    len: usize,
    live: usize,
    dead: usize,
    next_id: u64,
    dirty_roots: usize,
    misordered: usize,
    removed_this_tick: bool,
    added: usize,
    removed: usize,
    reparented: usize,
    reshaped: usize,
}

#[derive(Debug, Default)]
pub(crate) struct Journal {
    /// A batch is running: writes to old slots are recorded.
    pub active: bool,
    /// Slots from this one on were appended by the running batch.
    pub base: Slot,
    pub entries: Vec<Undo>,
    pub mark: Mark,
}

impl Hierarchy {
    /// Writable access to a slot's topo record, recording its old value first when a
    /// batch is running.
    #[inline]
    pub(crate) fn topo_mut(&mut self, slot: Slot) -> &mut Topo {
        if self.journal.active && slot < self.journal.base {
            let old = self.store.topo[slot];
            self.journal.entries.push(Undo::Topo(slot, old));
        }
        &mut self.store.topo[slot]
    }

    #[inline]
    pub(crate) fn local_mut(&mut self, slot: Slot) -> &mut Trs {
        if self.journal.active && slot < self.journal.base {
            let old = self.store.xf[slot].local;
            self.journal.entries.push(Undo::Local(slot, old));
        }
        &mut self.store.xf[slot].local
    }

    pub(crate) fn set_shape_fields(&mut self, slot: Slot, extent: Vec3, mask: u32) {
        if self.journal.active && slot < self.journal.base {
            let undo = Undo::Shape(slot, self.store.extent[slot], self.store.mask[slot]);
            self.journal.entries.push(undo);
        }
        self.store.extent[slot] = extent;
        self.store.mask[slot] = mask;
    }

    /// Sets the id map entry of `id` (a slot, or `RETIRED` for a removed id).
    pub(crate) fn map_set(&mut self, id: NodeId, slot: Slot) {
        let old = self.slots.insert(id, slot);
        if self.journal.active {
            self.journal.entries.push(Undo::Map(id, old));
        }
    }

    /// Starts recording. Nested batches do not exist: `apply_batch` is the only caller.
    pub(crate) fn begin_batch(&mut self) {
        debug_assert!(!self.journal.active);
        self.journal.active = true;
        self.journal.base = self.store.end();
        self.journal.entries.clear();
        self.journal.mark = Mark {
            len: self.store.len(),
            live: self.live,
            dead: self.dead,
            next_id: self.next_id,
            dirty_roots: self.dirty_roots.len(),
            misordered: self.misordered.len(),
            removed_this_tick: self.removed_this_tick,
            added: self.changes.added.len(),
            removed: self.changes.removed.len(),
            reparented: self.changes.reparented.len(),
            reshaped: self.changes.reshaped.len(),
        };
    }

    /// Keeps everything the batch did.
    pub(crate) fn commit(&mut self) {
        self.journal.active = false;
        self.journal.entries.clear();
    }

    /// Puts the hierarchy back exactly as it was at `begin_batch`.
    pub(crate) fn rollback(&mut self) {
        self.journal.active = false;
        while let Some(undo) = self.journal.entries.pop() {
            match undo {
                Undo::Topo(slot, old) => self.store.topo[slot] = old,
                Undo::Local(slot, old) => self.store.xf[slot].local = old,
                Undo::Shape(slot, extent, mask) => {
                    self.store.extent[slot] = extent;
                    self.store.mask[slot] = mask;
                }
                Undo::Map(id, Some(old)) => {
                    self.slots.insert(id, old);
                }
                Undo::Map(id, None) => {
                    self.slots.remove(id);
                }
            }
        }
        let m = self.journal.mark;
        self.store.truncate(m.len);
        self.live = m.live;
        self.dead = m.dead;
        self.next_id = m.next_id;
        self.dirty_roots.truncate(m.dirty_roots);
        self.misordered.truncate(m.misordered);
        self.changes.added.truncate(m.added);
        self.changes.removed.truncate(m.removed);
        self.changes.reparented.truncate(m.reparented);
        self.changes.reshaped.truncate(m.reshaped);
        self.removed_this_tick = m.removed_this_tick;
    }
}
