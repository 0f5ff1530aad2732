//! Storage units of the tree: child blocks, links, cold metadata, object entries, and the
//! octant geometry.
//!
//! A cell is split in two: what a query reads about a cell (exact bounds and mask of its
//! subtree, and its [`Link`]: first child and where its objects are) lives in its parent's
//! [`Block`], eight children side by side as a structure of arrays, so a query tests all
//! eight with one sweep and goes straight from a passing child to its objects in the
//! [`super::arena`]; what only maintenance reads (loose bounds, geometry, counts, arena
//! capacity) is the [`Meta`]. Children come in blocks of eight consecutive cell indices, one
//! per octant. Invariants kept by the maintenance code:
//! - every entry's AABB lies inside its cell's loose bounds, and a child's loose bounds lie
//!   inside its parent's (clamped on creation, so this holds bit for bit);
//! - a cell's bounds cover the AABBs of every object in its subtree and lie inside its loose
//!   bounds; they are exact after the cell's own objects change, and in-place moves only
//!   grow them (so a move costs no recomputation), never letting them go stale on the
//!   small side. Its mask is exactly the OR of the masks in its subtree (the empty box and
//!   0 for a vacant cell);
//! - `Meta::count` is the number of objects in the subtree; `own_*` describe the cell's own
//!   entries only.

use std::ops::{Index, IndexMut};

use glam::Vec3;

/// A cell of the tree: an index into its cell vectors (the root, or a cell of a block of
/// eight), or one of the named non-cells. An object id is never a cell index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(transparent)]
pub(crate) struct CellIdx(u32);

impl CellIdx {
    /// The root is always cell 0; blocks of children start at 1.
    pub(crate) const ROOT: CellIdx = CellIdx(0);
    /// "No cell" in child and parent links.
    pub(crate) const NONE: CellIdx = CellIdx(u32::MAX);
    /// The cell index that, in an object's location, names the outside list.
    pub(crate) const OUTSIDE: CellIdx = CellIdx(u32::MAX - 1);

    /// The cell at `index` of the cell vectors.
    #[inline(always)]
    pub(crate) fn at(index: usize) -> CellIdx {
        debug_assert!(index < CellIdx::OUTSIDE.0 as usize);
        CellIdx(index as u32)
    }

    #[inline(always)]
    pub(crate) const fn index(self) -> usize {
        self.0 as usize
    }

    /// The raw value, for the packed keys of the nearest-neighbour search.
    #[inline(always)]
    pub(crate) const fn raw(self) -> u32 {
        self.0
    }

    #[inline(always)]
    pub(crate) const fn from_raw(raw: u32) -> CellIdx {
        CellIdx(raw)
    }

    /// The cell in octant `k` of the block whose first cell is `self`.
    #[inline(always)]
    pub(crate) fn octant(self, k: usize) -> CellIdx {
        debug_assert!(k < 8);
        CellIdx(self.0 + k as u32)
    }

    /// The eight cells, in octant order, of the block whose first cell is `self`.
    #[inline]
    pub(crate) fn octants(self) -> impl DoubleEndedIterator<Item = CellIdx> {
        (self.0..self.0 + 8).map(CellIdx)
    }

    /// Which block holds the bounds of this cell (not the root), and at which slot.
    #[inline(always)]
    pub(crate) fn block_slot(self) -> (usize, usize) {
        let i = self.0 as usize - 1;
        (i / 8, i % 8)
    }

    /// Whether this is the first cell of a block (blocks start at 1, eight cells each).
    pub(crate) fn starts_block(self) -> bool {
        self.0 >= 1 && (self.0 - 1).is_multiple_of(8)
    }
}

impl Default for CellIdx {
    /// [`CellIdx::NONE`], for the slack of fixed-size traversal stacks.
    fn default() -> CellIdx {
        CellIdx::NONE
    }
}

impl std::fmt::Display for CellIdx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// The cold halves of the cells, indexed by cell.
impl Index<CellIdx> for Vec<Meta> {
    type Output = Meta;

    #[inline(always)]
    fn index(&self, c: CellIdx) -> &Meta {
        &self[c.index()]
    }
}

impl IndexMut<CellIdx> for Vec<Meta> {
    #[inline(always)]
    fn index_mut(&mut self, c: CellIdx) -> &mut Meta {
        &mut self[c.index()]
    }
}
/// An empty box: the identity of box union, and intersected by nothing.
pub(crate) const EMPTY_MIN: Vec3 = Vec3::splat(f32::INFINITY);
pub(crate) const EMPTY_MAX: Vec3 = Vec3::splat(f32::NEG_INFINITY);

/// Where an object is stored: a cell (or [`CellIdx::OUTSIDE`]) and its slot in that cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Loc {
    pub cell: CellIdx,
    pub slot: u32,
}

/// The part of an object that queries scan: its world AABB, mask and id, 32 bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Entry {
    pub min: Vec3,
    pub max: Vec3,
    pub mask: u32,
    pub id: u32,
}

impl Entry {
    /// The point that picks the child octant of an object: its AABB centre.
    #[inline]
    pub(crate) fn mid(&self) -> Vec3 {
        (self.min + self.max) * 0.5
    }
}

/// Where a cell's own objects are and where its children are: what a query needs to visit
/// it. Kept in the parent's [`Block`] (the root's in the tree itself), so deciding to visit a
/// child and finding its objects take one load, not two.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Link {
    /// First of the eight children (octant `k` at `first_child.octant(k)`), or
    /// [`CellIdx::NONE`].
    pub first_child: CellIdx,
    /// The cell's own objects are `arena[start .. start + len]`.
    pub start: u32,
    pub len: u32,
}

impl Default for Link {
    fn default() -> Self {
        Self::VACANT
    }
}

impl Link {
    pub(super) const VACANT: Self = Self {
        first_child: CellIdx::NONE,
        start: 0,
        len: 0,
    };

    #[inline]
    pub(super) fn is_leaf(&self) -> bool {
        self.first_child == CellIdx::NONE
    }

    #[inline]
    pub(super) fn range(&self) -> std::ops::Range<usize> {
        self.start as usize..(self.start + self.len) as usize
    }
}

/// Everything a query reads about the eight children of one cell: subtree bounds and masks
/// (tested all eight at once) and their [`Link`]s, as a structure of arrays so that loops
/// over the eight vectorize.
#[derive(Clone, Debug)]
pub(crate) struct Block {
    /// `min[axis][k]`, `max[axis][k]`: bounds of child `k`.
    pub min: [[f32; 8]; 3],
    pub max: [[f32; 8]; 3],
    pub mask: [u32; 8],
    /// The fields of child `k`'s [`Link`].
    pub first_child: [CellIdx; 8],
    pub start: [u32; 8],
    pub len: [u32; 8],
}

impl Block {
    pub(super) const VACANT: Self = Self {
        min: [[f32::INFINITY; 8]; 3],
        max: [[f32::NEG_INFINITY; 8]; 3],
        mask: [0; 8],
        first_child: [CellIdx::NONE; 8],
        start: [0; 8],
        len: [0; 8],
    };

    #[inline]
    pub(super) fn link(&self, k: usize) -> Link {
        Link {
            first_child: self.first_child[k],
            start: self.start[k],
            len: self.len[k],
        }
    }

    #[inline]
    pub(super) fn set_link(&mut self, k: usize, link: Link) {
        self.first_child[k] = link.first_child;
        self.start[k] = link.start;
        self.len[k] = link.len;
    }

    #[inline]
    pub(super) fn get(&self, k: usize) -> Bounds {
        Bounds {
            min: Vec3::new(self.min[0][k], self.min[1][k], self.min[2][k]),
            max: Vec3::new(self.max[0][k], self.max[1][k], self.max[2][k]),
            mask: self.mask[k],
        }
    }

    #[inline]
    pub(super) fn set(&mut self, k: usize, b: Bounds) {
        for axis in 0..3 {
            self.min[axis][k] = b.min[axis];
            self.max[axis][k] = b.max[axis];
        }
        self.mask[k] = b.mask;
    }
}

/// A subtree's exact bounds and mask OR.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Bounds {
    pub min: Vec3,
    pub max: Vec3,
    pub mask: u32,
}

impl Bounds {
    pub(crate) const EMPTY: Self = Self {
        min: EMPTY_MIN,
        max: EMPTY_MAX,
        mask: 0,
    };

    /// The bounds grown to cover an entry.
    #[inline]
    pub(crate) fn with(self, e: &Entry) -> Self {
        Self {
            min: self.min.min(e.min),
            max: self.max.max(e.max),
            mask: self.mask | e.mask,
        }
    }

    #[inline]
    pub(crate) fn union(self, o: Self) -> Self {
        Self {
            min: self.min.min(o.min),
            max: self.max.max(o.max),
            mask: self.mask | o.mask,
        }
    }
}

/// The cold half of a cell.
#[derive(Clone, Debug)]
pub(crate) struct Meta {
    /// Loose bounds: an object may be stored here while its AABB stays inside them.
    pub loose_min: Vec3,
    pub loose_max: Vec3,
    /// Tight cube: children split it at `center`.
    pub center: Vec3,
    pub half: f32,
    /// Level relative to the initial root: 0 there, +1 per halving, negative once grown.
    pub level: i32,
    pub parent: CellIdx,
    /// Objects in the subtree.
    pub count: u32,
    /// Bounds (covering, like the subtree's) and exact mask OR of the cell's own entries.
    pub own: Bounds,
    /// A leaf splits only when it holds more than this; after a split that moved nothing
    /// down (every object straddles), it doubles so that futile splits stay amortized.
    pub split_hint: u32,
    /// Capacity of the cell's range in the arena (its [`Link`] has the start and length).
    pub cap: u32,
}

/// What a new, empty cell is made of (see [`Meta::new`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct NewCell {
    /// The tight cube: centre and half-size.
    pub center: Vec3,
    pub half: f32,
    pub level: i32,
    pub parent: CellIdx,
    /// The loose bounds are `center ± looseness * half` ...
    pub looseness: f32,
    /// ... clamped to these (the parent's loose bounds) when given.
    pub within: Option<(Vec3, Vec3)>,
    /// The first [`Meta::split_hint`].
    pub split_hint: u32,
}

impl Meta {
    /// An empty cell.
    pub(crate) fn new(cell: NewCell) -> Self {
        let (mut lo, mut hi) = loose_bounds(cell.center, cell.half, cell.looseness);
        if let Some((pmin, pmax)) = cell.within {
            lo = lo.max(pmin);
            hi = hi.min(pmax);
        }
        Self {
            loose_min: lo,
            loose_max: hi,
            center: cell.center,
            half: cell.half,
            level: cell.level,
            parent: cell.parent,
            count: 0,
            own: Bounds::EMPTY,
            split_hint: cell.split_hint,
            cap: 0,
        }
    }

    /// A placeholder for a cell of a block not handed out yet: a point at the origin with
    /// no parent.
    pub(crate) fn vacant(split_hint: u32) -> Self {
        Meta::new(NewCell {
            center: Vec3::ZERO,
            half: 0.0,
            level: 0,
            parent: CellIdx::NONE,
            looseness: 1.0,
            within: None,
            split_hint,
        })
    }

    /// Whether the closed box `[min, max]` lies inside the loose bounds.
    #[inline]
    pub(crate) fn holds(&self, min: Vec3, max: Vec3) -> bool {
        box_contains(self.loose_min, self.loose_max, min, max)
    }
}

/// Whether `[min, max]` lies inside `[outer_min, outer_max]` (closed).
#[inline]
pub(crate) fn box_contains(outer_min: Vec3, outer_max: Vec3, min: Vec3, max: Vec3) -> bool {
    outer_min.cmple(min).all() && max.cmple(outer_max).all()
}

/// `center ± looseness * half`.
#[inline]
pub(crate) fn loose_bounds(center: Vec3, half: f32, looseness: f32) -> (Vec3, Vec3) {
    let l = Vec3::splat(half * looseness);
    (center - l, center + l)
}

/// The octant of `p` around `center`: bit 0 set when `p.x >= center.x`, bit 1 for y, bit 2 for z.
#[inline]
pub(crate) fn octant(p: Vec3, center: Vec3) -> usize {
    usize::from(p.x >= center.x)
        | usize::from(p.y >= center.y) << 1
        | usize::from(p.z >= center.z) << 2
}

/// Centre of the child cube in octant `oct` of the cube `(center, half)`.
#[inline]
pub(crate) fn child_center(center: Vec3, half: f32, oct: usize) -> Vec3 {
    let q = half * 0.5;
    let pick = |bit: usize| if oct & bit != 0 { q } else { -q };
    center + Vec3::new(pick(1), pick(2), pick(4))
}

/// Union and OR of a run of entries.
pub(crate) fn entries_bounds(entries: &[Entry]) -> Bounds {
    entries.iter().fold(Bounds::EMPTY, |b, e| b.with(e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn octant_and_child_centre_agree() {
        let c = Vec3::new(1.0, 2.0, 3.0);
        for oct in 0..8 {
            let cc = child_center(c, 4.0, oct);
            assert_eq!(octant(cc, c), oct);
            assert_eq!((cc - c).abs(), Vec3::splat(2.0));
        }
    }

    #[test]
    fn child_bounds_are_clamped_into_the_parent() {
        let parent = Meta::new(NewCell {
            center: Vec3::ZERO,
            half: 1.0,
            level: 0,
            parent: CellIdx::NONE,
            looseness: 1.0,
            within: None,
            split_hint: 4,
        });
        let child = Meta::new(NewCell {
            center: child_center(Vec3::ZERO, 1.0, 7),
            half: 0.5,
            level: 1,
            parent: CellIdx::ROOT,
            looseness: 3.0,
            within: Some((parent.loose_min, parent.loose_max)),
            split_hint: 4,
        });
        assert!(parent.holds(child.loose_min, child.loose_max));
    }

    #[test]
    fn blocks_of_eight_after_the_root() {
        let first = CellIdx::at(9);
        assert!(first.starts_block() && !CellIdx::ROOT.starts_block());
        assert_eq!(first.octant(7).block_slot(), (1, 7));
        assert_eq!(first.octants().last(), Some(CellIdx::at(16)));
    }

    #[test]
    fn empty_box_meets_nothing() {
        use super::super::narrow::aabb_intersects;
        assert!(!aabb_intersects(
            EMPTY_MIN,
            EMPTY_MAX,
            Vec3::splat(-1e38),
            Vec3::splat(1e38)
        ));
        assert_eq!(entries_bounds(&[]), Bounds::EMPTY);
    }
}
