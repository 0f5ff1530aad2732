//! Storage units of the tree: cells, their object buckets and the octant geometry.
//!
//! Owns [`Cell`], [`Bucket`] and [`Entry`]. Invariants kept by the code that mutates them
//! (see `maintain.rs`): every entry of a cell's bucket has its AABB inside the cell's loose
//! bounds; a child's loose bounds lie inside its parent's (they are clamped on creation, so
//! this holds bit for bit, not just up to rounding); `subtree_count` and `subtree_mask` are
//! the count and OR of masks of all entries in the cell and its descendants.

use glam::Vec3;

use super::object_box::ObjectBox;

/// "No cell" in child slots and parent links.
pub(crate) const NONE: u32 = u32::MAX;
/// The cell index that, in an object's location, names the outside list.
pub(crate) const OUTSIDE: u32 = u32::MAX - 1;

/// Where an object is stored: a cell (or [`OUTSIDE`]) and its slot in that bucket.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Loc {
    pub cell: u32,
    pub slot: u32,
}

/// The part of an object that queries scan: its world AABB, mask and id, 32 bytes, so a
/// bucket scan touches little memory. The full box lives at the same slot of `boxes`.
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
    pub fn mid(&self) -> Vec3 {
        (self.min + self.max) * 0.5
    }
}

/// The objects stored in one cell (or in the outside list), as two parallel vectors.
#[derive(Clone, Debug, Default)]
pub(crate) struct Bucket {
    pub entries: Vec<Entry>,
    pub boxes: Vec<ObjectBox>,
}

impl Bucket {
    #[inline]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Appends an object and returns its slot.
    #[inline]
    pub fn push(&mut self, entry: Entry, obj: ObjectBox) -> u32 {
        self.entries.push(entry);
        self.boxes.push(obj);
        (self.entries.len() - 1) as u32
    }

    /// Removes the object at `slot` by moving the last one into its place; returns the id
    /// of the object that moved (whose location the caller must fix), if any.
    #[inline]
    pub fn swap_remove(&mut self, slot: u32) -> Option<u32> {
        let slot = slot as usize;
        self.entries.swap_remove(slot);
        self.boxes.swap_remove(slot);
        self.entries.get(slot).map(|e| e.id)
    }

    /// OR of the entries' masks; stops early once every bit is set.
    pub fn mask(&self) -> u32 {
        let mut m = 0;
        for e in &self.entries {
            m |= e.mask;
            if m == u32::MAX {
                break;
            }
        }
        m
    }

    pub fn clear(&mut self) {
        self.entries.clear();
        self.boxes.clear();
    }
}

/// One cube of the octree, stored by index in the tree's flat `cells` vector.
#[derive(Clone, Debug)]
pub(crate) struct Cell {
    /// Loose bounds: the region any object stored in this subtree lies inside.
    pub loose_min: Vec3,
    pub loose_max: Vec3,
    /// OR of the masks of every object in the subtree, so a query can skip the branch.
    pub subtree_mask: u32,
    /// Number of objects in the subtree.
    pub subtree_count: u32,
    /// Child cell per octant (bit 0: x >= centre, bit 1: y, bit 2: z), or [`NONE`].
    pub children: [u32; 8],
    pub child_count: u8,
    /// Whether the cell is in use (false while it sits on the free list).
    pub live: bool,
    /// Largest absolute coordinate of the loose bounds: the scale of rounding errors that
    /// the conservative ray test must absorb.
    pub scale: f32,
    /// Tight cube: centre and half-size. Children split it at `center`.
    pub center: Vec3,
    pub half: f32,
    /// Level relative to the initial root: 0 there, +1 per halving, negative once grown.
    pub level: i32,
    pub parent: u32,
    /// A leaf splits only when its bucket is longer than this; after a split that moved
    /// nothing down (every object straddles), it doubles so futile splits stay amortized.
    pub split_hint: u32,
    pub bucket: Bucket,
}

impl Cell {
    /// A new, empty leaf whose loose bounds are `center ± looseness * half`, clamped to
    /// `within` (the parent's loose bounds) when given.
    pub fn new(
        center: Vec3,
        half: f32,
        level: i32,
        parent: u32,
        looseness: f32,
        within: Option<(Vec3, Vec3)>,
        split_hint: u32,
    ) -> Self {
        let (mut lo, mut hi) = loose_bounds(center, half, looseness);
        if let Some((pmin, pmax)) = within {
            lo = lo.max(pmin);
            hi = hi.min(pmax);
        }
        Self {
            loose_min: lo,
            loose_max: hi,
            subtree_mask: 0,
            subtree_count: 0,
            children: [NONE; 8],
            child_count: 0,
            live: true,
            scale: lo.abs().max(hi.abs()).max_element(),
            center,
            half,
            level,
            parent,
            split_hint,
            bucket: Bucket::default(),
        }
    }

    #[inline]
    pub fn is_leaf(&self) -> bool {
        self.child_count == 0
    }

    /// Whether the closed box `[min, max]` lies inside the loose bounds.
    #[inline]
    pub fn contains(&self, min: Vec3, max: Vec3) -> bool {
        box_contains(self.loose_min, self.loose_max, min, max)
    }

    /// Sets the loose bounds and the scale derived from them.
    pub fn set_loose(&mut self, lo: Vec3, hi: Vec3) {
        self.loose_min = lo;
        self.loose_max = hi;
        self.scale = lo.abs().max(hi.abs()).max_element();
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
        let parent = Cell::new(Vec3::ZERO, 1.0, 0, NONE, 1.0, None, 4);
        let child = Cell::new(
            child_center(Vec3::ZERO, 1.0, 7),
            0.5,
            1,
            0,
            3.0,
            Some((parent.loose_min, parent.loose_max)),
            4,
        );
        assert!(parent.contains(child.loose_min, child.loose_max));
    }
}
