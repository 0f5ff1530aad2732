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
use super::store::{Topo, Trs};

/// One recorded old value.
#[derive(Clone, Debug)]
pub(crate) enum Undo {
    Topo(u32, Topo),
    Local(u32, Trs),
    Shape(u32, Vec3, u32),
    /// The id map entry before the write (`None`: the id was not in the map).
    Map(NodeId, Option<u32>),
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
    /// Slots at or above this index were appended by the running batch.
    pub base_len: u32,
    /// The running batch opened a new tick (see `changes.rs`).
    pub reset_in_batch: bool,
    pub entries: Vec<Undo>,
    pub mark: Mark,
}

impl Hierarchy {
    /// Writable access to a slot's topo record, recording its old value first when a
    /// batch is running.
    #[inline]
    pub(crate) fn topo_mut(&mut self, slot: u32) -> &mut Topo {
        if self.journal.active && slot < self.journal.base_len {
            let old = self.store.topo[slot as usize];
            self.journal.entries.push(Undo::Topo(slot, old));
        }
        &mut self.store.topo[slot as usize]
    }

    #[inline]
    pub(crate) fn local_mut(&mut self, slot: u32) -> &mut Trs {
        if self.journal.active && slot < self.journal.base_len {
            let old = self.store.xf[slot as usize].local;
            self.journal.entries.push(Undo::Local(slot, old));
        }
        &mut self.store.xf[slot as usize].local
    }

    pub(crate) fn set_shape_fields(&mut self, slot: u32, extent: Vec3, mask: u32) {
        let s = slot as usize;
        if self.journal.active && slot < self.journal.base_len {
            let undo = Undo::Shape(slot, self.store.extent[s], self.store.mask[s]);
            self.journal.entries.push(undo);
        }
        self.store.extent[s] = extent;
        self.store.mask[s] = mask;
    }

    /// Sets the id map entry of `id` (a slot, or `NONE` for a retired id).
    pub(crate) fn map_set(&mut self, id: NodeId, slot: u32) {
        let old = self.slots.insert(id, slot);
        if self.journal.active {
            self.journal.entries.push(Undo::Map(id, old));
        }
    }

    /// Starts recording. Nested batches do not exist: `apply_batch` is the only caller.
    pub(crate) fn begin_batch(&mut self) {
        debug_assert!(!self.journal.active);
        self.journal.active = true;
        self.journal.base_len = self.store.len() as u32;
        self.journal.reset_in_batch = false;
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
                Undo::Topo(slot, old) => self.store.topo[slot as usize] = old,
                Undo::Local(slot, old) => self.store.xf[slot as usize].local = old,
                Undo::Shape(slot, extent, mask) => {
                    self.store.extent[slot as usize] = extent;
                    self.store.mask[slot as usize] = mask;
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
        if self.journal.reset_in_batch {
            // The batch opened the tick: the lists it filled are the fresh ones; drop them
            // and bring back the previous tick's.
            self.changes.clear();
            self.unopen_tick();
        } else {
            self.changes.added.truncate(m.added);
            self.changes.removed.truncate(m.removed);
            self.changes.reparented.truncate(m.reparented);
            self.changes.reshaped.truncate(m.reshaped);
        }
        self.removed_this_tick = m.removed_this_tick;
        self.journal.reset_in_batch = false;
    }
}
