//! Access in a cluster: a node checks a caller before it passes a request on or copies a
//! room for it, and asks the owner about a room token only it can check.

use crate::cluster_support::{self, three_nodes, ws};

use canopy_protocol::{ClientMsg, Format, ServerMsg};
use serde_json::json;

/// The HTTP status of a WebSocket upgrade at `node` with `query` (`token=...` or empty).
async fn upgrade_status(node: &cluster_support::Node, room: &str, query: &str) -> u16 {
    let url = format!("{}/rooms/{room}/ws?format=json{query}", node.ws_base);
    match tokio_tungstenite::connect_async(url).await {
        Ok(_) => 101,
        Err(tokio_tungstenite::tungstenite::Error::Http(resp)) => resp.status().as_u16(),
        Err(e) => panic!("{e}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_copies_a_room_only_for_a_caller_its_owner_admits() {
    let (_nats, nodes) = three_nodes().await;
    let (st, created) = nodes[0]
        .req("POST", "/rooms", Some(json!({"id": "g", "tick_hz": 30})))
        .await;
    assert_eq!(st, 201, "{created}");
    let viewer = created["viewer_token"].as_str().unwrap().to_string();
    let (owner_name, _) = nodes[0].wait_owner("g").await;
    let relay = nodes.iter().find(|n| n.name != owner_name).unwrap();
    let replicas = "canopy_cluster_replicas";
    let before = relay.metric(replicas).await;
    // Anonymous, a wrong token, a wrong admin-looking token: refused before any copy.
    assert_eq!(upgrade_status(relay, "g", "").await, 401);
    assert_eq!(upgrade_status(relay, "g", "&token=nope").await, 403);
    let (st, _) = relay
        .req_as("", "POST", "/rooms/g/edits", Some(json!({"ops": []})))
        .await;
    assert_eq!(st, 401, "an anonymous edit is refused at the first node");
    assert_eq!(relay.metric(replicas).await, before, "no replica was made");
    // The room's own viewer token, which only the owner can check: admitted.
    let mut ws = ws(relay, "g", Format::Json, &viewer).await;
    ws.send(&ClientMsg::subscribe(None, u32::MAX)).await;
    assert!(matches!(ws.recv().await, ServerMsg::Snapshot { .. }));
    assert_eq!(relay.metric(replicas).await, before + 1.0);
}
