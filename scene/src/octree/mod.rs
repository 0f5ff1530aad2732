//! Loose octree over the world boxes of a room's nodes.
//!
//! Owns the spatial index: which object (keyed by node id) lies where, and the queries of
//! docs/protocol.md §3 over it. It knows nothing of the hierarchy: the room feeds it each tick's
//! changed set through [`Octree::insert_or_update`] and [`Octree::remove`].
//!
//! Invariants (checked by [`Octree::assert_well_formed`]): each object is stored exactly
//! once, either in a cell whose loose bounds contain its world AABB or in the outside list
//! (for boxes no reasonably grown root can hold, such as ones 1e30 away); every cell knows
//! the count, the exact bounds and the OR of the masks of its subtree; cells live in flat
//! vectors addressed by index, children in blocks of eight with a free list of blocks; no
//! block of only empty children and no under-full subtree is left unmerged.
//!
//! Loose bounds decide where an object is stored (so a small move rarely changes cells);
//! the exact subtree bounds decide what a query visits (so it visits little). Queries decide
//! membership only with the shared narrow-phase functions of `narrow` on each object's
//! stored box; cell-level pruning is conservative with respect to them, so answers equal a
//! brute-force scan that uses the same functions.

mod arena;
mod cell;
mod config;
mod narrow;
mod object_box;
mod objects;
mod query_interest;
mod query_nearest;
mod query_ray;
mod query_region;
mod split_merge;
mod sweep;
mod validation;

use glam::Vec3;
use rustc_hash::FxHashMap;

pub use config::OctreeConfig;
pub use narrow::{aabb_intersects, frustum_aabb, point_aabb_dist, ray_obb};
pub use object_box::ObjectBox;
pub use validation::CellInfo;

use arena::Arena;
use cell::{Block, Bounds, CellIdx, Entry, Link, Loc, Meta, NewCell};

/// How many times the root may double beyond its initial size. 16 doublings of the default
/// 1024 reach about 6.7e7, far enough for objects 1e6 away; anything farther goes to the
/// outside list instead of making every query walk a long chain of nested roots.
const MAX_GROWTH: i32 = 16;

/// Objects that no root within [`MAX_GROWTH`] can hold (or whose box is not finite); every
/// query scans them.
#[derive(Clone, Debug, Default)]
struct Outside {
    entries: Vec<Entry>,
    boxes: Vec<ObjectBox>,
}

/// A loose octree keyed by node id. See the module documentation for its invariants.
#[derive(Clone, Debug)]
pub struct Octree {
    cfg: OctreeConfig,
    /// Cold half of every cell: the root at 0, then blocks of eight children. Indices in
    /// free blocks are reused before the vector grows.
    meta: Vec<Meta>,
    /// Subtree bounds and links of every cell but the root, by block: block `b` holds cells
    /// `1 + 8b .. 9 + 8b`.
    blocks: Vec<Block>,
    /// Subtree bounds and link of the root.
    root_bounds: Bounds,
    root_link: Link,
    /// Every cell's own objects.
    arena: Arena,
    /// First cell of each free block of eight.
    free_blocks: Vec<CellIdx>,
    outside: Outside,
    /// Object table: where each id is stored.
    locs: FxHashMap<u32, Loc>,
    /// How often the costly maintenance steps ran, for tests and diagnostics.
    stats: MaintenanceStats,
}

/// Counts of the maintenance steps whose cost grows with a cell or the tree, so that a
/// test can tell amortized from per-operation costs without timing anything.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MaintenanceStats {
    /// Arena compactions (each O(objects + cells)).
    pub compactions: u64,
    /// Recomputations of a cell's own bounds from all its objects (each O(its objects)).
    pub own_recomputes: u64,
}

impl Default for Octree {
    fn default() -> Self {
        Self::new(OctreeConfig::default())
    }
}

impl Octree {
    /// An empty tree: one root leaf of half-size `initial_half_size` centred at the origin.
    pub fn new(cfg: OctreeConfig) -> Self {
        let cfg = cfg.sanitized();
        let mut tree = Self {
            cfg,
            meta: Vec::new(),
            blocks: Vec::new(),
            root_bounds: Bounds::EMPTY,
            root_link: Link::VACANT,
            arena: Arena::default(),
            free_blocks: Vec::new(),
            outside: Outside::default(),
            locs: FxHashMap::default(),
            stats: MaintenanceStats::default(),
        };
        tree.meta.push(tree.initial_root());
        tree
    }

    /// The configuration in force (after sanitising).
    pub fn config(&self) -> &OctreeConfig {
        &self.cfg
    }

    /// How often the costly maintenance steps ran so far.
    pub fn maintenance_stats(&self) -> MaintenanceStats {
        self.stats
    }

    /// Number of objects indexed.
    pub fn len(&self) -> usize {
        self.locs.len()
    }

    /// True when no object is indexed.
    pub fn is_empty(&self) -> bool {
        self.locs.is_empty()
    }

    /// The stored box of object `id`.
    pub fn get(&self, id: u32) -> Option<&ObjectBox> {
        let loc = self.locs.get(&id)?;
        Some(if loc.cell == CellIdx::OUTSIDE {
            &self.outside.boxes[loc.slot as usize]
        } else {
            &self.boxes(loc.cell)[loc.slot as usize]
        })
    }

    /// Removes every object and returns to the initial root.
    pub fn clear(&mut self) {
        *self = Self::new(self.cfg);
    }

    /// Subtree bounds and mask of cell `c`.
    #[inline]
    fn bounds(&self, c: CellIdx) -> Bounds {
        if c == CellIdx::ROOT {
            self.root_bounds
        } else {
            let (b, k) = c.block_slot();
            self.blocks[b].get(k)
        }
    }

    #[inline]
    fn set_bounds(&mut self, c: CellIdx, bounds: Bounds) {
        if c == CellIdx::ROOT {
            self.root_bounds = bounds;
        } else {
            let (b, k) = c.block_slot();
            self.blocks[b].set(k, bounds);
        }
    }

    /// The block holding the bounds of the children of a cell whose first child is `first`.
    #[inline]
    fn block(&self, first: CellIdx) -> &Block {
        &self.blocks[first.block_slot().0]
    }

    fn initial_root(&self) -> Meta {
        Meta::new(NewCell {
            center: Vec3::ZERO,
            half: self.cfg.initial_half_size,
            level: 0,
            parent: CellIdx::NONE,
            looseness: self.cfg.looseness,
            within: None,
            split_hint: self.leaf_split_hint(),
        })
    }

    /// The number of objects a fresh leaf may hold before it tries to split.
    fn leaf_split_hint(&self) -> u32 {
        self.cfg.leaf_capacity.min(u32::MAX as usize) as u32
    }
}

#[cfg(test)]
mod tests;
