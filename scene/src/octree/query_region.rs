//! Box and sphere queries.
//!
//! Owns [`Octree::region`] and [`Octree::sphere`]. Invariant relied on: a cell's bounds
//! contain every object of its subtree, so a cell whose bounds fail the test (with the same
//! comparisons, or the same monotone distance function, the objects use) holds no answer;
//! and a cell entirely inside the query answers with all its objects, which the exact test
//! would accept too (shown in the comments at each shortcut).

use glam::Vec3;

use super::Octree;
use super::cell::{CellIdx, Entry, Link, box_contains};
use super::narrow::{aabb_intersects, point_aabb_dist};
use super::sweep::{Stack, bits_of};

/// Inline capacity of the traversal stack; only unusually deep trees spill to the heap.
const STACK: usize = 16;

impl Octree {
    /// Ids (ascending) of the objects whose world AABB intersects the closed box
    /// `[min, max]` and whose mask shares a bit with `mask`.
    pub fn region(&self, min: Vec3, max: Vec3, mask: u32, out: &mut Vec<u32>) {
        out.clear();
        for e in &self.outside.entries {
            if e.mask & mask != 0 && aabb_intersects(e.min, e.max, min, max) {
                out.push(e.id);
            }
        }
        let root = self.root_bounds;
        if root.mask & mask != 0 && aabb_intersects(root.min, root.max, min, max) {
            let inside = box_contains(min, max, root.min, root.max);
            let entries = &self.arena.entries;
            scan_region(
                &entries[self.root_link.range()],
                inside,
                min,
                max,
                mask,
                out,
            );
            // The stack holds blocks to test (by first cell), with whether their parent lies
            // inside the query.
            let mut stack: Stack<(CellIdx, bool), STACK> = Stack::new();
            if self.root_link.first_child != CellIdx::NONE {
                stack.push((self.root_link.first_child, inside));
            }
            while let Some((first, inside)) = stack.pop() {
                let block = self.block(first);
                let hits = block.overlapping(min, max, mask);
                let all = if inside {
                    u32::MAX
                } else {
                    block.inside(min, max)
                };
                // Each child's own objects are scanned right away (the block says where they
                // are) and only its children go on the stack: the scans of sibling leaves do
                // not depend on each other, so their memory loads overlap.
                for k in bits_of(u64::from(hits)) {
                    let link = block.link(k as usize);
                    let inside = all & (1 << k) != 0;
                    scan_region(&entries[link.range()], inside, min, max, mask, out);
                    if link.first_child != CellIdx::NONE {
                        stack.push((link.first_child, inside));
                    }
                }
            }
        }
        out.sort_unstable();
    }

    /// Ids (ascending) of the objects whose world AABB is within `radius` of `center`
    /// (`point_aabb_dist <= radius`) and whose mask shares a bit with `mask`.
    pub fn sphere(&self, center: Vec3, radius: f32, mask: u32, out: &mut Vec<u32>) {
        out.clear();
        for e in &self.outside.entries {
            if e.mask & mask != 0 && point_aabb_dist(center, e.min, e.max) <= radius {
                out.push(e.id);
            }
        }
        let root = self.root_bounds;
        if root.mask & mask != 0 && point_aabb_dist(center, root.min, root.max) <= radius {
            let mut stack: Stack<(Link, bool), STACK> = Stack::new();
            stack.push((
                self.root_link,
                farthest_dist(center, root.min, root.max) <= radius,
            ));
            while let Some((link, inside)) = stack.pop() {
                for e in &self.arena.entries[link.range()] {
                    if e.mask & mask != 0
                        && (inside || point_aabb_dist(center, e.min, e.max) <= radius)
                    {
                        out.push(e.id);
                    }
                }
                let first = link.first_child;
                if first == CellIdx::NONE {
                    continue;
                }
                let block = self.block(first);
                for k in 0..8 {
                    let child = block.get(k);
                    if child.mask & mask == 0 {
                        continue;
                    }
                    let link = block.link(k);
                    if inside {
                        stack.push((link, true));
                    } else if point_aabb_dist(center, child.min, child.max) <= radius {
                        stack.push((link, farthest_dist(center, child.min, child.max) <= radius));
                    }
                }
            }
        }
        out.sort_unstable();
    }
}

/// Pushes the ids of the entries that intersect `[min, max]` and pass `mask`. With `inside`
/// the entries' cell lies within the box: min <= cell.min <= e.min <= e.max <= cell.max <=
/// max, so `aabb_intersects(e.min, e.max, min, max)` holds for every entry and is skipped.
#[inline]
fn scan_region(
    entries: &[Entry],
    inside: bool,
    min: Vec3,
    max: Vec3,
    mask: u32,
    out: &mut Vec<u32>,
) {
    if inside {
        out.extend(entries.iter().filter(|e| e.mask & mask != 0).map(|e| e.id));
    } else {
        // The test of each entry is evaluated without branches (the same comparisons as
        // `aabb_intersects`, combined with `&`), 64 entries at a time into a bit set: which
        // entries of a cell pass is unpredictable, and a mispredicted branch per entry cost
        // more than the comparisons themselves.
        for (c, chunk) in entries.chunks(64).enumerate() {
            let mut bits = 0u64;
            for (j, e) in chunk.iter().enumerate() {
                let hit = (e.mask & mask != 0)
                    & (e.min.x <= max.x)
                    & (e.min.y <= max.y)
                    & (e.min.z <= max.z)
                    & (min.x <= e.max.x)
                    & (min.y <= e.max.y)
                    & (min.z <= e.max.z);
                bits |= u64::from(hit) << j;
            }
            out.extend(bits_of(bits).map(|j| entries[c * 64 + j as usize].id));
        }
    }
}

/// Distance from `p` to the farthest corner of `[min, max]`, computed so that it is never
/// below `point_aabb_dist(p, bmin, bmax)` for any box inside `[min, max]`: per axis,
/// `max(bmin - p, p - bmax, 0) <= max(|min - p|, |max - p|)` holds after rounding because
/// subtraction rounds monotonically and symmetrically, and the rest is the same monotone f64
/// arithmetic.
#[inline]
pub(super) fn farthest_dist(p: Vec3, min: Vec3, max: Vec3) -> f32 {
    let d = (min - p).abs().max((max - p).abs());
    let (x, y, z) = (f64::from(d.x), f64::from(d.y), f64::from(d.z));
    (x * x + y * y + z * z).sqrt() as f32
}
