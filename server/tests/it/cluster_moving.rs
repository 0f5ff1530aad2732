//! What clients see while a room moves between nodes, with real processes
//! (`cluster_support/`): through an owner killed and restarted in place, an owner
//! killed for good, and an owner paused (SIGSTOP) past its lease, readers, editors and
//! subscribers on every node are told `moving` (503 with `Retry-After`, close 4002) or
//! to subscribe again (4000), never `unknown_room` nor "room deleted", and every 503
//! carries `Retry-After`; every subscriber ends with the owner's state. A relay's
//! replica of a deleted room serves no read once it is gone, and its subscribers are
//! told the room was deleted; one that falls out of step with its owner is unloaded at
//! once and serves no read after.

use crate::cluster_support;
use crate::common;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use canopy_protocol::{ClientMsg, Format, Node as SceneNode, ServerMsg, codec};
use cluster_support::{ADMIN, LEASE_SECS, Node, three_nodes};
use futures_util::StreamExt;
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::{self, Message};

/// What the clients were told, by kind ("unknown_room", "room deleted", "moving",
/// "resubscribe", or the status and code of anything else), with one example each.
#[derive(Default, Debug)]
struct Tally {
    seen: BTreeMap<String, (usize, String)>,
}

type Shared<T> = Arc<Mutex<T>>;

impl Tally {
    fn note(tally: &Shared<Tally>, kind: &str, example: String) {
        let mut t = tally.lock().unwrap();
        let entry = t.seen.entry(kind.to_string()).or_insert((0, example));
        entry.0 += 1;
    }

    fn count(&self, kind: &str) -> usize {
        self.seen.get(kind).map_or(0, |e| e.0)
    }
}

/// The kind of an HTTP error answer; a `503` must say when to try again.
fn http_kind(status: u16, retry_after: bool, body: &Value) -> String {
    match (status, body["error"]["code"].as_str()) {
        (404, Some("unknown_room")) => "unknown_room".into(),
        (503, Some("overloaded")) if retry_after => "moving".into(),
        (503, Some("overloaded")) => "503 without Retry-After".into(),
        (s, code) => format!("{s} {}", code.unwrap_or("?")),
    }
}

/// Sends `request` (with a JSON `body`): the status, whether it had `Retry-After`, and
/// the body; `None` when no answer came (the node is down).
async fn ask(request: reqwest::RequestBuilder, body: Option<&Value>) -> Option<(u16, bool, Value)> {
    let request = match body {
        Some(b) => request.json(b),
        None => request,
    };
    let answer = request.send().await.ok()?;
    let status = answer.status().as_u16();
    let retry_after = answer.headers().contains_key(reqwest::header::RETRY_AFTER);
    let body = answer.json::<Value>().await.unwrap_or(Value::Null);
    Some((status, retry_after, body))
}

/// Reads `room` at `base` until `stop`, noting every error answer.
async fn reader(base: String, room: &'static str, tally: Shared<Tally>, stop: Arc<AtomicBool>) {
    let http = reqwest::Client::new();
    while !stop.load(Ordering::Acquire) {
        let r = common::bearer_request(
            &http,
            "GET",
            format!("{base}/rooms/{room}/nodes"),
            ADMIN,
            Duration::from_secs(20),
        );
        match ask(r, None).await {
            Some((200, _, _)) => {}
            Some((st, retry, body)) => Tally::note(
                &tally,
                &http_kind(st, retry, &body),
                format!("GET {st} {body}"),
            ),
            // The node is down (killed): not an answer.
            None => {}
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Adds one node per batch at `base` (ids from `first`), until `stop`; answers the ids
/// acknowledged.
async fn editor(
    base: String,
    room: &'static str,
    first: u32,
    tally: Shared<Tally>,
    stop: Arc<AtomicBool>,
) -> Vec<u32> {
    let http = reqwest::Client::new();
    let mut acked = Vec::new();
    let mut id = first;
    while !stop.load(Ordering::Acquire) {
        id += 1;
        let r = common::bearer_request(
            &http,
            "POST",
            format!("{base}/rooms/{room}/edits"),
            ADMIN,
            Duration::from_secs(30),
        );
        let body = json!({"ops": [{"op": "add", "id": id}]});
        match ask(r, Some(&body)).await {
            Some((200, _, _)) => acked.push(id),
            Some((st, retry, body)) => {
                let kind = http_kind(st, retry, &body);
                Tally::note(&tally, &kind, format!("POST {st} {body}"));
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            None => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
    acked
}

/// A whole-room subscriber at `ws_base` that reconnects whenever it is closed, keeping
/// its mirror in `mirror` and noting how each connection ended or was refused.
async fn subscriber(
    ws_base: String,
    room: &'static str,
    mirror: Shared<HashMap<u32, SceneNode>>,
    tally: Shared<Tally>,
    stop: Arc<AtomicBool>,
) {
    while !stop.load(Ordering::Acquire) {
        let url = format!("{ws_base}/rooms/{room}/ws?format=bincode&token={ADMIN}");
        let stream = match tokio_tungstenite::connect_async(url).await {
            Ok((stream, _)) => stream,
            Err(tungstenite::Error::Http(answer)) => {
                let status = answer.status().as_u16();
                let body: Value = answer
                    .body()
                    .as_deref()
                    .and_then(|b| serde_json::from_slice(b).ok())
                    .unwrap_or(Value::Null);
                let retry = answer.headers().contains_key("retry-after");
                Tally::note(
                    &tally,
                    &http_kind(status, retry, &body),
                    format!("upgrade {status} {body}"),
                );
                tokio::time::sleep(Duration::from_millis(200)).await;
                continue;
            }
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(200)).await;
                continue;
            }
        };
        let mut ws = common::Ws {
            stream,
            format: Format::Bincode,
        };
        ws.send(&ClientMsg::subscribe(None, u32::MAX)).await;
        follow(&mut ws, &mirror, &tally, &stop).await;
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Keeps `mirror` from one subscription until it ends (or `stop`).
async fn follow(
    ws: &mut common::Ws,
    mirror: &Shared<HashMap<u32, SceneNode>>,
    tally: &Shared<Tally>,
    stop: &AtomicBool,
) {
    while !stop.load(Ordering::Acquire) {
        let msg = match tokio::time::timeout(Duration::from_millis(300), ws.stream.next()).await {
            Err(_) => continue,
            Ok(Some(Ok(Message::Binary(b)))) => codec::decode_server(&b, Format::Bincode).unwrap(),
            Ok(Some(Ok(Message::Close(frame)))) => {
                let (code, reason) = frame.map_or((1005, String::new()), |f| {
                    (u16::from(f.code), f.reason.to_string())
                });
                let kind = match code {
                    4002 => "moving".to_string(),
                    4000 => "resubscribe".to_string(),
                    _ if reason == "room deleted" => "room deleted".to_string(),
                    _ => format!("close {code}"),
                };
                Tally::note(tally, &kind, format!("close {code} {reason}"));
                return;
            }
            Ok(Some(Ok(_))) => continue,
            // The node went away (killed): reconnect.
            Ok(None) | Ok(Some(Err(_))) => return,
        };
        let mut held = mirror.lock().unwrap();
        match msg {
            ServerMsg::Snapshot { nodes, .. } => {
                *held = nodes.into_iter().map(|n| (n.id, n)).collect();
            }
            ServerMsg::Delta {
                upsert,
                update,
                remove,
                ..
            } => cluster_support::apply_delta(&mut held, upsert, update, remove),
            ServerMsg::Error { code, message, .. } => {
                let kind = match code {
                    canopy_protocol::ErrorCode::UnknownRoom => "unknown_room".to_string(),
                    other => format!("ws error {other:?}"),
                };
                Tally::note(tally, &kind, message);
            }
            // The reason is tallied with the close frame that follows.
            _ => {}
        }
    }
}

/// The ids of `room` at `node`, once it answers 200 (within 20 s).
async fn ids_at(node: &Node, room: &str) -> BTreeSet<u32> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let (st, all) = node.req("GET", &format!("/rooms/{room}/nodes"), None).await;
        if st == 200 {
            return all["nodes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|n| n["id"].as_u64().unwrap() as u32)
                .collect();
        }
        assert!(
            Instant::now() < deadline,
            "{} serves {room}: {st} {all}",
            node.name
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Waits until `at` sees `room` owned under an epoch above `epoch` by a node other than
/// `not` (when given); answers the owner and its epoch.
async fn wait_new_owner(at: &Node, room: &str, epoch: u64, not: Option<&str>) -> (String, u64) {
    let deadline = Instant::now() + Duration::from_secs(LEASE_SECS + 20);
    loop {
        if let Some((owner, e)) = at.owner_of(room).await
            && e > epoch
            && not != Some(owner.as_str())
        {
            return (owner, e);
        }
        assert!(Instant::now() < deadline, "room {room} gets a new owner");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn index_of(nodes: &[Node], name: &str) -> usize {
    nodes.iter().position(|n| n.name == name).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn through_kills_and_a_pause_clients_are_told_moving_never_unknown_or_deleted() {
    const ROOM: &str = "mv";
    let (_nats, mut nodes) = three_nodes().await;
    let (st, b) = nodes[0]
        .req("POST", "/rooms", Some(json!({"id": ROOM})))
        .await;
    assert_eq!(st, 201, "{b}");
    let (owner, mut epoch) = nodes[0].wait_owner(ROOM).await;

    let tally: Shared<Tally> = Arc::default();
    let stop_edits = Arc::new(AtomicBool::new(false));
    let stop_all = Arc::new(AtomicBool::new(false));
    let mut editors = Vec::new();
    let mut others = Vec::new();
    let mut mirrors = Vec::new();
    for (k, n) in nodes.iter().enumerate() {
        let (t, se, sa) = (
            Arc::clone(&tally),
            Arc::clone(&stop_edits),
            Arc::clone(&stop_all),
        );
        editors.push(tokio::spawn(editor(
            n.base.clone(),
            ROOM,
            (k as u32 + 1) * 100_000,
            t,
            se,
        )));
        let (t, sa2) = (Arc::clone(&tally), Arc::clone(&sa));
        others.push(tokio::spawn(reader(n.base.clone(), ROOM, t, sa2)));
        let mirror: Shared<HashMap<u32, SceneNode>> = Arc::default();
        mirrors.push((n.name.clone(), Arc::clone(&mirror)));
        others.push(tokio::spawn(subscriber(
            n.ws_base.clone(),
            ROOM,
            mirror,
            Arc::clone(&tally),
            sa,
        )));
    }
    tokio::time::sleep(Duration::from_secs(1)).await;

    // 1. The owner killed and restarted in place at once: it answers `moving` until it
    //    has its room back (or another node took it).
    let at = index_of(&nodes, &owner);
    nodes[at].kill_and_restart();
    let watcher = (at + 1) % 3;
    let (owner, e) = wait_new_owner(&nodes[watcher], ROOM, epoch, None).await;
    epoch = e;
    tokio::time::sleep(Duration::from_secs(1)).await;

    // 2. The owner killed for good (it comes back only once another node has the room).
    let at = index_of(&nodes, &owner);
    nodes[at].signal("KILL");
    let watcher = (at + 1) % 3;
    let (owner, e) =
        wait_new_owner(&nodes[watcher], ROOM, epoch, Some(&nodes[at].name.clone())).await;
    epoch = e;
    nodes[at].kill_and_restart();
    tokio::time::sleep(Duration::from_secs(1)).await;

    // 3. The owner paused past its lease, then resumed once another node has the room.
    let at = index_of(&nodes, &owner);
    nodes[at].signal("STOP");
    let watcher = (at + 1) % 3;
    let paused = nodes[at].name.clone();
    wait_new_owner(&nodes[watcher], ROOM, epoch, Some(&paused)).await;
    nodes[at].signal("CONT");
    tokio::time::sleep(Duration::from_secs(2)).await;

    stop_edits.store(true, Ordering::Release);
    let mut acked = BTreeSet::new();
    for e in editors {
        acked.extend(e.await.unwrap());
    }
    // Every subscriber, wherever it is, comes to hold the owner's state.
    let (owner, _) = nodes[watcher].wait_owner(ROOM).await;
    let owner_node = &nodes[index_of(&nodes, &owner)];
    let held = ids_at(owner_node, ROOM).await;
    assert!(
        acked.is_subset(&held),
        "every acknowledged batch is in the room"
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    for (name, mirror) in &mirrors {
        loop {
            let mine: BTreeSet<u32> = mirror.lock().unwrap().keys().copied().collect();
            if mine == held {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "the subscriber at {name} holds the owner's {} nodes, not {} of its own",
                held.len(),
                mine.len()
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    stop_all.store(true, Ordering::Release);
    for t in others {
        t.await.unwrap();
    }
    let tally = tally.lock().unwrap();
    eprintln!("what clients saw through the moves: {:?}", tally.seen);
    assert_eq!(tally.count("unknown_room"), 0, "{:?}", tally.seen);
    assert_eq!(tally.count("room deleted"), 0, "{:?}", tally.seen);
    assert_eq!(
        tally.count("503 without Retry-After"),
        0,
        "{:?}",
        tally.seen
    );
    assert!(!acked.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_relays_replica_of_a_deleted_room_serves_no_read_once_it_is_gone() {
    const ROOM: &str = "gone";
    let (_nats, nodes) = three_nodes().await;
    let (st, b) = nodes[0]
        .req("POST", "/rooms", Some(json!({"id": ROOM})))
        .await;
    assert_eq!(st, 201, "{b}");
    let (owner, _) = nodes[0].wait_owner(ROOM).await;
    let owner = &nodes[index_of(&nodes, &owner)];
    let relay = nodes.iter().find(|n| n.name != owner.name).unwrap();
    for id in [1, 2] {
        let (st, b) = owner
            .req(
                "POST",
                &format!("/rooms/{ROOM}/edits"),
                Some(json!({"ops": [{"op": "add", "id": id}]})),
            )
            .await;
        assert_eq!(st, 200, "{b}");
    }
    // A subscriber at the relay, served from its replica.
    let mut sub = cluster_support::ws(relay, ROOM, Format::Json, ADMIN).await;
    sub.send(&ClientMsg::subscribe(None, u32::MAX)).await;
    assert!(matches!(sub.recv().await, ServerMsg::Snapshot { .. }));
    assert_eq!(ids_at(relay, ROOM).await, BTreeSet::from([1, 2]));

    let (st, b) = owner.req("DELETE", &format!("/rooms/{ROOM}"), None).await;
    assert_eq!(st, 204, "{b}");
    // Once the relay answers the room is gone, it never serves the old copy again.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let (st, _) = relay
            .req("GET", &format!("/rooms/{ROOM}/nodes"), None)
            .await;
        if st == 404 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the relay forgets the deleted room: {st}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    for _ in 0..10 {
        let (st, b) = relay
            .req("GET", &format!("/rooms/{ROOM}/nodes"), None)
            .await;
        assert_eq!(
            (st, &b["error"]["code"]),
            (404, &json!("unknown_room")),
            "{b}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Its subscriber was told the room was deleted (and nothing else after).
    let mut reason = None;
    while let Some(m) = sub.recv_within(5.0).await {
        if let ServerMsg::Closed { reason: r } = m {
            reason = Some(r);
            break;
        }
    }
    assert_eq!(reason.as_deref(), Some("room deleted"));
    // Made again under the same id, the room shows none of the old copy at the relay.
    let (st, b) = relay.req("POST", "/rooms", Some(json!({"id": ROOM}))).await;
    assert_eq!(st, 201, "{b}");
    assert_eq!(ids_at(relay, ROOM).await, BTreeSet::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replica_out_of_step_is_unloaded_at_once_and_serves_no_read_after() {
    const ROOM: &str = "gap";
    let (nats, nodes) = three_nodes().await;
    let (st, b) = nodes[0]
        .req("POST", "/rooms", Some(json!({"id": ROOM})))
        .await;
    assert_eq!(st, 201, "{b}");
    let (owner, _) = nodes[0].wait_owner(ROOM).await;
    let owner = &nodes[index_of(&nodes, &owner)];
    let relay = nodes.iter().find(|n| n.name != owner.name).unwrap();
    let add = |id: u32| Some(json!({"ops": [{"op": "add", "id": id}]}));
    for id in [1, 2] {
        let (st, b) = owner
            .req("POST", &format!("/rooms/{ROOM}/edits"), add(id))
            .await;
        assert_eq!(st, 200, "{b}");
    }
    let mut sub = cluster_support::ws(relay, ROOM, Format::Json, ADMIN).await;
    sub.send(&ClientMsg::subscribe(None, u32::MAX)).await;
    assert!(matches!(sub.recv().await, ServerMsg::Snapshot { .. }));
    assert_eq!(ids_at(relay, ROOM).await, BTreeSet::from([1, 2]));

    // A record the replica cannot follow (a gap in the owner's numbering), as a relay
    // that missed one sees it: the replica stops.
    let record = canopy_room::replica::ReplicaRecord {
        instance: "0000000000000000".into(),
        seq: 1_000_000,
        tick: 1_000_000,
        time_ms: 0,
        batches: Vec::new(),
    };
    let client = async_nats::connect(nats.url()).await.unwrap();
    client
        .publish(
            format!("canopy.room.{ROOM}.log"),
            canopy_server::cluster::encode(&record).into(),
        )
        .await
        .unwrap();
    client.flush().await.unwrap();
    let mut reason = None;
    while let Some(m) = sub.recv_within(10.0).await {
        if let ServerMsg::Closed { reason: r } = m {
            reason = Some(r);
            break;
        }
    }
    assert_eq!(
        reason.as_deref(),
        Some("the relay lost its place in the owner's stream; subscribe again")
    );
    // The owner goes on; the relay never again answers from the copy that stopped: a
    // read there shows what the owner acknowledged since (or is told to try again).
    let (st, b) = owner
        .req("POST", &format!("/rooms/{ROOM}/edits"), add(3))
        .await;
    assert_eq!(st, 200, "{b}");
    for _ in 0..10 {
        let (st, all) = relay
            .req("GET", &format!("/rooms/{ROOM}/nodes"), None)
            .await;
        if st == 503 {
            continue;
        }
        assert_eq!(st, 200, "{all}");
        let ids: BTreeSet<u64> = all["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["id"].as_u64().unwrap())
            .collect();
        assert_eq!(
            ids,
            BTreeSet::from([1, 2, 3]),
            "no read from the stopped copy"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // A new subscriber there gets the owner's state.
    let mut again = cluster_support::ws(relay, ROOM, Format::Json, ADMIN).await;
    again.send(&ClientMsg::subscribe(None, u32::MAX)).await;
    let ServerMsg::Snapshot { nodes: snap, .. } = again.recv().await else {
        panic!("a snapshot");
    };
    assert_eq!(snap.len(), 3);
}
