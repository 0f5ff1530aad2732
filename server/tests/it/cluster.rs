//! Cluster mode with real processes: one `nats-server` and three `canopy` nodes on
//! loopback (`cluster_support/`).
//!
//! - Rooms are placed across the nodes (within 20% of even), and every node answers
//!   every route of every room: reads, edits and room commands passed to the owner,
//!   WebSockets passed on to it, `GET /rooms` gathered. Editors on all three nodes send
//!   random batches while whole-room and region subscribers on all three mirror the
//!   room; every mirror ends equal to the owner's state.
//! - A subscriber that held a room at one node resumes (`since`) at another, relay or
//!   owner, with one resumed delta: ticks and instances are the owner's everywhere.
//!
//! - A room a relay cannot replay (the demo room, animated by server code) is passed
//!   on to its owner's HTTP instead, frames and all.
//!
//! Failures (a paused owner, NATS away, a killed owner) are in `cluster_failures.rs`.

use crate::cluster_support;
use crate::common;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use canopy_protocol::message::Region;
use canopy_protocol::{ClientMsg, Format, Node as SceneNode, Op, ServerMsg, Transform};
use cluster_support::{Node, three_nodes, ws, ws_with};
use glam::{Mat3, Quat, Vec3};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde_json::json;

fn in_region(n: &SceneNode, r: &Region) -> bool {
    let m = Mat3::from_quat(Quat::from_array(n.world.r));
    let abs = Mat3::from_cols(m.x_axis.abs(), m.y_axis.abs(), m.z_axis.abs());
    let half = abs * (n.world.s * Vec3::from_array(n.extent));
    let c = Vec3::from_array(n.world.t);
    let (lo, hi) = (c - half, c + half);
    lo.cmple(Vec3::from_array(r.max)).all() && hi.cmpge(Vec3::from_array(r.min)).all()
}

fn random_op(rng: &mut SmallRng, next: &mut u32) -> Op {
    let node = rng.random_range(1..=60);
    match rng.random_range(0..10) {
        0..=5 => Op::SetLocal {
            node,
            t: Some([
                rng.random_range(-20.0..20.0),
                rng.random_range(-20.0..20.0),
                rng.random_range(-20.0..20.0),
            ]),
            r: rng
                .random_bool(0.3)
                .then(|| Quat::from_rotation_y(rng.random_range(0.0..6.0)).to_array()),
            s: None,
        },
        6..=7 => {
            *next += 1;
            Op::Add {
                id: Some(*next),
                parent: rng.random_bool(0.5).then_some(node),
                local: Transform {
                    t: [rng.random_range(-5.0..5.0), 0.0, 0.0],
                    ..Transform::IDENTITY
                },
                extent: [0.5; 3],
                mask: 1,
            }
        }
        8 => Op::SetParent {
            node,
            parent: rng.random_bool(0.7).then(|| rng.random_range(1..=60)),
        },
        _ => Op::Remove {
            node: rng.random_range(40..=60),
        },
    }
}

/// Reads until the socket is quiet for `quiet` s; applies every frame to a mirror.
async fn mirror(mut ws: common::Ws, quiet: f64) -> (HashMap<u32, SceneNode>, usize) {
    let mut mirror: HashMap<u32, SceneNode> = HashMap::new();
    let mut frames = 0;
    let mut last = 0;
    while let Some(m) = ws.recv_within(quiet).await {
        match m {
            ServerMsg::Snapshot { tick, nodes, .. } => {
                mirror = nodes.into_iter().map(|n| (n.id, n)).collect();
                last = tick;
            }
            ServerMsg::Delta {
                tick,
                upsert,
                update,
                remove,
                ..
            } => {
                assert!(tick > last, "frame ticks grow");
                last = tick;
                frames += 1;
                cluster_support::apply_delta(&mut mirror, upsert, update, remove);
            }
            _ => {}
        }
    }
    (mirror, frames)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rooms_spread_every_node_serves_them_and_mirrors_converge() {
    let (_nats, nodes) = three_nodes().await;

    // Placement: 30 rooms created through the three nodes in turn.
    let mut tokens = HashMap::new();
    for i in 0..30 {
        let (st, b) = nodes[i % 3]
            .req(
                "POST",
                "/rooms",
                Some(json!({"id": format!("r{i}"), "tick_hz": 60})),
            )
            .await;
        assert_eq!(st, 201, "{b}");
        tokens.insert(
            format!("r{i}"),
            (
                b["editor_token"].as_str().unwrap().to_string(),
                b["viewer_token"].as_str().unwrap().to_string(),
            ),
        );
    }
    let (_, view) = nodes[0].req("GET", "/cluster", None).await;
    let mut per_node: HashMap<String, usize> = HashMap::new();
    for r in view["rooms"].as_array().unwrap() {
        *per_node
            .entry(r["owner"].as_str().unwrap().into())
            .or_default() += 1;
    }
    assert_eq!(per_node.values().sum::<usize>(), 30, "{view}");
    for n in ["a", "b", "c"] {
        let k = per_node.get(n).copied().unwrap_or(0);
        assert!(
            (8..=12).contains(&k),
            "node {n} holds {k} of 30 rooms: {per_node:?}"
        );
    }
    // A taken id is refused wherever it is asked for.
    for n in &nodes {
        let (st, b) = n.req("POST", "/rooms", Some(json!({"id": "r3"}))).await;
        assert_eq!(
            (st, b["error"]["code"].as_str()),
            (409, Some("room_exists")),
            "{b}"
        );
    }

    // Every node lists every room and answers for each.
    for n in &nodes {
        let (st, list) = n.req("GET", "/rooms", None).await;
        assert_eq!(st, 200);
        assert_eq!(
            list["rooms"].as_array().unwrap().len(),
            30,
            "{}: {list}",
            n.name
        );
        let (st, b) = n.req("GET", "/rooms/nope", None).await;
        assert_eq!(
            (st, b["error"]["code"].as_str()),
            (404, Some("unknown_room"))
        );
    }
    let (_, first) = nodes[0].req("GET", "/rooms/r7", None).await;
    for n in &nodes {
        let (st, b) = n.req("GET", "/rooms/r7", None).await;
        assert_eq!(st, 200, "{b}");
        assert_eq!(
            b["instance"], first["instance"],
            "one room, wherever it is read"
        );
    }

    // The mirrored room, seeded through a node that does not own it.
    let room = "r0";
    let (editor, viewer) = tokens[room].clone();
    let (owner, _) = nodes[1].wait_owner(room).await;
    let other = nodes.iter().find(|n| n.name != owner).unwrap();
    let seed: Vec<_> = (1..=60u32)
        .map(|i| {
            json!({"op": "add", "id": i, "parent": if i > 6 { Some((i - 1) / 6) } else { None },
            "local": {"t": [i as f32 % 5.0, (i / 5) as f32, 0.0]}, "extent": [0.5, 0.5, 0.5]})
        })
        .collect();
    let (st, b) = other
        .req_as(
            &editor,
            "POST",
            &format!("/rooms/{room}/edits"),
            Some(json!({"ops": seed})),
        )
        .await;
    assert_eq!(st, 200, "{b}");
    // A viewer may not edit, through any node.
    let (st, _) = other
        .req_as(
            &viewer,
            "POST",
            &format!("/rooms/{room}/edits"),
            Some(json!({"ops": []})),
        )
        .await;
    assert_eq!(st, 403);

    let region = Region {
        min: [-8.0; 3],
        max: [8.0; 3],
    };
    let mut readers = Vec::new();
    for n in &nodes {
        for (format, scope) in [
            (Format::Bincode, None),
            (Format::Json, None),
            (Format::Json, Some(region)),
        ] {
            let mut w = ws(n, room, format, &viewer).await;
            w.send(&ClientMsg::subscribe(scope, u32::MAX)).await;
            readers.push((scope, tokio::spawn(mirror(w, 2.0))));
        }
    }
    // The subscribers of the two other nodes are served there, from replicas.
    for n in nodes.iter().filter(|n| n.name != owner) {
        assert_eq!(
            n.metric("canopy_cluster_replicas").await,
            1.0,
            "{} relays",
            n.name
        );
        assert_eq!(n.metric("canopy_cluster_websockets_passed").await, 0.0);
    }
    let mut editors = Vec::new();
    for (e, n) in nodes.iter().enumerate() {
        let mut w = ws(n, room, Format::Bincode, &editor).await;
        editors.push(tokio::spawn(async move {
            let mut rng = SmallRng::seed_from_u64(40 + e as u64);
            let mut next = 1_000 * (e as u32 + 1);
            let mut acked = 0;
            for seq in 0..60u64 {
                let ops: Vec<Op> = (0..rng.random_range(1..8))
                    .map(|_| random_op(&mut rng, &mut next))
                    .collect();
                w.send(&ClientMsg::Edits { seq, ops }).await;
                let m = w
                    .recv_until(|m| matches!(m, ServerMsg::Ack { .. } | ServerMsg::Error { .. }))
                    .await;
                acked += matches!(m, ServerMsg::Ack { .. }) as usize;
            }
            acked
        }));
    }
    let mut acked = 0;
    for e in editors {
        acked += e.await.unwrap();
    }
    assert!(acked > 60, "most batches were applied ({acked} of 180)");
    // The reference is the owner's own state (a relay would answer from its replica).
    let owner_node = nodes.iter().find(|n| n.name == owner).unwrap();
    let (st, all) = owner_node
        .req("GET", &format!("/rooms/{room}/nodes"), None)
        .await;
    assert_eq!(st, 200);
    let state: Vec<SceneNode> = serde_json::from_value(all["nodes"].clone()).unwrap();
    assert!(state.len() > 20);
    for (scope, reader) in readers {
        let (got, frames) = reader.await.unwrap();
        assert!(frames > 5, "the subscriber saw the edits ({frames} frames)");
        let want: HashMap<u32, SceneNode> = state
            .iter()
            .filter(|n| scope.as_ref().is_none_or(|r| in_region(n, r)))
            .map(|n| (n.id, *n))
            .collect();
        assert_eq!(got.len(), want.len(), "scope {scope:?}: node count");
        for (id, n) in &want {
            assert_eq!(got.get(id), Some(n), "scope {scope:?}: node {id}");
        }
    }

    // A room deleted through a node that does not own it is gone everywhere.
    let (owner5, _) = nodes[0].wait_owner("r5").await;
    let via = nodes.iter().find(|n| n.name != owner5).unwrap();
    let (st, b) = via.req("DELETE", "/rooms/r5", None).await;
    assert_eq!(st, 204, "{b}");
    let deadline = Instant::now() + Duration::from_secs(5);
    for n in &nodes {
        loop {
            let (st, _) = n.req("GET", "/rooms/r5", None).await;
            if st == 404 {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "r5 gone from {} within 5 s",
                n.name
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subscriber_resumes_at_another_node_with_one_resumed_delta() {
    let (_nats, nodes) = three_nodes().await;
    let (st, b) = nodes[0]
        .req("POST", "/rooms", Some(json!({"id": "s", "tick_hz": 60})))
        .await;
    assert_eq!(st, 201, "{b}");
    let (owner_name, _) = nodes[0].wait_owner("s").await;
    let owner = nodes.iter().find(|n| n.name == owner_name).unwrap();
    let relays: Vec<_> = nodes.iter().filter(|n| n.name != owner_name).collect();
    let admin = cluster_support::ADMIN;
    let seed: Vec<_> = (1..=30u32)
        .map(|i| json!({"op": "add", "id": i, "local": {"t": [i as f32, 0.0, 0.0]}}))
        .collect();
    assert_eq!(
        owner
            .req("POST", "/rooms/s/edits", Some(json!({"ops": seed})))
            .await
            .0,
        200
    );
    // The second relay holds a replica from now on (its own subscriber).
    let mut keep = ws(relays[1], "s", Format::Bincode, admin).await;
    keep.send(&ClientMsg::subscribe(None, u32::MAX)).await;
    assert!(matches!(keep.recv().await, ServerMsg::Snapshot { .. }));

    let moves = |k: f32| {
        let ops: Vec<_> = (1..=10u32)
            .map(|i| json!({"op": "set_local", "node": i, "t": [i as f32, k, 0.0]}))
            .collect();
        Some(json!({ "ops": ops }))
    };
    // A mirror at the first relay, up to a known tick.
    let (mut w, instance) = ws_with(relays[0], "s", Format::Json, admin, "").await;
    w.send(&ClientMsg::subscribe(None, u32::MAX)).await;
    let mut mirror: HashMap<u32, SceneNode> = HashMap::new();
    let mut held = 0;
    let (_, b) = owner.req("POST", "/rooms/s/edits", moves(1.0)).await;
    let moved_at = b["tick"].as_u64().unwrap();
    while held < moved_at {
        match w.recv().await {
            ServerMsg::Snapshot { tick, nodes, .. } => {
                mirror = nodes.into_iter().map(|n| (n.id, n)).collect();
                held = tick;
            }
            ServerMsg::Delta {
                tick,
                upsert,
                update,
                remove,
                ..
            } => {
                cluster_support::apply_delta(&mut mirror, upsert, update, remove);
                held = tick;
            }
            _ => {}
        }
    }
    drop(w);
    // Away while the room changes; then back at the other relay, and at the owner.
    for k in 2..6 {
        assert_eq!(
            owner.req("POST", "/rooms/s/edits", moves(k as f32)).await.0,
            200
        );
    }
    let (_, all) = owner.req("GET", "/rooms/s/nodes", None).await;
    let want: HashMap<u32, SceneNode> =
        serde_json::from_value::<Vec<SceneNode>>(all["nodes"].clone())
            .unwrap()
            .into_iter()
            .map(|n| (n.id, n))
            .collect();
    for at in [relays[1], owner] {
        let extra = format!("&instance={instance}");
        let (mut w, again) = ws_with(at, "s", Format::Json, admin, &extra).await;
        assert_eq!(
            again, instance,
            "{}: one instance wherever the room is read",
            at.name
        );
        let mut since = ClientMsg::subscribe(None, u32::MAX);
        if let ClientMsg::Subscribe { since: s, .. } = &mut since {
            *s = Some(held);
        }
        w.send(&since).await;
        let mut copy = mirror.clone();
        match w.recv().await {
            ServerMsg::Delta {
                resumed: true,
                upsert,
                update,
                remove,
                ..
            } => {
                cluster_support::apply_delta(&mut copy, upsert, update, remove);
            }
            m => panic!("{}: expected a resumed delta, got {m:?}", at.name),
        }
        // Frames after it may still be on their way at a relay; read until quiet.
        while let Some(m) = w.recv_within(0.5).await {
            if let ServerMsg::Delta {
                upsert,
                update,
                remove,
                ..
            } = m
            {
                cluster_support::apply_delta(&mut copy, upsert, update, remove);
            }
        }
        assert_eq!(
            copy, want,
            "{}: the resumed copy is the owner's state",
            at.name
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_relays_pipelined_editor_gets_every_batch_applied_in_order() {
    let (_nats, nodes) = three_nodes().await;
    let (st, b) = nodes[0]
        .req("POST", "/rooms", Some(json!({"id": "q", "tick_hz": 60})))
        .await;
    assert_eq!(st, 201, "{b}");
    let (owner_name, _) = nodes[0].wait_owner("q").await;
    let owner = nodes.iter().find(|n| n.name == owner_name).unwrap();
    let relay = nodes.iter().find(|n| n.name != owner_name).unwrap();
    let mut w = ws(relay, "q", Format::Bincode, cluster_support::ADMIN).await;
    w.send(&ClientMsg::Edits {
        seq: 0,
        ops: vec![Op::Add {
            id: Some(1),
            parent: None,
            local: Transform::IDENTITY,
            extent: [0.5; 3],
            mask: 1,
        }],
    })
    .await;
    // 100 batches without waiting, then one that is refused (its op 0 is bad).
    for k in 1..=100u64 {
        w.send(&ClientMsg::Edits {
            seq: k,
            ops: vec![Op::SetLocal {
                node: 1,
                t: Some([k as f32, 0.0, 0.0]),
                r: None,
                s: None,
            }],
        })
        .await;
    }
    w.send(&ClientMsg::Edits {
        seq: 101,
        ops: vec![Op::Remove { node: 77 }],
    })
    .await;
    let mut ticks = Vec::new();
    for want in 0..=101u64 {
        match w
            .recv_until(|m| matches!(m, ServerMsg::Ack { .. } | ServerMsg::Error { .. }))
            .await
        {
            ServerMsg::Ack { seq, tick, .. } => {
                assert_eq!(seq, want, "acks in the order of the batches");
                ticks.push(tick);
            }
            ServerMsg::Error { seq, code, .. } => {
                assert_eq!(
                    (seq, want),
                    (Some(101), 101),
                    "only the bad batch is refused"
                );
                assert_eq!(code, canopy_protocol::ErrorCode::UnknownNode);
            }
            _ => unreachable!(),
        }
    }
    assert!(
        ticks.windows(2).all(|p| p[0] <= p[1]),
        "ticks never go back: {ticks:?}"
    );
    let mut distinct = ticks.clone();
    distinct.dedup();
    assert!(
        distinct.len() < 50,
        "queued batches travel together, not one per owner tick: {} ticks",
        distinct.len()
    );
    let (_, n) = owner.req("GET", "/rooms/q/nodes/1", None).await;
    assert_eq!(
        n["local"]["t"][0], 100.0,
        "the last batch is the one that stays"
    );

    // Subscribed too: each ack still comes before the delta of its tick, as from the
    // owner, though the record of that tick may reach the relay before the answer.
    w.send(&ClientMsg::subscribe(None, u32::MAX)).await;
    w.recv_until(|m| matches!(m, ServerMsg::Snapshot { .. }))
        .await;
    let mut last_delta = 0;
    for k in 0..30u64 {
        w.send(&ClientMsg::Edits {
            seq: 200 + k,
            ops: vec![Op::SetLocal {
                node: 1,
                t: Some([0.0, k as f32, 0.0]),
                r: None,
                s: None,
            }],
        })
        .await;
        loop {
            match w
                .recv_until(|m| matches!(m, ServerMsg::Ack { .. } | ServerMsg::Delta { .. }))
                .await
            {
                ServerMsg::Delta { tick, .. } => last_delta = tick,
                ServerMsg::Ack { seq, tick, .. } => {
                    assert_eq!(seq, 200 + k);
                    assert!(
                        last_delta < tick,
                        "batch {k}: the delta of tick {last_delta} came before the ack of tick {tick}"
                    );
                    break;
                }
                _ => unreachable!(),
            }
        }
    }
    // Deleted through the relay that holds a replica: the owner's 204 comes back,
    // though the lease is gone from the registry before the answer.
    let (st, b) = relay.req("DELETE", "/rooms/q", None).await;
    assert_eq!(st, 204, "{b}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_room_that_cannot_be_relayed_is_passed_on_to_its_owner() {
    let nats = cluster_support::Nats::start();
    let owner = Node::start_with("demo-owner", &nats, None, &["--demo"]);
    let other = Node::start("other", &nats);
    owner.wait_for_nodes(2).await;
    other.wait_for_nodes(2).await;
    assert_eq!(other.wait_owner("demo").await.0, "demo-owner");
    let mut w = ws(&other, "demo", Format::Bincode, cluster_support::ADMIN).await;
    w.send(&ClientMsg::subscribe(None, u32::MAX)).await;
    let ServerMsg::Snapshot { nodes, .. } = w.recv().await else {
        panic!("a snapshot first")
    };
    assert!(
        nodes.len() > 1_000,
        "the demo room's nodes ({})",
        nodes.len()
    );
    // The animation moves nodes every tick: frames flow through the passed-on socket.
    let mut frames = 0;
    while frames < 5 {
        if let ServerMsg::Delta { update, .. } = w.recv().await {
            assert!(!update.is_empty());
            frames += 1;
        }
    }
    assert_eq!(other.metric("canopy_cluster_websockets_passed").await, 1.0);
    assert_eq!(other.metric("canopy_cluster_replicas").await, 0.0);
    let (st, b) = other.req("GET", "/rooms/demo", None).await;
    assert_eq!(st, 200, "{b}");
}
