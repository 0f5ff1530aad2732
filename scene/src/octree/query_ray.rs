//! Ray queries: the nearest hit and every hit up to `max_t`.
//!
//! Owns [`Octree::ray_first`] and [`Octree::ray_all`]. Hits are decided by [`ray_obb`] on
//! each object's oriented box. Cell bounds and object AABBs are only used to prune, through
//! a slab test on the box grown by a margin that covers the rounding of `ray_obb` (which
//! works in the rotated frame): a box is never pruned while an object inside it could still
//! report a hit at or before the pruning limit.
//!
//! The margin follows the coordinates at stake: that of a cell's children and objects is
//! scaled by the larger of the origin's and the cell's own bound coordinates (which
//! contain theirs), so one far object, which grows the root, widens the margin of the
//! few cells on its way only, not of every cell of the tree.

use glam::Vec3;

use super::Octree;
use super::cell::{CellIdx, Entry, Link};
use super::narrow::ray_obb;
use super::object_box::ObjectBox;
use super::sweep::{Stack, bits_of};

/// Relative size of the pruning margin: 2^-14 of the coordinate scale, about 500 f32 ulps,
/// well above the few tens of ulps `ray_obb` and the AABB formula can be off by.
const MARGIN_REL: f32 = 1.0 / 16384.0;
/// Floor of the margin, so it is never exactly zero.
const MARGIN_ABS: f32 = 1e-30;

/// A ray prepared for repeated conservative slab tests.
struct RayTest {
    origin: Vec3,
    inv: Vec3,
    /// Axes along which the ray is treated as parallel (direction 0 or so small that its
    /// reciprocal overflows); the slab test then only checks the origin coordinate.
    parallel: [bool; 3],
    /// The largest coordinate of the origin, the floor of every margin's scale.
    origin_scale: f32,
    /// Octant bits of the axes the ray runs down (negative direction).
    flip: u32,
}

impl RayTest {
    fn new(origin: Vec3, dir: Vec3) -> Self {
        let inv = Vec3::ONE / dir;
        let parallel = [!inv.x.is_finite(), !inv.y.is_finite(), !inv.z.is_finite()];
        Self {
            origin,
            inv,
            parallel,
            origin_scale: origin.abs().max_element(),
            flip: u32::from(dir.x < 0.0)
                | u32::from(dir.y < 0.0) << 1
                | u32::from(dir.z < 0.0) << 2,
        }
    }

    /// The margin for boxes inside `[lo, hi]`.
    #[inline]
    fn margin_within(&self, lo: Vec3, hi: Vec3) -> f32 {
        let scale = lo.abs().max(hi.abs()).max_element().max(self.origin_scale);
        scale * MARGIN_REL + MARGIN_ABS
    }

    /// Whether the ray meets `[lo, hi]` (grown by the margin `m`) within `[0, limit]`, and a
    /// lower bound on where it enters. Evaluated without branches per box: which boxes
    /// pass is unpredictable, and the nearer face is found by comparing the two face
    /// distances rather than by the sign of the direction, which every new ray would
    /// mispredict half the time. Only the `parallel` flags, fixed per ray, branch.
    #[inline]
    fn slab(&self, lo: Vec3, hi: Vec3, limit: f32, m: f32) -> (bool, f32) {
        let mut t_near = 0.0f32;
        let mut t_far = limit;
        let mut inside = true;
        for i in 0..3 {
            let (a, b) = (lo[i] - m, hi[i] + m);
            if self.parallel[i] {
                inside &= (self.origin[i] >= a) & (self.origin[i] <= b);
            } else {
                let ta = (a - self.origin[i]) * self.inv[i];
                let tb = (b - self.origin[i]) * self.inv[i];
                let (lo_t, hi_t) = if ta < tb { (ta, tb) } else { (tb, ta) };
                t_near = if lo_t > t_near { lo_t } else { t_near };
                t_far = if hi_t < t_far { hi_t } else { t_far };
            }
        }
        (inside & (t_near <= t_far), t_near)
    }

    /// A lower bound on where the ray enters `[lo, hi]` (grown by the margin `m`)
    /// within `[0, limit]`, or `None` when that part of the ray misses it.
    #[inline]
    fn enter(&self, lo: Vec3, hi: Vec3, limit: f32, m: f32) -> Option<f32> {
        let (hit, t_near) = self.slab(lo, hi, limit, m);
        hit.then_some(t_near)
    }

    /// Bit `j` set when `entries[j]` (at most 64) passes `mask` and its box passes
    /// [`RayTest::slab`] at `limit` with margin `m`.
    #[inline]
    fn candidates(&self, entries: &[Entry], limit: f32, mask: u32, m: f32) -> u64 {
        debug_assert!(entries.len() <= 64);
        let mut bits = 0u64;
        for (j, e) in entries.iter().enumerate() {
            let hit = (e.mask & mask != 0) & self.slab(e.min, e.max, limit, m).0;
            bits |= u64::from(hit) << j;
        }
        bits
    }

    /// Calls `f` with the arena index of each of the entries `entries[range]` that are
    /// candidates at `limit` with margin `m` (see [`RayTest::candidates`]), 64 at a time;
    /// `f` returns the limit for the next chunk.
    #[inline]
    fn scan(
        &self,
        entries: &[Entry],
        range: std::ops::Range<usize>,
        (mut limit, m): (f32, f32),
        mask: u32,
        mut f: impl FnMut(usize) -> f32,
    ) {
        let start = range.start;
        for (c, chunk) in entries[range].chunks(64).enumerate() {
            // Candidates by the slab test at the limit the chunk was entered with (a
            // larger limit only admits more of them); the exact test then decides.
            for j in bits_of(self.candidates(chunk, limit, mask, m)) {
                limit = f(start + c * 64 + j as usize);
            }
        }
    }
}

/// The stack entry of child `k` of `block`: its link, its entry distance `t` and the
/// margin for its own children and objects, from its bounds.
#[inline]
fn child(ray: &RayTest, block: &super::cell::Block, k: u32, t: f32) -> (Link, f32, f32) {
    let b = block.get(k as usize);
    (block.link(k as usize), t, ray.margin_within(b.min, b.max))
}

/// The entry distance of a hit that counts, i.e. one with `t <= max_t`.
#[inline]
fn hit_within(origin: Vec3, dir: Vec3, obj: &ObjectBox, max_t: f32) -> Option<f32> {
    #[cfg(test)]
    EXACT_TESTS.set(EXACT_TESTS.get() + 1);
    ray_obb(origin, dir, obj).filter(|&t| t <= max_t)
}

#[cfg(test)]
thread_local! {
    /// Exact ray-box tests this thread ran: how well the pruning works (tests only).
    pub(super) static EXACT_TESTS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Whether `(t, id)` comes before `best` in the contract's order (by `t`, then id).
#[inline]
fn better(t: f32, id: u32, best: Option<(u32, f32)>) -> bool {
    match best {
        None => true,
        Some((bid, bt)) => t < bt || (t == bt && id < bid),
    }
}

impl Octree {
    /// The first object hit by the ray `origin + t * dir` (`dir` of unit length): the smallest
    /// `(t, id)` over objects passing `mask` whose oriented box the ray enters at
    /// `0 <= t <= max_t` (`t = 0` when the origin is inside). `max_t` may be infinite.
    pub fn ray_first(&self, origin: Vec3, dir: Vec3, max_t: f32, mask: u32) -> Option<(u32, f32)> {
        if max_t.is_nan() || max_t < 0.0 {
            return None;
        }
        let mut best: Option<(u32, f32)> = None;
        for (e, b) in self.outside.entries.iter().zip(&self.outside.boxes) {
            if e.mask & mask != 0
                && let Some(t) = hit_within(origin, dir, b, max_t)
                && better(t, e.id, best)
            {
                best = Some((e.id, t));
            }
        }
        let root = self.root_bounds;
        if root.mask & mask == 0 {
            return best;
        }
        let ray = RayTest::new(origin, dir);
        let m0 = ray.margin_within(root.min, root.max);
        let Some(t0) = ray.enter(root.min, root.max, best.map_or(max_t, |b| b.1), m0) else {
            return best;
        };
        let (entries, boxes) = (&self.arena.entries, &self.arena.boxes);
        // Deferred cells with their links, entry distances and margins. The inline stack
        // is short, since setting it up is paid by every ray (deep scenes spill to the
        // heap); the nearest child of a visited cell is visited next without a trip
        // through it.
        let mut stack: Stack<(Link, f32, f32), 16> = Stack::new();
        let mut next = Some((self.root_link, t0, m0));
        loop {
            let (link, t_cell, m) = match next.take() {
                Some(cell) => cell,
                None => match stack.pop() {
                    Some(cell) => cell,
                    None => break,
                },
            };
            let mut limit = best.map_or(max_t, |b| b.1);
            if t_cell > limit {
                continue;
            }
            ray.scan(entries, link.range(), (limit, m), mask, |i| {
                let id = entries[i].id;
                if let Some(t) = hit_within(origin, dir, &boxes[i], max_t)
                    && better(t, id, best)
                {
                    best = Some((id, t));
                    limit = t;
                }
                limit
            });
            let first = link.first_child;
            if first == CellIdx::NONE {
                continue;
            }
            let block = self.block(first);
            let (t_near, hits) = block.ray_entries(origin, ray.inv, ray.parallel, m, limit, mask);
            // Children roughly front to back without sorting: in octant order relabelled by
            // the ray's direction signs (`j ^ flip`), a child can only be in front of those
            // after it. The farthest are pushed first, so the nearer pop first; the nearest
            // hit is visited next directly.
            let mut nearest = None;
            for j in (0..8u32).rev() {
                let k = j ^ ray.flip;
                if hits & (1 << k) != 0 {
                    if let Some((c, t)) = nearest {
                        stack.push(child(&ray, block, c, t));
                    }
                    nearest = Some((k, t_near[k as usize]));
                }
            }
            if let Some((k, t)) = nearest {
                next = Some(child(&ray, block, k, t));
            }
        }
        best
    }

    /// Every hit of the ray with `0 <= t <= max_t` among objects passing `mask`, sorted by
    /// `t`, then id.
    pub fn ray_all(
        &self,
        origin: Vec3,
        dir: Vec3,
        max_t: f32,
        mask: u32,
        out: &mut Vec<(u32, f32)>,
    ) {
        out.clear();
        if max_t.is_nan() || max_t < 0.0 {
            return;
        }
        for (e, b) in self.outside.entries.iter().zip(&self.outside.boxes) {
            if e.mask & mask != 0
                && let Some(t) = hit_within(origin, dir, b, max_t)
            {
                out.push((e.id, t));
            }
        }
        let root = self.root_bounds;
        let ray = RayTest::new(origin, dir);
        let m0 = ray.margin_within(root.min, root.max);
        if root.mask & mask != 0 && ray.enter(root.min, root.max, max_t, m0).is_some() {
            let (entries, boxes) = (&self.arena.entries, &self.arena.boxes);
            let mut stack: Stack<(Link, f32, f32), 16> = Stack::new();
            stack.push((self.root_link, 0.0, m0));
            while let Some((link, _, m)) = stack.pop() {
                ray.scan(entries, link.range(), (max_t, m), mask, |i| {
                    if let Some(t) = hit_within(origin, dir, &boxes[i], max_t) {
                        out.push((entries[i].id, t));
                    }
                    max_t
                });
                let first = link.first_child;
                if first != CellIdx::NONE {
                    let block = self.block(first);
                    let (_, hits) =
                        block.ray_entries(origin, ray.inv, ray.parallel, m, max_t, mask);
                    for k in bits_of(u64::from(hits)) {
                        stack.push(child(&ray, block, k, 0.0));
                    }
                }
            }
        }
        // t is never -0.0 or NaN, so its bits order like its value.
        out.sort_unstable_by_key(|&(id, t)| (t.to_bits(), id));
    }
}
