//! Queries for interest scopes: the spherical shell a moving follow scope sweeps, and a
//! camera's frustum.
//!
//! Owns [`Octree::shell`], [`Octree::shells`], [`Octree::sphere_dist`] and [`Octree::frustum`]. Invariant relied on (as in
//! `query_region.rs`): a cell's bounds contain every object of its subtree, and each
//! test used to prune a cell is monotone in the box, so a cell that fails it holds no
//! answer. The objects themselves are tested with the same narrow-phase functions
//! (`point_aabb_dist`, `frustum_aabb`) a brute-force scan would call.

use glam::Vec3;

use super::Octree;
use super::cell::{CellIdx, Entry, Link};
use super::narrow::{frustum_aabb, point_aabb_dist};
use super::query_region::farthest_dist;
use super::sweep::Stack;

/// Inline capacity of the traversal stack; only unusually deep trees spill to the heap.
const STACK: usize = 16;

impl Octree {
    /// Ids (ascending) of the objects whose world AABB lies at a distance `d` from
    /// `center` with `inner < d <= outer` (`point_aabb_dist`), and whose mask shares a bit
    /// with `mask`. A negative `inner` makes it the sphere of radius `outer`.
    ///
    /// A cell is skipped when it is farther than `outer`, or when even its farthest
    /// corner is within `inner` (then every object in it is too: `farthest_dist` is
    /// never below `point_aabb_dist` of a box inside the cell). A thin shell therefore
    /// costs the cells it crosses and the objects in it, not the objects it encloses.
    pub fn shell(&self, center: Vec3, inner: f32, outer: f32, mask: u32, out: &mut Vec<u32>) {
        out.clear();
        let hit = |min: Vec3, max: Vec3| {
            let d = point_aabb_dist(center, min, max);
            inner < d && d <= outer
        };
        self.collect(
            mask,
            |min, max| {
                point_aabb_dist(center, min, max) <= outer
                    && farthest_dist(center, min, max) > inner
            },
            hit,
            out,
        );
    }

    /// [`Octree::shell`] for two shells around one centre in one traversal, the first's
    /// ids into `out.0` and the second's into `out.1`: a moving follow scope's entering
    /// shell `(r - step, r]` and leaving shell `(r + m, r + m + step]` cross mostly the
    /// same cells, so one descent serves both.
    pub fn shells(
        &self,
        center: Vec3,
        (a, b): ((f32, f32), (f32, f32)),
        mask: u32,
        out: (&mut Vec<u32>, &mut Vec<u32>),
    ) {
        let (out_a, out_b) = out;
        out_a.clear();
        out_b.clear();
        let visit = |entries: &[Entry]| {
            for e in entries {
                if e.mask & mask != 0 {
                    let d = point_aabb_dist(center, e.min, e.max);
                    if a.0 < d && d <= a.1 {
                        out_a.push(e.id);
                    }
                    if b.0 < d && d <= b.1 {
                        out_b.push(e.id);
                    }
                }
            }
        };
        let may_hold = |min: Vec3, max: Vec3| {
            let (near, far) = (
                point_aabb_dist(center, min, max),
                farthest_dist(center, min, max),
            );
            (near <= a.1 && far > a.0) || (near <= b.1 && far > b.0)
        };
        self.walk(mask, may_hold, visit);
        out_a.sort_unstable();
        out_b.sort_unstable();
    }

    /// The objects whose world AABB is within `radius` of `center`, with that distance
    /// (`point_aabb_dist`), sorted by id: [`Octree::sphere`] for a caller that needs each
    /// one's distance too, without looking each object up again.
    pub fn sphere_dist(&self, center: Vec3, radius: f32, mask: u32, out: &mut Vec<(u32, f32)>) {
        out.clear();
        let visit = |entries: &[Entry]| {
            for e in entries {
                if e.mask & mask != 0 {
                    let d = point_aabb_dist(center, e.min, e.max);
                    if d <= radius {
                        out.push((e.id, d));
                    }
                }
            }
        };
        self.walk(
            mask,
            |min, max| point_aabb_dist(center, min, max) <= radius,
            visit,
        );
        out.sort_unstable_by_key(|&(id, _)| id);
    }

    /// Ids (ascending) of the objects whose world AABB is not wholly outside any of the
    /// six `planes` (`[nx, ny, nz, d]`, inward normals: a point `p` is inside a plane when
    /// `n·p + d >= 0`), and whose mask shares a bit with `mask`.
    pub fn frustum(&self, planes: &[[f32; 4]; 6], mask: u32, out: &mut Vec<u32>) {
        out.clear();
        let hit = |min: Vec3, max: Vec3| frustum_aabb(planes, min, max);
        self.collect(mask, hit, hit, out);
    }

    /// The shared traversal: cells whose bounds pass `cell_may_hold` are entered, objects
    /// that pass `hit` (and the mask) are collected, then sorted.
    fn collect(
        &self,
        mask: u32,
        cell_may_hold: impl Fn(Vec3, Vec3) -> bool,
        hit: impl Fn(Vec3, Vec3) -> bool,
        out: &mut Vec<u32>,
    ) {
        self.walk(mask, cell_may_hold, |entries| {
            for e in entries {
                if e.mask & mask != 0 && hit(e.min, e.max) {
                    out.push(e.id);
                }
            }
        });
        out.sort_unstable();
    }

    /// The shared traversal: `visit` gets the outside list, then the entries of each
    /// cell whose bounds pass `cell_may_hold` (and the mask), the cells found from the
    /// root down.
    fn walk(
        &self,
        mask: u32,
        cell_may_hold: impl Fn(Vec3, Vec3) -> bool,
        mut visit: impl FnMut(&[Entry]),
    ) {
        visit(&self.outside.entries);
        let root = self.root_bounds;
        if root.mask & mask == 0 || !cell_may_hold(root.min, root.max) {
            return;
        }
        let mut stack: Stack<Link, STACK> = Stack::new();
        stack.push(self.root_link);
        while let Some(link) = stack.pop() {
            visit(&self.arena.entries[link.range()]);
            if link.first_child == CellIdx::NONE {
                continue;
            }
            let block = self.block(link.first_child);
            for k in 0..8 {
                let child = block.get(k);
                if child.mask & mask != 0 && cell_may_hold(child.min, child.max) {
                    stack.push(block.link(k));
                }
            }
        }
    }
}
