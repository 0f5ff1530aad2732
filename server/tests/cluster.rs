//! Cluster mode with real processes: one `nats-server` and three `canopy` nodes on
//! loopback (`cluster_support/`).
//!
//! - Rooms are placed across the nodes (within 20% of even), and every node answers
//!   every route of every room: reads, edits and room commands passed to the owner,
//!   WebSockets passed on to it, `GET /rooms` gathered. Editors on all three nodes send
//!   random batches while whole-room and region subscribers on all three mirror the
//!   room; every mirror ends equal to the owner's state.
//! - Fencing: an owner paused (SIGSTOP) past its lease, whose room is created again on
//!   another node meanwhile, takes no write once resumed and steps down.
//! - NATS away: the owner keeps answering reads, refuses edits once its lease has
//!   lapsed, and takes edits again, still the only owner, once NATS is back.
//! - An owner with a data dir killed (`kill -9`) under load and restarted in place
//!   takes its rooms back under a new epoch, with every acknowledged batch.

mod cluster_support;
mod common;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use canopy_protocol::message::Region;
use canopy_protocol::{ClientMsg, Format, Node as SceneNode, Op, ServerMsg, Transform};
use cluster_support::{LEASE_SECS, Node, three_nodes};
use glam::{Mat3, Quat, Vec3};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde_json::json;

async fn ws(node: &Node, room: &str, format: Format, token: &str) -> common::Ws {
    let url = format!(
        "{}/rooms/{room}/ws?format={}&token={token}",
        node.ws_base,
        format.as_str()
    );
    let (stream, answer) = tokio_tungstenite::connect_async(url).await.unwrap();
    assert!(
        answer.headers().contains_key("canopy-room-instance"),
        "the owner's upgrade headers come through"
    );
    common::Ws { stream, format }
}

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
                for n in upsert {
                    mirror.insert(n.id, n);
                }
                for u in update {
                    mirror
                        .get_mut(&u.id)
                        .expect("an update of a held node")
                        .world = u.world;
                }
                for id in remove {
                    assert!(mirror.remove(&id).is_some(), "a remove of a held node");
                }
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
async fn a_paused_owner_takes_no_write_after_its_lease_and_steps_down() {
    let (_nats, nodes) = three_nodes().await;
    let (st, b) = nodes[0]
        .req("POST", "/rooms", Some(json!({"id": "f"})))
        .await;
    assert_eq!(st, 201, "{b}");
    let (owner_name, epoch) = nodes[0].wait_owner("f").await;
    let owner = nodes.iter().find(|n| n.name == owner_name).unwrap();
    let others: Vec<&Node> = nodes.iter().filter(|n| n.name != owner_name).collect();
    let (st, _) = owner
        .req(
            "POST",
            "/rooms/f/edits",
            Some(json!({"ops": [{"op": "add", "id": 1}]})),
        )
        .await;
    assert_eq!(st, 200);
    let mut old_sub = ws(owner, "f", Format::Json, cluster_support::ADMIN).await;
    old_sub.send(&ClientMsg::subscribe(None, u32::MAX)).await;
    assert!(matches!(old_sub.recv().await, ServerMsg::Snapshot { .. }));

    owner.signal("STOP");
    // Past the lease, the registry forgets the room and the paused node.
    let deadline = Instant::now() + Duration::from_secs(LEASE_SECS + 10);
    while others[0].owner_of("f").await.is_some() {
        assert!(Instant::now() < deadline, "the lease expires");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    others[0].wait_for_nodes(2).await;
    // The room is created again, on a live node, under a later epoch, once the
    // registry has expired the old lease (it may lag the view by a moment: until then
    // the id is taken).
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let (st, b) = others[0]
            .req("POST", "/rooms", Some(json!({"id": "f"})))
            .await;
        if st == 201 {
            break;
        }
        assert_eq!(b["error"]["code"], "room_exists", "{b}");
        assert!(Instant::now() < deadline, "the registry expires the lease");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (new_owner, new_epoch) = others[0].wait_owner("f").await;
    assert_ne!(new_owner, owner_name);
    assert!(new_epoch > epoch, "epochs grow: {new_epoch} after {epoch}");

    owner.signal("CONT");
    // The resumed owner's first edit: refused (its lease lapsed), or, once it has
    // stepped down, passed to the new owner. Never applied to its stale copy.
    let (st, b) = owner
        .req(
            "POST",
            "/rooms/f/edits",
            Some(json!({"ops": [{"op": "add", "id": 2}]})),
        )
        .await;
    assert!(st == 503 || st == 200, "{st} {b}");
    if st == 503 {
        assert!(
            b["error"]["message"].as_str().unwrap().contains("lease"),
            "{b}"
        );
    }
    let deadline = Instant::now() + Duration::from_secs(LEASE_SECS + 5);
    while owner.metric("canopy_cluster_leases_lost_total").await < 1.0 {
        assert!(Instant::now() < deadline, "the old owner steps down");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Its subscribers were told the room is gone here.
    let mut closed = false;
    while let Some(m) = old_sub.recv_within(5.0).await {
        if matches!(m, ServerMsg::Closed { .. }) {
            closed = true;
            break;
        }
    }
    assert!(closed, "the stale room's subscriber got closed");
    // Everyone, the old owner included, now reaches the new room, which has only what
    // was acknowledged by it.
    let new_room: Vec<u64> = {
        let (_, all) = others[0].req("GET", "/rooms/f/nodes", None).await;
        all["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["id"].as_u64().unwrap())
            .collect()
    };
    assert_eq!(new_room, if st == 200 { vec![2] } else { vec![] });
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let (st, all) = owner.req("GET", "/rooms/f/nodes", None).await;
        let ids: Vec<u64> = all["nodes"]
            .as_array()
            .map(|a| a.iter().map(|n| n["id"].as_u64().unwrap()).collect())
            .unwrap_or_default();
        if st == 200 && ids == new_room {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the old owner passes reads on: {st} {all}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    for n in &nodes {
        assert_eq!(n.owner_of("f").await.map(|o| o.0), Some(new_owner.clone()));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_nats_away_reads_go_on_edits_stop_and_come_back_with_one_owner() {
    let (mut nats, nodes) = three_nodes().await;
    let (st, b) = nodes[0]
        .req("POST", "/rooms", Some(json!({"id": "p"})))
        .await;
    assert_eq!(st, 201, "{b}");
    let (owner_name, _) = nodes[0].wait_owner("p").await;
    let owner = nodes.iter().find(|n| n.name == owner_name).unwrap();
    let add = |id: u32| Some(json!({"ops": [{"op": "add", "id": id}]}));
    assert_eq!(owner.req("POST", "/rooms/p/edits", add(1)).await.0, 200);

    nats.stop();
    // Reads of the owner's own rooms go on.
    assert_eq!(owner.req("GET", "/rooms/p/nodes/1", None).await.0, 200);
    // Edits stop once the lease has lapsed by the owner's clock (at most one lease).
    let deadline = Instant::now() + Duration::from_secs(LEASE_SECS + 3);
    let mut next = 2;
    loop {
        let (st, b) = owner.req("POST", "/rooms/p/edits", add(next)).await;
        next += 1;
        if st == 503 {
            assert!(
                b["error"]["message"].as_str().unwrap().contains("lease"),
                "{b}"
            );
            break;
        }
        assert_eq!(st, 200, "{b}");
        assert!(Instant::now() < deadline, "edits stop within the lease");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let refused_from = next - 1;

    nats.restart();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let (st, _) = owner.req("POST", "/rooms/p/edits", add(next)).await;
        if st == 200 {
            break;
        }
        assert!(Instant::now() < deadline, "edits come back with NATS");
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    for n in &nodes {
        let deadline = Instant::now() + Duration::from_secs(10);
        while n.owner_of("p").await.map(|o| o.0) != Some(owner_name.clone()) {
            assert!(Instant::now() < deadline, "{} sees one owner of p", n.name);
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
    // What was refused is not there; what was acknowledged is.
    let (_, all) = nodes[0].req("GET", "/rooms/p/nodes", None).await;
    let ids: Vec<u64> = all["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["id"].as_u64().unwrap())
        .collect();
    assert!(!ids.contains(&(refused_from as u64)), "{ids:?}");
    assert!(ids.contains(&1) && ids.contains(&(next as u64)), "{ids:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_owner_killed_and_restarted_in_place_takes_its_rooms_back_with_every_ack() {
    let nats = cluster_support::Nats::start();
    let dirs = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    let mut nodes = [
        Node::start_in("d", &nats, Some(dirs[0].path())),
        Node::start_in("e", &nats, Some(dirs[1].path())),
    ];
    for n in &nodes {
        n.wait_for_nodes(2).await;
    }
    let (st, b) = nodes[0]
        .req("POST", "/rooms", Some(json!({"id": "k"})))
        .await;
    assert_eq!(st, 201, "{b}");
    let (holder, epoch) = nodes[0].wait_owner("k").await;
    let (first, second) = nodes.split_at_mut(1);
    let (owner_node, via) = if holder == "d" {
        (&mut first[0], &second[0])
    } else {
        (&mut second[0], &first[0])
    };
    // Edits through the other node, pipelined over a passed-on WebSocket, until the kill.
    let mut w = ws(via, "k", Format::Bincode, cluster_support::ADMIN).await;
    let mut acked = Vec::new();
    let mut seq = 0u64;
    let kill_after = 40;
    while acked.len() < kill_after {
        seq += 1;
        let id = seq as u32;
        w.send(&ClientMsg::Edits {
            seq,
            ops: vec![Op::Add {
                id: Some(id),
                parent: None,
                local: Transform::IDENTITY,
                extent: [0.5; 3],
                mask: 1,
            }],
        })
        .await;
        if let ServerMsg::Ack { seq, .. } = w
            .recv_until(|m| matches!(m, ServerMsg::Ack { .. } | ServerMsg::Error { .. }))
            .await
        {
            acked.push(seq as u32);
        }
    }
    // A few more in flight as it dies.
    for _ in 0..5 {
        seq += 1;
        w.send(&ClientMsg::Edits {
            seq,
            ops: vec![Op::Add {
                id: Some(seq as u32),
                parent: None,
                local: Transform::IDENTITY,
                extent: [0.5; 3],
                mask: 1,
            }],
        })
        .await;
    }
    owner_node.kill_and_restart();
    // The other node sees the restarted owner's new epoch (and drops any replica of
    // the old one), then reads the room from it.
    let deadline = Instant::now() + Duration::from_secs(LEASE_SECS + 15);
    while via.owner_of("k").await.is_none_or(|(_, e)| e == epoch) {
        assert!(
            Instant::now() < deadline,
            "a new epoch within the lease + 15 s"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let ids: Vec<u32> = loop {
        let (st, all) = via.req("GET", "/rooms/k/nodes", None).await;
        if st == 200 {
            break all["nodes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|n| n["id"].as_u64().unwrap() as u32)
                .collect();
        }
        assert!(
            Instant::now() < deadline,
            "room k back within the lease + 15 s: {st} {all}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    for id in &acked {
        assert!(
            ids.contains(id),
            "acknowledged batch {id} survived the kill: {ids:?}"
        );
    }
    let (holder, new_epoch) = via.wait_owner("k").await;
    assert_eq!(holder, owner_node.name);
    assert!(
        new_epoch > epoch,
        "a restarted owner holds a new epoch ({new_epoch} > {epoch})"
    );
}
