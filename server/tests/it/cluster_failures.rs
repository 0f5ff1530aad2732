//! Cluster mode under failures, with real processes (`cluster_support/`):
//!
//! - Fencing: an owner paused (SIGSTOP) past its lease is taken over by a live node
//!   from the room's journal; once resumed it takes no write and steps down, telling
//!   its subscribers the room is `moving`.
//! - NATS away: the owner keeps answering reads; an edit it applied waits for the
//!   journal, later ones are refused (never applied) once the journal stalls and once
//!   the lease lapses; with NATS back there is one owner, holding every acknowledged
//!   batch and no refused one.
//! - An owner killed (`kill -9`) under load and restarted in place: the room is back
//!   (taken over by the other node, or by the restarted one) under a new epoch, with
//!   every acknowledged batch.

use crate::cluster_support;

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
    // Past the lease, a live node takes the room over from its journal, under a later
    // epoch, with what was acknowledged.
    let deadline = Instant::now() + Duration::from_secs(LEASE_SECS + 10);
    let (new_owner, new_epoch) = loop {
        if let Some((o, e)) = others[0].owner_of("f").await
            && o != owner_name
        {
            break (o, e);
        }
        assert!(Instant::now() < deadline, "the room is taken over");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(new_epoch > epoch, "epochs grow: {new_epoch} after {epoch}");
    // Creating it again is refused: it exists.
    let (st, b) = others[1]
        .req("POST", "/rooms", Some(json!({"id": "f"})))
        .await;
    assert_eq!(b["error"]["code"], "room_exists", "{st} {b}");

    owner.signal("CONT");
    // The resumed owner's first edit: refused (its lease lapsed, or it has just stepped
    // down and its view of the registry still names it: 503, never `unknown_room`), or,
    // once its view caught up, passed to the new owner. Never applied to its stale copy.
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
    // Its subscribers were told the room moved (reconnect anywhere), never that it
    // was deleted.
    let mut closed = None;
    while let Some(m) = old_sub.recv_within(5.0).await {
        if let ServerMsg::Closed { reason } = m {
            closed = Some(reason);
            break;
        }
    }
    assert_eq!(
        closed.as_deref(),
        Some("moving"),
        "the stale room's subscriber is told the room moved"
    );
    // Everyone, the old owner included, now reaches the room at its new owner, which
    // has what was acknowledged, and the resumed owner's edit only if it was passed on.
    let ids = |all: &serde_json::Value| -> Vec<u64> {
        all["nodes"]
            .as_array()
            .map(|a| a.iter().map(|n| n["id"].as_u64().unwrap()).collect())
            .unwrap_or_default()
    };
    let (_, all) = others[0].req("GET", "/rooms/f/nodes", None).await;
    let new_room = ids(&all);
    assert_eq!(new_room, if st == 200 { vec![1, 2] } else { vec![1] });
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let (st, all) = owner.req("GET", "/rooms/f/nodes", None).await;
        if st == 200 && ids(&all) == new_room {
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

/// One edit (`add id`) at `base`, answered within 60 s: its status and body.
async fn edit_at(base: String, id: u32) -> (u32, u16, serde_json::Value) {
    let r = reqwest::Client::new()
        .post(format!("{base}/rooms/p/edits"))
        .bearer_auth(cluster_support::ADMIN)
        .json(&json!({"ops": [{"op": "add", "id": id}]}))
        .timeout(Duration::from_secs(60))
        .send()
        .await
        .unwrap();
    let st = r.status().as_u16();
    (id, st, r.json().await.unwrap_or_default())
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
    assert_eq!(edit_at(owner.base.clone(), 1).await.1, 200);

    nats.stop();
    // Reads of the owner's own rooms go on.
    assert_eq!(owner.req("GET", "/rooms/p/nodes/1", None).await.0, 200);
    // Edits: one applied before the journal is seen to stall waits for it (its ack
    // comes once NATS is back); after that they are refused, never applied, first
    // for the stalled journal and, past the lease, for the lease.
    let mut edits = tokio::task::JoinSet::new();
    let mut next = 2;
    let deadline = Instant::now() + Duration::from_secs(LEASE_SECS + 5);
    let mut refused_for_lease = false;
    let mut done = Vec::new();
    while !refused_for_lease {
        edits.spawn(edit_at(owner.base.clone(), next));
        next += 1;
        tokio::time::sleep(Duration::from_millis(200)).await;
        while let Some(r) = edits.try_join_next() {
            let (id, st, b) = r.unwrap();
            if st == 503 {
                let why = b["error"]["message"].as_str().unwrap();
                assert!(why.contains("journal") || why.contains("lease"), "{b}");
                refused_for_lease |= why.contains("lease");
            } else {
                assert_eq!(st, 200, "{b}");
            }
            done.push((id, st));
        }
        assert!(Instant::now() < deadline, "edits stop within the lease");
    }

    nats.restart();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let (_, st, _) = edit_at(owner.base.clone(), next).await;
        if st == 200 {
            done.push((next, st));
            break;
        }
        assert!(Instant::now() < deadline, "edits come back with NATS");
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    while let Some(r) = edits.join_next().await {
        let (id, st, _) = r.unwrap();
        done.push((id, st));
    }
    let mut owners = std::collections::BTreeSet::new();
    for n in &nodes {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let o = n.owner_of("p").await.map(|o| o.0);
            if let Some(o) = o {
                owners.insert(o);
                break;
            }
            assert!(Instant::now() < deadline, "{} sees an owner of p", n.name);
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
    assert_eq!(owners.len(), 1, "one owner: {owners:?}");
    // What was refused is not there; what was acknowledged is.
    let (_, all) = nodes[0].req("GET", "/rooms/p/nodes", None).await;
    let ids: Vec<u64> = all["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["id"].as_u64().unwrap())
        .collect();
    assert!(ids.contains(&1), "{ids:?}");
    for (id, st) in done {
        match st {
            200 => assert!(
                ids.contains(&u64::from(id)),
                "acknowledged {id} is there: {ids:?}"
            ),
            _ => assert!(
                !ids.contains(&u64::from(id)),
                "refused {id} is not: {ids:?}"
            ),
        }
    }
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
    // The restarted node takes its own lease back at once; the other would take the
    // room over had the restart taken longer than the lease.
    assert!(holder == owner_node.name || holder == via.name, "{holder}");
    assert!(
        new_epoch > epoch,
        "the room is held under a new epoch ({new_epoch} > {epoch})"
    );
}
