//! Box and sphere queries.
//!
//! Owns [`Octree::region`] and [`Octree::sphere`]. Invariant relied on: a cell's bounds
//! contain every object of its subtree, so a cell whose bounds fail the test (with the same
//! comparisons, or the same monotone distance function, the objects use) holds no answer;
//! and a cell entirely inside the query answers with all its objects, which the exact test
//! would accept too (shown in the comments at each shortcut).

use glam::Vec3;

use super::Octree;
use super::cell::{Entry, NONE, ROOT, box_contains};
use super::narrow::{aabb_intersects, point_aabb_dist};
use super::sweep::{Stack, bits_of};

/// Inline capacity of the traversal stack; only unusually deep trees spill to the heap.
const STACK: usize = 64;

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
            let mut stack: Stack<(u32, bool), STACK> = Stack::new();
            let inside = box_contains(min, max, root.min, root.max);
            scan_region(
                &self.nodes[ROOT as usize].entries,
                inside,
                min,
                max,
                mask,
                out,
            );
            stack.push((ROOT, inside));
            while let Some((c, inside)) = stack.pop() {
                let first = self.nodes[c as usize].first_child;
                if first == NONE {
                    continue;
                }
                let block = self.block(first);
                let hits = block.overlapping(min, max, mask);
                let all = if inside {
                    u32::MAX
                } else {
                    block.inside(min, max)
                };
                // Each child's own objects are scanned right away and only cells with
                // children go on the stack: the scans of sibling leaves do not depend on
                // each other, so their memory loads overlap.
                for k in bits_of(hits) {
                    let child = first + k;
                    let inside = all & (1 << k) != 0;
                    let node = &self.nodes[child as usize];
                    scan_region(&node.entries, inside, min, max, mask, out);
                    if node.first_child != NONE {
                        stack.push((child, inside));
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
            let mut stack: Stack<(u32, bool), STACK> = Stack::new();
            stack.push((ROOT, farthest_dist(center, root.min, root.max) <= radius));
            while let Some((c, inside)) = stack.pop() {
                let node = &self.nodes[c as usize];
                for e in &node.entries {
                    if e.mask & mask != 0
                        && (inside || point_aabb_dist(center, e.min, e.max) <= radius)
                    {
                        out.push(e.id);
                    }
                }
                let first = node.first_child;
                if first == NONE {
                    continue;
                }
                let block = self.block(first);
                for k in 0..8 {
                    let child = block.get(k);
                    if child.mask & mask == 0 {
                        continue;
                    }
                    let id = first + k as u32;
                    if inside {
                        stack.push((id, true));
                    } else if point_aabb_dist(center, child.min, child.max) <= radius {
                        stack.push((id, farthest_dist(center, child.min, child.max) <= radius));
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
        for e in entries {
            if e.mask & mask != 0 && aabb_intersects(e.min, e.max, min, max) {
                out.push(e.id);
            }
        }
    }
}

/// Distance from `p` to the farthest corner of `[min, max]`, computed so that it is never
/// below `point_aabb_dist(p, bmin, bmax)` for any box inside `[min, max]`: per axis,
/// `max(bmin - p, p - bmax, 0) <= max(|min - p|, |max - p|)` holds after rounding because
/// subtraction rounds monotonically and symmetrically, and the rest is the same monotone f64
/// arithmetic.
#[inline]
fn farthest_dist(p: Vec3, min: Vec3, max: Vec3) -> f32 {
    let d = (min - p).abs().max((max - p).abs());
    let (x, y, z) = (f64::from(d.x), f64::from(d.y), f64::from(d.z));
    (x * x + y * y + z * z).sqrt() as f32
}
