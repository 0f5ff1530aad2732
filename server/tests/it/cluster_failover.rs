//! Failover with real processes (`cluster_support/`): an owner killed with `-9` under
//! load is taken over by a surviving node from the room's journal in JetStream within
//! the lease plus 2 s; every acknowledged batch is in the new owner's state; the
//! surviving nodes' subscribers converge on it. A relay's replica follows a takeover
//! (same instance, records numbered on) without its subscribers subscribing again. A
//! compacted journal rebuilds the same room; a deleted room is not taken over.

use crate::cluster_support;
use crate::common;

use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use canopy_protocol::{ClientMsg, Format, Node as SceneNode, ServerMsg, codec};
use cluster_support::{ADMIN, LEASE_SECS, Node, three_nodes};
use futures_util::StreamExt;
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

type Mirror = Arc<Mutex<HashMap<u32, SceneNode>>>;

/// Every node of `room` at `node`, by id (`GET /rooms/{room}/nodes`).
async fn nodes_at(node: &Node, room: &str) -> Option<HashMap<u64, Value>> {
    let (st, all) = node.req("GET", &format!("/rooms/{room}/nodes"), None).await;
    (st == 200).then(|| {
        all["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| (n["id"].as_u64().unwrap(), n.clone()))
            .collect()
    })
}

/// An editor at `node`: adds one node per batch, ids `base + k`, one request at a time,
/// until `stop`. Answers the ids acknowledged and every id sent.
async fn editor(node: &Node, room: &str, base: u32, stop: Arc<AtomicBool>) -> (Vec<u32>, Vec<u32>) {
    let (mut acked, mut sent) = (Vec::new(), Vec::new());
    let mut k = 0;
    while !stop.load(Ordering::Acquire) {
        k += 1;
        let id = base + k;
        sent.push(id);
        let body = json!({"ops": [{"op": "add", "id": id, "local": {"t": [k as f32, 0.0, 0.0]}}]});
        let (st, _) = node
            .req("POST", &format!("/rooms/{room}/edits"), Some(body))
            .await;
        if st == 200 {
            acked.push(id);
        } else {
            // The owner is gone or the room is between owners: try again shortly.
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    (acked, sent)
}

/// A whole-room subscriber at `node` that subscribes again whenever its socket closes
/// (a relay drops its replica when the owner changes); its mirror is kept in `mirror`.
async fn subscriber(node: &Node, room: &str, mirror: Mirror, stop: Arc<AtomicBool>) -> usize {
    let mut subscriptions = 0;
    while !stop.load(Ordering::Acquire) {
        let url = format!(
            "{}/rooms/{room}/ws?format=bincode&token={ADMIN}",
            node.ws_base
        );
        let Ok((stream, _)) = tokio_tungstenite::connect_async(url).await else {
            tokio::time::sleep(Duration::from_millis(200)).await;
            continue;
        };
        let mut ws = common::Ws {
            stream,
            format: Format::Bincode,
        };
        ws.send(&ClientMsg::subscribe(None, u32::MAX)).await;
        subscriptions += 1;
        while !stop.load(Ordering::Acquire) {
            let next =
                match tokio::time::timeout(Duration::from_millis(500), ws.stream.next()).await {
                    Err(_) => continue,
                    Ok(Some(Ok(Message::Binary(b)))) => {
                        codec::decode_server(&b, Format::Bincode).unwrap()
                    }
                    Ok(Some(Ok(Message::Close(c)))) => {
                        eprintln!("subscriber at node {}: close {c:?}", node.name);
                        break;
                    }
                    Ok(None) => {
                        eprintln!("subscriber at node {}: ended", node.name);
                        break;
                    }
                    Ok(Some(Err(e))) => {
                        eprintln!("subscriber at node {}: error {e}", node.name);
                        break;
                    }
                    Ok(Some(Ok(_))) => continue,
                };
            let mut held = mirror.lock().unwrap();
            match next {
                ServerMsg::Snapshot { nodes, .. } => {
                    *held = nodes.into_iter().map(|n| (n.id, n)).collect();
                }
                ServerMsg::Delta {
                    upsert,
                    update,
                    remove,
                    ..
                } => cluster_support::apply_delta(&mut held, upsert, update, remove),
                ServerMsg::Closed { reason } => {
                    eprintln!("subscriber at node {}: closed {reason}", node.name);
                    break;
                }
                _ => {}
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    subscriptions
}

/// Waits until some node other than `old` owns `room` under a later epoch, as `at`
/// sees it; answers the owner and how long it took from `since`.
async fn wait_takeover(
    at: &Node,
    room: &str,
    old: &str,
    epoch: u64,
    since: Instant,
) -> (String, Duration) {
    let deadline = since + Duration::from_secs(LEASE_SECS + 20);
    loop {
        if let Some((owner, e)) = at.owner_of(room).await
            && owner != old
            && e > epoch
        {
            return (owner, since.elapsed());
        }
        assert!(Instant::now() < deadline, "room {room} is taken over");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_owner_killed_under_load_is_taken_over_with_every_acknowledged_batch() {
    let (_nats, mut nodes) = three_nodes().await;
    let (st, b) = nodes[0]
        .req("POST", "/rooms", Some(json!({"id": "w"})))
        .await;
    assert_eq!(st, 201, "{b}");
    let (owner_name, epoch) = nodes[0].wait_owner("w").await;
    let at = nodes.iter().position(|n| n.name == owner_name).unwrap();
    let owner = nodes.remove(at);
    let survivors = Arc::new(nodes);

    let stop = Arc::new(AtomicBool::new(false));
    let stop_subs = Arc::new(AtomicBool::new(false));
    let mut editors = Vec::new();
    for (i, _) in survivors.iter().enumerate() {
        let (survivors, stop) = (Arc::clone(&survivors), Arc::clone(&stop));
        editors.push(tokio::spawn(async move {
            editor(&survivors[i], "w", (i as u32 + 1) * 100_000, stop).await
        }));
    }
    let mirrors: Vec<Mirror> = survivors.iter().map(|_| Mirror::default()).collect();
    let mut subs = Vec::new();
    for (i, mirror) in mirrors.iter().enumerate() {
        let (survivors, stop, mirror) = (
            Arc::clone(&survivors),
            Arc::clone(&stop_subs),
            Arc::clone(mirror),
        );
        subs.push(tokio::spawn(async move {
            subscriber(&survivors[i], "w", mirror, stop).await
        }));
    }
    // Editing through the owner too, until it dies.
    let owner_stop = Arc::new(AtomicBool::new(false));
    let direct = {
        let stop = Arc::clone(&owner_stop);
        let base = owner.base.clone();
        tokio::spawn(async move {
            let http = reqwest::Client::new();
            let (mut acked, mut sent) = (Vec::new(), Vec::new());
            let mut k = 0;
            while !stop.load(Ordering::Acquire) {
                k += 1;
                let id = 900_000 + k;
                // Sent, whatever the answer: a batch the owner made durable just before
                // it was killed is in the room though its ack never came.
                sent.push(id);
                let r = http
                    .post(format!("{base}/rooms/w/edits"))
                    .bearer_auth(ADMIN)
                    .json(&json!({"ops": [{"op": "add", "id": id}]}))
                    .timeout(Duration::from_secs(2))
                    .send()
                    .await;
                match r {
                    Ok(r) if r.status() == 200 => acked.push(id),
                    Ok(_) => {}
                    Err(_) => break,
                }
            }
            (acked, sent)
        })
    };
    tokio::time::sleep(Duration::from_secs(3)).await;
    owner.signal("KILL");
    let killed = Instant::now();
    owner_stop.store(true, Ordering::Release);
    let (new_owner, took) = wait_takeover(&survivors[0], "w", &owner_name, epoch, killed).await;
    eprintln!("room w: owner {owner_name} killed; {new_owner} took over after {took:?}");
    assert!(
        took <= Duration::from_secs(LEASE_SECS + 2),
        "the lease moves within the lease + 2 s: {took:?}"
    );
    // Editing goes on at the new owner.
    tokio::time::sleep(Duration::from_secs(3)).await;
    stop.store(true, Ordering::Release);
    let (direct_acked, direct_sent) = direct.await.unwrap();
    let mut acked: BTreeSet<u32> = direct_acked.into_iter().collect();
    let mut sent: BTreeSet<u32> = direct_sent.into_iter().collect();
    for e in editors {
        let (a, s) = e.await.unwrap();
        assert!(
            a.len() > 5,
            "the editor got acks before and after: {}",
            a.len()
        );
        acked.extend(a);
        sent.extend(s);
    }
    let after = survivors.iter().find(|n| n.name == new_owner).unwrap();
    let state = nodes_at(after, "w")
        .await
        .expect("the new owner has the room");
    let ids: BTreeSet<u32> = state.keys().map(|&id| id as u32).collect();
    let lost: Vec<&u32> = acked.difference(&ids).collect();
    assert!(
        lost.is_empty(),
        "acknowledged batches lost in the takeover: {lost:?}"
    );
    assert!(
        ids.is_subset(&sent),
        "only batches that were sent are there"
    );
    eprintln!(
        "{} batches acknowledged, {} in the room, {} sent",
        acked.len(),
        ids.len(),
        sent.len()
    );
    // Both survivors' subscribers converge on the new owner's state.
    let deadline = Instant::now() + Duration::from_secs(15);
    for (i, mirror) in mirrors.iter().enumerate() {
        loop {
            let held: BTreeSet<u32> = mirror.lock().unwrap().keys().copied().collect();
            if held == ids {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "subscriber at {} converges: holds {} of {} nodes",
                survivors[i].name,
                held.len(),
                ids.len()
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        for (id, n) in mirror.lock().unwrap().iter() {
            let want = &state[&u64::from(*id)]["world"]["t"];
            let got = serde_json::to_value(n.world.t).unwrap();
            assert_eq!(&got, want, "node {id}'s world translation");
        }
    }
    stop_subs.store(true, Ordering::Release);
    for (i, s) in subs.into_iter().enumerate() {
        let subscriptions = s.await.unwrap();
        // At the new owner the replica gave way to the room itself (4000, subscribe
        // again); the other relay follows the takeover, or, if a record was stored but
        // never published before the kill, starts again.
        if survivors[i].name == new_owner {
            assert!(
                subscriptions >= 2,
                "the new owner's subscriber subscribed again"
            );
        }
    }
    for n in survivors.iter() {
        assert_eq!(n.owner_of("w").await.map(|o| o.0), Some(new_owner.clone()));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_compacted_journal_rebuilds_the_same_room() {
    let (_nats, mut nodes) = three_nodes().await;
    let (st, b) = nodes[0]
        .req("POST", "/rooms", Some(json!({"id": "big"})))
        .await;
    assert_eq!(st, 201, "{b}");
    let (owner_name, epoch) = nodes[0].wait_owner("big").await;
    let at = nodes.iter().position(|n| n.name == owner_name).unwrap();
    let owner = nodes.remove(at);
    // 12,000 nodes (past the compaction threshold of 10,000 ops) in a hierarchy, then
    // moves and removals after the compaction's start.
    let mut next = 1u32;
    for _ in 0..6 {
        let ops: Vec<Value> = (0..2000)
            .map(|i| {
                let id = next + i;
                let parent = if id % 10 == 1 { Value::Null } else { json!(id - 1) };
                json!({"op": "add", "id": id, "parent": parent,
                       "local": {"t": [1.0, (id % 7) as f32, 0.5], "r": [0.0, 0.38268343, 0.0, 0.9238795]}})
            })
            .collect();
        next += 2000;
        let (st, b) = owner
            .req("POST", "/rooms/big/edits", Some(json!({"ops": ops})))
            .await;
        assert_eq!(st, 200, "{b}");
    }
    // Two editors at once past the next compaction (12,000 more ops), so that records
    // arrive while the owner takes the compaction's start: none may be refused.
    let mut movers = Vec::new();
    for t in 0..2u32 {
        let base = owner.base.clone();
        movers.push(tokio::spawn(async move {
            let http = reqwest::Client::new();
            for b in 0..15u32 {
                let ops: Vec<Value> = (0..500u32)
                    .map(|i| {
                        let id = 1 + (t * 6000 + (b * 500 + i) % 6000);
                        json!({"op": "set_local", "node": id, "t": [b as f32, t as f32, 1.0]})
                    })
                    .collect();
                let r = http
                    .post(format!("{base}/rooms/big/edits"))
                    .bearer_auth(ADMIN)
                    .json(&json!({ "ops": ops }))
                    .send()
                    .await
                    .unwrap();
                let st = r.status().as_u16();
                assert_eq!(st, 200, "{}", r.text().await.unwrap());
            }
        }));
    }
    for m in movers {
        m.await.unwrap();
    }
    for k in 0..20u32 {
        let ops = json!([
            {"op": "set_local", "node": 1 + k * 10, "t": [k as f32, 2.0, 3.0]},
            {"op": "remove", "node": 5000 + k * 10},
        ]);
        let (st, b) = nodes[0]
            .req("POST", "/rooms/big/edits", Some(json!({"ops": ops})))
            .await;
        assert_eq!(st, 200, "{b}");
    }
    let before = nodes_at(&owner, "big").await.unwrap();
    owner.signal("KILL");
    let (new_owner, _) = wait_takeover(&nodes[0], "big", &owner_name, epoch, Instant::now()).await;
    let after = nodes.iter().find(|n| n.name == new_owner).unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    let rebuilt = loop {
        if let Some(s) = nodes_at(after, "big").await {
            break s;
        }
        assert!(Instant::now() < deadline, "the new owner serves the room");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(rebuilt.len(), before.len());
    for (id, n) in &before {
        assert_eq!(&rebuilt[id], n, "node {id} after the takeover");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deleted_room_is_not_taken_over() {
    let (_nats, mut nodes) = three_nodes().await;
    let (st, b) = nodes[0]
        .req("POST", "/rooms", Some(json!({"id": "gone"})))
        .await;
    assert_eq!(st, 201, "{b}");
    let (owner_name, _) = nodes[0].wait_owner("gone").await;
    let (st, b) = nodes[1].req("DELETE", "/rooms/gone", None).await;
    assert_eq!(st, 204, "{b}");
    let at = nodes.iter().position(|n| n.name == owner_name).unwrap();
    let owner = nodes.remove(at);
    owner.signal("KILL");
    // Past the lease and a few scans, nobody has it.
    tokio::time::sleep(Duration::from_secs(LEASE_SECS + 4)).await;
    for n in &nodes {
        assert_eq!(n.owner_of("gone").await, None);
        let (st, _) = n.req("GET", "/rooms/gone", None).await;
        assert_eq!(st, 404);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_relay_follows_a_takeover_without_its_subscribers_subscribing_again() {
    let (_nats, mut nodes) = three_nodes().await;
    let (st, b) = nodes[0]
        .req("POST", "/rooms", Some(json!({"id": "r"})))
        .await;
    assert_eq!(st, 201, "{b}");
    let (owner_name, epoch) = nodes[0].wait_owner("r").await;
    let at = nodes.iter().position(|n| n.name == owner_name).unwrap();
    let owner = nodes.remove(at);
    let ops: Vec<Value> = (1..=50).map(|id| json!({"op": "add", "id": id})).collect();
    let (st, b) = owner
        .req("POST", "/rooms/r/edits", Some(json!({"ops": ops})))
        .await;
    assert_eq!(st, 200, "{b}");
    let survivors = Arc::new(nodes);
    let stop = Arc::new(AtomicBool::new(false));
    let mirrors: Vec<Mirror> = survivors.iter().map(|_| Mirror::default()).collect();
    let mut subs = Vec::new();
    for (i, mirror) in mirrors.iter().enumerate() {
        let (survivors, stop, mirror) = (
            Arc::clone(&survivors),
            Arc::clone(&stop),
            Arc::clone(mirror),
        );
        subs.push(tokio::spawn(async move {
            subscriber(&survivors[i], "r", mirror, stop).await
        }));
    }
    // Both relays hold the room; the owner's records are all published.
    let deadline = Instant::now() + Duration::from_secs(10);
    while mirrors.iter().any(|m| m.lock().unwrap().len() != 50) {
        assert!(
            Instant::now() < deadline,
            "the relays' subscribers have the room"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    owner.signal("KILL");
    let (new_owner, _) =
        wait_takeover(&survivors[0], "r", &owner_name, epoch, Instant::now()).await;
    let n = survivors.iter().position(|s| s.name == new_owner).unwrap();
    let relay = 1 - n;
    // Edits at the new owner reach the other node's subscriber on its first socket.
    let ops: Vec<Value> = (51..=60).map(|id| json!({"op": "add", "id": id})).collect();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let (st, _) = survivors[n]
            .req("POST", "/rooms/r/edits", Some(json!({"ops": ops.clone()})))
            .await;
        if st == 200 {
            break;
        }
        assert!(Instant::now() < deadline, "the new owner takes edits");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let want: BTreeSet<u32> = (1..=60).collect();
    let deadline = Instant::now() + Duration::from_secs(10);
    for m in &mirrors {
        while m.lock().unwrap().keys().copied().collect::<BTreeSet<u32>>() != want {
            assert!(
                Instant::now() < deadline,
                "every subscriber has the new nodes"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    stop.store(true, Ordering::Release);
    let counts: Vec<usize> = futures_util::future::join_all(subs)
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
    assert_eq!(
        counts[relay], 1,
        "the relay's subscriber followed the takeover on its first subscription"
    );
}
