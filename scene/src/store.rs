//! Flat storage of the hierarchy: one record per storage slot in a few parallel arrays.
//!
//! The store owns the per-slot data and the sibling-list primitives. It is a
//! structure of arrays grouped by access pattern: `topo` (id, links, flags: 32 bytes),
//! `xf` (local and world TRS as glam types: one 64-byte line), `extent` and `mask`.
//! Grouping by access rather than one array per scalar means a scattered dirty node costs
//! two or three cache lines instead of a dozen, which is what keeps the dirty update of a
//! room far larger than the caches close to its cost in a small one; the forward sweep
//! still streams just two arrays.
//!
//! Invariant kept here: the arrays always have the same length, and the sibling links of
//! live slots form consistent doubly linked lists (`first_child`/`last_child` of the
//! parent, `prev`/`next` of the children). Whether slots are in parent-before-child order
//! is the layout module's business (see `layout.rs`).

use canopy_protocol::NodeId;
use glam::Vec3;

pub(crate) use super::lanes::Trs;
use super::slot::{Slot, SlotVec};

bitflags::bitflags! {
    /// What a slot holds and which of the tick's flagged lists already name its node.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub(crate) struct SlotFlags: u32 {
        /// The slot is a live node (dead slots are holes left by removal or relocation).
        const ALIVE = 1;
        /// The node was added during the current tick.
        const NEW = 1 << 1;
        /// The node is already listed in this tick's `reparented` list.
        const REPARENTED = 1 << 2;
        /// The node is already listed in this tick's `reshaped` list.
        const RESHAPED = 1 << 3;
    }
}

/// Identity, tree links and bookkeeping of one slot: everything a traversal reads, in one
/// 32-byte record (aligned so that it never straddles two cache lines).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(32))]
pub(crate) struct Topo {
    pub id: NodeId,
    pub parent: Slot,
    pub first_child: Slot,
    pub last_child: Slot,
    pub next: Slot,
    pub prev: Slot,
    /// The pass (update or batch check) that last visited the slot; scratch, not state.
    pub stamp: u32,
    pub flags: SlotFlags,
}

impl Topo {
    pub(crate) fn new(id: NodeId, parent: Slot, flags: SlotFlags) -> Topo {
        Topo {
            id,
            parent,
            first_child: Slot::NONE,
            last_child: Slot::NONE,
            next: Slot::NONE,
            prev: Slot::NONE,
            stamp: 0,
            flags,
        }
    }

    #[inline(always)]
    pub(crate) fn alive(&self) -> bool {
        self.flags.contains(SlotFlags::ALIVE)
    }
}

/// A node's local and world transforms, together in one 64-byte cache line: an edit
/// writes the local half, and the update that follows reads it and rewrites the world
/// half, so a scattered dirty node costs one line here instead of two.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C, align(64))]
pub(crate) struct Xf {
    pub local: Trs,
    pub world: Trs,
}

/// The parallel arrays, all indexed by [`Slot`].
#[derive(Clone, Debug, Default)]
pub(crate) struct Store {
    pub topo: SlotVec<Topo>,
    pub xf: SlotVec<Xf>,
    pub extent: SlotVec<Vec3>,
    pub mask: SlotVec<u32>,
}

impl Store {
    pub(crate) fn len(&self) -> usize {
        self.topo.len()
    }

    /// The slot the next push takes.
    pub(crate) fn end(&self) -> Slot {
        self.topo.end()
    }

    /// Appends a slot with the given record; the caller links it.
    pub(crate) fn push(
        &mut self,
        topo: Topo,
        local: Trs,
        world: Trs,
        extent: Vec3,
        mask: u32,
    ) -> Slot {
        let slot = self.topo.push(topo);
        self.xf.push(Xf { local, world });
        self.extent.push(extent);
        self.mask.push(mask);
        slot
    }

    /// Copies slot `from` to a new slot at the end, links included (the caller fixes
    /// them), and returns the new slot.
    pub(crate) fn push_copy(&mut self, from: Slot) -> Slot {
        self.push(
            self.topo[from],
            self.xf[from].local,
            self.xf[from].world,
            self.extent[from],
            self.mask[from],
        )
    }

    /// Moves slot `from` down to slot `to` (`to <= from`), for compaction.
    pub(crate) fn move_down(&mut self, from: Slot, to: Slot) {
        self.topo[to] = self.topo[from];
        self.xf[to] = self.xf[from];
        self.extent[to] = self.extent[from];
        self.mask[to] = self.mask[from];
    }

    pub(crate) fn truncate(&mut self, len: usize) {
        self.topo.truncate(len);
        self.xf.truncate(len);
        self.extent.truncate(len);
        self.mask.truncate(len);
    }
}
