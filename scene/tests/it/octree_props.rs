//! Property tests: the octree answers every query exactly as a brute-force scan does.
//!
//! The brute force is a plain scan of a `BTreeMap` of the same boxes that calls the same
//! narrow-phase functions (`aabb_intersects`, `point_aabb_dist`, `ray_obb`), so results
//! must be equal bit for bit (ids, order, `t` and `dist`), not just close. Scenes cover
//! uniform, clustered (within 1 unit), degenerate (one point, zero extents), mixed-scale
//! (extents 1e-3 to 1e4) and far (1e6 and 1e30 away) objects under random inserts, small
//! and large moves and removes, with `assert_well_formed` after every mutation.
//! Case count: 64 unless `PROPTEST_CASES` says otherwise.

use std::collections::BTreeMap;

use canopy_scene::octree::{
    ObjectBox, Octree, OctreeConfig, aabb_intersects, frustum_aabb, point_aabb_dist, ray_obb,
};
use glam::{Quat, Vec3};
use proptest::prelude::*;

/// The reference: every object in a map, every query a full scan.
#[derive(Default)]
struct Brute {
    objs: BTreeMap<u32, ObjectBox>,
}

impl Brute {
    fn region(&self, min: Vec3, max: Vec3, mask: u32) -> Vec<u32> {
        let hit = |b: &ObjectBox| {
            let (lo, hi) = b.aabb();
            b.mask & mask != 0 && aabb_intersects(lo, hi, min, max)
        };
        self.objs
            .iter()
            .filter(|(_, b)| hit(b))
            .map(|(&id, _)| id)
            .collect()
    }

    fn sphere(&self, c: Vec3, r: f32, mask: u32) -> Vec<u32> {
        let hit = |b: &ObjectBox| {
            let (lo, hi) = b.aabb();
            b.mask & mask != 0 && point_aabb_dist(c, lo, hi) <= r
        };
        self.objs
            .iter()
            .filter(|(_, b)| hit(b))
            .map(|(&id, _)| id)
            .collect()
    }

    fn matching(&self, mask: u32, hit: impl Fn(Vec3, Vec3) -> bool) -> Vec<u32> {
        let hit = |b: &ObjectBox| {
            let (lo, hi) = b.aabb();
            b.mask & mask != 0 && hit(lo, hi)
        };
        self.objs
            .iter()
            .filter(|(_, b)| hit(b))
            .map(|(&id, _)| id)
            .collect()
    }

    fn shell(&self, c: Vec3, inner: f32, outer: f32, mask: u32) -> Vec<u32> {
        self.matching(mask, |lo, hi| {
            let d = point_aabb_dist(c, lo, hi);
            inner < d && d <= outer
        })
    }

    fn frustum(&self, planes: &[[f32; 4]; 6], mask: u32) -> Vec<u32> {
        self.matching(mask, |lo, hi| frustum_aabb(planes, lo, hi))
    }

    fn ray_all(&self, o: Vec3, d: Vec3, max_t: f32, mask: u32) -> Vec<(u32, f32)> {
        let mut v: Vec<(u32, f32)> = self
            .objs
            .iter()
            .filter(|(_, b)| b.mask & mask != 0)
            .filter_map(|(&id, b)| ray_obb(o, d, b).filter(|&t| t <= max_t).map(|t| (id, t)))
            .collect();
        v.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
        v
    }

    fn nearest(&self, p: Vec3, k: usize, max_dist: Option<f32>, mask: u32) -> Vec<(u32, f32)> {
        let mut v: Vec<(u32, f32)> = self
            .objs
            .iter()
            .filter(|(_, b)| b.mask & mask != 0)
            .map(|(&id, b)| {
                let (lo, hi) = b.aabb();
                (id, point_aabb_dist(p, lo, hi))
            })
            .filter(|&(_, d)| !d.is_nan() && max_dist.is_none_or(|m| d <= m))
            .collect();
        v.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
        v.truncate(k);
        v
    }
}

#[derive(Clone, Copy, Debug)]
enum Kind {
    Uniform,
    Clustered,
    Degenerate,
    Mixed,
}

/// A raw object description; `Kind` decides how it becomes a box.
#[derive(Clone, Debug)]
struct RawObj {
    pos: [f32; 3],
    ext: [f32; 3],
    rot: Option<[f32; 4]>,
    mask: u32,
    /// 0: ordinary; 1: 1e6 away; 2: 1e30 away.
    far: u8,
}

#[derive(Clone, Debug)]
enum Op {
    Insert(u32, RawObj),
    MoveSmall(u32, [f32; 3]),
    MoveLarge(u32, RawObj),
    Remove(u32),
    /// Rewrites the object arena in depth-first order (the tree also does this by itself
    /// once enough has moved, which small cases rarely reach).
    Compact,
}

#[derive(Clone, Debug)]
enum Query {
    Region {
        a: [f32; 3],
        b: [f32; 3],
        mask: u32,
    },
    Sphere {
        c: [f32; 3],
        r: f32,
        mask: u32,
    },
    Ray {
        o: [f32; 3],
        d: [f32; 3],
        max_t: Option<f32>,
        mask: u32,
    },
    Nearest {
        p: [f32; 3],
        k: usize,
        max_dist: Option<f32>,
        mask: u32,
    },
}

/// A query and, optionally, the object it is anchored to (by index among live objects), so
/// that points and rays land exactly on objects even in degenerate scenes.
#[derive(Clone, Debug)]
struct AnchoredQuery {
    anchor: Option<usize>,
    q: Query,
}

fn mask_strategy() -> impl Strategy<Value = u32> {
    prop_oneof![
        Just(u32::MAX),
        Just(1u32),
        Just(2u32),
        Just(0b101u32),
        Just(0x8000_0000u32)
    ]
}

fn unit3() -> impl Strategy<Value = [f32; 3]> {
    [-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0]
}

fn raw_obj() -> impl Strategy<Value = RawObj> {
    (
        unit3(),
        [0.0f32..1.0, 0.0f32..1.0, 0.0f32..1.0],
        prop::option::weighted(
            0.6,
            [-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0],
        ),
        mask_strategy(),
        prop_oneof![20 => Just(0u8), 2 => Just(1u8), 1 => Just(2u8)],
    )
        .prop_map(|(pos, ext, rot, mask, far)| RawObj {
            pos,
            ext,
            rot,
            mask,
            far,
        })
}

fn op_strategy() -> impl Strategy<Value = Op> {
    let id = 0u32..48;
    prop_oneof![
        5 => (id.clone(), raw_obj()).prop_map(|(i, o)| Op::Insert(i, o)),
        3 => (id.clone(), unit3()).prop_map(|(i, d)| Op::MoveSmall(i, d)),
        2 => (id.clone(), raw_obj()).prop_map(|(i, o)| Op::MoveLarge(i, o)),
        2 => id.prop_map(Op::Remove),
        1 => Just(Op::Compact),
    ]
}

fn query_strategy() -> impl Strategy<Value = AnchoredQuery> {
    let q = prop_oneof![
        (unit3(), unit3(), mask_strategy()).prop_map(|(a, b, mask)| Query::Region { a, b, mask }),
        (unit3(), 0.0f32..1.0, mask_strategy()).prop_map(|(c, r, mask)| Query::Sphere {
            c,
            r,
            mask
        }),
        (
            unit3(),
            unit3(),
            prop::option::of(0.0f32..1.0),
            mask_strategy()
        )
            .prop_map(|(o, d, max_t, mask)| Query::Ray { o, d, max_t, mask }),
        (
            unit3(),
            1usize..12,
            prop::option::of(0.0f32..1.0),
            mask_strategy()
        )
            .prop_map(|(p, k, max_dist, mask)| Query::Nearest {
                p,
                k,
                max_dist,
                mask
            }),
    ];
    (prop::option::weighted(0.5, 0usize..1000), q)
        .prop_map(|(anchor, q)| AnchoredQuery { anchor, q })
}

/// Length unit of a scene kind: coordinates of positions and queries scale with it.
fn scale(kind: Kind) -> f32 {
    match kind {
        Kind::Uniform => 2000.0,
        Kind::Clustered => 0.5,
        Kind::Degenerate => 0.0,
        Kind::Mixed => 1000.0,
    }
}

fn v3(a: [f32; 3]) -> Vec3 {
    Vec3::from_array(a)
}

fn make_box(kind: Kind, r: &RawObj) -> ObjectBox {
    let s = scale(kind);
    let mut center = match kind {
        // Everything within one unit of (0.5, 0.5, 0.5).
        Kind::Clustered => Vec3::splat(0.5) + v3(r.pos) * s,
        Kind::Degenerate => Vec3::new(3.0, -2.0, 1.0),
        _ => v3(r.pos) * s,
    };
    center += match r.far {
        1 => Vec3::new(1e6, -1e6, 1e6) * v3(r.pos).signum(),
        2 => Vec3::new(1e30, 1e30, -1e30),
        _ => Vec3::ZERO,
    };
    let extent = match kind {
        Kind::Uniform => v3(r.ext) * 40.0,
        Kind::Clustered => v3(r.ext) * 0.2,
        Kind::Degenerate => Vec3::ZERO,
        // Log-uniform between 1e-3 and 1e4.
        Kind::Mixed => Vec3::from_array(r.ext.map(|e| 10f32.powf(-3.0 + 7.0 * e))),
    };
    let rot = match r.rot {
        Some(q) if Vec3::new(q[0], q[1], q[2]).length() + q[3].abs() > 0.1 => {
            Quat::from_array(q).normalize()
        }
        _ => Quat::IDENTITY,
    };
    ObjectBox::from_world(center, rot, 1.0, extent, r.mask)
}

fn config_strategy() -> impl Strategy<Value = OctreeConfig> {
    (
        prop_oneof![Just(1.0f32), Just(1.5), Just(2.0), Just(3.0)],
        prop_oneof![Just(1usize), Just(2), Just(4), Just(16)],
        prop_oneof![Just(0u32), Just(3), Just(12)],
        prop_oneof![Just(1.0f32), Just(16.0), Just(1024.0)],
    )
        .prop_map(
            |(looseness, leaf_capacity, max_depth, initial_half_size)| OctreeConfig {
                looseness,
                leaf_capacity,
                max_depth,
                initial_half_size,
            },
        )
}

fn kind_strategy() -> impl Strategy<Value = Kind> {
    prop_oneof![
        Just(Kind::Uniform),
        Just(Kind::Clustered),
        Just(Kind::Degenerate),
        Just(Kind::Mixed)
    ]
}

fn apply(tree: &mut Octree, brute: &mut Brute, kind: Kind, op: &Op) {
    match op {
        Op::Insert(id, raw) | Op::MoveLarge(id, raw) => {
            let b = make_box(kind, raw);
            tree.insert_or_update(*id, b);
            brute.objs.insert(*id, b);
        }
        Op::MoveSmall(id, d) => {
            if let Some(mut b) = brute.objs.get(id).copied() {
                // A step of a few percent of the scene's scale (or of a tiny unit when the
                // scene is a single point), so most moves stay in their loose cell.
                b.center += v3(*d) * (scale(kind) * 0.01).max(1e-3);
                tree.insert_or_update(*id, b);
                brute.objs.insert(*id, b);
            }
        }
        Op::Remove(id) => {
            assert_eq!(tree.remove(*id), brute.objs.remove(id).is_some());
        }
        Op::Compact => tree.compact(),
    }
    tree.assert_well_formed();
    assert_eq!(tree.len(), brute.objs.len());
}

fn check_query(tree: &Octree, brute: &Brute, kind: Kind, aq: &AnchoredQuery) {
    let s = scale(kind).max(1.0);
    let live: Vec<&ObjectBox> = brute.objs.values().collect();
    let anchor = aq
        .anchor
        .filter(|_| !live.is_empty())
        .map(|i| live[i % live.len()]);
    // An anchored query is centred on an object (its centre, or its AABB corner), and
    // scaled to that object's size, so it probes exact contacts and degenerate boxes.
    let (base, unit) = match anchor {
        Some(b) => (b.center, b.aabb_half().max_element().max(1e-3) * 2.0),
        None => (
            match kind {
                Kind::Clustered => Vec3::splat(0.5),
                Kind::Degenerate => Vec3::new(3.0, -2.0, 1.0),
                _ => Vec3::ZERO,
            },
            s,
        ),
    };
    let mut ids = Vec::new();
    let mut hits = Vec::new();
    match &aq.q {
        Query::Region { a, b, mask } => {
            let (p, q) = (base + v3(*a) * unit, base + v3(*b) * unit);
            let (min, max) = (p.min(q), p.max(q));
            tree.region(min, max, *mask, &mut ids);
            assert_eq!(
                ids,
                brute.region(min, max, *mask),
                "region {min} {max} mask {mask:#x}"
            );
            // A box that is a single point, exactly at the anchor.
            tree.region(base, base, *mask, &mut ids);
            assert_eq!(ids, brute.region(base, base, *mask), "point region {base}");
            // The same box as a frustum, its first plane tilted towards the anchor.
            let tilt = (v3(*a) - v3(*b)).normalize_or(Vec3::X);
            let planes = [
                [tilt.x, tilt.y, tilt.z, -tilt.dot(min)],
                [-1.0, 0.0, 0.0, max.x],
                [0.0, 1.0, 0.0, -min.y],
                [0.0, -1.0, 0.0, max.y],
                [0.0, 0.0, 1.0, -min.z],
                [0.0, 0.0, -1.0, max.z],
            ];
            tree.frustum(&planes, *mask, &mut ids);
            assert_eq!(ids, brute.frustum(&planes, *mask), "frustum {planes:?}");
        }
        Query::Sphere { c, r, mask } => {
            let (c, r) = (base + v3(*c) * unit, r * unit);
            tree.sphere(c, r, *mask, &mut ids);
            assert_eq!(
                ids,
                brute.sphere(c, r, *mask),
                "sphere {c} {r} mask {mask:#x}"
            );
            tree.sphere(base, 0.0, *mask, &mut ids);
            assert_eq!(ids, brute.sphere(base, 0.0, *mask), "zero sphere {base}");
            let mut with_dist = Vec::new();
            tree.sphere_dist(c, r, *mask, &mut with_dist);
            let want: Vec<(u32, f32)> = brute
                .sphere(c, r, *mask)
                .into_iter()
                .map(|id| {
                    let (lo, hi) = brute.objs[&id].aabb();
                    (id, point_aabb_dist(c, lo, hi))
                })
                .collect();
            assert_eq!(with_dist, want, "sphere with distances {c} {r}");
            for inner in [r * 0.5, r * 0.99, -1.0] {
                tree.shell(c, inner, r, *mask, &mut ids);
                assert_eq!(
                    ids,
                    brute.shell(c, inner, r, *mask),
                    "shell {c} {inner} {r}"
                );
            }
            let (mut near, mut far) = (Vec::new(), Vec::new());
            let (a, b) = ((r * 0.9, r), (r * 1.1, r * 1.25));
            tree.shells(c, (a, b), *mask, (&mut near, &mut far));
            assert_eq!(near, brute.shell(c, a.0, a.1, *mask), "near shell {c} {r}");
            assert_eq!(far, brute.shell(c, b.0, b.1, *mask), "far shell {c} {r}");
        }
        Query::Ray { o, d, max_t, mask } => {
            let origin = base + v3(*o) * unit;
            // Aim at the anchor when there is one, so the ray surely meets boxes.
            let raw = if anchor.is_some() && o.iter().sum::<f32>() > 0.0 {
                base - origin
            } else {
                v3(*d)
            };
            let Some(dir) = raw.try_normalize() else {
                return;
            };
            let max_t = max_t.map_or(
                f32::INFINITY,
                |m| if m < 0.1 { 0.0 } else { m * 3.0 * unit },
            );
            for (o, d) in [(origin, dir), (base, dir), (origin, axis_of(dir))] {
                let want = brute.ray_all(o, d, max_t, *mask);
                tree.ray_all(o, d, max_t, *mask, &mut hits);
                assert_eq!(hits, want, "ray_all {o} {d} max_t {max_t} mask {mask:#x}");
                let first = tree.ray_first(o, d, max_t, *mask);
                assert_eq!(
                    first,
                    want.first().copied(),
                    "ray_first {o} {d} max_t {max_t}"
                );
            }
        }
        Query::Nearest {
            p,
            k,
            max_dist,
            mask,
        } => {
            let p = base + v3(*p) * unit;
            let max_dist = max_dist.map(|m| m * unit);
            for md in [max_dist, None] {
                tree.nearest(p, *k, md, *mask, &mut hits);
                assert_eq!(
                    hits,
                    brute.nearest(p, *k, md, *mask),
                    "nearest {p} k {k} {md:?}"
                );
            }
        }
    }
}

/// The axis direction closest to `d`: rays parallel to slabs are a classic failure case.
fn axis_of(d: Vec3) -> Vec3 {
    let a = d.abs();
    if a.x >= a.y && a.x >= a.z {
        Vec3::X * d.x.signum()
    } else if a.y >= a.z {
        Vec3::Y * d.y.signum()
    } else {
        Vec3::Z * d.z.signum()
    }
}

fn cases(default: u32) -> ProptestConfig {
    let mut cfg = ProptestConfig::default();
    if std::env::var_os("PROPTEST_CASES").is_none() {
        cfg.cases = default;
    }
    cfg
}

proptest! {
    #![proptest_config(cases(64))]

    #[test]
    fn octree_matches_brute_force(
        kind in kind_strategy(),
        cfg in config_strategy(),
        ops in prop::collection::vec(op_strategy(), 1..120),
        queries in prop::collection::vec(query_strategy(), 1..24),
    ) {
        let mut tree = Octree::new(cfg);
        let mut brute = Brute::default();
        for (i, op) in ops.iter().enumerate() {
            apply(&mut tree, &mut brute, kind, op);
            // Query midway too, so states with growth and outside objects get probed.
            if i == ops.len() / 2 {
                for q in queries.iter().take(4) {
                    check_query(&tree, &brute, kind, q);
                }
            }
        }
        for q in &queries {
            check_query(&tree, &brute, kind, q);
        }
    }
}

proptest! {
    // Fewer, bigger cases: deep trees, many splits and merges.
    #![proptest_config(cases(8))]

    #[test]
    fn large_scenes_match_brute_force(
        kind in kind_strategy(),
        seed_objs in prop::collection::vec(raw_obj(), 300..600),
        moves in prop::collection::vec((0usize..600, unit3(), any::<bool>()), 100..300),
        queries in prop::collection::vec(query_strategy(), 16..32),
    ) {
        let cfg = OctreeConfig { leaf_capacity: 4, ..OctreeConfig::default() };
        let mut tree = Octree::new(cfg);
        let mut brute = Brute::default();
        for (i, raw) in seed_objs.iter().enumerate() {
            let raw = RawObj { far: raw.far.min(u8::from(i % 50 == 0)), ..raw.clone() };
            apply(&mut tree, &mut brute, kind, &Op::Insert(i as u32, raw));
        }
        for (i, (which, d, remove)) in moves.iter().enumerate() {
            let id = (*which % seed_objs.len()) as u32;
            let op = if *remove && i % 3 == 0 { Op::Remove(id) } else { Op::MoveSmall(id, *d) };
            apply(&mut tree, &mut brute, kind, &op);
        }
        for q in &queries {
            check_query(&tree, &brute, kind, q);
        }
    }
}

/// Boxes snapped to the cell grid of a tight octree, probed by rays running exactly along
/// their faces and edges: the slab pruning must not drop a grazing hit that `ray_obb` accepts.
#[test]
fn grid_aligned_grazing_rays_match_brute_force() {
    for looseness in [1.0f32, 2.0] {
        let cfg = OctreeConfig {
            looseness,
            leaf_capacity: 1,
            max_depth: 6,
            initial_half_size: 8.0,
        };
        let mut tree = Octree::new(cfg);
        let mut brute = Brute::default();
        let quarter = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
        let mut id = 0;
        for x in -4..4 {
            for y in -4..4 {
                for z in [-2, 0, 1] {
                    let rot = if (x + y) % 3 == 0 {
                        quarter
                    } else {
                        Quat::IDENTITY
                    };
                    let c = Vec3::new(x as f32 + 0.5, y as f32 + 0.5, z as f32 + 0.5);
                    let b = ObjectBox::from_world(c, rot, 1.0, Vec3::splat(0.5), u32::MAX);
                    tree.insert_or_update(id, b);
                    brute.objs.insert(id, b);
                    id += 1;
                }
            }
        }
        tree.assert_well_formed();
        let dirs = [
            Vec3::X,
            -Vec3::Y,
            Vec3::Z,
            Vec3::new(1.0, 1.0, 0.0).normalize(),
            Vec3::ONE.normalize(),
        ];
        for ox in -5..=5 {
            for oy in -5..=5 {
                for d in dirs {
                    let o = Vec3::new(ox as f32, oy as f32, -3.0) - d * 9.0;
                    for max_t in [f32::INFINITY, 9.0, 0.0] {
                        let want = brute.ray_all(o, d, max_t, u32::MAX);
                        let mut got = Vec::new();
                        tree.ray_all(o, d, max_t, u32::MAX, &mut got);
                        assert_eq!(got, want, "ray_all {o} {d} {max_t}");
                        assert_eq!(tree.ray_first(o, d, max_t, u32::MAX), want.first().copied());
                    }
                }
            }
        }
    }
}
