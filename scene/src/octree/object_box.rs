//! An indexed object's world box.
//!
//! Owns [`ObjectBox`]: the oriented box (OBB) the ray test uses and, derived from it by one
//! fixed formula, the axis-aligned box (AABB) that every other query and the tree itself use.
//! The invariant: [`ObjectBox::aabb`] is a pure function of the stored fields, so the tree,
//! the server and brute-force tests that call it get bit-identical boxes.

use glam::{Mat3, Quat, Vec3};

/// An object's world box: the OBB (centre = `world.t`, rotation = `world.r`,
/// half-extents = `world.s * extent`) and its layer mask.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ObjectBox {
    /// Centre of the box, the node's world translation.
    pub center: Vec3,
    /// Orientation of the box, the node's (unit) world rotation.
    pub rot: Quat,
    /// Half-extents along the box's own axes (`world.s * extent`, each >= 0).
    pub half: Vec3,
    /// Layer bits; a query with mask `m` sees the object when `mask & m != 0`.
    pub mask: u32,
}

impl ObjectBox {
    /// Builds the world box of a node from its world transform and local half-extents.
    pub fn from_world(t: Vec3, r: Quat, s: f32, extent: Vec3, mask: u32) -> Self {
        Self {
            center: t,
            rot: r,
            half: extent * s,
            mask,
        }
    }

    /// The world AABB `(min, max)`: `center ± abs(R) * half`, which is docs/protocol.md's
    /// `world.s * abs(R) * extent` with the scale already folded into `half`.
    #[inline]
    pub fn aabb(&self) -> (Vec3, Vec3) {
        let h = self.aabb_half();
        (self.center - h, self.center + h)
    }

    /// Half-size of the world AABB, `abs(R) * half`.
    #[inline]
    pub fn aabb_half(&self) -> Vec3 {
        let m = Mat3::from_quat(self.rot);
        m.x_axis.abs() * self.half.x + m.y_axis.abs() * self.half.y + m.z_axis.abs() * self.half.z
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_rotation_gives_exact_box() {
        let b = ObjectBox::from_world(
            Vec3::new(1.0, 2.0, 3.0),
            Quat::IDENTITY,
            2.0,
            Vec3::new(0.5, 1.0, 0.0),
            1,
        );
        assert_eq!(
            b.aabb(),
            (Vec3::new(0.0, 0.0, 3.0), Vec3::new(2.0, 4.0, 3.0))
        );
    }

    #[test]
    fn rotation_widens_the_aabb() {
        let b = ObjectBox::from_world(
            Vec3::ZERO,
            Quat::from_rotation_z(std::f32::consts::FRAC_PI_4),
            1.0,
            Vec3::new(1.0, 1.0, 1.0),
            1,
        );
        let (min, max) = b.aabb();
        let r = std::f32::consts::SQRT_2;
        assert!((max.x - r).abs() < 1e-5 && (max.y - r).abs() < 1e-5);
        assert!((max.z - 1.0).abs() < 1e-6);
        assert_eq!(min, -max);
    }
}
