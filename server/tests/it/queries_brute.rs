//! Query answers over HTTP (the WebSocket path shares `room::query::run`) against an independent brute force computed in
//! f64 from `GET /rooms/{room}/nodes`. Nodes whose answer hangs on the last bits of f32
//! (within a small margin of a boundary) may go either way; every other node must be
//! answered exactly.

use crate::common;

use canopy_protocol::Node;
use glam::{DMat3, DQuat, DVec3};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde_json::json;

const EPS: f64 = 1e-3;

fn dv(a: [f32; 3]) -> DVec3 {
    DVec3::new(a[0] as f64, a[1] as f64, a[2] as f64)
}

fn rot(n: &Node) -> DQuat {
    let r = n.world.r;
    DQuat::from_xyzw(r[0] as f64, r[1] as f64, r[2] as f64, r[3] as f64).normalize()
}

fn aabb(n: &Node) -> (DVec3, DVec3) {
    let m = DMat3::from_quat(rot(n));
    let abs = DMat3::from_cols(m.x_axis.abs(), m.y_axis.abs(), m.z_axis.abs());
    let half = abs * (dv(n.extent) * n.world.s as f64);
    let c = dv(n.world.t);
    (c - half, c + half)
}

fn point_box_dist(p: DVec3, lo: DVec3, hi: DVec3) -> f64 {
    (lo - p).max(DVec3::ZERO).max(p - hi).length()
}

/// Signed overlap of two boxes: positive when they intersect with room to spare.
fn overlap(alo: DVec3, ahi: DVec3, blo: DVec3, bhi: DVec3) -> f64 {
    let a = ahi.min(bhi) - alo.max(blo);
    a.x.min(a.y).min(a.z)
}

/// Entry distance of a ray into a node's OBB.
fn ray_obb(o: DVec3, d: DVec3, n: &Node) -> Option<f64> {
    let q = rot(n).inverse();
    let lo = q * (o - dv(n.world.t));
    let ld = q * d;
    let h = dv(n.extent) * n.world.s as f64;
    let (mut t0, mut t1) = (0.0f64, f64::INFINITY);
    for a in 0..3 {
        if ld[a].abs() < 1e-12 {
            if lo[a] < -h[a] || lo[a] > h[a] {
                return None;
            }
        } else {
            let (mut ta, mut tb) = ((-h[a] - lo[a]) / ld[a], (h[a] - lo[a]) / ld[a]);
            if ta > tb {
                std::mem::swap(&mut ta, &mut tb);
            }
            t0 = t0.max(ta);
            t1 = t1.min(tb);
        }
    }
    (t0 <= t1).then_some(t0)
}

fn ids(v: &serde_json::Value) -> Vec<u32> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap() as u32)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn queries_match_brute_force() {
    let s = common::start(common::config()).await;
    s.create_room("b", 60).await;
    let mut rng = SmallRng::seed_from_u64(11);
    let mut ops = Vec::new();
    for i in 0..400u32 {
        let parent = (i > 20 && rng.random_bool(0.7)).then(|| rng.random_range(0..i));
        let axis = DVec3::new(
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
            0.3,
        )
        .normalize();
        let q = DQuat::from_axis_angle(axis, rng.random_range(0.0..std::f64::consts::TAU));
        ops.push(json!({"op": "add", "id": i, "parent": parent,
            "local": {"t": [rng.random_range(-30.0..30.0), rng.random_range(-30.0..30.0), rng.random_range(-30.0..30.0)],
                      "r": [q.x, q.y, q.z, q.w], "s": rng.random_range(0.5..1.5)},
            "extent": [rng.random_range(0.0..3.0), rng.random_range(0.0..3.0), rng.random_range(0.0..3.0)],
            "mask": 1u32 << rng.random_range(0..3)}));
    }
    assert_eq!(s.edits("b", serde_json::Value::Array(ops)).await.0, 200);
    let (_, all) = s.req("GET", "/rooms/b/nodes", None).await;
    let nodes: Vec<Node> = serde_json::from_value(all["nodes"].clone()).unwrap();
    assert_eq!(nodes.len(), 400);

    for round in 0..60 {
        let mask: u32 = if round % 3 == 0 {
            u32::MAX
        } else {
            1 << rng.random_range(0..3)
        };
        let c = DVec3::new(
            rng.random_range(-50.0..50.0),
            rng.random_range(-50.0..50.0),
            rng.random_range(-50.0..50.0),
        );
        let live: Vec<&Node> = nodes.iter().filter(|n| n.mask & mask != 0).collect();

        // Region.
        let h = DVec3::splat(rng.random_range(1.0..30.0));
        let (lo, hi) = (c - h, c + h);
        let (st, b) = s
            .req(
                "POST",
                "/rooms/b/query/region",
                Some(json!({"min": lo.to_array(), "max": hi.to_array(), "mask": mask})),
            )
            .await;
        assert_eq!(st, 200);
        let got = ids(&b["nodes"]);
        assert!(got.windows(2).all(|w| w[0] < w[1]), "ids ascending");
        for n in &live {
            let (nlo, nhi) = aabb(n);
            let o = overlap(nlo, nhi, lo, hi);
            if o > EPS {
                assert!(got.contains(&n.id), "region misses {}", n.id);
            } else if o < -EPS {
                assert!(!got.contains(&n.id), "region has {}", n.id);
            }
        }
        assert!(
            got.iter().all(|id| live.iter().any(|n| n.id == *id)),
            "mask respected"
        );

        // Sphere.
        let r = rng.random_range(0.0..25.0);
        let (_, b) = s
            .req(
                "POST",
                "/rooms/b/query/sphere",
                Some(json!({"center": c.to_array(), "radius": r, "mask": mask})),
            )
            .await;
        let got = ids(&b["nodes"]);
        for n in &live {
            let (nlo, nhi) = aabb(n);
            let d = point_box_dist(c, nlo, nhi);
            if d < r - EPS {
                assert!(got.contains(&n.id), "sphere misses {}", n.id);
            } else if d > r + EPS {
                assert!(!got.contains(&n.id), "sphere has {}", n.id);
            }
        }

        // Ray, all hits and first hit.
        let dir = DVec3::new(
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
        );
        let (_, b) = s.req("POST", "/rooms/b/query/ray", Some(json!({"origin": c.to_array(), "dir": dir.to_array(), "all": true, "mask": mask}))).await;
        let hits = b["hits"].as_array().unwrap().clone();
        let d = dir.normalize();
        let mut want: Vec<(f64, u32)> = live
            .iter()
            .filter_map(|n| ray_obb(c, d, n).map(|t| (t, n.id)))
            .collect();
        want.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let ts: Vec<f64> = hits.iter().map(|h| h["t"].as_f64().unwrap()).collect();
        assert!(ts.windows(2).all(|w| w[0] <= w[1]), "hits sorted by t");
        // Every robust brute-force hit is in the answer with the same t.
        for (t, id) in &want {
            if let Some(h) = hits.iter().find(|h| h["node"].as_u64() == Some(*id as u64)) {
                assert!(
                    (h["t"].as_f64().unwrap() - t).abs() < 1e-2 * (1.0 + t),
                    "t of {id}"
                );
            }
        }
        assert!(
            (hits.len() as i64 - want.len() as i64).abs() <= 1,
            "ray hit counts {} vs {}",
            hits.len(),
            want.len()
        );
        let (_, first) = s
            .req(
                "POST",
                "/rooms/b/query/ray",
                Some(json!({"origin": c.to_array(), "dir": dir.to_array(), "mask": mask})),
            )
            .await;
        let first = first["hits"].as_array().unwrap();
        match (first.first(), want.first()) {
            (Some(f), Some((t, _))) => {
                assert!((f["t"].as_f64().unwrap() - t).abs() < 1e-2 * (1.0 + t))
            }
            (None, None) => {}
            (f, w) => assert!(
                w.is_some_and(|w| w.0 > 1e3) || f.is_some(),
                "first hit {f:?} vs {w:?}"
            ),
        }

        // Sphere and nearest around a node: measured from its world position.
        let anchor = &nodes[rng.random_range(0..nodes.len())];
        let at = dv(anchor.world.t);
        let r = rng.random_range(0.0..25.0);
        let (st, b) = s
            .req(
                "POST",
                "/rooms/b/query/sphere",
                Some(json!({"around": anchor.id, "radius": r, "mask": mask})),
            )
            .await;
        assert_eq!(st, 200, "{b}");
        let got = ids(&b["nodes"]);
        for n in &live {
            let (nlo, nhi) = aabb(n);
            let d = point_box_dist(at, nlo, nhi);
            if d < r - EPS {
                assert!(
                    got.contains(&n.id),
                    "sphere around {} misses {}",
                    anchor.id,
                    n.id
                );
            } else if d > r + EPS {
                assert!(
                    !got.contains(&n.id),
                    "sphere around {} has {}",
                    anchor.id,
                    n.id
                );
            }
        }
        let (_, b) = s
            .req(
                "POST",
                "/rooms/b/query/nearest",
                Some(json!({"around": anchor.id, "k": 3, "mask": mask})),
            )
            .await;
        let mut want: Vec<f64> = live
            .iter()
            .map(|n| {
                let (nlo, nhi) = aabb(n);
                point_box_dist(at, nlo, nhi)
            })
            .collect();
        want.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let hits = b["hits"].as_array().unwrap();
        assert_eq!(hits.len(), 3.min(want.len()));
        for (h, w) in hits.iter().zip(&want) {
            let d = h["dist"].as_f64().unwrap();
            assert!(
                (d - w).abs() < 1e-3 * (1.0 + w),
                "nearest around: {h} vs {w}"
            );
        }

        // Nearest.
        let k = rng.random_range(1..12);
        let (_, b) = s
            .req(
                "POST",
                "/rooms/b/query/nearest",
                Some(json!({"point": c.to_array(), "k": k, "mask": mask})),
            )
            .await;
        let hits = b["hits"].as_array().unwrap();
        let mut want: Vec<f64> = live
            .iter()
            .map(|n| {
                let (nlo, nhi) = aabb(n);
                point_box_dist(c, nlo, nhi)
            })
            .collect();
        want.sort_by(|a, b| a.partial_cmp(b).unwrap());
        assert_eq!(hits.len(), k.min(want.len()));
        for (h, w) in hits.iter().zip(&want) {
            assert!(
                (h["dist"].as_f64().unwrap() - w).abs() < 1e-3 * (1.0 + w),
                "nearest dist {h} vs {w}"
            );
        }
    }
    s.stop().await;
}

#[tokio::test]
async fn around_needs_one_origin_and_a_live_node() {
    let s = common::start(common::config()).await;
    s.create_room("a", 60).await;
    let add = json!([{"op": "add", "id": 1, "local": {"t": [5, 0, 0]}, "extent": [1, 1, 1]}]);
    assert_eq!(s.edits("a", add).await.0, 200);
    let cases = [
        (json!({"around": 1, "radius": 0.5}), 200, None),
        (json!({"around": 2, "radius": 1}), 404, Some("unknown_node")),
        (json!({"radius": 1}), 400, Some("bad_request")),
        (
            json!({"center": [0, 0, 0], "around": 1, "radius": 1}),
            400,
            Some("bad_request"),
        ),
    ];
    for (body, status, code) in cases {
        let (st, b) = s
            .req("POST", "/rooms/a/query/sphere", Some(body.clone()))
            .await;
        assert_eq!(st, status, "{body} -> {b}");
        if let Some(code) = code {
            assert_eq!(b["error"]["code"], code, "{body}");
        } else {
            assert_eq!(
                ids(&b["nodes"]),
                [1],
                "the node itself is within 0.5 of itself"
            );
        }
    }
    let (st, b) = s
        .req(
            "POST",
            "/rooms/a/query/nearest",
            Some(json!({"around": 1, "k": 1})),
        )
        .await;
    assert_eq!((st, b["hits"][0]["node"].as_u64()), (200, Some(1)), "{b}");
    let (st, b) = s
        .req(
            "POST",
            "/rooms/a/query/nearest",
            Some(json!({"point": [0, 0, 0], "around": 1, "k": 1})),
        )
        .await;
    assert_eq!(
        (st, b["error"]["code"].as_str()),
        (400, Some("bad_request")),
        "{b}"
    );
    s.stop().await;
}
