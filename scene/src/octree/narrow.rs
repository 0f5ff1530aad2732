//! Narrow-phase tests shared by the octree, the server and brute-force checks.
//!
//! Owns the exact per-object predicates of docs/protocol.md §3. The invariant: the octree decides
//! membership only by calling these functions on an object's stored box, so any caller that
//! applies them to the same [`ObjectBox`]es (a plain scan, say) gets the very same answers.
//! Cell-level pruning elsewhere is built to be conservative with respect to them.

use glam::Vec3;

use super::object_box::ObjectBox;

/// Whether two closed boxes `[amin, amax]` and `[bmin, bmax]` share at least one point.
#[inline]
pub fn aabb_intersects(amin: Vec3, amax: Vec3, bmin: Vec3, bmax: Vec3) -> bool {
    amin.cmple(bmax).all() && bmin.cmple(amax).all()
}

/// Euclidean distance from `p` to the closed box `[min, max]` (0 inside it).
///
/// The sum of squares is taken in f64 so that far objects (1e20 and beyond) keep a finite,
/// accurate distance. Every step is monotone in the box, so a box that contains another is
/// never reported farther than it: cell pruning relies on that.
#[inline]
pub fn point_aabb_dist(p: Vec3, min: Vec3, max: Vec3) -> f32 {
    let d = (min - p).max(p - max).max(Vec3::ZERO);
    let (x, y, z) = (f64::from(d.x), f64::from(d.y), f64::from(d.z));
    (x * x + y * y + z * z).sqrt() as f32
}

/// Whether the closed box `[min, max]` is not wholly outside any of six planes
/// `[nx, ny, nz, d]` (inward normals; a point `p` is inside a plane when `n·p + d >= 0`).
///
/// Each plane is tested at the box's corner farthest along its normal. Every product and
/// sum rounds monotonically, so a box inside another never passes where the larger one
/// fails: cell pruning relies on that.
#[inline]
pub fn frustum_aabb(planes: &[[f32; 4]; 6], min: Vec3, max: Vec3) -> bool {
    planes.iter().all(|&[nx, ny, nz, d]| {
        let x = if nx >= 0.0 { max.x } else { min.x };
        let y = if ny >= 0.0 { max.y } else { min.y };
        let z = if nz >= 0.0 { max.z } else { min.z };
        nx * x + ny * y + nz * z + d >= 0.0
    })
}

/// Where the ray `origin + t * dir` enters the oriented box: the smallest `t >= 0` on the box
/// (0 when `origin` is inside or on it), or `None` when the ray misses it or the box lies
/// wholly behind the origin. Faces are closed, so a ray grazing an edge hits it.
#[inline]
pub fn ray_obb(origin: Vec3, dir: Vec3, obj: &ObjectBox) -> Option<f32> {
    // Work in the box's frame, where it is the axis-aligned box [-half, half].
    let inv = obj.rot.conjugate();
    let lo = inv * (origin - obj.center);
    let ld = inv * dir;
    let h = obj.half;
    let mut t_near = f32::NEG_INFINITY;
    let mut t_far = f32::INFINITY;
    for i in 0..3 {
        if ld[i] == 0.0 {
            // Parallel to this slab: the ray is inside it everywhere or nowhere.
            if lo[i] < -h[i] || lo[i] > h[i] {
                return None;
            }
        } else {
            let t1 = (-h[i] - lo[i]) / ld[i];
            let t2 = (h[i] - lo[i]) / ld[i];
            let (a, b) = if t1 <= t2 { (t1, t2) } else { (t2, t1) };
            if a > t_near {
                t_near = a;
            }
            if b < t_far {
                t_far = b;
            }
        }
    }
    if t_near > t_far || t_far < 0.0 {
        return None;
    }
    // `> 0.0` rather than `max`: it also turns a -0.0 entry into +0.0, so sorting by bits
    // and comparing with `max_t = 0` behave.
    Some(if t_near > 0.0 { t_near } else { 0.0 })
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Quat;

    fn unit_box_at(c: Vec3) -> ObjectBox {
        ObjectBox::from_world(c, Quat::IDENTITY, 1.0, Vec3::ONE, u32::MAX)
    }

    #[test]
    fn ray_from_inside_has_t_zero() {
        let b = unit_box_at(Vec3::ZERO);
        assert_eq!(ray_obb(Vec3::new(0.5, 0.0, 0.0), Vec3::X, &b), Some(0.0));
        assert_eq!(ray_obb(Vec3::new(0.5, 0.0, 0.0), -Vec3::X, &b), Some(0.0));
        // On the surface counts as inside.
        let t = ray_obb(Vec3::new(1.0, 0.0, 0.0), Vec3::X, &b).unwrap();
        assert_eq!(t.to_bits(), 0.0f32.to_bits());
    }

    #[test]
    fn ray_entry_distance() {
        let b = unit_box_at(Vec3::new(5.0, 0.0, 0.0));
        assert_eq!(ray_obb(Vec3::ZERO, Vec3::X, &b), Some(4.0));
        assert_eq!(ray_obb(Vec3::ZERO, -Vec3::X, &b), None);
    }

    #[test]
    fn ray_grazing_an_edge_hits() {
        let b = unit_box_at(Vec3::ZERO);
        // Runs along the edge y = 1, z = 1.
        assert_eq!(ray_obb(Vec3::new(-3.0, 1.0, 1.0), Vec3::X, &b), Some(2.0));
        // Touches only the corner (1, 1, 1) on a diagonal.
        let d = Vec3::new(1.0, 1.0, -1.0).normalize();
        let o = Vec3::new(0.0, 0.0, 2.0);
        let t = ray_obb(o, d, &b).unwrap();
        assert!((t - 3f32.sqrt()).abs() < 1e-5);
        // Just past the edge misses.
        assert_eq!(ray_obb(Vec3::new(-3.0, 1.0001, 1.0), Vec3::X, &b), None);
    }

    #[test]
    fn ray_parallel_to_an_axis() {
        let b = unit_box_at(Vec3::ZERO);
        // Inside the y and z slabs: hits.
        assert_eq!(ray_obb(Vec3::new(-4.0, 0.3, -0.9), Vec3::X, &b), Some(3.0));
        // Outside the y slab: misses, however long the ray.
        assert_eq!(ray_obb(Vec3::new(-4.0, 1.5, 0.0), Vec3::X, &b), None);
        assert_eq!(ray_obb(Vec3::new(0.0, 1.5, 0.0), Vec3::Z, &b), None);
    }

    #[test]
    fn rotated_box() {
        // A unit cube turned 45 degrees about z reaches sqrt(2) along x.
        let b = ObjectBox::from_world(
            Vec3::ZERO,
            Quat::from_rotation_z(std::f32::consts::FRAC_PI_4),
            1.0,
            Vec3::ONE,
            1,
        );
        let t = ray_obb(Vec3::new(-5.0, 0.0, 0.0), Vec3::X, &b).unwrap();
        assert!((t - (5.0 - std::f32::consts::SQRT_2)).abs() < 1e-5, "{t}");
        // Near the top vertex the diamond is thin: entry at x = -(sqrt(2) - 1.3).
        let t = ray_obb(Vec3::new(-5.0, 1.3, 0.0), Vec3::X, &b).unwrap();
        assert!(
            (t - (5.0 - (std::f32::consts::SQRT_2 - 1.3))).abs() < 1e-4,
            "{t}"
        );
        // The AABB's corner region (1.2, 1.2) is outside the rotated box.
        assert_eq!(ray_obb(Vec3::new(1.2, 1.2, -5.0), Vec3::Z, &b), None);
    }

    #[test]
    fn zero_extent_box_is_a_point() {
        let b = ObjectBox::from_world(Vec3::new(2.0, 0.0, 0.0), Quat::IDENTITY, 1.0, Vec3::ZERO, 1);
        assert_eq!(ray_obb(Vec3::ZERO, Vec3::X, &b), Some(2.0));
        assert_eq!(ray_obb(Vec3::new(0.0, 0.1, 0.0), Vec3::X, &b), None);
        assert_eq!(ray_obb(Vec3::new(2.0, 0.0, 0.0), Vec3::Y, &b), Some(0.0));
    }

    #[test]
    fn point_distance() {
        let (min, max) = (Vec3::ZERO, Vec3::ONE);
        assert_eq!(point_aabb_dist(Vec3::splat(0.5), min, max), 0.0);
        assert_eq!(point_aabb_dist(Vec3::new(4.0, 0.5, -4.0), min, max), 5.0);
        let far = point_aabb_dist(Vec3::splat(1e30), min, max);
        assert!(far.is_finite() && (far / (1e30 * 3f32.sqrt()) - 1.0).abs() < 1e-6);
    }

    #[test]
    fn closed_intersection() {
        let (a0, a1) = (Vec3::ZERO, Vec3::ONE);
        assert!(aabb_intersects(a0, a1, Vec3::ONE, Vec3::splat(2.0)));
        assert!(!aabb_intersects(
            a0,
            a1,
            Vec3::new(1.0001, 0.0, 0.0),
            Vec3::splat(2.0)
        ));
        assert!(aabb_intersects(a0, a1, Vec3::splat(0.5), Vec3::splat(0.5)));
    }
}
