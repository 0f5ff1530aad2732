//! The model-mirror test: random batches from several editors over many ticks while
//! whole-room and region subscribers (both formats, with and without masks) mirror the
//! room. At the end every mirror equals the server's state for the nodes in its scope,
//! and every `update` row carried a world transform that really changed.

use crate::common;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use canopy_protocol::message::Region;
use canopy_protocol::{ClientMsg, Format, Node, Op, ServerMsg, Transform};
use glam::{Mat3, Quat, Vec3};
use parking_lot::Mutex;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

#[derive(Clone, Copy)]
struct ScopeSpec {
    region: Option<Region>,
    mask: u32,
    format: Format,
}

fn aabb(n: &Node) -> (Vec3, Vec3) {
    let r = Quat::from_array(n.world.r);
    let m = Mat3::from_quat(r);
    let abs = Mat3::from_cols(m.x_axis.abs(), m.y_axis.abs(), m.z_axis.abs());
    let half = abs * (n.world.s * Vec3::from_array(n.extent));
    let c = Vec3::from_array(n.world.t);
    (c - half, c + half)
}

fn in_scope(n: &Node, s: &ScopeSpec) -> bool {
    if n.mask & s.mask == 0 {
        return false;
    }
    match &s.region {
        None => true,
        Some(r) => {
            let (lo, hi) = aabb(n);
            let (rlo, rhi) = (Vec3::from_array(r.min), Vec3::from_array(r.max));
            // A little slack: the server's AABB and ours may differ in the last bit.
            lo.cmple(rhi).all() && hi.cmpge(rlo).all()
        }
    }
}

fn random_op(rng: &mut SmallRng, ids: &[u32], next: &mut u32) -> Op {
    let pick = |rng: &mut SmallRng| ids[rng.random_range(0..ids.len())];
    let v3 = |rng: &mut SmallRng, k: f32| {
        [
            rng.random_range(-k..k),
            rng.random_range(-k..k),
            rng.random_range(-k..k),
        ]
    };
    match rng.random_range(0..100) {
        0..=54 => Op::SetLocal {
            node: pick(rng),
            t: rng.random_bool(0.8).then(|| v3(rng, 20.0)),
            r: rng.random_bool(0.3).then(|| {
                let q = Quat::from_axis_angle(
                    Vec3::new(0.3, 1.0, 0.2).normalize(),
                    rng.random_range(0.0..6.0),
                );
                q.to_array()
            }),
            s: rng.random_bool(0.1).then(|| rng.random_range(0.5..1.5)),
        },
        55..=69 => {
            *next += 1;
            Op::Add {
                id: Some(*next),
                parent: rng.random_bool(0.7).then(|| pick(rng)),
                local: Transform {
                    t: v3(rng, 10.0),
                    ..Transform::IDENTITY
                },
                extent: [rng.random_range(0.0..2.0); 3],
                mask: if rng.random_bool(0.3) { 2 } else { 1 },
            }
        }
        70..=79 => Op::SetParent {
            node: pick(rng),
            parent: rng.random_bool(0.8).then(|| pick(rng)),
        },
        80..=89 => Op::SetShape {
            node: pick(rng),
            extent: rng
                .random_bool(0.5)
                .then(|| [rng.random_range(0.0..3.0); 3]),
            mask: rng
                .random_bool(0.5)
                .then(|| if rng.random_bool(0.5) { 1 } else { 3 }),
        },
        _ => Op::Remove { node: pick(rng) },
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mirrors_converge_and_updates_carry_only_changes() {
    let s = common::start(common::config()).await;
    s.create_room("m", 120).await;
    // Seed a forest of 100 nodes.
    let mut seed = Vec::new();
    for i in 1..=100u32 {
        seed.push(serde_json::json!({"op": "add", "id": i, "parent": if i > 10 { Some((i - 1) / 10) } else { None },
            "local": {"t": [i as f32 % 7.0, (i / 7) as f32, 0.0]}, "extent": [0.5, 0.5, 0.5], "mask": if i % 3 == 0 { 2 } else { 1 }}));
    }
    let (st, b) = s.edits("m", serde_json::Value::Array(seed)).await;
    assert_eq!(st, 200, "{b}");

    let scopes = vec![
        ScopeSpec {
            region: None,
            mask: u32::MAX,
            format: Format::Json,
        },
        ScopeSpec {
            region: None,
            mask: u32::MAX,
            format: Format::Bincode,
        },
        ScopeSpec {
            region: None,
            mask: 2,
            format: Format::Bincode,
        },
        ScopeSpec {
            region: Some(Region {
                min: [-5.0; 3],
                max: [8.0; 3],
            }),
            mask: u32::MAX,
            format: Format::Json,
        },
        ScopeSpec {
            region: Some(Region {
                min: [0.0, 0.0, -30.0],
                max: [30.0, 30.0, 30.0],
            }),
            mask: 1,
            format: Format::Bincode,
        },
    ];
    let mut readers = Vec::new();
    for spec in scopes.clone() {
        let mut ws = s.ws("m", spec.format).await;
        ws.send(&ClientMsg::subscribe(spec.region, spec.mask)).await;
        readers.push(tokio::spawn(async move {
            let mut mirror: HashMap<u32, Node> = HashMap::new();
            let mut last_tick = 0u64;
            let mut frames = 0usize;
            // Read until the socket has been quiet for a while after the editors stop.
            while let Some(m) = ws.recv_within(1.5).await {
                match m {
                    ServerMsg::Snapshot { tick, nodes, .. } => {
                        mirror = nodes.into_iter().map(|n| (n.id, n)).collect();
                        last_tick = tick;
                    }
                    ServerMsg::Delta {
                        tick,
                        upsert,
                        update,
                        remove,
                        ..
                    } => {
                        assert!(tick > last_tick, "frame ticks grow");
                        last_tick = tick;
                        frames += 1;
                        let mut seen = std::collections::HashSet::new();
                        for n in &upsert {
                            assert!(seen.insert(n.id), "node twice in one frame");
                            mirror.insert(n.id, *n);
                        }
                        for u in &update {
                            assert!(seen.insert(u.id), "node twice in one frame");
                            let n = mirror
                                .get_mut(&u.id)
                                .expect("update of a node the client holds");
                            assert_ne!(
                                n.world, u.world,
                                "update of node {} that did not change",
                                u.id
                            );
                            n.world = u.world;
                        }
                        for id in &remove {
                            assert!(seen.insert(*id), "node twice in one frame");
                            assert!(
                                mirror.remove(id).is_some(),
                                "remove of a node the client does not hold"
                            );
                        }
                    }
                    _ => {}
                }
            }
            (mirror, frames)
        }));
    }

    let ids = Arc::new(Mutex::new((1..=100u32).collect::<Vec<_>>()));
    let mut editors = Vec::new();
    for e in 0..3u32 {
        let ids = Arc::clone(&ids);
        let mut ws = s
            .ws(
                "m",
                if e % 2 == 0 {
                    Format::Json
                } else {
                    Format::Bincode
                },
            )
            .await;
        editors.push(tokio::spawn(async move {
            let mut rng = SmallRng::seed_from_u64(7 + e as u64);
            let mut next = 10_000 * (e + 1);
            let mut applied = 0;
            for seq in 0..80u64 {
                let known = ids.lock().clone();
                let n = rng.random_range(1..12);
                let ops: Vec<Op> = (0..n)
                    .map(|_| random_op(&mut rng, &known, &mut next))
                    .collect();
                ws.send(&ClientMsg::Edits {
                    seq,
                    ops: ops.clone(),
                })
                .await;
                let m = ws
                    .recv_until(|m| matches!(m, ServerMsg::Ack { .. } | ServerMsg::Error { .. }))
                    .await;
                if let ServerMsg::Ack { ids: added, .. } = m {
                    applied += 1;
                    let mut g = ids.lock();
                    g.extend(added);
                    for op in &ops {
                        if let Op::Remove { node } = op {
                            g.retain(|x| x != node);
                        }
                    }
                    if g.is_empty() {
                        g.push(1);
                    }
                }
            }
            applied
        }));
    }
    let mut applied = 0;
    for e in editors {
        applied += e.await.unwrap();
    }
    assert!(applied > 50, "most batches applied ({applied})");

    let mut results = Vec::new();
    for r in readers {
        results.push(r.await.unwrap());
    }
    let (_, all) = s.req("GET", "/rooms/m/nodes", None).await;
    let server: Vec<Node> = serde_json::from_value(all["nodes"].clone()).unwrap();
    for ((mirror, frames), spec) in results.into_iter().zip(scopes) {
        assert!(frames > 10, "the subscriber saw frames");
        let want: HashMap<u32, Node> = server
            .iter()
            .filter(|n| in_scope(n, &spec))
            .map(|n| (n.id, *n))
            .collect();
        let mut missing: Vec<_> = want.keys().filter(|k| !mirror.contains_key(k)).collect();
        let mut extra: Vec<_> = mirror.keys().filter(|k| !want.contains_key(k)).collect();
        missing.sort();
        extra.sort();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "scope {:?}/{}: missing {missing:?} extra {extra:?}",
            spec.region,
            spec.mask
        );
        for (id, n) in &want {
            assert_eq!(mirror[id], *n, "node {id} differs");
        }
    }
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_reader_is_merged_bounded_and_converges() {
    let s = common::start(common::config()).await;
    s.create_room("slow", 240).await;
    // 40 roots with 50 children each: moving the roots moves 2,040 nodes per tick.
    let mut ops = Vec::new();
    for r in 0..40u32 {
        let root = r * 100 + 1;
        ops.push(serde_json::json!({"op": "add", "id": root, "extent": [1, 1, 1]}));
        for c in 1..=50u32 {
            ops.push(serde_json::json!({"op": "add", "id": root + c, "parent": root, "local": {"t": [c as f32, 0, 0]}, "extent": [0.5, 0.5, 0.5]}));
        }
    }
    assert_eq!(s.edits("slow", serde_json::Value::Array(ops)).await.0, 200);
    let mut slow = s.ws("slow", Format::Bincode).await;
    slow.send(&ClientMsg::subscribe(None, u32::MAX)).await;
    let ServerMsg::Snapshot { nodes, .. } = slow.recv().await else {
        panic!()
    };
    let mut mirror: HashMap<u32, Node> = nodes.into_iter().map(|n| (n.id, n)).collect();
    assert_eq!(mirror.len(), 2040);

    // The reader stops reading while 200+ ticks of heavy edits run.
    let (_, r0) = s.req("GET", "/rooms/slow", None).await;
    let start_tick = r0["tick"].as_u64().unwrap();
    let mut k = 0f32;
    let mut peak = 0;
    loop {
        k += 1.0;
        let ops: Vec<_> = (0..40u32).map(|r| serde_json::json!({"op": "set_local", "node": r * 100 + 1, "t": [k, r as f32, 0], "r": Quat::from_rotation_y(k * 0.01).to_array()})).collect();
        let (st, b) = s.edits("slow", serde_json::Value::Array(ops)).await;
        assert_eq!(st, 200, "{b}");
        let (_, room) = s.req("GET", "/rooms/slow", None).await;
        peak = peak.max(room["pending_merge_entries_peak"].as_u64().unwrap());
        if b["tick"].as_u64().unwrap() > start_tick + 200 {
            break;
        }
    }
    assert!(
        peak <= 2040,
        "pending state bounded by the nodes in scope: {peak}"
    );
    let (_, m) = s.req("GET", "/metrics", None).await;
    let merged: f64 = m
        .as_str()
        .unwrap()
        .lines()
        .find(|l| l.starts_with("canopy_merged_frames_total"))
        .unwrap()
        .split_whitespace()
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    assert!(peak > 0, "the slow reader was switched to merging");

    // Catch up: read until quiet, applying every frame.
    let mut last_tick = 0;
    while let Some(msg) = slow.recv_within(1.0).await {
        if let ServerMsg::Delta {
            tick,
            upsert,
            update,
            remove,
            ..
        } = msg
        {
            assert!(tick > last_tick);
            last_tick = tick;
            for n in upsert {
                mirror.insert(n.id, n);
            }
            for u in update {
                mirror.get_mut(&u.id).unwrap().world = u.world;
            }
            for id in remove {
                mirror.remove(&id);
            }
        }
    }
    let (_, m2) = s.req("GET", "/metrics", None).await;
    let merged_after: f64 = m2
        .as_str()
        .unwrap()
        .lines()
        .find(|l| l.starts_with("canopy_merged_frames_total"))
        .unwrap()
        .split_whitespace()
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        merged_after >= merged && merged_after >= 1.0,
        "a merged frame was sent"
    );
    let (_, all) = s.req("GET", "/rooms/slow/nodes", None).await;
    let server: Vec<Node> = serde_json::from_value(all["nodes"].clone()).unwrap();
    assert_eq!(server.len(), mirror.len());
    for n in server {
        assert_eq!(mirror[&n.id], n, "node {} converged", n.id);
    }
    let _ = Duration::ZERO;
    s.stop().await;
}

/// A reader whose socket takes large frames in small bites (a 4 KiB receive buffer, a
/// small server send buffer, pauses between reads): frames the room's flushers write
/// in part are finished by the connection's writer from the right byte, so the stream
/// stays whole and the mirror ends equal to the server's state.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reader_that_takes_frames_in_small_bites_mirrors_the_room() {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;

    let mut cfg = common::config();
    cfg.send_buffer_bytes = 8 * 1024;
    let s = common::start(cfg).await;
    s.create_room("bites", 60).await;
    let seed: Vec<_> = (1..=2000u32)
        .map(|i| serde_json::json!({"op": "add", "id": i, "local": {"t": [i as f32, 0.0, 0.0]}}))
        .collect();
    let (st, b) = s.edits("bites", serde_json::Value::Array(seed)).await;
    assert_eq!(st, 200, "{b}");

    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let addr = s.base.trim_start_matches("http://").parse().unwrap();
    let tcp = socket.connect(addr).await.unwrap();
    let url = format!("{}/rooms/bites/ws?format=bincode", s.ws_base);
    let (mut ws, _) = tokio_tungstenite::client_async(url, tcp).await.unwrap();
    let sub = canopy_protocol::codec::encode_client(
        &ClientMsg::subscribe(None, u32::MAX),
        Format::Bincode,
    );
    ws.send(Message::binary(sub)).await.unwrap();
    let reader = tokio::spawn(async move {
        let mut mirror: HashMap<u32, Node> = HashMap::new();
        let mut frames = 0;
        while let Ok(Some(Ok(m))) =
            tokio::time::timeout(Duration::from_millis(1500), ws.next()).await
        {
            let Message::Binary(b) = m else { continue };
            match canopy_protocol::codec::decode_server(&b, Format::Bincode).unwrap() {
                ServerMsg::Snapshot { nodes, .. } => {
                    mirror = nodes.into_iter().map(|n| (n.id, n)).collect();
                }
                ServerMsg::Delta {
                    upsert,
                    update,
                    remove,
                    ..
                } => {
                    frames += 1;
                    for n in upsert {
                        mirror.insert(n.id, n);
                    }
                    for u in update {
                        mirror.get_mut(&u.id).expect("a node it holds").world = u.world;
                    }
                    for id in remove {
                        mirror.remove(&id);
                    }
                    // Slow: the kernel's buffers fill between reads.
                    tokio::time::sleep(Duration::from_millis(3)).await;
                }
                _ => {}
            }
        }
        (mirror, frames)
    });
    // Every node moves each batch: frames of about 60 KB, far over the buffers.
    let mut rng = SmallRng::seed_from_u64(11);
    for _ in 0..40 {
        let ops: Vec<_> = (1..=2000u32)
            .map(|i| {
                let x: f32 = rng.random_range(-50.0..50.0);
                serde_json::json!({"op": "set_local", "node": i, "t": [x, i as f32, 0.0]})
            })
            .collect();
        let (st, b) = s.edits("bites", serde_json::Value::Array(ops)).await;
        assert_eq!(st, 200, "{b}");
    }
    let (mirror, frames) = reader.await.unwrap();
    assert!(frames > 0);
    let (st, body) = s.req("GET", "/rooms/bites/nodes", None).await;
    assert_eq!(st, 200);
    let nodes: Vec<Node> = serde_json::from_value(body["nodes"].clone()).unwrap();
    assert_eq!(mirror.len(), nodes.len());
    for n in nodes {
        assert_eq!(
            mirror.get(&n.id).map(|m| m.world),
            Some(n.world),
            "node {}",
            n.id
        );
    }
}
