//! Every WebSocket message of the contract, in both formats.

use crate::common;

use canopy_protocol::message::Region;
use canopy_protocol::query::{NearestQuery, RayQuery, RegionQuery, SphereQuery};
use canopy_protocol::{ClientMsg, ErrorCode, Format, Hits, Op, Query, ServerMsg, Transform};
use serde_json::json;

fn add(id: u32, parent: Option<u32>, t: [f32; 3]) -> Op {
    Op::Add {
        id: Some(id),
        parent,
        local: Transform {
            t,
            ..Transform::IDENTITY
        },
        extent: [0.5; 3],
        mask: u32::MAX,
    }
}

async fn walk(format: Format) {
    let s = common::start(common::config()).await;
    s.create_room("w", 60).await;
    let (st, _) = s
        .edits("w", json!([{"op": "add", "id": 1, "extent": [1, 1, 1]}, {"op": "add", "id": 2, "parent": 1, "local": {"t": [1, 0, 0]}}]))
        .await;
    assert_eq!(st, 200);
    let mut ws = s.ws("w", format).await;
    ws.send(&ClientMsg::subscribe(None, u32::MAX)).await;
    let ServerMsg::Snapshot {
        nodes, tick, time, ..
    } = ws.recv().await
    else {
        panic!("snapshot first")
    };
    assert!(tick >= 1 && time > 1_600_000_000_000);
    let mut ids: Vec<u32> = nodes.iter().map(|n| n.id).collect();
    ids.sort();
    assert_eq!(ids, vec![1, 2]);

    // An edit answers an ack before the delta that shows it; the delta updates only
    // the nodes whose world changed.
    ws.send(&ClientMsg::Edits {
        seq: 5,
        ops: vec![Op::SetLocal {
            node: 2,
            t: Some([4.0, 0.0, 0.0]),
            r: None,
            s: None,
        }],
    })
    .await;
    let ServerMsg::Ack {
        seq,
        tick: ack_tick,
        ids,
    } = ws.recv().await
    else {
        panic!("ack before delta")
    };
    assert_eq!((seq, ids), (5, vec![]));
    let ServerMsg::Delta {
        tick,
        upsert,
        update,
        remove,
        ..
    } = ws.recv().await
    else {
        panic!("delta")
    };
    assert_eq!(tick, ack_tick);
    assert!(upsert.is_empty() && remove.is_empty());
    assert_eq!(update.len(), 1);
    assert_eq!(update[0].id, 2);
    assert_eq!(update[0].world.t, [4.0, 0.0, 0.0]);

    // Structural edits: add (upsert), reparent (upsert), remove (remove).
    ws.send(&ClientMsg::Edits {
        seq: 6,
        ops: vec![add(3, Some(2), [0.0, 1.0, 0.0])],
    })
    .await;
    let ServerMsg::Ack { ids, .. } = ws.recv().await else {
        panic!()
    };
    assert_eq!(ids, vec![3]);
    let ServerMsg::Delta { upsert, update, .. } = ws.recv().await else {
        panic!()
    };
    assert_eq!(upsert.len(), 1);
    assert_eq!(upsert[0].id, 3);
    assert_eq!(upsert[0].parent, Some(2));
    assert_eq!(upsert[0].world.t, [4.0, 1.0, 0.0]);
    assert!(update.is_empty());
    ws.send(&ClientMsg::Edits {
        seq: 7,
        ops: vec![Op::Remove { node: 2 }],
    })
    .await;
    ws.recv_until(|m| matches!(m, ServerMsg::Ack { seq: 7, .. }))
        .await;
    let ServerMsg::Delta { mut remove, .. } = ws.recv().await else {
        panic!()
    };
    remove.sort();
    assert_eq!(remove, vec![2, 3]);

    // Errors carry seq, code and op.
    ws.send(&ClientMsg::Edits {
        seq: 8,
        ops: vec![
            add(9, None, [0.0; 3]),
            Op::SetLocal {
                node: 99,
                t: None,
                r: None,
                s: Some(1.0),
            },
        ],
    })
    .await;
    let ServerMsg::Error {
        seq,
        code,
        op,
        message,
        ..
    } = ws.recv().await
    else {
        panic!("error")
    };
    assert_eq!((seq, code, op), (Some(8), ErrorCode::UnknownNode, Some(1)));
    assert!(!message.is_empty());

    // Ping.
    ws.send(&ClientMsg::Ping { nonce: 77 }).await;
    let ServerMsg::Pong { nonce, .. } =
        ws.recv_until(|m| matches!(m, ServerMsg::Pong { .. })).await
    else {
        panic!()
    };
    assert_eq!(nonce, 77);

    // Queries of every kind.
    let queries = [
        Query::Region(RegionQuery {
            min: [-2.0; 3],
            max: [2.0; 3],
            mask: u32::MAX,
        }),
        Query::Sphere(SphereQuery {
            center: Some([0.0; 3]),
            around: None,
            radius: 0.1,
            mask: u32::MAX,
        }),
        Query::Ray(RayQuery {
            origin: [-10.0, 0.0, 0.0],
            dir: [1.0, 0.0, 0.0],
            max_t: None,
            mask: u32::MAX,
            all: true,
        }),
        Query::Nearest(NearestQuery {
            point: Some([5.0, 0.0, 0.0]),
            around: None,
            k: 3,
            max_dist: None,
            mask: u32::MAX,
        }),
    ];
    for (i, q) in queries.into_iter().enumerate() {
        ws.send(&ClientMsg::Query {
            id: 100 + i as u64,
            query: q,
        })
        .await;
        let m = ws
            .recv_until(|m| matches!(m, ServerMsg::QueryResult { .. }))
            .await;
        let ServerMsg::QueryResult {
            id, nodes, hits, ..
        } = m
        else {
            panic!()
        };
        assert_eq!(id, 100 + i as u64);
        match i {
            0 | 1 => assert_eq!(nodes, Some(vec![1])),
            2 => {
                let Some(Hits::Ray(h)) = hits else {
                    panic!("ray hits")
                };
                assert_eq!(h.len(), 1);
                assert_eq!(h[0].node, 1);
                assert!((h[0].t - 9.0).abs() < 1e-5);
            }
            _ => {
                let Some(Hits::Nearest(h)) = hits else {
                    panic!("nearest hits")
                };
                assert_eq!(h.len(), 1);
                assert!((h[0].dist - 4.0).abs() < 1e-5);
            }
        }
    }
    ws.send(&ClientMsg::Query {
        id: 9,
        query: Query::Nearest(NearestQuery {
            point: Some([0.0; 3]),
            around: None,
            k: 0,
            max_dist: None,
            mask: 1,
        }),
    })
    .await;
    let ServerMsg::Error { id, code, .. } = ws
        .recv_until(|m| matches!(m, ServerMsg::Error { .. }))
        .await
    else {
        panic!()
    };
    assert_eq!((id, code), (Some(9), ErrorCode::InvalidValue));

    // Region subscription: nodes enter and leave.
    ws.send(&ClientMsg::subscribe(
        Some(Region {
            min: [10.0; 3],
            max: [20.0; 3],
        }),
        u32::MAX,
    ))
    .await;
    let ServerMsg::Snapshot { nodes, .. } = ws
        .recv_until(|m| matches!(m, ServerMsg::Snapshot { .. }))
        .await
    else {
        panic!()
    };
    assert!(nodes.is_empty());
    ws.send(&ClientMsg::Edits {
        seq: 10,
        ops: vec![Op::SetLocal {
            node: 1,
            t: Some([15.0; 3]),
            r: None,
            s: None,
        }],
    })
    .await;
    ws.recv_until(|m| matches!(m, ServerMsg::Ack { seq: 10, .. }))
        .await;
    let ServerMsg::Delta { upsert, .. } = ws.recv().await else {
        panic!()
    };
    assert_eq!(upsert.iter().map(|n| n.id).collect::<Vec<_>>(), vec![1]);
    ws.send(&ClientMsg::Edits {
        seq: 11,
        ops: vec![Op::SetLocal {
            node: 1,
            t: Some([0.0; 3]),
            r: None,
            s: None,
        }],
    })
    .await;
    ws.recv_until(|m| matches!(m, ServerMsg::Ack { seq: 11, .. }))
        .await;
    let ServerMsg::Delta { remove, .. } = ws.recv().await else {
        panic!()
    };
    assert_eq!(remove, vec![1]);

    // Unsubscribe: acks still come, deltas no more.
    ws.send(&ClientMsg::Unsubscribe).await;
    ws.send(&ClientMsg::Edits {
        seq: 12,
        ops: vec![Op::SetLocal {
            node: 1,
            t: Some([1.0; 3]),
            r: None,
            s: None,
        }],
    })
    .await;
    ws.recv_until(|m| matches!(m, ServerMsg::Ack { seq: 12, .. }))
        .await;
    ws.send(&ClientMsg::Ping { nonce: 1 }).await;
    let m = ws.recv().await;
    assert!(
        matches!(m, ServerMsg::Pong { .. }),
        "no delta after unsubscribe: {m:?}"
    );

    // A malformed message is an error, not a disconnect.
    let junk = match format {
        Format::Json => tokio_tungstenite::tungstenite::Message::text(
            "{\"type\":\"edits\",\"seq\":3,\"ops\":[{\"op\":\"nope\"}]}",
        ),
        Format::Bincode => tokio_tungstenite::tungstenite::Message::binary(vec![200u8, 1, 2]),
    };
    ws.send_raw(junk).await;
    let ServerMsg::Error { code, seq, op, .. } = ws.recv().await else {
        panic!()
    };
    assert_eq!(code, ErrorCode::BadRequest);
    if format == Format::Json {
        assert_eq!(seq, Some(3), "the seq of a malformed edits message is kept");
        assert_eq!(op, Some(0), "the malformed op is named");
    } else {
        assert_eq!(op, None, "not a batch");
        // `edits` seq 3 whose op 1 has no such variant (op 0: `remove` of node 3).
        ws.send_raw(tokio_tungstenite::tungstenite::Message::binary(vec![
            2u8, 3, 2, 4, 3, 9,
        ]))
        .await;
        let ServerMsg::Error { code, seq, op, .. } = ws.recv().await else {
            panic!()
        };
        assert_eq!((code, seq, op), (ErrorCode::BadRequest, Some(3), Some(1)));
    }

    // Deleting the room closes subscribers with `closed`.
    ws.send(&ClientMsg::subscribe(None, u32::MAX)).await;
    ws.recv_until(|m| matches!(m, ServerMsg::Snapshot { .. }))
        .await;
    assert_eq!(s.req("DELETE", "/rooms/w", None).await.0, 204);
    let m = ws
        .recv_until(|m| matches!(m, ServerMsg::Closed { .. }))
        .await;
    assert!(matches!(m, ServerMsg::Closed { .. }));
    assert!(
        ws.recv_within(2.0).await.is_none(),
        "the socket closes after `closed`"
    );
    s.stop().await;
}

#[tokio::test]
async fn websocket_walk_json() {
    walk(Format::Json).await;
}

#[tokio::test]
async fn websocket_walk_bincode() {
    walk(Format::Bincode).await;
}

#[tokio::test]
async fn websocket_refuses_unknown_room_and_format() {
    let s = common::start(common::config()).await;
    let r = tokio_tungstenite::connect_async(format!("{}/rooms/none/ws", s.ws_base)).await;
    assert!(r.is_err());
    s.create_room("f", 30).await;
    let r = tokio_tungstenite::connect_async(format!("{}/rooms/f/ws?format=xml", s.ws_base)).await;
    assert!(r.is_err());
    s.stop().await;
}

#[tokio::test]
async fn shutdown_closes_subscribers_and_answers_inflight_edits() {
    let s = common::start(common::config()).await;
    s.create_room("g", 1).await;
    let mut ws = s.ws("g", Format::Json).await;
    ws.send(&ClientMsg::subscribe(None, u32::MAX)).await;
    ws.recv_until(|m| matches!(m, ServerMsg::Snapshot { .. }))
        .await;
    // At 1 Hz the batch waits for the next tick; shutdown must still answer it.
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    ws.send(&ClientMsg::Edits {
        seq: 1,
        ops: vec![add(1, None, [0.0; 3])],
    })
    .await;
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    let stopping = tokio::spawn(s.stop());
    let mut got_ack = false;
    let mut got_closed = false;
    while let Some(m) = ws.recv_within(5.0).await {
        match m {
            ServerMsg::Ack { seq: 1, .. } => got_ack = true,
            ServerMsg::Closed { .. } => got_closed = true,
            _ => {}
        }
    }
    stopping.await.unwrap();
    assert!(got_ack, "the in-flight edit was answered");
    assert!(got_closed, "subscribers got `closed`");
}
