//! Latency per node of a cluster run: edit-to-delta of the fast subscribers grouped by
//! the node each connected to, which of the run's rooms each node owns, and the
//! subscribers served by their room's owner against those served by a relay, whose
//! difference at p99 is the latency a relay adds.
//!
//! Invariant: only fast subscribers count (as in the overall figure), each in exactly
//! one node's row and in exactly one of "owner" and "relay"; a subscriber whose room's
//! owner is not among the targeted URLs counts as served by a relay.

use std::sync::Arc;

use serde::Serialize;

use crate::load::subscriber::SubShared;
use crate::observe::cluster_view::NodeMap;
use crate::observe::latency::{self, Summary};

/// One node's row.
#[derive(Clone, Debug, Default, Serialize)]
pub(crate) struct NodeLatency {
    /// Its name and URL.
    pub node: String,
    /// `owner` or `relay` of the run's room, or how many of the rooms it owns.
    pub role: String,
    pub fast_subscribers: usize,
    pub fast: Summary,
    pub p99_ticks: f64,
}

/// Latency by node and by whether the owner served it.
#[derive(Clone, Debug, Default, Serialize)]
pub(crate) struct ClusterLatency {
    pub nodes: Vec<NodeLatency>,
    /// Subscribers connected to their room's owner.
    pub owner: Summary,
    /// Subscribers connected to another node (a relay).
    pub relay: Summary,
    /// `relay.p99_ms - owner.p99_ms`, when both have samples.
    pub relay_added_p99_ms: Option<f64>,
}

/// The role of node `i` among `rooms`.
fn role(map: &NodeMap, rooms: &[String], i: usize) -> String {
    let owned = rooms.iter().filter(|r| map.owner_of(r) == Some(i)).count();
    match (rooms.len(), owned) {
        (1, 1) => "owner".into(),
        (1, _) => "relay".into(),
        (n, k) => format!("owns {k} of {n} rooms"),
    }
}

/// The per-node figures of `subs` over `map`'s nodes.
pub(crate) fn cluster_latency(
    subs: &[Arc<SubShared>],
    map: &NodeMap,
    rooms: &[String],
    tick_ms: f64,
) -> ClusterLatency {
    let mut per_node: Vec<_> = map
        .urls
        .iter()
        .map(|_| (0usize, latency::histogram()))
        .collect();
    let mut owner = latency::histogram();
    let mut relay = latency::histogram();
    for sub in subs {
        if sub.spec.slow || sub.spec.stalled {
            continue;
        }
        let st = sub.lock();
        let node = sub.spec.node.min(per_node.len().saturating_sub(1));
        if let Some((n, h)) = per_node.get_mut(node) {
            *n += 1;
            let _ = h.add(&st.latency);
        }
        let by_owner = rooms
            .get(sub.spec.room)
            .is_some_and(|r| map.owner_of(r) == Some(sub.spec.node));
        let _ = if by_owner { &mut owner } else { &mut relay }.add(&st.latency);
    }
    let nodes = per_node
        .iter()
        .enumerate()
        .map(|(i, (n, h))| {
            let fast = Summary::of(h);
            NodeLatency {
                node: map.label(i),
                role: role(map, rooms, i),
                fast_subscribers: *n,
                p99_ticks: fast.p99_ms / tick_ms,
                fast,
            }
        })
        .collect();
    let (owner, relay) = (Summary::of(&owner), Summary::of(&relay));
    ClusterLatency {
        nodes,
        relay_added_p99_ms: (owner.count > 0 && relay.count > 0)
            .then_some(relay.p99_ms - owner.p99_ms),
        owner,
        relay,
    }
}

/// The table rows of `c`: one per node, then owner against relay.
pub(crate) fn rows(c: &ClusterLatency) -> Vec<(String, String)> {
    let lat = |s: &Summary| {
        if s.count == 0 {
            "no samples".to_string()
        } else {
            format!(
                "p50 {:.1} / p95 {:.1} / p99 {:.1} / max {:.1} ms (n={})",
                s.p50_ms, s.p95_ms, s.p99_ms, s.max_ms, s.count
            )
        }
    };
    let mut rows: Vec<(String, String)> = c
        .nodes
        .iter()
        .map(|n| {
            (
                format!("  at {}", n.node),
                format!(
                    "{}, {} subscribers: {} = {:.2} ticks at p99",
                    n.role,
                    n.fast_subscribers,
                    lat(&n.fast),
                    n.p99_ticks
                ),
            )
        })
        .collect();
    rows.push(("  served by the owner".into(), lat(&c.owner)));
    rows.push(("  served by a relay".into(), lat(&c.relay)));
    rows.push((
        "  relay-added p99".into(),
        match c.relay_added_p99_ms {
            Some(ms) => format!("{ms:+.1} ms (relay p99 minus owner p99, same run)"),
            None => "not measured (no subscribers on an owner or on a relay)".into(),
        },
    ));
    rows
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::load::subscriber::SubSpec;

    fn sub(room: usize, node: usize, slow: bool, us: u64) -> Arc<SubShared> {
        let spec = SubSpec {
            index: 0,
            room,
            node,
            region: None,
            follow: None,
            slow,
            stalled: false,
        };
        let s = Arc::new(SubShared::new(spec, 0));
        for _ in 0..100 {
            latency::record(&mut s.lock().latency, us);
        }
        s
    }

    fn map() -> NodeMap {
        NodeMap {
            urls: (1..=3).map(|i| format!("http://n:{i}")).collect(),
            names: (1..=3).map(|i| Some(format!("node-{i}"))).collect(),
            owners: BTreeMap::from([("r".to_string(), "node-2".to_string())]),
            rooms_per_node: BTreeMap::new(),
        }
    }

    #[test]
    fn rows_per_node_name_the_owner_and_the_relay_overhead() {
        let subs = vec![
            sub(0, 0, false, 12_000),
            sub(0, 1, false, 10_000),
            sub(0, 2, false, 13_000),
            sub(0, 2, true, 900_000),
        ];
        let c = cluster_latency(&subs, &map(), &["r".to_string()], 33.3);
        let roles: Vec<&str> = c.nodes.iter().map(|n| n.role.as_str()).collect();
        assert_eq!(roles, ["relay", "owner", "relay"]);
        let counts: Vec<usize> = c.nodes.iter().map(|n| n.fast_subscribers).collect();
        assert_eq!(counts, [1, 1, 1], "the slow reader is left out");
        assert_eq!((c.owner.count, c.relay.count), (100, 200));
        let added = c.relay_added_p99_ms.unwrap();
        assert!((added - 3.0).abs() < 0.05, "{added}");
        let rows = rows(&c);
        assert_eq!(rows.len(), 6);
        assert!(rows[1].0.contains("node-2 (http://n:2)"));
        assert!(rows[1].1.starts_with("owner, 1 subscribers"));
        assert!(rows[5].1.starts_with("+3.0 ms"));
    }

    #[test]
    fn several_rooms_count_what_each_node_owns() {
        let mut m = map();
        m.owners.insert("s".into(), "node-2".into());
        let rooms = ["r".to_string(), "s".to_string(), "t".to_string()];
        let c = cluster_latency(&[sub(2, 0, false, 5_000)], &m, &rooms, 33.3);
        assert_eq!(c.nodes[1].role, "owns 2 of 3 rooms");
        assert_eq!(c.nodes[0].role, "owns 0 of 3 rooms");
        // Room t's owner is not targeted: its subscriber counts as a relay's.
        assert_eq!((c.owner.count, c.relay.count), (0, 100));
        assert_eq!(c.relay_added_p99_ms, None);
    }
}
