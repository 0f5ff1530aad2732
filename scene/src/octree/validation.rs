//! Debug view and invariant checker.
//!
//! Owns [`CellInfo`], [`Octree::cells`], [`Octree::cell_count`] and
//! [`Octree::assert_well_formed`], which re-derives every invariant of the tree from scratch
//! and panics naming the first one that does not hold. It never changes the tree.

use glam::Vec3;

use super::Octree;
use super::cell::{Bounds, CellIdx, Link, box_contains, entries_bounds};

/// One cell in use, for visual inspection.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CellInfo {
    /// Low corner of the cell's loose bounds (where its objects may be).
    pub min: Vec3,
    /// High corner of the cell's loose bounds.
    pub max: Vec3,
    /// Depth below the current root (the root is 0).
    pub depth: u32,
    /// Objects stored in this cell itself (not its descendants).
    pub objects: usize,
}

impl Octree {
    /// Every cell in use (the root and every cell with objects in its subtree), root first,
    /// in depth-first order.
    pub fn cells(&self) -> Vec<CellInfo> {
        let mut out = Vec::new();
        let mut stack = vec![(CellIdx::ROOT, 0u32)];
        while let Some((c, depth)) = stack.pop() {
            let (link, meta) = (self.link(c), &self.meta[c]);
            out.push(CellInfo {
                min: meta.loose_min,
                max: meta.loose_max,
                depth,
                objects: link.len as usize,
            });
            if link.first_child != CellIdx::NONE {
                let first = link.first_child;
                let children = first.octants().rev().filter(|&ch| self.meta[ch].count > 0);
                stack.extend(children.map(|ch| (ch, depth + 1)));
            }
        }
        out
    }

    /// The cells of [`Octree::cells`], plus, when some objects lie outside every root
    /// the tree may grow to, one more entry at depth 0 for them (bounds: their union), so
    /// that the entries' `objects` add up to [`Octree::len`].
    pub fn cells_with_outside(&self) -> Vec<CellInfo> {
        let mut cells = self.cells();
        let outside = &self.outside.entries;
        if let Some(first) = outside.first() {
            let (min, max) = outside.iter().fold((first.min, first.max), |(lo, hi), e| {
                (lo.min(e.min), hi.max(e.max))
            });
            cells.push(CellInfo {
                min,
                max,
                depth: 0,
                objects: outside.len(),
            });
        }
        cells
    }

    /// Number of cells in use (see [`Octree::cells`]).
    pub fn cell_count(&self) -> usize {
        // Cells of free blocks and vacant slots have a zero count.
        1 + self.meta[1..].iter().filter(|m| m.count > 0).count()
    }

    /// Number of objects in the outside list (those no root within the growth limit holds).
    pub fn outside_count(&self) -> usize {
        self.outside.entries.len()
    }

    /// Checks every structural invariant; panics with the name of the first broken one.
    pub fn assert_well_formed(&self) {
        let cfg = &self.cfg;
        let n = self.meta.len();
        assert_eq!(
            self.blocks.len() * 8 + 1,
            n,
            "every cell but the root has a slot in a block"
        );
        assert_eq!(
            (n - 1) % 8,
            0,
            "cells are the root plus whole blocks of eight"
        );
        let root = &self.meta[CellIdx::ROOT];
        assert_eq!(root.parent, CellIdx::NONE, "root has no parent");
        assert!(root.level <= 0, "root is never below the initial level");

        assert_eq!(
            self.arena.entries.len(),
            self.arena.boxes.len(),
            "arena vectors are parallel"
        );
        let mut seen = vec![false; n];
        let mut objects = 0usize;
        // Every live cell's arena range, as (start, cap, cell).
        let mut ranges = Vec::new();
        let mut stack = vec![CellIdx::ROOT];
        while let Some(c) = stack.pop() {
            let (link, meta) = (self.link(c), &self.meta[c]);
            assert!(!seen[c.index()], "cell {c} is reached once");
            seen[c.index()] = true;
            assert!(
                link.len <= meta.cap
                    && (link.start as usize + meta.cap as usize) <= self.arena.entries.len(),
                "arena range of cell {c} holds its objects and lies inside the arena"
            );
            if meta.cap > 0 {
                ranges.push((link.start as usize, meta.cap as usize, c));
            }
            let (entries, boxes) = (self.entries(c), self.boxes(c));
            for (slot, (e, b)) in entries.iter().zip(boxes).enumerate() {
                let (min, max) = b.aabb();
                assert!(
                    e.min == min && e.max == max && e.mask == b.mask,
                    "entry {} of cell {c} matches its box",
                    e.id
                );
                assert!(
                    meta.holds(e.min, e.max),
                    "object {} lies inside the loose bounds of its cell {c}",
                    e.id
                );
                let loc = self
                    .locs
                    .get(&e.id)
                    .unwrap_or_else(|| panic!("object {} is in the object table", e.id));
                assert!(
                    loc.cell == c && loc.slot as usize == slot,
                    "object table points at object {}",
                    e.id
                );
            }
            objects += entries.len();
            let exact = entries_bounds(entries);
            assert!(exact.mask == meta.own.mask, "own mask of cell {c} is exact");
            assert!(
                covers(meta.own, exact),
                "own bounds of cell {c} cover its objects"
            );
            let mut bounds = meta.own;
            let mut count = link.len;
            if link.first_child != CellIdx::NONE {
                let first = link.first_child;
                assert!(first.starts_block(), "child block of cell {c} is aligned");
                let mut live = 0;
                for child in first.octants() {
                    let cm = &self.meta[child];
                    assert_eq!(cm.parent, c, "child {child} links back to its parent {c}");
                    assert_eq!(
                        cm.level,
                        meta.level + 1,
                        "child {child} is one level below its parent"
                    );
                    assert!(
                        box_contains(meta.loose_min, meta.loose_max, cm.loose_min, cm.loose_max),
                        "loose bounds of child {child} lie inside those of its parent {c}"
                    );
                    bounds = bounds.union(self.bounds(child));
                    count += cm.count;
                    live += usize::from(cm.count > 0);
                    stack.push(child);
                }
                assert!(
                    live > 0,
                    "no block of only vacant children (under cell {c}) is left unmerged"
                );
                assert!(
                    meta.level < cfg.max_depth as i32,
                    "cell {c} with children is above max_depth"
                );
                assert!(
                    meta.count > cfg.merge_threshold(),
                    "cell {c} with only {} objects in its subtree is merged",
                    meta.count
                );
            }
            assert_eq!(count, meta.count, "subtree count of cell {c}");
            let stored = self.bounds(c);
            assert!(
                stored.mask == bounds.mask,
                "subtree mask OR of cell {c} is exact"
            );
            assert!(
                covers(stored, bounds),
                "subtree bounds of cell {c} cover its own and its children's"
            );
            assert!(
                count == 0 || box_contains(meta.loose_min, meta.loose_max, stored.min, stored.max),
                "subtree bounds of cell {c} lie inside its loose bounds"
            );
            if count == 0 && c != CellIdx::ROOT {
                assert!(
                    link.first_child == CellIdx::NONE,
                    "vacant cell {c} has no children"
                );
            }
        }
        let root_first = self.root_link.first_child;
        if root.level < 0 && self.root_link.len == 0 && root_first != CellIdx::NONE {
            let live = root_first.octants().filter(|&ch| self.meta[ch].count > 0);
            assert!(
                live.count() > 1,
                "a grown root with one child and no objects of its own is shrunk"
            );
        }

        for (slot, (e, b)) in self
            .outside
            .entries
            .iter()
            .zip(&self.outside.boxes)
            .enumerate()
        {
            let (min, max) = b.aabb();
            let same = (e.min == min || e.min.is_nan()) && (e.max == max || e.max.is_nan());
            assert!(
                same && e.mask == b.mask,
                "outside entry {} matches its box",
                e.id
            );
            let loc = self
                .locs
                .get(&e.id)
                .unwrap_or_else(|| panic!("outside object {} is in the object table", e.id));
            assert!(
                loc.cell == CellIdx::OUTSIDE && loc.slot as usize == slot,
                "object table points at outside object {}",
                e.id
            );
            assert!(
                !(e.min.is_finite() && e.max.is_finite() && root.holds(e.min, e.max)),
                "outside object {} is one the root cannot hold",
                e.id
            );
        }
        assert_eq!(
            self.outside.entries.len(),
            self.outside.boxes.len(),
            "outside vectors are parallel"
        );
        objects += self.outside.entries.len();
        assert_eq!(
            objects,
            self.locs.len(),
            "each object is stored exactly once"
        );

        let mut free = self.free_blocks.clone();
        free.sort_unstable();
        free.dedup();
        assert_eq!(
            free.len(),
            self.free_blocks.len(),
            "free list has no duplicates"
        );
        for &first in &free {
            for c in first.octants() {
                assert!(
                    !seen[c.index()],
                    "cell {c} of a free block is not in the tree"
                );
                let (link, meta) = (self.link(c), &self.meta[c]);
                assert!(
                    link == Link::VACANT
                        && meta.cap == 0
                        && self.bounds(c) == Bounds::EMPTY
                        && meta.count == 0,
                    "cell {c} of a free block is vacant and owns no arena range"
                );
            }
        }
        assert_eq!(
            free.len() * 8 + seen.iter().filter(|&&s| s).count(),
            n,
            "every cell is in the tree or free"
        );

        ranges.sort_unstable();
        for w in ranges.windows(2) {
            assert!(
                w[0].0 + w[0].1 <= w[1].0,
                "arena ranges of cells {} and {} do not overlap",
                w[0].2,
                w[1].2
            );
        }
        let owned: usize = ranges.iter().map(|r| r.1).sum();
        assert_eq!(
            owned + self.arena.garbage,
            self.arena.entries.len(),
            "every arena slot is owned by a cell or counted as garbage"
        );
    }
}

/// Whether `outer` covers `inner` (an empty `inner` is covered by anything).
fn covers(outer: Bounds, inner: Bounds) -> bool {
    inner == Bounds::EMPTY || box_contains(outer.min, outer.max, inner.min, inner.max)
}
