//! Incremental maintenance: insert, move, remove, split, merge, grow and shrink.
//!
//! Owns every mutation of the tree. The invariants it restores before returning are those of
//! the module documentation of [`super`]: one stored copy per object inside loose bounds that
//! contain it, exact subtree counts and masks, no empty non-root leaf, no internal cell whose
//! subtree holds `merge_threshold` objects or fewer, and a root that is no taller than needed.
//! A move whose new AABB stays inside its cell's loose bounds touches that cell only.

use glam::Vec3;

use super::cell::{
    Bucket, Cell, Entry, Loc, NONE, OUTSIDE, box_contains, child_center, loose_bounds, octant,
};
use super::object_box::ObjectBox;
use super::{MAX_GROWTH, Octree};

impl Octree {
    /// Inserts object `id`, or moves it (and updates its shape and mask) if present.
    ///
    /// A move that keeps the AABB inside the loose bounds of the object's cell is O(1) (plus
    /// O(depth) when its mask changes); any other move costs O(depth).
    pub fn insert_or_update(&mut self, id: u32, obj: ObjectBox) {
        let (min, max) = obj.aabb();
        let entry = Entry {
            min,
            max,
            mask: obj.mask,
            id,
        };
        if let Some(&loc) = self.locs.get(&id) {
            if loc.cell != OUTSIDE && self.cells[loc.cell as usize].contains(min, max) {
                self.update_in_place(loc, entry, obj);
                return;
            }
            self.detach(loc);
        }
        self.place(entry, obj);
    }

    /// Removes object `id`; returns whether it was there.
    pub fn remove(&mut self, id: u32) -> bool {
        match self.locs.remove(&id) {
            Some(loc) => {
                self.detach(loc);
                true
            }
            None => false,
        }
    }

    fn update_in_place(&mut self, loc: Loc, entry: Entry, obj: ObjectBox) {
        let cell = &mut self.cells[loc.cell as usize];
        let slot = loc.slot as usize;
        let old_mask = cell.bucket.entries[slot].mask;
        cell.bucket.entries[slot] = entry;
        cell.bucket.boxes[slot] = obj;
        if old_mask != entry.mask {
            self.refresh_masks_from(loc.cell);
        }
    }

    /// Takes the object at `loc` out of its bucket and restores every invariant, except
    /// that the object's own entry in `locs` is left for the caller to drop or overwrite.
    fn detach(&mut self, loc: Loc) {
        if loc.cell == OUTSIDE {
            if let Some(moved) = self.outside.swap_remove(loc.slot) {
                self.locs.insert(moved, loc);
            }
            return;
        }
        let c = loc.cell;
        if let Some(moved) = self.cells[c as usize].bucket.swap_remove(loc.slot) {
            self.locs.insert(moved, loc);
        }
        let mut a = c;
        while a != NONE {
            let cell = &mut self.cells[a as usize];
            cell.subtree_count -= 1;
            a = cell.parent;
        }
        self.refresh_masks_from(c);
        self.rebalance(c);
    }

    /// Stores a new object (or one that left its cell): in the tree when some root within
    /// the growth limit holds it, otherwise in the outside list.
    fn place(&mut self, entry: Entry, obj: ObjectBox) {
        let finite = entry.min.is_finite() && entry.max.is_finite();
        let root_holds = finite && self.cells[self.root as usize].contains(entry.min, entry.max);
        if root_holds {
            self.descend(self.root, entry, obj);
            // A split of a grown leaf root can leave it a bare chain link.
            self.shrink_root();
        } else if finite && self.grow_to(entry.min, entry.max) {
            self.descend(self.root, entry, obj);
            self.rehome_outside();
            self.shrink_root();
        } else {
            let slot = self.outside.push(entry, obj);
            self.locs.insert(
                entry.id,
                Loc {
                    cell: OUTSIDE,
                    slot,
                },
            );
        }
    }

    /// Inserts below `start`, whose loose bounds contain the entry: goes down while the
    /// child octant of the entry's centre holds it, creating that child if needed.
    fn descend(&mut self, start: u32, entry: Entry, obj: ObjectBox) {
        let looseness = self.cfg.looseness;
        let hint = self.leaf_split_hint();
        let mut c = start;
        loop {
            let cell = &mut self.cells[c as usize];
            cell.subtree_count += 1;
            cell.subtree_mask |= entry.mask;
            if cell.is_leaf() {
                let slot = cell.bucket.push(entry, obj);
                let wants_split = cell.bucket.len() > cell.split_hint as usize
                    && cell.bucket.len() > self.cfg.leaf_capacity
                    && cell.level < self.cfg.max_depth as i32;
                self.locs.insert(entry.id, Loc { cell: c, slot });
                if wants_split {
                    self.split(c);
                }
                return;
            }
            let oct = octant(entry.mid(), cell.center);
            let child = cell.children[oct];
            if child != NONE {
                if self.cells[child as usize].contains(entry.min, entry.max) {
                    c = child;
                    continue;
                }
            } else {
                let new = Cell::new(
                    child_center(cell.center, cell.half, oct),
                    cell.half * 0.5,
                    cell.level + 1,
                    c,
                    looseness,
                    Some((cell.loose_min, cell.loose_max)),
                    hint,
                );
                if new.contains(entry.min, entry.max) {
                    let child = self.alloc(new);
                    let cell = &mut self.cells[c as usize];
                    cell.children[oct] = child;
                    cell.child_count += 1;
                    c = child;
                    continue;
                }
            }
            // The object straddles the child boundaries: it stays at this cell.
            let slot = self.cells[c as usize].bucket.push(entry, obj);
            self.locs.insert(entry.id, Loc { cell: c, slot });
            return;
        }
    }

    /// Pushes the objects of an over-full leaf down into the children that hold them, and
    /// recursively splits children that end up over-full themselves.
    fn split(&mut self, first: u32) {
        let cap = self.cfg.leaf_capacity;
        let max_depth = self.cfg.max_depth as i32;
        let looseness = self.cfg.looseness;
        let hint = self.leaf_split_hint();
        let mut work = vec![first];
        while let Some(c) = work.pop() {
            let old = std::mem::take(&mut self.cells[c as usize].bucket);
            let mut keep = Bucket::default();
            let mut created: Vec<u32> = Vec::new();
            for (entry, obj) in old.entries.into_iter().zip(old.boxes) {
                let cell = &self.cells[c as usize];
                let oct = octant(entry.mid(), cell.center);
                let mut child = cell.children[oct];
                if child == NONE {
                    let new = Cell::new(
                        child_center(cell.center, cell.half, oct),
                        cell.half * 0.5,
                        cell.level + 1,
                        c,
                        looseness,
                        Some((cell.loose_min, cell.loose_max)),
                        hint,
                    );
                    if !new.contains(entry.min, entry.max) {
                        keep.push(entry, obj);
                        continue;
                    }
                    child = self.alloc(new);
                    let cell = &mut self.cells[c as usize];
                    cell.children[oct] = child;
                    cell.child_count += 1;
                    created.push(child);
                } else if !self.cells[child as usize].contains(entry.min, entry.max) {
                    keep.push(entry, obj);
                    continue;
                }
                let ch = &mut self.cells[child as usize];
                ch.subtree_count += 1;
                ch.subtree_mask |= entry.mask;
                ch.bucket.push(entry, obj);
            }
            let kept = keep.len();
            self.cells[c as usize].bucket = keep;
            self.relocate_bucket(c);
            if created.is_empty() {
                // Everything straddles: wait until the leaf has doubled before trying again.
                self.cells[c as usize].split_hint =
                    (kept.saturating_mul(2)).min(u32::MAX as usize) as u32;
                continue;
            }
            for &child in &created {
                self.relocate_bucket(child);
                let ch = &self.cells[child as usize];
                if ch.bucket.len() > cap && ch.level < max_depth {
                    work.push(child);
                }
            }
        }
    }

    /// Rewrites the object table for every object of cell `c`'s bucket.
    fn relocate_bucket(&mut self, c: u32) {
        for (slot, e) in self.cells[c as usize].bucket.entries.iter().enumerate() {
            self.locs.insert(
                e.id,
                Loc {
                    cell: c,
                    slot: slot as u32,
                },
            );
        }
    }

    /// Recomputes subtree masks from `c` upward, stopping at the first unchanged cell.
    fn refresh_masks_from(&mut self, mut c: u32) {
        while c != NONE {
            let cell = &self.cells[c as usize];
            let mut m = cell.bucket.mask();
            for &ch in &cell.children {
                if m == u32::MAX {
                    break;
                }
                if ch != NONE {
                    m |= self.cells[ch as usize].subtree_mask;
                }
            }
            let cell = &mut self.cells[c as usize];
            if cell.subtree_mask == m {
                return;
            }
            cell.subtree_mask = m;
            c = cell.parent;
        }
    }

    /// After a removal from cell `c`: merges the highest under-full subtree above it, frees
    /// the empty leaves this leaves behind and lowers the root if it became a bare chain.
    fn rebalance(&mut self, c: u32) {
        let threshold = self.cfg.merge_threshold();
        let mut target = NONE;
        let mut a = c;
        while a != NONE {
            let cell = &self.cells[a as usize];
            if !cell.is_leaf() && cell.subtree_count <= threshold {
                target = a;
            }
            a = cell.parent;
        }
        let mut c = c;
        if target != NONE {
            self.merge(target);
            c = target;
        }
        while c != self.root {
            let cell = &self.cells[c as usize];
            if !cell.is_leaf() || !cell.bucket.is_empty() {
                break;
            }
            let parent = cell.parent;
            let p = &mut self.cells[parent as usize];
            let slot = p
                .children
                .iter()
                .position(|&x| x == c)
                .expect("child linked from its parent");
            p.children[slot] = NONE;
            p.child_count -= 1;
            self.release(c);
            c = parent;
        }
        self.shrink_root();
    }

    /// Pulls every object of `target`'s subtree into `target`, which becomes a leaf.
    fn merge(&mut self, target: u32) {
        let mut stack: Vec<u32> = Vec::new();
        let hint = self.leaf_split_hint();
        let cell = &mut self.cells[target as usize];
        stack.extend(cell.children.iter().copied().filter(|&ch| ch != NONE));
        cell.children = [NONE; 8];
        cell.child_count = 0;
        cell.split_hint = hint;
        let mut gathered = std::mem::take(&mut self.cells[target as usize].bucket);
        while let Some(c) = stack.pop() {
            let cell = &mut self.cells[c as usize];
            stack.extend(cell.children.iter().copied().filter(|&ch| ch != NONE));
            let b = &mut cell.bucket;
            gathered.entries.append(&mut b.entries);
            gathered.boxes.append(&mut b.boxes);
            self.release(c);
        }
        self.cells[target as usize].bucket = gathered;
        self.relocate_bucket(target);
    }

    /// Makes the root no taller than needed: a grown root with no objects of its own and a
    /// single child hands over to that child, and an empty tree returns to the initial root.
    fn shrink_root(&mut self) {
        loop {
            let root = &self.cells[self.root as usize];
            if root.is_leaf() {
                if root.subtree_count == 0 && (root.level != 0 || root.center != Vec3::ZERO) {
                    let fresh = self.initial_root();
                    self.cells[self.root as usize] = fresh;
                } else if root.level < 0 {
                    self.shrink_leaf_root();
                }
                return;
            }
            if root.level < 0 && root.bucket.is_empty() && root.child_count == 1 {
                let child = *root
                    .children
                    .iter()
                    .find(|&&ch| ch != NONE)
                    .expect("one child");
                self.release(self.root);
                self.cells[child as usize].parent = NONE;
                self.root = child;
                continue;
            }
            return;
        }
    }

    /// Halves a grown leaf root (a merge can leave one) while a single octant of it still
    /// holds all its objects, so the tree does not keep a huge root for a few small objects.
    fn shrink_leaf_root(&mut self) {
        let looseness = self.cfg.looseness;
        let root = &mut self.cells[self.root as usize];
        while root.level < 0 {
            let Some(first) = root.bucket.entries.first() else {
                return;
            };
            let oct = octant(first.mid(), root.center);
            let center = child_center(root.center, root.half, oct);
            let half = root.half * 0.5;
            let (lo, hi) = loose_bounds(center, half, looseness);
            // Clamped like a child, so the smaller root lies inside the old one.
            let (lo, hi) = (lo.max(root.loose_min), hi.min(root.loose_max));
            if !root
                .bucket
                .entries
                .iter()
                .all(|e| box_contains(lo, hi, e.min, e.max))
            {
                return;
            }
            root.center = center;
            root.half = half;
            root.level += 1;
            root.set_loose(lo, hi);
        }
    }

    /// Grows the root until its loose bounds hold `[min, max]`, doubling towards the box each
    /// time; returns false (and changes nothing) when that would exceed [`MAX_GROWTH`].
    fn grow_to(&mut self, min: Vec3, max: Vec3) -> bool {
        let root = &self.cells[self.root as usize];
        let mut g = Growth {
            center: root.center,
            half: root.half,
            level: root.level,
            lo: root.loose_min,
            hi: root.loose_max,
        };
        let target = (min + max) * 0.5;
        while !box_contains(g.lo, g.hi, min, max) {
            if g.level <= -MAX_GROWTH || !target.is_finite() {
                return false;
            }
            g = g.doubled(target, self.cfg.looseness);
        }
        while !self.cells[self.root as usize].contains(min, max) {
            let r = self.root;
            let root = &self.cells[r as usize];
            let next = Growth {
                center: root.center,
                half: root.half,
                level: root.level,
                lo: root.loose_min,
                hi: root.loose_max,
            }
            .doubled(target, self.cfg.looseness);
            if root.is_leaf() {
                // A leaf root simply becomes bigger: its objects stay inside the larger bounds.
                let root = &mut self.cells[r as usize];
                root.center = next.center;
                root.half = next.half;
                root.level = next.level;
                root.set_loose(next.lo, next.hi);
            } else {
                let old_center = root.center;
                let (count, mask) = (root.subtree_count, root.subtree_mask);
                let mut new = Cell::new(
                    next.center,
                    next.half,
                    next.level,
                    NONE,
                    self.cfg.looseness,
                    None,
                    self.leaf_split_hint(),
                );
                new.set_loose(next.lo, next.hi);
                new.children[octant(old_center, next.center)] = r;
                new.child_count = 1;
                new.subtree_count = count;
                new.subtree_mask = mask;
                let n = self.alloc(new);
                self.cells[r as usize].parent = n;
                self.root = n;
            }
        }
        true
    }

    /// Moves outside-list objects that the (just grown) root now holds into the tree.
    fn rehome_outside(&mut self) {
        let root = self.root as usize;
        let mut i = 0;
        while i < self.outside.len() {
            let e = self.outside.entries[i];
            if e.min.is_finite() && e.max.is_finite() && self.cells[root].contains(e.min, e.max) {
                let obj = self.outside.boxes[i];
                if let Some(moved) = self.outside.swap_remove(i as u32) {
                    self.locs.insert(
                        moved,
                        Loc {
                            cell: OUTSIDE,
                            slot: i as u32,
                        },
                    );
                }
                self.descend(self.root, e, obj);
            } else {
                i += 1;
            }
        }
    }

    pub(super) fn alloc(&mut self, cell: Cell) -> u32 {
        match self.free.pop() {
            Some(i) => {
                // Keep the freed bucket's allocations for reuse.
                let bucket = std::mem::take(&mut self.cells[i as usize].bucket);
                self.cells[i as usize] = Cell { bucket, ..cell };
                i
            }
            None => {
                self.cells.push(cell);
                (self.cells.len() - 1) as u32
            }
        }
    }

    fn release(&mut self, c: u32) {
        let cell = &mut self.cells[c as usize];
        cell.live = false;
        cell.bucket.clear();
        cell.children = [NONE; 8];
        cell.child_count = 0;
        cell.subtree_count = 0;
        cell.subtree_mask = 0;
        cell.parent = NONE;
        self.free.push(c);
    }
}

/// The geometry of a root while planning growth.
#[derive(Clone, Copy)]
struct Growth {
    center: Vec3,
    half: f32,
    level: i32,
    lo: Vec3,
    hi: Vec3,
}

impl Growth {
    /// The cube twice as large that has this one as the octant facing away from `target`;
    /// its loose bounds also cover the old ones, so containment never breaks.
    fn doubled(self, target: Vec3, looseness: f32) -> Self {
        let step = |t: f32, c: f32| if t < c { -self.half } else { self.half };
        let center = self.center
            + Vec3::new(
                step(target.x, self.center.x),
                step(target.y, self.center.y),
                step(target.z, self.center.z),
            );
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
