//! Tests of a query against all eight children of a cell at once.
//!
//! Owns the per-block loops that queries use to decide which children to visit. Each loop
//! runs over the eight lanes of a [`Block`]'s arrays without early exits or short-circuits,
//! so the compiler can vectorize it; each lane computes exactly what the scalar test would
//! (same comparisons, same rounding), so pruning stays conservative. Results are bit sets:
//! bit `k` for child `k`. Vacant children (mask 0) never pass.

use glam::{UVec4, Vec3, Vec4};

use super::cell::Block;

impl Block {
    /// Children whose bounds meet the closed box `[qmin, qmax]` and whose mask meets `mask`:
    /// the lane-wise form of `aabb_intersects`, in two four-lane halves.
    #[inline]
    pub(super) fn overlapping(&self, qmin: Vec3, qmax: Vec3, mask: u32) -> u32 {
        let mut bits = self.masked(mask);
        for axis in 0..3 {
            let (lo, hi) = (Vec4::splat(qmin[axis]), Vec4::splat(qmax[axis]));
            let (mins, maxs) = (&self.min[axis], &self.max[axis]);
            bits &= (lanes(mins, 0).cmple(hi) & lo.cmple(lanes(maxs, 0))).bitmask()
                | (lanes(mins, 1).cmple(hi) & lo.cmple(lanes(maxs, 1))).bitmask() << 4;
        }
        bits
    }

    /// Children whose bounds lie inside the closed box `[qmin, qmax]`.
    #[inline]
    pub(super) fn inside(&self, qmin: Vec3, qmax: Vec3) -> u32 {
        let mut bits = 0xff;
        for axis in 0..3 {
            let (lo, hi) = (Vec4::splat(qmin[axis]), Vec4::splat(qmax[axis]));
            let (mins, maxs) = (&self.min[axis], &self.max[axis]);
            bits &= (lo.cmple(lanes(mins, 0)) & lanes(maxs, 0).cmple(hi)).bitmask()
                | (lo.cmple(lanes(mins, 1)) & lanes(maxs, 1).cmple(hi)).bitmask() << 4;
        }
        bits
    }

    /// Children whose mask shares a bit with `mask`.
    #[inline]
    fn masked(&self, mask: u32) -> u32 {
        let half = |h: usize| {
            (UVec4::from_slice(&self.mask[h * 4..h * 4 + 4]) & UVec4::splat(mask))
                .cmpne(UVec4::ZERO)
                .bitmask()
        };
        half(0) | half(1) << 4
    }

    /// Children whose bounds, grown by `margin`, the ray `origin + t * dir` meets at some
    /// `t` in `[0, limit]`, with a lower bound on that `t` per child. `inv` is `1 / dir`;
    /// axes flagged in `parallel` are tested by the origin coordinate alone.
    #[inline(always)]
    pub(super) fn ray_entries(
        &self,
        origin: Vec3,
        inv: Vec3,
        parallel: [bool; 3],
        margin: f32,
        limit: f32,
        mask: u32,
    ) -> ([f32; 8], u32) {
        // Two four-lane halves in SIMD registers. Every lane computes what the scalar slab
        // test would: max and min of non-NaN values are exact, and no NaN arises (the
        // reciprocal is finite on non-parallel axes and the bounds are finite or, for
        // vacant lanes, infinite with a zero mask that fails them anyway).
        let mut t_near = [Vec4::ZERO; 2];
        let mut t_far = [Vec4::splat(limit); 2];
        for axis in 0..3 {
            let o = origin[axis];
            let (mins, maxs) = (&self.min[axis], &self.max[axis]);
            if parallel[axis] {
                let o = Vec4::splat(o);
                for (h, far) in t_far.iter_mut().enumerate() {
                    let inside = (lanes(mins, h) - Vec4::splat(margin)).cmple(o)
                        & o.cmple(lanes(maxs, h) + Vec4::splat(margin));
                    *far = Vec4::select(inside, *far, Vec4::NEG_INFINITY);
                }
            } else {
                let i = inv[axis];
                // Occupied lanes have min <= max, so the sign of `i` says which face is
                // entered first, exactly as the min and max of the two products would.
                // The margin is folded into the origin once per axis (a rounding or two
                // away from adding it to each face, far inside the margin itself).
                let (lo_o, hi_o) = (o + margin, o - margin);
                let (near, near_o, far, far_o) = if i >= 0.0 {
                    (mins, lo_o, maxs, hi_o)
                } else {
                    (maxs, hi_o, mins, lo_o)
                };
                let iv = Vec4::splat(i);
                for h in 0..2 {
                    let lo = (lanes(near, h) - Vec4::splat(near_o)) * iv;
                    let hi = (lanes(far, h) - Vec4::splat(far_o)) * iv;
                    t_near[h] = t_near[h].max(lo);
                    t_far[h] = t_far[h].min(hi);
                }
            }
        }
        let bits = (t_near[0].cmple(t_far[0]).bitmask() | t_near[1].cmple(t_far[1]).bitmask() << 4)
            & self.masked(mask);
        let mut out = [0.0f32; 8];
        t_near[0].write_to_slice(&mut out[..4]);
        t_near[1].write_to_slice(&mut out[4..]);
        (out, bits)
    }
}

/// Lanes `4h .. 4h + 4` of a block array as one SIMD vector.
#[inline(always)]
fn lanes(a: &[f32; 8], h: usize) -> Vec4 {
    Vec4::from_slice(&a[h * 4..h * 4 + 4])
}

/// A traversal stack that lives on the call stack up to `N` items and spills to the heap
/// beyond, so ordinary queries allocate nothing for their traversal.
pub(crate) struct Stack<T: Copy + Default, const N: usize> {
    inline: [T; N],
    len: usize,
    spill: Vec<T>,
}

impl<T: Copy + Default, const N: usize> Stack<T, N> {
    #[inline]
    pub(super) fn new() -> Self {
        Self {
            inline: [T::default(); N],
            len: 0,
            spill: Vec::new(),
        }
    }

    #[inline]
    pub(super) fn push(&mut self, item: T) {
        if self.len < N {
            self.inline[self.len] = item;
            self.len += 1;
        } else {
            self.spill.push(item);
        }
    }

    #[inline]
    pub(super) fn pop(&mut self) -> Option<T> {
        if let Some(item) = self.spill.pop() {
            return Some(item);
        }
        self.len = self.len.checked_sub(1)?;
        Some(self.inline[self.len])
    }
}

/// Iterates over the set bits of `bits`, lowest first.
#[inline]
pub(crate) fn bits_of(mut bits: u64) -> impl Iterator<Item = u32> {
    std::iter::from_fn(move || {
        (bits != 0).then(|| {
            let k = bits.trailing_zeros();
            bits &= bits - 1;
            k
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::octree::cell::Bounds;

    #[test]
    fn lanes_match_scalar_tests() {
        let mut b = Block::VACANT;
        b.set(
            2,
            Bounds {
                min: Vec3::ZERO,
                max: Vec3::ONE,
                mask: 1,
            },
        );
        b.set(
            5,
            Bounds {
                min: Vec3::splat(3.0),
                max: Vec3::splat(4.0),
                mask: 2,
            },
        );
        assert_eq!(
            b.overlapping(Vec3::splat(0.5), Vec3::splat(3.0), u32::MAX),
            0b100100
        );
        assert_eq!(
            b.overlapping(Vec3::splat(0.5), Vec3::splat(3.0), 2),
            0b100000
        );
        assert_eq!(
            b.inside(Vec3::splat(-1.0), Vec3::splat(2.0)) & 0b100100,
            0b100
        );
        let (t, bits) = b.ray_entries(
            Vec3::new(-1.0, 0.5, 0.5),
            Vec3::new(1.0, f32::INFINITY, f32::INFINITY),
            [false, true, true],
            0.0,
            f32::INFINITY,
            u32::MAX,
        );
        assert_eq!(bits, 0b100);
        assert_eq!(t[2], 1.0);
        assert_eq!(bits_of(0b101001).collect::<Vec<_>>(), vec![0, 3, 5]);
    }

    #[test]
    fn stack_spills_and_pops_in_lifo_order() {
        let mut s: Stack<u32, 2> = Stack::new();
        for i in 0..5 {
            s.push(i);
        }
        let popped: Vec<u32> = std::iter::from_fn(|| s.pop()).collect();
        assert_eq!(popped, vec![4, 3, 2, 1, 0]);
    }
}
