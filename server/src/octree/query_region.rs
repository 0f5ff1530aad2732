//! Box and sphere queries.
//!
//! Owns [`Octree::region`] and [`Octree::sphere`]. Invariant relied on: every object of a
//! subtree lies inside the subtree root's loose bounds, so a cell whose loose bounds fail the
//! test (with the same narrow-phase function the objects use) holds no answer; and a cell
//! entirely inside the query answers with all its objects, which the exact test would accept
//! too (shown in the comments at each shortcut).

use glam::Vec3;

use super::Octree;
use super::cell::{NONE, box_contains};
use super::narrow::{aabb_intersects, point_aabb_dist};

/// Initial capacity of the traversal stack; it only reallocates for unusually deep trees.
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
        let root = &self.cells[self.root as usize];
        if root.subtree_mask & mask != 0
            && aabb_intersects(root.loose_min, root.loose_max, min, max)
        {
            let mut stack: Vec<(u32, bool)> = Vec::with_capacity(STACK);
            stack.push((
                self.root,
                box_contains(min, max, root.loose_min, root.loose_max),
            ));
            while let Some((c, inside)) = stack.pop() {
                let cell = &self.cells[c as usize];
                if inside {
                    // min <= loose_min <= e.min <= e.max <= loose_max <= max, so
                    // `aabb_intersects(e.min, e.max, min, max)` holds for every entry.
                    out.extend(
                        cell.bucket
                            .entries
                            .iter()
                            .filter(|e| e.mask & mask != 0)
                            .map(|e| e.id),
                    );
                } else {
                    for e in &cell.bucket.entries {
                        if e.mask & mask != 0 && aabb_intersects(e.min, e.max, min, max) {
                            out.push(e.id);
                        }
                    }
                }
                for &ch in &cell.children {
                    if ch == NONE {
                        continue;
                    }
                    let child = &self.cells[ch as usize];
                    if child.subtree_mask & mask == 0 {
                        continue;
                    }
                    if inside {
                        stack.push((ch, true));
                    } else if aabb_intersects(child.loose_min, child.loose_max, min, max) {
                        stack.push((ch, box_contains(min, max, child.loose_min, child.loose_max)));
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
        let root = &self.cells[self.root as usize];
        if root.subtree_mask & mask != 0
            && point_aabb_dist(center, root.loose_min, root.loose_max) <= radius
        {
            let mut stack: Vec<(u32, bool)> = Vec::with_capacity(STACK);
            stack.push((
                self.root,
                farthest_dist(center, root.loose_min, root.loose_max) <= radius,
            ));
            while let Some((c, inside)) = stack.pop() {
                let cell = &self.cells[c as usize];
                for e in &cell.bucket.entries {
                    if e.mask & mask != 0
                        && (inside || point_aabb_dist(center, e.min, e.max) <= radius)
                    {
                        out.push(e.id);
                    }
                }
                for &ch in &cell.children {
                    if ch == NONE {
                        continue;
                    }
                    let child = &self.cells[ch as usize];
                    if child.subtree_mask & mask == 0 {
                        continue;
                    }
                    if inside {
                        stack.push((ch, true));
                    } else if point_aabb_dist(center, child.loose_min, child.loose_max) <= radius {
                        let all = farthest_dist(center, child.loose_min, child.loose_max) <= radius;
                        stack.push((ch, all));
                    }
                }
            }
        }
        out.sort_unstable();
    }
}

/// Distance from `p` to the farthest corner of `[min, max]`, computed so that it is never
/// below `point_aabb_dist(p, bmin, bmax)` for any box inside `[min, max]`: per axis,
/// `max(bmin - p, p - bmax, 0) <= max(|min - p|, |max - p|)` holds after rounding because
/// subtraction rounds monotonically, and the rest is the same monotone f64 arithmetic.
#[inline]
fn farthest_dist(p: Vec3, min: Vec3, max: Vec3) -> f32 {
    let d = (min - p).abs().max((max - p).abs());
    let (x, y, z) = (f64::from(d.x), f64::from(d.y), f64::from(d.z));
    (x * x + y * y + z * z).sqrt() as f32
}
