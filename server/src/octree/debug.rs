//! Debug view and invariant checker.
//!
//! Owns [`CellInfo`], [`Octree::cells`], [`Octree::cell_count`] and
//! [`Octree::assert_well_formed`], which re-derives every invariant of the tree from scratch
//! and panics naming the first one that does not hold. It never changes the tree.

use glam::Vec3;

use super::Octree;
use super::cell::{NONE, OUTSIDE, box_contains};

/// One live cell, for visual inspection.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CellInfo {
    /// Loose bounds of the cell.
    pub min: Vec3,
    pub max: Vec3,
    /// Depth below the current root (the root is 0).
    pub depth: u32,
    /// Objects stored in this cell itself (not its descendants).
    pub objects: usize,
}

impl Octree {
    /// Every live cell, root first, in depth-first order.
    pub fn cells(&self) -> Vec<CellInfo> {
        let mut out = Vec::with_capacity(self.cell_count());
        let mut stack = vec![(self.root, 0u32)];
        while let Some((c, depth)) = stack.pop() {
            let cell = &self.cells[c as usize];
            out.push(CellInfo {
                min: cell.loose_min,
                max: cell.loose_max,
                depth,
                objects: cell.bucket.len(),
            });
            stack.extend(
                cell.children
                    .iter()
                    .rev()
                    .filter(|&&ch| ch != NONE)
                    .map(|&ch| (ch, depth + 1)),
            );
        }
        out
    }

    /// Number of live cells.
    pub fn cell_count(&self) -> usize {
        self.cells.len() - self.free.len()
    }

    /// Number of objects in the outside list (those no root within the growth limit holds).
    pub fn outside_count(&self) -> usize {
        self.outside.len()
    }

    /// Checks every structural invariant; panics with the name of the first broken one.
    pub fn assert_well_formed(&self) {
        let cfg = &self.cfg;
        let root = &self.cells[self.root as usize];
        assert!(root.live, "root is live");
        assert_eq!(root.parent, NONE, "root has no parent");
        assert!(root.level <= 0, "root is never below the initial level");
        assert!(
            !(root.level < 0 && root.bucket.is_empty() && root.child_count == 1),
            "a grown root with one child and no objects is shrunk"
        );

        let mut seen = vec![false; self.cells.len()];
        let mut objects = 0usize;
        let mut stack = vec![self.root];
        while let Some(c) = stack.pop() {
            let cell = &self.cells[c as usize];
            assert!(cell.live, "cell {c} reachable from the root is live");
            assert!(!seen[c as usize], "cell {c} is reached once");
            seen[c as usize] = true;
            assert_eq!(
                cell.bucket.entries.len(),
                cell.bucket.boxes.len(),
                "bucket vectors of cell {c} are parallel"
            );
            assert!(
                cell.loose_min.cmple(cell.loose_max).all(),
                "cell {c} has ordered bounds"
            );
            assert_eq!(
                cell.scale,
                cell.loose_min.abs().max(cell.loose_max.abs()).max_element(),
                "scale of cell {c} matches its bounds"
            );

            let mut count = cell.bucket.len() as u32;
            let mut mask = 0u32;
            for (slot, (e, b)) in cell
                .bucket
                .entries
                .iter()
                .zip(&cell.bucket.boxes)
                .enumerate()
            {
                let (min, max) = b.aabb();
                assert!(
                    e.min == min && e.max == max && e.mask == b.mask,
                    "entry {} of cell {c} matches its box",
                    e.id
                );
                assert!(
                    cell.contains(e.min, e.max),
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
                mask |= e.mask;
            }
            objects += cell.bucket.len();

            let mut kids = 0;
            for (oct, &ch) in cell.children.iter().enumerate() {
                if ch == NONE {
                    continue;
                }
                kids += 1;
                let child = &self.cells[ch as usize];
                assert_eq!(
                    child.parent, c,
                    "child {ch} (octant {oct}) links back to parent {c}"
                );
                assert_eq!(
                    child.level,
                    cell.level + 1,
                    "child {ch} is one level below its parent"
                );
                assert!(
                    box_contains(
                        cell.loose_min,
                        cell.loose_max,
                        child.loose_min,
                        child.loose_max
                    ),
                    "loose bounds of child {ch} lie inside those of its parent {c}"
                );
                count += child.subtree_count;
                mask |= child.subtree_mask;
                stack.push(ch);
            }
            assert_eq!(kids, cell.child_count as usize, "child count of cell {c}");
            assert_eq!(count, cell.subtree_count, "subtree count of cell {c}");
            assert_eq!(mask, cell.subtree_mask, "subtree mask OR of cell {c}");
            if kids > 0 {
                assert!(
                    cell.level < cfg.max_depth as i32,
                    "cell {c} with children is above max_depth"
                );
                assert!(
                    cell.subtree_count > cfg.merge_threshold(),
                    "cell {c} with only {} objects in its subtree is merged",
                    cell.subtree_count
                );
            } else if c != self.root {
                assert!(
                    !cell.bucket.is_empty(),
                    "no empty leaf (cell {c}) is left unmerged"
                );
            }
        }

        for (slot, (e, b)) in self
            .outside
            .entries
            .iter()
            .zip(&self.outside.boxes)
            .enumerate()
        {
            let (min, max) = b.aabb();
            assert!(
                (e.min == min && e.max == max || !(min.is_finite() && max.is_finite()))
                    && e.mask == b.mask,
                "outside entry {} matches its box",
                e.id
            );
            let loc = self
                .locs
                .get(&e.id)
                .unwrap_or_else(|| panic!("outside object {} is in the object table", e.id));
            assert!(
                loc.cell == OUTSIDE && loc.slot as usize == slot,
                "object table points at outside object {}",
                e.id
            );
            assert!(
                !(e.min.is_finite() && e.max.is_finite() && root.contains(e.min, e.max)),
                "outside object {} is one the root cannot hold",
                e.id
            );
        }
        assert_eq!(
            self.outside.entries.len(),
            self.outside.boxes.len(),
            "outside vectors are parallel"
        );
        objects += self.outside.len();
        assert_eq!(
            objects,
            self.locs.len(),
            "each object is stored exactly once"
        );

        for (i, cell) in self.cells.iter().enumerate() {
            assert_eq!(
                cell.live, seen[i],
                "cell {i} is live exactly when reachable"
            );
        }
        let mut free = self.free.clone();
        free.sort_unstable();
        free.dedup();
        assert_eq!(free.len(), self.free.len(), "free list has no duplicates");
        assert!(
            free.iter().all(|&f| !self.cells[f as usize].live),
            "free list holds only dead cells"
        );
        assert_eq!(
            free.len() + seen.iter().filter(|&&s| s).count(),
            self.cells.len(),
            "every cell is live or free"
        );
    }
}
