//! Structural maintenance: splitting, merging, growing and shrinking the tree, and the
//! blocks of eight children it is made of.
//!
//! Owns every change of the tree's shape. Invariants restored before returning: no internal
//! cell whose subtree holds `merge_threshold` objects or fewer, no block of eight vacant
//! children, a root no taller than needed (a grown root with no objects of its own and one
//! child hands over to it), parent links and the object table matching where cells and
//! objects now are. Subtree bounds, masks and counts are unchanged by these moves, except
//! where noted.

use glam::Vec3;

use super::cell::{
    Block, Bounds, CellIdx, Entry, Meta, NewCell, box_contains, child_center, entries_bounds,
    loose_bounds, octant,
};
use super::object_box::ObjectBox;
use super::{MAX_GROWTH, Octree};

/// The geometry of a cube cell: what a block of children is carved from.
#[derive(Clone, Copy, Debug)]
pub(super) struct Cube {
    pub center: Vec3,
    pub half: f32,
    pub level: i32,
    pub lo: Vec3,
    pub hi: Vec3,
}

impl Cube {
    fn of(meta: &Meta) -> Self {
        Self {
            center: meta.center,
            half: meta.half,
            level: meta.level,
            lo: meta.loose_min,
            hi: meta.loose_max,
        }
    }

    /// The cube twice as large that has this one as the octant facing away from `target`;
    /// its loose bounds also cover the old ones, so containment never breaks.
    fn doubled(self, target: Vec3, looseness: f32) -> Self {
        let step = |t: f32, c: f32| if t < c { -self.half } else { self.half };
        let offset = Vec3::new(
            step(target.x, self.center.x),
            step(target.y, self.center.y),
            step(target.z, self.center.z),
        );
        let center = self.center + offset;
        let half = self.half * 2.0;
        let (lo, hi) = loose_bounds(center, half, looseness);
        Self {
            center,
            half,
            level: self.level - 1,
            lo: lo.min(self.lo),
            hi: hi.max(self.hi),
        }
    }
}

impl Octree {
    /// Allocates a block of eight vacant children of `parent`, whose geometry is `cube`.
    fn alloc_block(&mut self, parent: CellIdx, cube: Cube) -> CellIdx {
        let hint = self.leaf_split_hint();
        let first = match self.free_blocks.pop() {
            Some(first) => first,
            None => {
                let first = CellIdx::at(self.meta.len());
                for _ in 0..8 {
                    self.meta.push(Meta::vacant(hint));
                }
                self.blocks.push(Block::VACANT);
                first
            }
        };
        let children = self.children_of(cube, parent, hint);
        for (c, meta) in first.octants().zip(children) {
            debug_assert_eq!(self.meta[c].cap, 0);
            self.meta[c] = meta;
        }
        first
    }

    /// The metadata of the eight children carved from `cube`, in octant order.
    fn children_of(&self, cube: Cube, parent: CellIdx, hint: u32) -> [Meta; 8] {
        std::array::from_fn(|k| {
            Meta::new(NewCell {
                center: child_center(cube.center, cube.half, k),
                half: cube.half * 0.5,
                level: cube.level + 1,
                parent,
                looseness: self.cfg.looseness,
                within: Some((cube.lo, cube.hi)),
                split_hint: hint,
            })
        })
    }

    /// Returns a block to the free list; its cells must hold no objects.
    fn free_block(&mut self, first: CellIdx) {
        for c in first.octants() {
            self.release_own(c);
            let meta = &mut self.meta[c];
            meta.parent = CellIdx::NONE;
            meta.count = 0;
            meta.own = Bounds::EMPTY;
        }
        self.blocks[first.block_slot().0] = Block::VACANT;
        self.free_blocks.push(first);
    }

    /// Pushes the objects of an over-full leaf down into the children that hold them, and
    /// splits children that end up over-full themselves.
    pub(super) fn split(&mut self, first_cell: CellIdx) {
        let cap = self.cfg.leaf_capacity;
        let max_depth = self.cfg.max_depth as i32;
        let mut work = vec![first_cell];
        let mut groups: [Vec<(Entry, ObjectBox)>; 8] = Default::default();
        while let Some(c) = work.pop() {
            let objects = self.take_own(c);
            // Where each object goes: the child octant of its centre when that child's
            // loose bounds (the ones `alloc_block` will give it) hold it.
            let cube = Cube::of(&self.meta[c]);
            let children = self.children_of(cube, c, 0);
            let mut keep = Vec::new();
            for (e, obj) in objects {
                let k = octant(e.mid(), cube.center);
                if children[k].holds(e.min, e.max) {
                    groups[k].push((e, obj));
                } else {
                    keep.push((e, obj));
                }
            }
            self.set_own(c, &keep);
            if keep.len() == self.meta[c].count as usize {
                // Everything straddles: stay a leaf until the bucket has doubled.
                self.meta[c].split_hint =
                    keep.len().saturating_mul(2).min(u32::MAX as usize) as u32;
                continue;
            }
            let block = self.alloc_block(c, cube);
            self.set_first_child(c, block);
            self.meta[c].own = entries_bounds(self.entries(c));
            self.relocate(c);
            for (k, group) in groups.iter_mut().enumerate() {
                let child = block.octant(k);
                let len = group.len();
                if len == 0 {
                    continue;
                }
                self.set_own(child, group);
                let own = group.iter().fold(Bounds::EMPTY, |b, (e, _)| b.with(e));
                group.clear();
                let meta = &mut self.meta[child];
                meta.count = len as u32;
                meta.own = own;
                // Children start as leaves: their subtree bounds are their own.
                self.set_bounds(child, own);
                self.relocate(child);
                if len > cap && self.meta[child].level < max_depth {
                    work.push(child);
                }
            }
        }
    }

    /// Pulls every object of `target`'s subtree into `target`, which becomes a leaf.
    fn merge(&mut self, target: CellIdx) {
        let mut blocks = vec![self.first_child(target)];
        self.set_first_child(target, CellIdx::NONE);
        let mut objects = self.take_own(target);
        while let Some(first) = blocks.pop() {
            for i in first.octants() {
                let below = self.first_child(i);
                if below != CellIdx::NONE {
                    blocks.push(below);
                    self.set_first_child(i, CellIdx::NONE);
                }
                objects.append(&mut self.take_own(i));
            }
            self.free_block(first);
        }
        self.set_own(target, &objects);
        let hint = self.leaf_split_hint();
        // The subtree's content is unchanged; it is now all the cell's own.
        let own = self.bounds(target);
        let meta = &mut self.meta[target];
        meta.split_hint = hint;
        meta.own = own;
        self.relocate(target);
    }

    /// After a removal from cell `c`: merges the highest under-full subtree above it, frees
    /// the blocks left with only vacant children and lowers the root if it became a chain.
    pub(super) fn rebalance(&mut self, c: CellIdx) {
        let threshold = self.cfg.merge_threshold();
        let mut target = CellIdx::NONE;
        let mut a = c;
        while a != CellIdx::NONE {
            if !self.link(a).is_leaf() && self.meta[a].count <= threshold {
                target = a;
            }
            a = self.meta[a].parent;
        }
        let mut c = c;
        if target != CellIdx::NONE {
            self.merge(target);
            c = target;
        }
        while c != CellIdx::ROOT {
            let p = self.meta[c].parent;
            // Every child of `p` is vacant when its own objects are its whole subtree.
            if self.meta[p].count != self.link(p).len {
                break;
            }
            let block = self.first_child(p);
            self.set_first_child(p, CellIdx::NONE);
            self.meta[p].split_hint = self.leaf_split_hint();
            self.free_block(block);
            c = p;
        }
        self.shrink_root();
    }

    /// Moves the contents of cell `from` into the vacant cell `to`, under `parent`, fixing
    /// the links that point at it; `from` is left vacant.
    fn move_cell(&mut self, from: CellIdx, to: CellIdx, parent: CellIdx) {
        // Links and metadata (which holds the range's capacity) swap together, so the vacant
        // cell's range, if any, stays owned.
        let (a, b) = (self.link(from), self.link(to));
        self.set_link(from, b);
        self.set_link(to, a);
        self.meta.swap(from.index(), to.index());
        let moved = self.bounds(from);
        self.set_bounds(to, moved);
        self.set_bounds(from, Bounds::EMPTY);
        self.meta[to].parent = parent;
        let first = self.first_child(to);
        if first != CellIdx::NONE {
            for child in first.octants() {
                self.meta[child].parent = to;
            }
        }
        self.relocate(to);
    }

    /// Makes the root no taller than needed: a grown root with no objects of its own and a
    /// single non-vacant child hands over to that child, a grown leaf root halves while one
    /// octant holds all its objects, and an empty tree returns to the initial root.
    pub(super) fn shrink_root(&mut self) {
        loop {
            let (link, meta) = (self.root_link, &self.meta[CellIdx::ROOT]);
            if link.is_leaf() {
                if meta.count == 0 && (meta.level != 0 || meta.center != Vec3::ZERO) {
                    let mut fresh = self.initial_root();
                    fresh.cap = meta.cap;
                    self.meta[CellIdx::ROOT] = fresh;
                } else if meta.level < 0 {
                    self.shrink_leaf_root();
                }
                // The stored bounds may still reach where a removed object was; a root
                // that just got smaller must not keep bounds outside its loose box.
                self.meta[CellIdx::ROOT].own = entries_bounds(self.entries(CellIdx::ROOT));
                self.refresh_up(CellIdx::ROOT);
                return;
            }
            if meta.level >= 0 || link.len != 0 {
                return;
            }
            let first = link.first_child;
            let mut live = first.octants().filter(|&c| self.meta[c].count > 0);
            let (Some(only), None) = (live.next(), live.next()) else {
                return;
            };
            // The root keeps index 0: the child's contents move up into it.
            self.set_first_child(CellIdx::ROOT, CellIdx::NONE);
            self.move_cell(only, CellIdx::ROOT, CellIdx::NONE);
            self.free_block(first);
        }
    }

    /// Halves a grown leaf root (a merge can leave one) while a single octant of it still
    /// holds all its objects, so the tree does not keep a huge root for a few small objects.
    fn shrink_leaf_root(&mut self) {
        let looseness = self.cfg.looseness;
        let entries = &self.arena.entries[self.root_link.range()];
        let meta = &mut self.meta[CellIdx::ROOT];
        while meta.level < 0 {
            let Some(first) = entries.first() else {
                return;
            };
            let oct = octant(first.mid(), meta.center);
            let center = child_center(meta.center, meta.half, oct);
            let half = meta.half * 0.5;
            let (lo, hi) = loose_bounds(center, half, looseness);
            // Clamped like a child's, so the smaller root lies inside the old one.
            let (lo, hi) = (lo.max(meta.loose_min), hi.min(meta.loose_max));
            if !entries.iter().all(|e| box_contains(lo, hi, e.min, e.max)) {
                return;
            }
            meta.center = center;
            meta.half = half;
            meta.level += 1;
            meta.loose_min = lo;
            meta.loose_max = hi;
        }
    }

    /// Grows the root until its loose bounds hold `[min, max]`, doubling towards the box each
    /// time; returns false (and changes nothing) when that would exceed [`MAX_GROWTH`].
    pub(super) fn grow_to(&mut self, min: Vec3, max: Vec3) -> bool {
        let looseness = self.cfg.looseness;
        let target = (min + max) * 0.5;
        let mut plan = Cube::of(&self.meta[CellIdx::ROOT]);
        while !box_contains(plan.lo, plan.hi, min, max) {
            if plan.level <= -MAX_GROWTH || !target.is_finite() {
                return false;
            }
            plan = plan.doubled(target, looseness);
        }
        while !self.meta[CellIdx::ROOT].holds(min, max) {
            let old = Cube::of(&self.meta[CellIdx::ROOT]);
            let next = old.doubled(target, looseness);
            if !self.root_link.is_leaf() {
                // The old root becomes the child of the new one in the octant it occupies.
                let block = self.alloc_block(CellIdx::ROOT, next);
                let slot = block.octant(octant(old.center, next.center));
                let (count, bounds) = (self.meta[CellIdx::ROOT].count, self.root_bounds);
                self.move_cell(CellIdx::ROOT, slot, CellIdx::ROOT);
                self.root_bounds = bounds;
                debug_assert_eq!(self.root_link.len, 0);
                self.root_link.first_child = block;
                let split_hint = self.cfg.leaf_capacity as u32;
                let meta = &mut self.meta[CellIdx::ROOT];
                let cap = meta.cap;
                *meta = Meta::new(NewCell {
                    center: next.center,
                    half: next.half,
                    level: next.level,
                    parent: CellIdx::NONE,
                    looseness,
                    within: None,
                    split_hint,
                });
                meta.cap = cap;
                meta.count = count;
            }
            // A leaf root simply becomes bigger: its objects stay inside the larger bounds.
            let meta = &mut self.meta[CellIdx::ROOT];
            meta.center = next.center;
            meta.half = next.half;
            meta.level = next.level;
            meta.loose_min = next.lo;
            meta.loose_max = next.hi;
        }
        true
    }
}
