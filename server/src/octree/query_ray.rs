//! Ray queries: the nearest hit and every hit up to `max_t`.
//!
//! Owns [`Octree::ray_first`] and [`Octree::ray_all`]. Hits are decided by
//! [`ray_obb`] on each object's oriented box. Cells and object AABBs are only used to prune,
//! through a slab test on the box grown by a margin that covers the rounding of `ray_obb`
//! (which works in the rotated frame): a box is never pruned while an object inside it could
//! still report a hit at or before the pruning limit.

use glam::Vec3;

use super::Octree;
use super::cell::NONE;
use super::narrow::ray_obb;
use super::object_box::ObjectBox;

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
    /// `|origin|` in the max norm: part of the scale of rounding errors.
    origin_scale: f32,
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
        }
    }

    /// The margin for boxes inside a cell whose loose bounds have scale `cell_scale`.
    #[inline]
    fn margin(&self, cell_scale: f32) -> f32 {
        self.origin_scale.max(cell_scale) * MARGIN_REL + MARGIN_ABS
    }

    /// A lower bound on where the ray enters `[lo - m, hi + m]` within `[0, limit]`, or
    /// `None` when that part of the ray misses it.
    #[inline]
    fn enter(&self, lo: Vec3, hi: Vec3, m: f32, limit: f32) -> Option<f32> {
        let mut t_near = 0.0f32;
        let mut t_far = limit;
        for i in 0..3 {
            let (a, b) = (lo[i] - m, hi[i] + m);
            if self.parallel[i] {
                if self.origin[i] < a || self.origin[i] > b {
                    return None;
                }
            } else {
                let t1 = (a - self.origin[i]) * self.inv[i];
                let t2 = (b - self.origin[i]) * self.inv[i];
                let (lo_t, hi_t) = if t1 <= t2 { (t1, t2) } else { (t2, t1) };
                if lo_t > t_near {
                    t_near = lo_t;
                }
                if hi_t < t_far {
                    t_far = hi_t;
                }
            }
        }
        (t_near <= t_far).then_some(t_near)
    }
}

/// The entry distance of a hit that counts, i.e. one with `t <= max_t`.
#[inline]
fn hit_within(origin: Vec3, dir: Vec3, obj: &ObjectBox, max_t: f32) -> Option<f32> {
    ray_obb(origin, dir, obj).filter(|&t| t <= max_t)
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
        let ray = RayTest::new(origin, dir);
        let root = &self.cells[self.root as usize];
        if root.subtree_mask & mask == 0 {
            return best;
        }
        let limit0 = best.map_or(max_t, |b| b.1);
        let Some(t0) = ray.enter(
            root.loose_min,
            root.loose_max,
            ray.margin(root.scale),
            limit0,
        ) else {
            return best;
        };
        let mut stack: Vec<(u32, f32)> = Vec::with_capacity(64);
        stack.push((self.root, t0));
        while let Some((c, t_cell)) = stack.pop() {
            let mut limit = best.map_or(max_t, |b| b.1);
            if t_cell > limit {
                continue;
            }
            let cell = &self.cells[c as usize];
            let m = ray.margin(cell.scale);
            for (i, e) in cell.bucket.entries.iter().enumerate() {
                if e.mask & mask == 0 || ray.enter(e.min, e.max, m, limit).is_none() {
                    continue;
                }
                if let Some(t) = hit_within(origin, dir, &cell.bucket.boxes[i], max_t)
                    && better(t, e.id, best)
                {
                    best = Some((e.id, t));
                    limit = t;
                }
            }
            // Children front to back: push the farthest first so the nearest pops next.
            let mut kids = [(0.0f32, 0u32); 8];
            let mut n = 0;
            for &ch in &cell.children {
                if ch == NONE {
                    continue;
                }
                let child = &self.cells[ch as usize];
                if child.subtree_mask & mask == 0 {
                    continue;
                }
                if let Some(t) = ray.enter(
                    child.loose_min,
                    child.loose_max,
                    ray.margin(child.scale),
                    limit,
                ) {
                    kids[n] = (t, ch);
                    n += 1;
                }
            }
            let kids = &mut kids[..n];
            kids.sort_unstable_by(|a, b| b.0.total_cmp(&a.0));
            stack.extend(kids.iter().map(|&(t, ch)| (ch, t)));
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
        let ray = RayTest::new(origin, dir);
        let mut stack: Vec<u32> = Vec::with_capacity(64);
        stack.push(self.root);
        while let Some(c) = stack.pop() {
            let cell = &self.cells[c as usize];
            let m = ray.margin(cell.scale);
            if cell.subtree_mask & mask == 0
                || ray
                    .enter(cell.loose_min, cell.loose_max, m, max_t)
                    .is_none()
            {
                continue;
            }
            for (i, e) in cell.bucket.entries.iter().enumerate() {
                if e.mask & mask == 0 || ray.enter(e.min, e.max, m, max_t).is_none() {
                    continue;
                }
                if let Some(t) = hit_within(origin, dir, &cell.bucket.boxes[i], max_t) {
                    out.push((e.id, t));
                }
            }
            stack.extend(cell.children.iter().copied().filter(|&ch| ch != NONE));
        }
        // t is never -0.0 or NaN, so its bits order like its value.
        out.sort_unstable_by_key(|&(id, t)| (t.to_bits(), id));
    }
}
