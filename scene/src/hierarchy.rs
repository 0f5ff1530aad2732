//! [`Hierarchy`]: the transform hierarchy of one room, its limits and its read accessors.
//!
//! The hierarchy owns the flat store, the id map and the per-tick bookkeeping; the other
//! files of this module add its behaviour (`batch.rs` edits, `propagate.rs` updates,
//! `layout.rs` order fix-up, `iter.rs` traversals, `callbacks.rs` update callbacks).
//!
//! Invariants (checked by [`Hierarchy::assert_well_formed`]):
//! - the id map sends every live id to its slot and every removed id to `RETIRED` (ids
//!   are never reused);
//! - once `misordered` is empty (always true right after an update), every live node
//!   comes after its parent in the slot order, so one forward sweep recomputes the world
//!   transforms;
//! - right after an update, every world transform equals its parent's world composed with
//!   its local transform, bit for bit.

use canopy_protocol::{Node, NodeId, Transform};
use glam::{Quat, Vec3};
use rustc_hash::FxHashMap;

use super::callbacks::CallbackChain;
use super::changes::TickChanges;
use super::guard::Touch;
use super::idmap::IdMap;
use super::journal::Journal;
use super::par_sweep::{ParallelSweep, SweepScratch};
use super::pending::{PENDING_MAX, PendingLocal};
use super::slot::{Slot, SlotVec};
use super::store::Store;

/// Limits on the size of one hierarchy; going over them is `too_large`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HierarchyLimits {
    /// Live nodes at most.
    pub max_nodes: usize,
    /// Depth at most, a root having depth 1: every chain from a root down to a node has
    /// at most this many nodes.
    pub max_depth: usize,
    /// Ancestors one batch may walk in all (the cycle and depth checks of `set_parent`,
    /// and of `add` under a deep parent), so that no batch can make a tick arbitrarily
    /// long: a batch that needs more is refused with `too_large`.
    pub max_batch_walk: usize,
}

impl HierarchyLimits {
    /// The defaults (also the defaults of `--max-nodes-per-room` and `--max-depth`).
    pub const DEFAULT: HierarchyLimits = HierarchyLimits {
        max_nodes: 4_000_000,
        max_depth: 1024,
        max_batch_walk: 1 << 24,
    };
}

impl Default for HierarchyLimits {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// Where a live node hangs: at the top of the hierarchy, or under another node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Parent {
    /// A root: no parent.
    Root,
    /// A child of this live node.
    Node(NodeId),
}

impl Parent {
    /// The parent's id, `None` for a root (the wire form of [`Node::parent`]).
    pub fn id(self) -> Option<NodeId> {
        match self {
            Parent::Root => None,
            Parent::Node(p) => Some(p),
        }
    }
}

impl From<Option<NodeId>> for Parent {
    fn from(parent: Option<NodeId>) -> Parent {
        parent.map_or(Parent::Root, Parent::Node)
    }
}

/// The transform hierarchy of one room: nodes with local TRS, extent and mask, their world
/// transforms, and what each tick changed.
///
/// Edits ([`apply_batch`](Self::apply_batch), [`set_local`](Self::set_local)) change
/// local state and mark what needs recomputing; [`update_dirty`](Self::update_dirty)
/// (once per tick) settles the structure and recomputes the world transforms of the
/// edited subtrees only. Reads of world transforms answer with the last update's values.
pub struct Hierarchy {
    pub(crate) limits: HierarchyLimits,
    pub(crate) store: Store,
    /// Id to slot; `RETIRED` for a removed id.
    pub(crate) slots: IdMap,
    pub(crate) live: usize,
    /// Dead slots (holes) in the store, reclaimed by compaction.
    pub(crate) dead: usize,
    /// Server-assigned ids: the smallest never-used id at or after this counter. `u64`
    /// so that "past `u32::MAX`" (ids exhausted) can be represented.
    pub(crate) next_id: u64,
    /// Nodes moved under a parent with a higher slot since the last update: the slot
    /// order is stale until `layout.rs` fixes them.
    pub(crate) misordered: Vec<NodeId>,
    /// Roots of subtrees whose world transforms must be recomputed (duplicates allowed).
    pub(crate) dirty_roots: Vec<NodeId>,
    /// Library `set_local` edits not yet written to the store (see `pending.rs`).
    pub(crate) pending: Vec<PendingLocal>,
    /// Something was removed this tick: the change lists need filtering before they are
    /// final, and callbacks of removed nodes need dropping.
    pub(crate) removed_this_tick: bool,
    /// The current tick's change set, emptied by `finish_tick`.
    pub(crate) changes: TickChanges,
    /// Nothing was edited since the last update: the world transforms are current and the
    /// change set is final. Cleared by every accepted batch and every `set_local`.
    pub(crate) updated: bool,
    /// The last stamp value handed out (see `Topo::stamp`).
    pub(crate) stamp: u32,
    pub(crate) journal: Journal,
    /// What the running batch touched, for the end-of-batch world and depth check.
    pub(crate) touched: Vec<Touch>,
    /// Ancestor steps the running batch may still walk (see
    /// [`HierarchyLimits::max_batch_walk`]).
    pub(crate) walk_left: usize,
    pub(crate) scratch: Scratch,
    /// When set, updates list the ids they recompute (a test and debugging hook).
    pub(crate) record_recomputed: bool,
    pub(crate) recomputed_ids: Vec<NodeId>,
    pub(crate) callbacks: FxHashMap<NodeId, CallbackChain>,
    /// When the full update uses threads.
    pub(crate) parallel: ParallelSweep,
}

/// Reusable buffers, so that steady-state updates allocate nothing. Not state: never
/// compared, never journaled.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    /// The tick's dirty roots that have children (sorted before their walks).
    pub root_slots: Vec<Slot>,
    /// The tick's dirty roots that are leaves (never sorted: see `update_dirty`).
    pub leaf_slots: Vec<Slot>,
    /// Old slot to new slot during relocation and compaction.
    pub remap: SlotVec<Slot>,
    /// The nodes with callbacks, in the order the update traversal runs them.
    pub callback_order: Vec<NodeId>,
    /// The slots of the buffered edits while they are written out.
    pub pending_slots: Vec<Slot>,
    /// The parallel full sweep's per-thread lists.
    pub sweep: SweepScratch,
}

impl std::fmt::Debug for Hierarchy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hierarchy")
            .field("live", &self.live)
            .field("slots", &self.store.len())
            .field("next_id", &self.next_id)
            .finish_non_exhaustive()
    }
}

impl Default for Hierarchy {
    fn default() -> Self {
        Self::new()
    }
}

impl Hierarchy {
    /// An empty hierarchy with the default limits.
    pub fn new() -> Self {
        Self::with_limits(HierarchyLimits::default())
    }

    /// An empty hierarchy that refuses, as `too_large`, edits past `limits`.
    pub fn with_limits(limits: HierarchyLimits) -> Self {
        Hierarchy {
            limits,
            store: Store::default(),
            slots: IdMap::default(),
            live: 0,
            dead: 0,
            next_id: 0,
            misordered: Vec::new(),
            dirty_roots: Vec::new(),
            pending: Vec::with_capacity(PENDING_MAX),
            removed_this_tick: false,
            changes: TickChanges::default(),
            updated: true,
            stamp: 0,
            journal: Journal::default(),
            touched: Vec::new(),
            walk_left: 0,
            scratch: Scratch::default(),
            record_recomputed: false,
            recomputed_ids: Vec::new(),
            callbacks: FxHashMap::default(),
            parallel: ParallelSweep::DEFAULT,
        }
    }

    /// The limits this hierarchy enforces.
    pub fn limits(&self) -> HierarchyLimits {
        self.limits
    }

    /// Live nodes.
    pub fn len(&self) -> usize {
        self.live
    }

    /// True when no node is live.
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// The id the server would assign next if no client took it first: the smallest
    /// never-used id at or after the counter (`None` once ids are exhausted).
    pub fn next_assigned_id(&self) -> Option<NodeId> {
        let mut id = self.next_id;
        while id <= u64::from(u32::MAX) && self.slots.contains_key(id as u32) {
            id += 1;
        }
        u32::try_from(id).ok()
    }

    /// The slot of a live node, or [`Slot::NONE`].
    #[inline]
    pub(crate) fn slot_of(&self, id: NodeId) -> Slot {
        self.live_slot(id).unwrap_or(Slot::NONE)
    }

    /// The slot of a live node.
    #[inline]
    pub(crate) fn live_slot(&self, id: NodeId) -> Option<Slot> {
        self.slots.live(id)
    }

    /// True if `id` is a live node.
    pub fn contains(&self, id: NodeId) -> bool {
        self.slots.is_live(id)
    }

    /// True if `id` belongs to a live node or to one that was removed (ids are never
    /// reused).
    pub fn was_used(&self, id: NodeId) -> bool {
        self.slots.contains_key(id)
    }

    /// World transform as of the last update, O(1). A node added since then reads as its
    /// local transform until the next update.
    pub fn world(&self, id: NodeId) -> Option<Transform> {
        self.live_slot(id).map(|s| self.store.xf[s].world.to_wire())
    }

    /// World transform as glam values `(t, r, s)`, for the octree.
    pub fn world_glam(&self, id: NodeId) -> Option<(Vec3, Quat, f32)> {
        self.live_slot(id).map(|s| {
            let w = &self.store.xf[s].world;
            (w.t(), w.r, w.s())
        })
    }

    /// Local transform (rotation normalized when it was set).
    pub fn local(&self, id: NodeId) -> Option<Transform> {
        self.live_slot(id)
            .map(|s| self.effective_local(s).to_wire())
    }

    /// Where a live node hangs; `None` for an unknown node.
    pub fn parent(&self, id: NodeId) -> Option<Parent> {
        self.live_slot(id)
            .map(|s| Parent::from(self.parent_id_of_slot(s)))
    }

    pub(crate) fn parent_id_of_slot(&self, slot: Slot) -> Option<NodeId> {
        let p = self.store.topo[slot].parent;
        p.is_some().then(|| self.store.topo[p].id)
    }

    /// A live node's half-extents; `None` for an unknown node.
    pub fn extent(&self, id: NodeId) -> Option<Vec3> {
        self.live_slot(id).map(|s| self.store.extent[s])
    }

    /// A live node's layer bits; `None` for an unknown node.
    pub fn mask(&self, id: NodeId) -> Option<u32> {
        self.live_slot(id).map(|s| self.store.mask[s])
    }

    /// The wire form of a node (world transform as of the last update).
    pub fn node(&self, id: NodeId) -> Option<Node> {
        self.live_slot(id).map(|s| self.node_at(s))
    }

    pub(crate) fn node_at(&self, slot: Slot) -> Node {
        Node {
            id: self.store.topo[slot].id,
            parent: self.parent_id_of_slot(slot),
            world: self.store.xf[slot].world.to_wire(),
            extent: self.store.extent[slot].to_array(),
            mask: self.store.mask[slot],
        }
    }

    /// The change set of the current tick: final right after an update, emptied by
    /// [`finish_tick`](Self::finish_tick).
    pub fn changes(&self) -> &TickChanges {
        &self.changes
    }

    /// True when nothing was edited since the last update (or since the hierarchy was
    /// made): world transforms are current and [`changes`](Self::changes) is final.
    pub fn is_updated(&self) -> bool {
        self.updated
    }

    /// Turns on or off the recording of the ids each update recomputes (off by default;
    /// costs a push per recomputed node).
    pub fn set_record_recomputed(&mut self, on: bool) {
        self.record_recomputed = on;
        self.recomputed_ids.clear();
    }

    /// The ids the last update recomputed, in recompute order, when recording is on.
    pub fn last_recomputed_ids(&self) -> &[NodeId] {
        &self.recomputed_ids
    }

    /// Hands out a fresh stamp value, resetting every stamp when the counter wraps so
    /// that a stale stamp can never equal a fresh one.
    pub(crate) fn fresh_stamp(&mut self) -> u32 {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            for t in self.store.topo.iter_mut() {
                t.stamp = 0;
            }
            self.stamp = 1;
        }
        self.stamp
    }
}
