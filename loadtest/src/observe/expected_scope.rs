//! Which nodes a region subscriber should hold, as the harness expects it: the
//! contract's scope rule computed independently of the server, from the node's world
//! transform and extent (the server's own scope is not consulted).
//!
//! A node is in scope when it passes the mask and its world AABB (centre `world.t`,
//! half-size `world.s * abs(R) * extent`) intersects the closed region box. The
//! harness computes the box in `f64` from the wire values; the server computes it in
//! `f32`. A node whose box is within a small tolerance of touching the region's faces
//! is therefore [`Membership::Borderline`], and the final check accepts it either way
//! (but still checks its values when the subscriber holds it). Invariant: `In` and
//! `Out` are only given when rounding cannot change the answer.

use canopy_protocol::Node;
use canopy_protocol::message::Region;

/// Whether a node is in a region scope.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Membership {
    In,
    Out,
    /// Too close to the region's boundary to tell from `f32` rounding.
    Borderline,
}

/// The rotation matrix of a unit quaternion `[x, y, z, w]`, row major.
fn rotation(q: [f32; 4]) -> [[f64; 3]; 3] {
    let [x, y, z, w] = q.map(f64::from);
    // Normalise, as the server stores unit quaternions but the wire rounds them.
    let n = (x * x + y * y + z * z + w * w).sqrt().max(1e-12);
    let (x, y, z, w) = (x / n, y / n, z / n, w / n);
    [
        [
            1.0 - 2.0 * (y * y + z * z),
            2.0 * (x * y - w * z),
            2.0 * (x * z + w * y),
        ],
        [
            2.0 * (x * y + w * z),
            1.0 - 2.0 * (x * x + z * z),
            2.0 * (y * z - w * x),
        ],
        [
            2.0 * (x * z - w * y),
            2.0 * (y * z + w * x),
            1.0 - 2.0 * (x * x + y * y),
        ],
    ]
}

/// The node's world AABB `(min, max)`.
pub(crate) fn world_aabb(node: &Node) -> ([f64; 3], [f64; 3]) {
    let r = rotation(node.world.r);
    let s = f64::from(node.world.s);
    let mut min = [0.0; 3];
    let mut max = [0.0; 3];
    for i in 0..3 {
        let half: f64 = (0..3)
            .map(|j| r[i][j].abs() * f64::from(node.extent[j]))
            .sum::<f64>()
            * s;
        let c = f64::from(node.world.t[i]);
        min[i] = c - half;
        max[i] = c + half;
    }
    (min, max)
}

/// Whether `node` is in the scope of `region` with `mask`.
pub(crate) fn classify(node: &Node, region: &Region, mask: u32) -> Membership {
    if node.mask & mask == 0 {
        return Membership::Out;
    }
    let (min, max) = world_aabb(node);
    let mut borderline = false;
    for a in 0..3 {
        let (rmin, rmax) = (f64::from(region.min[a]), f64::from(region.max[a]));
        // Relative f32 rounding of the operands, with headroom for a few operations.
        let tol = 1e-5
            * (1.0
                + rmin
                    .abs()
                    .max(rmax.abs())
                    .max(min[a].abs())
                    .max(max[a].abs()));
        // Separated on this axis: the node's box ends before the region starts, or
        // starts after it ends.
        let gap = (rmin - max[a]).max(min[a] - rmax);
        if gap > tol {
            return Membership::Out;
        }
        if gap >= -tol {
            borderline = true;
        }
    }
    if borderline {
        Membership::Borderline
    } else {
        Membership::In
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use canopy_protocol::Transform;

    fn node(t: [f32; 3], r: [f32; 4], s: f32, extent: [f32; 3], mask: u32) -> Node {
        Node {
            id: 1,
            parent: None,
            world: Transform { t, r, s },
            extent,
            mask,
        }
    }

    const ID: [f32; 4] = [0.0, 0.0, 0.0, 1.0];

    fn region(min: [f32; 3], max: [f32; 3]) -> Region {
        Region { min, max }
    }

    #[test]
    fn aabb_follows_the_contract_formula() {
        let n = node([1.0, 2.0, 3.0], ID, 2.0, [0.5, 1.0, 0.0], u32::MAX);
        assert_eq!(world_aabb(&n), ([0.0, 0.0, 3.0], [2.0, 4.0, 3.0]));
        // 45 degrees about z turns a unit cube's x/y half-size into sqrt(2).
        let h = std::f32::consts::FRAC_PI_8;
        let turned = node(
            [0.0; 3],
            [0.0, 0.0, h.sin(), h.cos()],
            1.0,
            [1.0; 3],
            u32::MAX,
        );
        let (min, max) = world_aabb(&turned);
        assert!((max[0] - 2f64.sqrt()).abs() < 1e-6 && (max[1] - 2f64.sqrt()).abs() < 1e-6);
        assert!((max[2] - 1.0).abs() < 1e-6 && (min[0] + 2f64.sqrt()).abs() < 1e-6);
    }

    #[test]
    fn in_out_and_borderline() {
        let r = region([0.0; 3], [10.0; 3]);
        let inside = node([5.0; 3], ID, 1.0, [1.0; 3], u32::MAX);
        assert_eq!(classify(&inside, &r, u32::MAX), Membership::In);
        assert_eq!(classify(&inside, &r, 0), Membership::Out);
        let masked = node([5.0; 3], ID, 1.0, [1.0; 3], 0b10);
        assert_eq!(classify(&masked, &r, 0b01), Membership::Out);
        let far = node([20.0, 5.0, 5.0], ID, 1.0, [1.0; 3], u32::MAX);
        assert_eq!(classify(&far, &r, u32::MAX), Membership::Out);
        // Overlapping by a sliver of the box is still in.
        let edge = node([10.5, 5.0, 5.0], ID, 1.0, [1.0; 3], u32::MAX);
        assert_eq!(classify(&edge, &r, u32::MAX), Membership::In);
        // Touching the closed region exactly is in by the contract, but too close to
        // call from rounded values.
        let touching = node([11.0, 5.0, 5.0], ID, 1.0, [1.0; 3], u32::MAX);
        assert_eq!(classify(&touching, &r, u32::MAX), Membership::Borderline);
        // A rotation widens the box into the region.
        let h = std::f32::consts::FRAC_PI_8;
        let turned = node(
            [11.3, 5.0, 5.0],
            [0.0, 0.0, h.sin(), h.cos()],
            1.0,
            [1.0; 3],
            u32::MAX,
        );
        assert_eq!(classify(&turned, &r, u32::MAX), Membership::In);
    }
}
