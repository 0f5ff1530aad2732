//! The final check: once the load has stopped, every subscriber's mirror must equal the
//! server's state (`GET /rooms/{room}/nodes`), restricted to its scope.
//!
//! The contract promises convergence, not a moment when it happens: a slow reader may
//! still be draining a merged frame when the load stops. So the check compares, and
//! compares again every half second, until every subscriber matches or the settle
//! timeout passes; the report says how long convergence took. Invariant: a subscriber
//! passes only on an exact match (every field of every in-scope node, bit for bit, no
//! node missing and none extra); only nodes on a region's boundary (see `expected_scope`) may be
//! present or absent.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use canopy_client::Client;
use canopy_protocol::Node;
use canopy_protocol::message::Region;
use serde::Serialize;

use crate::load::mirror::DenseMirror;
use crate::load::subscriber::SubShared;
use crate::observe::expected_scope::{Membership, classify};

/// How many failure descriptions the report keeps.
const MAX_FAILURES: usize = 10;

/// The outcome of the final check.
#[derive(Clone, Debug, Default, Serialize)]
pub(crate) struct VerifyOutcome {
    pub subscribers: usize,
    pub converged: usize,
    pub mismatched: usize,
    /// Region-boundary nodes that were accepted present or absent.
    pub borderline_nodes: u64,
    /// From the start of the check until every mirror matched (or the timeout).
    pub took_ms: u64,
    /// The first few mismatches, described.
    pub failures: Vec<String>,
}

/// Compares a mirror with the server's nodes (sorted by id) for a whole-room scope or
/// a region. Returns the borderline nodes accepted, or the first difference.
pub(crate) fn compare(
    mirror: &DenseMirror,
    server: &[Node],
    region: Option<&Region>,
) -> Result<u64, String> {
    let mut held = 0usize;
    let mut borderline = 0u64;
    for node in server {
        let expected = match region {
            None => Membership::In,
            Some(r) => classify(node, r, u32::MAX),
        };
        let mine = mirror.get(node.id);
        match (expected, mine) {
            (Membership::Out, None) => {}
            (Membership::Out, Some(_)) => {
                return Err(format!("node {} is out of scope but held", node.id));
            }
            (Membership::In, None) => return Err(format!("node {} is missing", node.id)),
            (Membership::Borderline, None) => borderline += 1,
            (Membership::In | Membership::Borderline, Some(m)) => {
                if expected == Membership::Borderline {
                    borderline += 1;
                }
                if m != node {
                    return Err(format!(
                        "node {} differs: held {m:?}, server {node:?}",
                        node.id
                    ));
                }
                held += 1;
            }
        }
    }
    if held != mirror.len() {
        return Err(format!(
            "{} held nodes do not exist on the server",
            mirror.len() - held
        ));
    }
    Ok(borderline)
}

/// Checks every subscriber against the server until all match or `timeout` passes.
pub(crate) async fn verify(
    client: &Client,
    rooms: &[String],
    subs: &[Arc<SubShared>],
    timeout: Duration,
) -> anyhow::Result<VerifyOutcome> {
    let started = Instant::now();
    let mut pending: Vec<usize> = (0..subs.len()).collect();
    let mut outcome = VerifyOutcome {
        subscribers: subs.len(),
        ..VerifyOutcome::default()
    };
    loop {
        let mut server = Vec::with_capacity(rooms.len());
        for room in rooms {
            let mut snapshot = client
                .nodes(room)
                .await
                .with_context(|| format!("GET /rooms/{room}/nodes"))?;
            snapshot.nodes.sort_unstable_by_key(|n| n.id);
            server.push(snapshot.nodes);
        }
        let mut failures = Vec::new();
        let mut still = Vec::new();
        for &i in &pending {
            let sub = &subs[i];
            let st = sub.lock();
            let result = match &st.ended {
                Some(reason) => Err(format!("stopped early: {reason}")),
                None => compare(&st.mirror, &server[sub.spec.room], sub.spec.region.as_ref()),
            };
            drop(st);
            match result {
                Ok(borderline) => outcome.borderline_nodes += borderline,
                Err(why) => {
                    let kind = if sub.spec.region.is_some() {
                        "region"
                    } else {
                        "room"
                    };
                    let slow = if sub.spec.slow { " slow" } else { "" };
                    failures.push(format!(
                        "subscriber {} ({kind}{slow}): {why}",
                        sub.spec.index
                    ));
                    still.push(i);
                }
            }
        }
        pending = still;
        let timed_out = started.elapsed() >= timeout;
        if pending.is_empty() || timed_out {
            outcome.converged = subs.len() - pending.len();
            outcome.mismatched = pending.len();
            failures.truncate(MAX_FAILURES);
            outcome.failures = failures;
            outcome.took_ms = started.elapsed().as_millis() as u64;
            return Ok(outcome);
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use canopy_protocol::Transform;

    fn node(id: u32, x: f32) -> Node {
        Node {
            id,
            parent: None,
            world: Transform {
                t: [x, 0.0, 0.0],
                ..Transform::IDENTITY
            },
            extent: [0.5; 3],
            mask: u32::MAX,
        }
    }

    fn mirror_of(nodes: Vec<Node>) -> DenseMirror {
        let mut m = DenseMirror::new(8);
        m.apply_snapshot(&nodes);
        m
    }

    #[test]
    fn whole_room_needs_an_exact_match() {
        let server = vec![node(1, 0.0), node(2, 5.0)];
        assert_eq!(compare(&mirror_of(server.clone()), &server, None), Ok(0));
        assert!(compare(&mirror_of(vec![node(1, 0.0)]), &server, None).is_err());
        assert!(compare(&mirror_of(vec![node(1, 0.0), node(2, 5.5)]), &server, None).is_err());
        let extra = mirror_of(vec![node(1, 0.0), node(2, 5.0), node(3, 1.0)]);
        assert!(compare(&extra, &server, None).is_err());
    }

    #[test]
    fn regions_hold_exactly_the_nodes_in_scope() {
        let region = Region {
            min: [-1.0; 3],
            max: [1.0; 3],
        };
        // Node 2 is far away; node 3 touches the region's face exactly.
        let server = vec![node(1, 0.0), node(2, 5.0), node(3, 1.5)];
        assert_eq!(
            compare(&mirror_of(vec![node(1, 0.0)]), &server, Some(&region)),
            Ok(1)
        );
        let with_edge = mirror_of(vec![node(1, 0.0), node(3, 1.5)]);
        assert_eq!(compare(&with_edge, &server, Some(&region)), Ok(1));
        let with_far = mirror_of(vec![node(1, 0.0), node(2, 5.0)]);
        assert!(compare(&with_far, &server, Some(&region)).is_err());
        assert!(compare(&mirror_of(vec![]), &server, Some(&region)).is_err());
    }
}
