//! The arithmetic of a world transform (docs/protocol.md §1), in two layouts: across
//! nodes ([`compose`], for a "lane" type: [`Vec4`] holds four nodes side by side, lane `k`
//! being node `k`; the tests also run it on `f32`, one node), and within one node
//! ([`compose1`]: a rotation in one vector, translation and scale in another).
//!
//! The full sweep spends most of its time here. Four nodes per vector instead of one
//! node's components per vector means no shuffles inside the arithmetic (a dot product or
//! a cross product is plain lane-wise multiplies and adds), and one square root and four
//! divisions serve four nodes instead of one: on x86_64 the divider was half of the
//! one-node sweep's time. The price is a 4x4 transpose of each input and of the result
//! (`gather4`, `scatter4`), eight shuffles each. A node computed alone (the dirty update's
//! walks) uses [`compose1`], whose vectors hold one node's components: as scalars (the
//! `f32` lanes) the same node costs a quarter more.
//!
//! Invariant: every form performs the same IEEE 754 operations, in the same order, on the
//! same operands, so a node gets the same world transform bit for bit whichever way it is
//! computed: alone (the dirty update, the self-check) or four at a time (the full sweep).
//! Rust never reassociates floating-point arithmetic nor contracts it into fused
//! multiply-adds, so the order written here is the order executed. (A NaN's sign and
//! payload are the one thing Rust leaves unspecified; world transforms are never NaN.)
//! The order is the one glam 0.30's SSE2 `Quat` code uses (`mul_quat`, `normalize`,
//! `mul_vec3a`), which computed world transforms before this module: on x86_64 the
//! results are unchanged.

use std::ops::{Add, Div, Mul, Neg, Sub};

use canopy_protocol::Transform;
use glam::{Mat4, Quat, Vec3, Vec4, Vec4Swizzles};

/// What the arithmetic needs of a lane type: correctly rounded IEEE operations, lane-wise.
pub(crate) trait Lane:
    Copy
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    /// 2 in every lane.
    const TWO: Self;
    /// The correctly rounded square root of every lane.
    fn sqrt(self) -> Self;
}

impl Lane for Vec4 {
    const TWO: Vec4 = Vec4::splat(2.0);

    #[inline(always)]
    fn sqrt(self) -> Vec4 {
        // glam has no lane-wise square root; the compiler makes this one `sqrtps`.
        Vec4::from_array(self.to_array().map(f32::sqrt))
    }
}

/// A transform as eight lanes: rotation `x, y, z, w`, translation `x, y, z`, scale.
pub(crate) type Lanes<L> = [L; 8];

/// `world = parent ∘ local`, docs/protocol.md §1: `s = ps * ls`,
/// `r = normalize(pr * lr)` (Hamilton product, then divided by its length),
/// `t = pt + rotate(pr, ps * lt)`.
#[inline(always)]
pub(crate) fn compose<L: Lane>(parent: &Lanes<L>, local: &Lanes<L>) -> Lanes<L> {
    let [px, py, pz, pw, ptx, pty, ptz, ps] = *parent;
    let [lx, ly, lz, lw, ltx, lty, ltz, ls] = *local;
    // The Hamilton product: per component, two products added, two more added, then the
    // two sums (glam's `mul_quat`, with its multiplications by -1 written as negations).
    let qx = (pw * lx + px * lw) + (py * lz + -(pz * ly));
    let qy = (pw * ly + -(px * lz)) + (py * lw + pz * lx);
    let qz = (pw * lz + px * ly) + (-(py * lx) + pz * lw);
    let qw = (pw * lw + -(px * lx)) + (-(py * ly) + -(pz * lz));
    // Normalized: divided by the square root of (x² + z²) + (y² + w²).
    let len = ((qx * qx + qz * qz) + (qy * qy + qw * qw)).sqrt();
    // The local translation scaled, rotated by the parent's rotation `b` (vector part)
    // and `w`: `v (w² - b·b) + b (2 v·b) + (b × v)(2 w)` (glam's `mul_vec3a`).
    let (vx, vy, vz) = (ltx * ps, lty * ps, ltz * ps);
    let k1 = pw * pw - ((px * px + py * py) + pz * pz);
    let k2 = ((vx * px + vy * py) + vz * pz) * L::TWO;
    let k3 = pw * L::TWO;
    let cx = py * vz - vy * pz;
    let cy = pz * vx - vz * px;
    let cz = px * vy - vx * py;
    [
        qx / len,
        qy / len,
        qz / len,
        qw / len,
        ptx + ((vx * k1 + px * k2) + cx * k3),
        pty + ((vy * k1 + py * k2) + cy * k3),
        ptz + ((vz * k1 + pz * k2) + cz * k3),
        ls * ps,
    ]
}

/// [`compose`] for one node, with the node's components across each vector: the same
/// operations on the same operands in the same order (each line names the lanes'
/// expression it computes), arranged like glam's `mul_quat` and `mul_vec3a`.
#[inline(always)]
pub(crate) fn compose1(parent: &Trs, local: &Trs) -> Trs {
    let (p, l) = (Vec4::from(parent.r), Vec4::from(local.r));
    // The Hamilton product: (a + b) + (c + d) per component, with
    // a = pw (lx, ly, lz, lw), b = px (lw, -lz, ly, -lx), c = py (lz, lw, -lx, -ly),
    // d = pz (-ly, lx, lw, -lz). Multiplying by -1 is the lanes' negation (exact).
    let a = Vec4::splat(p.w) * l;
    let b = Vec4::splat(p.x) * l.wzyx() * Vec4::new(1.0, -1.0, 1.0, -1.0);
    let c = Vec4::splat(p.y) * l.zwxy() * Vec4::new(1.0, 1.0, -1.0, -1.0);
    let d = Vec4::splat(p.z) * l.yxwz() * Vec4::new(-1.0, 1.0, 1.0, -1.0);
    let q = (a + b) + (c + d);
    // (x² + z²) + (y² + w²).
    let m = q * q;
    let len = ((m.x + m.z) + (m.y + m.w)).sqrt();
    // (ltx ps, lty ps, ltz ps, ls ps).
    let v = local.ts() * parent.s();
    let pp = p * p;
    let k1 = p.w * p.w - ((pp.x + pp.y) + pp.z);
    let vp = v * p;
    let k2 = ((vp.x + vp.y) + vp.z) * 2.0;
    let k3 = p.w * 2.0;
    // (cx, cy, cz): glam's cross, `(p.zxy * v - v.zxy * p).zxy`.
    let cross = (p.zxyw() * v - v.zxyw() * p).zxyw();
    let rotated = (v * k1 + p * k2) + cross * k3;
    let t = parent.ts() + rotated;
    Trs::from_parts(q / len, t.truncate().extend(v.w))
}

/// Four transforms side by side: lane `k` of every component is `trs[k]`'s (two 4x4
/// transposes).
#[inline(always)]
pub(crate) fn gather4(trs: [&Trs; 4]) -> Lanes<Vec4> {
    let [a, b, c, d] = trs;
    let r = Mat4::from_cols(a.r.into(), b.r.into(), c.r.into(), d.r.into()).transpose();
    let ts = Mat4::from_cols(a.ts(), b.ts(), c.ts(), d.ts()).transpose();
    [
        r.x_axis, r.y_axis, r.z_axis, r.w_axis, ts.x_axis, ts.y_axis, ts.z_axis, ts.w_axis,
    ]
}

/// One transform in all four lanes: [`gather4`] of four siblings, in half the shuffles.
#[inline(always)]
pub(crate) fn splat4(trs: &Trs) -> Lanes<Vec4> {
    let (r, ts) = (Vec4::from(trs.r), trs.ts());
    [
        Vec4::splat(r.x),
        Vec4::splat(r.y),
        Vec4::splat(r.z),
        Vec4::splat(r.w),
        Vec4::splat(ts.x),
        Vec4::splat(ts.y),
        Vec4::splat(ts.z),
        Vec4::splat(ts.w),
    ]
}

/// The four transforms of [`gather4`]'s form, one per node again.
#[inline(always)]
pub(crate) fn scatter4(l: Lanes<Vec4>) -> [Trs; 4] {
    let r = Mat4::from_cols(l[0], l[1], l[2], l[3]).transpose();
    let ts = Mat4::from_cols(l[4], l[5], l[6], l[7]).transpose();
    [
        Trs::from_parts(r.x_axis, ts.x_axis),
        Trs::from_parts(r.y_axis, ts.y_axis),
        Trs::from_parts(r.z_axis, ts.z_axis),
        Trs::from_parts(r.w_axis, ts.w_axis),
    ]
}

#[cfg(test)]
mod tests {
    use glam::{Quat, Vec3, Vec3A};

    use super::*;

    /// One node as scalar lanes: the across-nodes form of the arithmetic on one node.
    impl Lane for f32 {
        const TWO: f32 = 2.0;

        fn sqrt(self) -> f32 {
            f32::sqrt(self)
        }
    }

    /// One transform as scalar lanes.
    fn lanes1(trs: &Trs) -> Lanes<f32> {
        let [x, y, z, w] = trs.r.to_array();
        let [tx, ty, tz, s] = trs.ts().to_array();
        [x, y, z, w, tx, ty, tz, s]
    }

    /// Back from scalar lanes.
    fn unlanes1(l: Lanes<f32>) -> Trs {
        let [x, y, z, w, tx, ty, tz, s] = l;
        Trs::from_parts(Vec4::new(x, y, z, w), Vec4::new(tx, ty, tz, s))
    }

    /// The arithmetic this module replaced (glam's SIMD `Quat` operations), kept here
    /// as the reference for "unchanged on x86_64".
    fn glam_compose(parent: &Trs, local: &Trs) -> Trs {
        let scaled = local.ts() * parent.s();
        let t = Vec3A::from_vec4(parent.ts()) + parent.r * Vec3A::from_vec4(scaled);
        Trs::from_parts(
            Vec4::from((parent.r * local.r).normalize()),
            t.extend(scaled.w),
        )
    }

    /// A small deterministic generator (xorshift), so that the test needs no crate.
    struct Gen(u64);

    impl Gen {
        fn next(&mut self) -> u32 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 >> 32) as u32
        }

        /// Mostly ordinary values, sometimes an edge: signed zeros, tiny, subnormal and
        /// huge magnitudes.
        fn f(&mut self) -> f32 {
            const EDGES: [f32; 8] = [0.0, -0.0, 1.0, -1.0, 1e-30, 1e30, 1e-40, -3.5e-39];
            match self.next() % 16 {
                0 => EDGES[self.next() as usize % EDGES.len()],
                1 => f32::from_bits(self.next() & 0xbfff_ffff),
                _ => (self.next() as f32 / u32::MAX as f32 - 0.5) * 20.0,
            }
        }

        fn trs(&mut self) -> Trs {
            let v = Vec4::new(self.f(), self.f(), self.f(), self.f());
            let v = if self.next().is_multiple_of(4) {
                v
            } else {
                v.try_normalize().unwrap_or(Vec4::W)
            };
            let r = Quat::from_vec4(v);
            Trs::new(Vec3::new(self.f(), self.f(), self.f()), r, self.f().abs())
        }
    }

    fn bits(t: &Trs) -> [u32; 8] {
        lanes1(t).map(f32::to_bits)
    }

    /// The same with every NaN as one value: Rust leaves a NaN's sign and payload
    /// unspecified (the compiler may turn a multiplication by -1 into a negation), and
    /// world transforms are never NaN (`guard.rs` keeps them in range).
    fn bits_any_nan(t: &Trs) -> [u32; 8] {
        lanes1(t).map(|v| if v.is_nan() { u32::MAX } else { v.to_bits() })
    }

    /// One node at a time and four at a time agree bit for bit, on ordinary and on
    /// hostile values; on x86_64 both also agree with the glam code they replaced.
    #[test]
    fn one_and_four_lanes_agree_bit_for_bit() {
        let mut g = Gen(0x9e37_79b9_7f4a_7c15);
        for _ in 0..20_000 {
            let parents: [Trs; 4] = std::array::from_fn(|_| g.trs());
            let locals: [Trs; 4] = std::array::from_fn(|_| g.trs());
            let four = scatter4(compose(
                &gather4(parents.each_ref()),
                &gather4(locals.each_ref()),
            ));
            for k in 0..4 {
                let one = unlanes1(compose(&lanes1(&parents[k]), &lanes1(&locals[k])));
                assert_eq!(
                    bits(&one),
                    bits(&four[k]),
                    "{:?} {:?}",
                    parents[k],
                    locals[k]
                );
                if cfg!(target_arch = "x86_64") {
                    let old = glam_compose(&parents[k], &locals[k]);
                    assert_eq!(
                        bits_any_nan(&one),
                        bits_any_nan(&old),
                        "{:?} {:?}",
                        parents[k],
                        locals[k]
                    );
                }
            }
        }
    }

    #[test]
    fn gather_and_scatter_are_inverse() {
        let mut g = Gen(7);
        let trs: [Trs; 4] = std::array::from_fn(|_| g.trs());
        let back = scatter4(gather4(trs.each_ref()));
        for k in 0..4 {
            assert_eq!(bits(&back[k]), bits(&trs[k]));
        }
        let splat = splat4(&trs[0]).map(|v| v.to_array().map(f32::to_bits));
        let gathered = gather4([&trs[0]; 4]).map(|v| v.to_array().map(f32::to_bits));
        assert_eq!(splat, gathered);
    }
}

/// Translation, rotation and uniform scale in one 32-byte record: the rotation, then the
/// translation and the scale together in one `Vec4` (`x, y, z` = t, `w` = s), so that the
/// update loads each half with one aligned SIMD load and computes on whole lanes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Trs {
    pub r: Quat,
    ts: Vec4,
}

impl Trs {
    pub(crate) fn new(t: Vec3, r: Quat, s: f32) -> Trs {
        Trs { r, ts: t.extend(s) }
    }

    #[inline(always)]
    pub(crate) fn t(&self) -> Vec3 {
        self.ts.truncate()
    }

    #[inline(always)]
    pub(crate) fn s(&self) -> f32 {
        self.ts.w
    }

    pub(crate) fn set_t(&mut self, t: Vec3) {
        self.ts = t.extend(self.ts.w);
    }

    pub(crate) fn set_s(&mut self, s: f32) {
        self.ts.w = s;
    }

    /// The world transform of a child from its parent's world transform and its own local
    /// transform, exactly as docs/protocol.md §1 defines it:
    /// `s = ps * ls`, `r = normalize(pr * lr)`, `t = pt + rotate(pr, ps * lt)`.
    /// The arithmetic is `lanes.rs`'s: the same bits as the four-at-a-time sweep's.
    #[inline(always)]
    pub(crate) fn compose(parent: &Trs, local: &Trs) -> Trs {
        compose1(parent, local)
    }

    /// From the rotation and the `(t, s)` vector.
    #[inline(always)]
    pub(crate) fn from_parts(r: Vec4, ts: Vec4) -> Trs {
        Trs {
            r: Quat::from_vec4(r),
            ts,
        }
    }

    /// Translation and scale in one vector: `x, y, z` = t, `w` = s.
    #[inline(always)]
    pub(crate) fn ts(&self) -> Vec4 {
        self.ts
    }

    /// Bitwise equality: what "the world transform changed" means for the change lists,
    /// so that `-0.0` and `0.0` count as different and nothing is lost to a tolerance,
    /// and an unchanged NaN payload counts as unchanged.
    #[inline(always)]
    pub(crate) fn same_bits(&self, other: &Trs) -> bool {
        let (a, b) = (Vec4::from(self.r), Vec4::from(other.r));
        // The fast test stays in vector registers (compare and sign masks): equal as
        // numbers with equal signs is equal bits, since every number but zero has one
        // encoding. It fails only for a real change or a NaN, which the exact integer
        // test below then settles. (The integer test alone compiles to moves out to
        // general registers, a third of the four-at-a-time sweep.)
        let quick = |a: Vec4, b: Vec4| {
            a.cmpeq(b).all() && a.is_negative_bitmask() == b.is_negative_bitmask()
        };
        if quick(a, b) && quick(self.ts, other.ts) {
            return true;
        }
        let bits = |v: Vec4| v.to_array().map(f32::to_bits);
        bits(a) == bits(b) && bits(self.ts) == bits(other.ts)
    }

    pub(crate) fn to_wire(self) -> Transform {
        Transform {
            t: self.t().to_array(),
            r: self.r.to_array(),
            s: self.s(),
        }
    }
}
