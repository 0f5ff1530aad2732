//! Placement with real processes (`cluster_support/`): rooms created at one node within
//! milliseconds of each other, before the registry shows any of them, land on
//! different nodes, because the placing node counts the rooms it has just placed.

use crate::cluster_support;

use std::collections::BTreeSet;

use cluster_support::three_nodes;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rooms_created_at_once_spread_over_the_nodes() {
    let (_nats, nodes) = three_nodes().await;
    let create = |id: &'static str| nodes[0].req("POST", "/rooms", Some(json!({"id": id})));
    let (a, b, c) = tokio::join!(create("burst-a"), create("burst-b"), create("burst-c"));
    for (st, body) in [&a, &b, &c] {
        assert_eq!(*st, 201, "{body}");
    }
    let mut owners = BTreeSet::new();
    for room in ["burst-a", "burst-b", "burst-c"] {
        owners.insert(nodes[0].wait_owner(room).await.0);
    }
    assert_eq!(owners.len(), 3, "one room per node: {owners:?}");
}
