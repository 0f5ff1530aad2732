//! Object-level maintenance: insert, move, remove, and the bookkeeping they share.
//!
//! Owns the paths by which objects enter, move inside and leave the tree. Before returning,
//! each restores the invariants of [`super::cell`]: subtree bounds that cover the contents,
//! exact masks and counts, and a correct object table. A move whose new AABB stays inside
//! its cell's loose bounds touches only that cell, plus the ancestors whose bounds it must
//! grow (bounded by the depth, and usually none).

use super::Octree;
use super::cell::{CellIdx, Entry, Loc, box_contains, entries_bounds, octant};
use super::object_box::ObjectBox;

impl Octree {
    /// Inserts object `id`, or moves it (and updates its shape and mask) if present.
    pub fn insert_or_update(&mut self, id: u32, obj: ObjectBox) {
        let (min, max) = obj.aabb();
        let entry = Entry {
            min,
            max,
            mask: obj.mask,
            id,
        };
        if let Some(&loc) = self.locs.get(&id) {
            if loc.cell != CellIdx::OUTSIDE && self.meta[loc.cell].holds(min, max) {
                self.update_in_place(loc, entry, obj);
                return;
            }
            self.detach(loc);
        }
        self.place(entry, obj);
        self.maybe_compact();
    }

    /// Removes object `id`; returns whether it was there.
    pub fn remove(&mut self, id: u32) -> bool {
        match self.locs.remove(&id) {
            Some(loc) => {
                self.detach(loc);
                self.maybe_compact();
                true
            }
            None => false,
        }
    }

    fn update_in_place(&mut self, loc: Loc, entry: Entry, obj: ObjectBox) {
        let i = (self.link(loc.cell).start + loc.slot) as usize;
        let old = std::mem::replace(&mut self.arena.entries[i], entry);
        self.arena.boxes[i] = obj;
        let meta = &mut self.meta[loc.cell];
        if old.mask != entry.mask {
            // Masks stay exact, so a changed mask recomputes the ORs upward.
            self.refresh_own(loc.cell);
            return;
        }
        // Bounds may stay larger than the contents (they only tighten when the cell gains or
        // loses an object), so a move only ever grows them: the common small move inside
        // them costs nothing more, and any other grows them upward only as far as needed.
        if box_contains(meta.own.min, meta.own.max, entry.min, entry.max) {
            return;
        }
        meta.own = meta.own.with(&entry);
        let mut c = loc.cell;
        while c != CellIdx::NONE {
            let b = self.bounds(c);
            if box_contains(b.min, b.max, entry.min, entry.max) {
                return;
            }
            self.set_bounds(c, b.with(&entry));
            c = self.meta[c].parent;
        }
    }

    /// Recomputes the own bounds and mask of cell `c` from its entries and, if they
    /// changed, the subtree bounds of `c` and its ancestors.
    pub(super) fn refresh_own(&mut self, c: CellIdx) {
        self.stats.own_recomputes += 1;
        let own = entries_bounds(self.entries(c));
        let meta = &mut self.meta[c];
        if own == meta.own {
            return;
        }
        meta.own = own;
        self.refresh_up(c);
    }

    /// Recomputes subtree bounds and masks from `c` upward, stopping at the first cell
    /// that does not change (its ancestors then cannot change either).
    pub(super) fn refresh_up(&mut self, mut c: CellIdx) {
        while c != CellIdx::NONE {
            let mut b = self.meta[c].own;
            let first = self.first_child(c);
            if first != CellIdx::NONE {
                let block = self.block(first);
                for k in 0..8 {
                    b = b.union(block.get(k));
                }
            }
            if b == self.bounds(c) {
                return;
            }
            self.set_bounds(c, b);
            c = self.meta[c].parent;
        }
    }

    /// Takes the object at `loc` out of its cell and restores every invariant, except
    /// that the object's own entry in `locs` is left for the caller to drop or overwrite.
    fn detach(&mut self, loc: Loc) {
        let slot = loc.slot as usize;
        if loc.cell == CellIdx::OUTSIDE {
            self.outside.entries.swap_remove(slot);
            self.outside.boxes.swap_remove(slot);
            if let Some(moved) = self.outside.entries.get(slot) {
                self.locs.insert(moved.id, loc);
            }
            return;
        }
        let c = loc.cell;
        let removed = self.entries(c)[slot];
        if let Some(moved) = self.swap_remove_own(c, loc.slot) {
            self.locs.insert(moved, loc);
        }
        let mut a = c;
        while a != CellIdx::NONE {
            let meta = &mut self.meta[a];
            meta.count -= 1;
            a = meta.parent;
        }
        self.refresh_own_without(c, &removed);
        self.rebalance(c);
    }

    /// [`refresh_own`](Self::refresh_own) after `removed` left cell `c`, without the full
    /// recomputation when the objects left still reach every bound and every mask bit
    /// the removed one did: a scan that stops once they do, at the first object when
    /// objects coincide. (Recomputing every time made each removal from a cell of
    /// thousands of objects at one point, which no split separates, cost the whole cell.)
    fn refresh_own_without(&mut self, c: CellIdx, removed: &Entry) {
        let own = self.meta[c].own;
        // What only `removed` may have reached: its mask bits, and the sides of the own
        // bounds it touched (bounds may be looser than the objects; then it touched none).
        let mut mask = removed.mask;
        let mut low = removed.min.cmple(own.min);
        let mut high = removed.max.cmpge(own.max);
        let mut entries = self.entries(c).iter();
        while mask != 0 || low.any() || high.any() {
            let Some(e) = entries.next() else {
                // Nothing left reaches it all: the bounds or the mask shrink.
                self.refresh_own(c);
                return;
            };
            mask &= !e.mask;
            low &= !e.min.cmple(own.min);
            high &= !e.max.cmpge(own.max);
        }
    }

    /// Stores a new object (or one that left its cell): in the tree when some root within
    /// the growth limit holds it, otherwise in the outside list.
    fn place(&mut self, entry: Entry, obj: ObjectBox) {
        let finite = entry.min.is_finite() && entry.max.is_finite();
        if finite && self.meta[CellIdx::ROOT].holds(entry.min, entry.max) {
            self.descend(CellIdx::ROOT, entry, obj);
            // A split of a grown leaf root can leave it a bare chain link.
            self.shrink_root();
        } else if finite && self.grow_to(entry.min, entry.max) {
            self.descend(CellIdx::ROOT, entry, obj);
            self.rehome_outside();
            self.shrink_root();
        } else {
            let slot = self.outside.entries.len() as u32;
            self.outside.entries.push(entry);
            self.outside.boxes.push(obj);
            self.locs.insert(
                entry.id,
                Loc {
                    cell: CellIdx::OUTSIDE,
                    slot,
                },
            );
        }
    }

    /// Inserts below `start`, whose loose bounds hold the entry: goes down while the child
    /// octant of the entry's centre holds it, and splits the leaf it lands in if over-full.
    pub(super) fn descend(&mut self, start: CellIdx, entry: Entry, obj: ObjectBox) {
        let mut c = start;
        loop {
            let grown = self.bounds(c).with(&entry);
            self.set_bounds(c, grown);
            let first = self.first_child(c);
            let meta = &mut self.meta[c];
            meta.count += 1;
            if first != CellIdx::NONE {
                let child = first.octant(octant(entry.mid(), meta.center));
                if self.meta[child].holds(entry.min, entry.max) {
                    c = child;
                    continue;
                }
            }
            // A leaf, or an object that straddles the children: it is stored here.
            let meta = &mut self.meta[c];
            meta.own = meta.own.with(&entry);
            let slot = self.push_own(c, entry, obj);
            self.locs.insert(entry.id, Loc { cell: c, slot });
            let len = slot as usize + 1;
            let meta = &self.meta[c];
            if first == CellIdx::NONE
                && len > meta.split_hint as usize
                && len > self.cfg.leaf_capacity
                && meta.level < self.cfg.max_depth as i32
            {
                self.split(c);
            }
            return;
        }
    }

    /// Rewrites the object table for every object of cell `c`.
    pub(super) fn relocate(&mut self, c: CellIdx) {
        let range = self.link(c).range();
        for (slot, e) in self.arena.entries[range].iter().enumerate() {
            self.locs.insert(
                e.id,
                Loc {
                    cell: c,
                    slot: slot as u32,
                },
            );
        }
    }

    /// Moves outside-list objects that the (just grown) root now holds into the tree.
    fn rehome_outside(&mut self) {
        let mut i = 0;
        while i < self.outside.entries.len() {
            let e = self.outside.entries[i];
            if e.min.is_finite()
                && e.max.is_finite()
                && self.meta[CellIdx::ROOT].holds(e.min, e.max)
            {
                let obj = self.outside.boxes.swap_remove(i);
                self.outside.entries.swap_remove(i);
                if let Some(moved) = self.outside.entries.get(i) {
                    self.locs.insert(
                        moved.id,
                        Loc {
                            cell: CellIdx::OUTSIDE,
                            slot: i as u32,
                        },
                    );
                }
                self.descend(CellIdx::ROOT, e, obj);
            } else {
                i += 1;
            }
        }
    }
}
