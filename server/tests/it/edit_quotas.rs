//! One pending-edit quota per caller: an editor's concurrent HTTP requests and its
//! WebSocket connections share it, so opening more connections does not let one editor
//! take a room's whole pending budget, and other editors are still served.

use crate::bounds_http::queue_noops;
use crate::common;

use std::time::Duration;

use canopy_protocol::{ClientMsg, ErrorCode, Format, Op, ServerMsg, Transform};
use common::{config, start};
use serde_json::{Value, json};

fn code(b: &Value) -> &str {
    b["error"]["code"].as_str().unwrap_or("")
}

/// An HTTP editor's concurrent requests share one pending quota: more connections do
/// not let one editor take the room's whole pending budget, and another editor is still
/// served.
#[tokio::test]
async fn an_http_editors_concurrent_batches_share_one_quota() {
    let mut cfg = config();
    cfg.tick_op_budget = 1;
    cfg.max_pending_ops_per_conn = 10;
    cfg.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()];
    let s = start(cfg).await;
    s.create_room("q", 240).await;
    assert_eq!(s.edits("q", json!([{"op":"add","id":0}])).await.0, 200);
    // A queue ahead of the editors (one batch per tick at 240 Hz: about a second).
    let room = s.state.room("q").unwrap();
    queue_noops(&room, 240);
    let batch = |first: u32| json!({"ops": (first..first + 6).map(|i| json!({"op":"add","id":i})).collect::<Vec<_>>()});
    let post = |from: &'static str, body: Value| {
        let r = s
            .http
            .post(format!("{}/rooms/q/edits", s.base))
            .header("x-forwarded-for", from)
            .json(&body);
        async move {
            let r = r.send().await.unwrap();
            let st = r.status().as_u16();
            (st, r.json::<Value>().await.unwrap())
        }
    };
    let first = tokio::spawn(post("10.0.0.1", batch(100)));
    for _ in 0..1000 {
        if s.state.edit_quotas.waiting_ops("addr:10.0.0.1") == 6 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    assert_eq!(
        s.state.edit_quotas.waiting_ops("addr:10.0.0.1"),
        6,
        "the first batch waits"
    );
    // The same editor on another connection: 6 + 6 ops waiting would pass its 10.
    let (st, b) = post("10.0.0.1", batch(200)).await;
    assert_eq!((st, code(&b)), (503, "overloaded"), "{b}");
    assert!(
        b["error"]["message"]
            .as_str()
            .unwrap()
            .contains("this editor"),
        "{b}"
    );
    // Another editor is served, and so is the first one's first batch.
    let (st, b) = post("10.0.0.2", batch(300)).await;
    assert_eq!(st, 200, "{b}");
    assert_eq!(first.await.unwrap().0, 200);
    for (id, applied) in [(100, true), (200, false), (300, true)] {
        let (st, _) = s.req("GET", &format!("/rooms/q/nodes/{id}"), None).await;
        assert_eq!(st == 200, applied, "node {id}");
    }
    s.stop().await;
}

/// One editor's WebSocket connections share one pending quota with each other (and
/// with its HTTP requests): a second socket does not double what it may hold.
#[tokio::test]
async fn a_websocket_editors_connections_share_one_quota() {
    let mut cfg = config();
    cfg.tick_op_budget = 1;
    cfg.max_pending_ops_per_conn = 10;
    let s = start(cfg).await;
    s.create_room("w", 240).await;
    assert_eq!(s.edits("w", json!([{"op":"add","id":0}])).await.0, 200);
    let room = s.state.room("w").unwrap();
    queue_noops(&room, 240);
    let batch = |seq: u64, first: u32| ClientMsg::Edits {
        seq,
        ops: (first..first + 6)
            .map(|id| Op::add_root(id, Transform::IDENTITY))
            .collect(),
    };
    let mut a = s.ws("w", Format::Json).await;
    let mut b = s.ws("w", Format::Json).await;
    a.send(&batch(1, 100)).await;
    for _ in 0..1000 {
        if s.state.edit_quotas.waiting_ops("addr:127.0.0.1") == 6 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    assert_eq!(s.state.edit_quotas.waiting_ops("addr:127.0.0.1"), 6);
    // The same caller on its second socket: 6 + 6 would pass its 10.
    b.send(&batch(2, 200)).await;
    let refused = b
        .recv_until(|m| matches!(m, ServerMsg::Error { seq: Some(2), .. }))
        .await;
    let ServerMsg::Error { code, message, .. } = refused else {
        unreachable!()
    };
    assert_eq!(code, ErrorCode::Overloaded);
    assert!(message.contains("this editor"), "{message}");
    a.recv_until(|m| matches!(m, ServerMsg::Ack { seq: 1, .. }))
        .await;
    s.stop().await;
}
