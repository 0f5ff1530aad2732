//! Loose octree over the world boxes of a room's nodes (issue 3).
//!
//! Owns the spatial index: which object (keyed by node id) lies where, and the queries of
//! API.md §3 over it. It knows nothing of the hierarchy: the room feeds it each tick's
//! changed set through [`Octree::insert_or_update`] and [`Octree::remove`].
//!
//! Invariants (checked by [`Octree::assert_well_formed`]): each object is stored exactly
//! once, either in a cell whose loose bounds contain its world AABB or in the outside list
//! (for boxes no reasonably grown root can hold, such as ones 1e30 away); every cell knows the
//! count and the OR of the masks of its subtree; cells live in one flat vector addressed by
//! index with a free list, and no empty leaf or under-full subtree is left unmerged.
//!
//! Queries decide membership only with the shared narrow-phase functions of [`narrow`]
//! on each object's stored box; cell-level pruning is conservative with respect to them,
//! so answers equal a brute-force scan that uses the same functions.

mod cell;
mod config;
mod debug;
mod maintain;
mod narrow;
mod object_box;
mod query_nearest;
mod query_ray;
mod query_region;

use rustc_hash::FxHashMap;

pub use config::OctreeConfig;
pub use debug::CellInfo;
pub use narrow::{aabb_intersects, point_aabb_dist, ray_obb};
pub use object_box::ObjectBox;

use cell::{Bucket, Cell, Loc, NONE, OUTSIDE};

/// How many times the root may double beyond its initial size. 16 doublings of the default
/// 1024 reach about 6.7e7, far enough for objects 1e6 away; anything farther goes to the
/// outside list instead of making every query walk a long chain of nested roots.
const MAX_GROWTH: i32 = 16;

/// A loose octree keyed by node id. See the module documentation for its invariants.
#[derive(Clone, Debug)]
pub struct Octree {
    cfg: OctreeConfig,
    /// Every cell, live or free; children and parents refer to each other by index.
    cells: Vec<Cell>,
    /// Indices of free cells, reused before `cells` grows.
    free: Vec<u32>,
    root: u32,
    /// Objects no root within [`MAX_GROWTH`] can hold (or whose box is not finite); every
    /// query scans them.
    outside: Bucket,
    /// Object table: where each id is stored.
    locs: FxHashMap<u32, Loc>,
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
            cells: Vec::new(),
            free: Vec::new(),
            root: 0,
            outside: Bucket::default(),
            locs: FxHashMap::default(),
        };
        tree.root = tree.alloc(tree.initial_root());
        tree
    }

    /// The configuration in force (after sanitising).
    pub fn config(&self) -> &OctreeConfig {
        &self.cfg
    }

    /// Number of objects indexed.
    pub fn len(&self) -> usize {
        self.locs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.locs.is_empty()
    }

    /// The stored box of object `id`.
    pub fn get(&self, id: u32) -> Option<&ObjectBox> {
        let loc = self.locs.get(&id)?;
        Some(&self.bucket(loc.cell).boxes[loc.slot as usize])
    }

    /// Removes every object and returns to the initial root.
    pub fn clear(&mut self) {
        *self = Self::new(self.cfg);
    }

    fn bucket(&self, cell: u32) -> &Bucket {
        if cell == OUTSIDE {
            &self.outside
        } else {
            &self.cells[cell as usize].bucket
        }
    }

    fn initial_root(&self) -> Cell {
        Cell::new(
            glam::Vec3::ZERO,
            self.cfg.initial_half_size,
            0,
            NONE,
            self.cfg.looseness,
            None,
            self.leaf_split_hint(),
        )
    }

    /// The bucket length a fresh leaf may reach before it tries to split.
    fn leaf_split_hint(&self) -> u32 {
        self.cfg.leaf_capacity.min(u32::MAX as usize) as u32
    }
}

#[cfg(test)]
mod tests;
