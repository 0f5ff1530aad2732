//! Interest scopes (v1.2) over a real WebSocket: a follow scope's enter, hysteresis and
//! leave as its node moves, and the error when that node is removed; frustum scopes;
//! frames of a paced subscriber only on its sends, with the final state arriving; and
//! every invalid field refused by name with the old subscription left as it was.

use crate::common;

use std::collections::BTreeSet;

use canopy_protocol::interest::Follow;
use canopy_protocol::{ClientMsg, ErrorCode, Format, NodeId, ServerMsg};
use common::{Ws, config, start};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

fn follow(node: NodeId, radius: f32, margin: f32) -> ClientMsg {
    let ClientMsg::Subscribe { region, mask, .. } = ClientMsg::subscribe(None, u32::MAX) else {
        unreachable!()
    };
    ClientMsg::Subscribe {
        region,
        mask,
        since: None,
        encoding: Default::default(),
        follow: Some(Follow {
            node,
            radius,
            margin: Some(margin),
        }),
        frustum: None,
        send_hz: None,
        tiers: Vec::new(),
    }
}

fn ids(nodes: &[canopy_protocol::Node]) -> BTreeSet<NodeId> {
    nodes.iter().map(|n| n.id).collect()
}

/// The next delta's `(upsert ids, remove ids)`.
async fn next_delta(ws: &mut Ws) -> (BTreeSet<NodeId>, BTreeSet<NodeId>) {
    match ws
        .recv_until(|m| matches!(m, ServerMsg::Delta { .. }))
        .await
    {
        ServerMsg::Delta { upsert, remove, .. } => (ids(&upsert), remove.into_iter().collect()),
        _ => unreachable!(),
    }
}

fn set_x(node: NodeId, x: f32) -> Value {
    json!([{"op": "set_local", "node": node, "t": [x, 0, 0]}])
}

async fn follow_scope(format: Format) {
    let s = start(config()).await;
    s.create_room("f", 30).await;
    let (st, _) = s
        .edits(
            "f",
            json!([
                {"op": "add", "id": 1},
                {"op": "add", "id": 2, "local": {"t": [5, 0, 0]}},
                {"op": "add", "id": 3, "local": {"t": [30, 0, 0]}},
                {"op": "add", "id": 4, "local": {"t": [0, 50, 0]}, "mask": 2},
            ]),
        )
        .await;
    assert_eq!(st, 200);
    let mut ws = s.ws("f", format).await;
    ws.send(&follow(1, 10.0, 2.0)).await;
    let ServerMsg::Snapshot { nodes, .. } = ws.recv().await else {
        panic!("a snapshot")
    };
    assert_eq!(ids(&nodes), BTreeSet::from([1, 2]));

    // The player moves to x = 25: node 3 (5 away) enters, node 2 (20 away) leaves.
    assert_eq!(s.edits("f", set_x(1, 25.0)).await.0, 200);
    assert_eq!(
        next_delta(&mut ws).await,
        (BTreeSet::from([3]), BTreeSet::from([2]))
    );
    // To x = 19: node 3 is 11 away, beyond R but within R + M, so it stays; node 2
    // (14 away) does not come back. Only the player's own update is sent.
    assert_eq!(s.edits("f", set_x(1, 19.0)).await.0, 200);
    let ServerMsg::Delta {
        upsert,
        update,
        remove,
        ..
    } = ws
        .recv_until(|m| matches!(m, ServerMsg::Delta { .. }))
        .await
    else {
        unreachable!()
    };
    assert!(
        upsert.is_empty() && remove.is_empty(),
        "{upsert:?} {remove:?}"
    );
    assert_eq!(update.iter().map(|u| u.id).collect::<Vec<_>>(), vec![1]);
    // To x = 17: node 3 is 13 away, past R + M: it leaves.
    assert_eq!(s.edits("f", set_x(1, 17.0)).await.0, 200);
    assert_eq!(
        next_delta(&mut ws).await,
        (BTreeSet::new(), BTreeSet::from([3]))
    );

    // The followed node is removed: everything leaves, then the error names it.
    let (st, _) = s.edits("f", json!([{"op": "remove", "node": 1}])).await;
    assert_eq!(st, 200);
    assert_eq!(
        next_delta(&mut ws).await,
        (BTreeSet::new(), BTreeSet::from([1]))
    );
    let ServerMsg::Error { code, message, .. } = ws.recv().await else {
        panic!("an error")
    };
    assert_eq!(code, ErrorCode::UnknownNode);
    assert!(message.contains("node 1"), "{message}");
    // And the scope stays empty: a node added at the old spot is not sent.
    let (st, _) = s
        .edits(
            "f",
            json!([{"op": "add", "id": 9, "local": {"t": [17, 0, 0]}}]),
        )
        .await;
    assert_eq!(st, 200);
    assert!(
        ws.recv_within(0.3).await.is_none(),
        "an empty scope sends nothing"
    );
}

#[tokio::test]
async fn follow_scopes_enter_keep_and_leave_json() {
    follow_scope(Format::Json).await;
}

#[tokio::test]
async fn follow_scopes_enter_keep_and_leave_bincode() {
    follow_scope(Format::Bincode).await;
}

#[tokio::test]
async fn frustum_scopes_and_a_follow_of_a_missing_node() {
    let s = start(config()).await;
    s.create_room("c", 30).await;
    let ops = json!([
        {"op": "add", "id": 1, "local": {"t": [0, 0, 5]}},
        {"op": "add", "id": 2, "local": {"t": [0, 0, -5]}},
        {"op": "add", "id": 3, "local": {"t": [0, 0, 50]}},
    ]);
    assert_eq!(s.edits("c", ops).await.0, 200);
    let mut ws = s.ws("c", Format::Json).await;
    // Looking down +z from the origin, 0.1 to 20 deep, a 90° cone (as its planes).
    let h = std::f32::consts::FRAC_1_SQRT_2;
    let planes = [
        [0.0, 0.0, 1.0, -0.1],
        [0.0, 0.0, -1.0, 20.0],
        [h, 0.0, h, 0.0],
        [-h, 0.0, h, 0.0],
        [0.0, h, h, 0.0],
        [0.0, -h, h, 0.0],
    ];
    let msg = json!({"type": "subscribe", "frustum": planes});
    ws.send_raw(Message::text(msg.to_string())).await;
    let ServerMsg::Snapshot { nodes, .. } = ws.recv().await else {
        panic!("a snapshot")
    };
    assert_eq!(ids(&nodes), BTreeSet::from([1]));
    // Node 2 comes into view.
    let (st, _) = s
        .edits(
            "c",
            json!([{"op": "set_local", "node": 2, "t": [0, 0, 10]}]),
        )
        .await;
    assert_eq!(st, 200);
    assert_eq!(
        next_delta(&mut ws).await,
        (BTreeSet::from([2]), BTreeSet::new())
    );
    // A follow of a node that does not exist is refused by name; the frustum stays.
    ws.send(&follow(77, 5.0, 1.0)).await;
    let ServerMsg::Error { code, message, .. } = ws.recv().await else {
        panic!("an error")
    };
    assert_eq!(code, ErrorCode::UnknownNode);
    assert!(message.contains("77"), "{message}");
    let (st, _) = s
        .edits(
            "c",
            json!([{"op": "set_local", "node": 3, "t": [1, 0, 15]}]),
        )
        .await;
    assert_eq!(st, 200);
    assert_eq!(
        next_delta(&mut ws).await,
        (BTreeSet::from([3]), BTreeSet::new())
    );
}

#[tokio::test]
async fn a_paced_subscriber_gets_frames_only_on_its_sends_and_the_final_state() {
    let s = start(config()).await;
    s.create_room("p", 30).await;
    assert_eq!(s.edits("p", json!([{"op": "add", "id": 1}])).await.0, 200);
    let mut ws = s.ws("p", Format::Json).await;
    let msg = json!({"type": "subscribe", "send_hz": 5});
    ws.send_raw(Message::text(msg.to_string())).await;
    let ServerMsg::Snapshot { .. } = ws.recv().await else {
        panic!("a snapshot")
    };
    for k in 1..=20 {
        assert_eq!(s.edits("p", set_x(1, k as f32)).await.0, 200);
    }
    let mut last = 0.0;
    while last != 20.0 {
        let ServerMsg::Delta { tick, update, .. } = ws.recv().await else {
            panic!("deltas only")
        };
        // 5 sends a second at 30 ticks a second: tick t is a send when ⌊5t/30⌋ grew.
        assert!(
            tick * 5 / 30 > (tick - 1) * 5 / 30,
            "a frame at tick {tick}"
        );
        last = update[0].world.t[0];
    }
}

#[tokio::test]
async fn invalid_interest_fields_are_refused_by_name_and_change_nothing() {
    let s = start(config()).await;
    s.create_room("v", 30).await;
    assert_eq!(s.edits("v", json!([{"op": "add", "id": 1}])).await.0, 200);
    let mut ws = s.ws("v", Format::Json).await;
    ws.send(&ClientMsg::subscribe(None, u32::MAX)).await;
    let ServerMsg::Snapshot { .. } = ws.recv().await else {
        panic!("a snapshot")
    };
    let cases = [
        (
            json!({"follow": {"node": 1, "radius": -1}}),
            "follow.radius",
            ErrorCode::InvalidValue,
        ),
        (
            json!({"follow": {"node": 1, "radius": 1, "margin": -2}}),
            "follow.margin",
            ErrorCode::InvalidValue,
        ),
        (json!({"send_hz": 0}), "send_hz", ErrorCode::InvalidValue),
        (json!({"send_hz": 31}), "send_hz", ErrorCode::InvalidValue),
        (
            json!({"follow": {"node": 1, "radius": 5}, "tiers": [{"within": 4, "every": 1}, {"within": 2, "every": 2}, {"every": 3}]}),
            "tiers[1].within",
            ErrorCode::InvalidValue,
        ),
        (
            json!({"follow": {"node": 1, "radius": 5}, "tiers": [{"within": 4, "every": 1}]}),
            "tiers[0]",
            ErrorCode::InvalidValue,
        ),
        (
            json!({"follow": {"node": 1, "radius": 5}, "tiers": [{"every": 0}]}),
            "tiers[0].every",
            ErrorCode::InvalidValue,
        ),
        (
            json!({"tiers": [{"every": 2}]}),
            "tiers need a centre",
            ErrorCode::BadRequest,
        ),
        (
            json!({"region": {"min": [0, 0, 0], "max": [1, 1, 1]}, "follow": {"node": 1, "radius": 5}}),
            "at most one of region, follow and frustum",
            ErrorCode::BadRequest,
        ),
        (
            json!({"frustum": [[0, 0, 0, 1], [0, 0, 1, 0], [0, 0, 1, 0], [0, 0, 1, 0], [0, 0, 1, 0], [0, 0, 1, 0]]}),
            "frustum[0]",
            ErrorCode::InvalidValue,
        ),
    ];
    for (fields, names, want) in cases {
        let mut msg = fields.clone();
        msg["type"] = json!("subscribe");
        ws.send_raw(Message::text(msg.to_string())).await;
        let ServerMsg::Error { code, message, .. } = ws.recv().await else {
            panic!("an error for {fields}")
        };
        assert_eq!(code, want, "{fields}: {message}");
        assert!(message.contains(names), "{fields}: {message}");
    }
    // The whole-room subscription is still there, frame per tick.
    assert_eq!(s.edits("v", set_x(1, 3.0)).await.0, 200);
    let ServerMsg::Delta { update, .. } = ws.recv().await else {
        panic!("the old subscription's delta")
    };
    assert_eq!(update[0].world.t, [3.0, 0.0, 0.0]);
}
