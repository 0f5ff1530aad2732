//! Cluster mode under failures, with real processes (`cluster_support/`):
//!
//! - Fencing: an owner paused (SIGSTOP) past its lease, whose room is created again on
//!   another node meanwhile, takes no write once resumed and steps down.
//! - NATS away: the owner keeps answering reads, refuses edits once its lease has
//!   lapsed, and takes edits again, still the only owner, once NATS is back.
//! - An owner with a data dir killed (`kill -9`) under load and restarted in place
//!   takes its rooms back under a new epoch, with every acknowledged batch.

mod cluster_support;
mod common;

use std::time::{Duration, Instant};

use canopy_protocol::{ClientMsg, Format, Op, ServerMsg, Transform};
use cluster_support::{LEASE_SECS, Node, three_nodes, ws};
use serde_json::json;

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
