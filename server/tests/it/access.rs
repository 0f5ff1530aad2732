//! Access control (docs/protocol.md §6) and the limits a client meets: tokens, 401 and 403,
//! viewer edits, Origin allow-list, query rate limits, oversized WebSocket messages.

use crate::common;

use canopy_protocol::{ClientMsg, ErrorCode, Format, Op, ServerMsg};
use canopy_server::config::Secret;
use futures_util::StreamExt;
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

fn code(b: &Value) -> &str {
    b["error"]["code"].as_str().unwrap_or("<none>")
}

async fn req(
    s: &common::TestServer,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<Value>,
) -> (u16, Value) {
    let m = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
    let mut r = s.http.request(m, format!("{}{}", s.base, path));
    if let Some(t) = token {
        r = r.bearer_auth(t);
    }
    if let Some(b) = body {
        r = r.json(&b);
    }
    let resp = r.send().await.unwrap();
    let st = resp.status().as_u16();
    let bytes = resp.bytes().await.unwrap();
    (st, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
}

#[tokio::test]
async fn tokens_gate_every_route() {
    let mut cfg = common::config();
    cfg.admin_token = Some(Secret("root-token".into()));
    let s = common::start(cfg).await;
    let admin = Some("root-token");

    // Open routes.
    assert_eq!(req(&s, "GET", "/healthz", None, None).await.0, 200);
    assert_eq!(req(&s, "GET", "/openapi.json", None, None).await.0, 200);
    // 401 without a token, 403 with a wrong one.
    let (st, b) = req(&s, "POST", "/rooms", None, Some(json!({"id": "a"}))).await;
    assert_eq!((st, code(&b)), (401, "unauthorized"));
    let (st, b) = req(&s, "POST", "/rooms", Some("nope"), Some(json!({"id": "a"}))).await;
    assert_eq!((st, code(&b)), (403, "forbidden"));
    assert_eq!(req(&s, "GET", "/metrics", None, None).await.0, 401);

    let (st, a) = req(&s, "POST", "/rooms", admin, Some(json!({"id": "a"}))).await;
    assert_eq!(st, 201);
    let (ed, vi) = (
        a["editor_token"].as_str().unwrap().to_string(),
        a["viewer_token"].as_str().unwrap().to_string(),
    );
    assert!(
        ed.len() >= 32 && vi.len() >= 32 && ed != vi,
        "tokens of at least 128 bits"
    );
    let (_, b) = req(&s, "POST", "/rooms", admin, Some(json!({"id": "b"}))).await;
    let other_ed = b["editor_token"].as_str().unwrap().to_string();

    let add = json!({"ops": [{"op": "add", "id": 1}]});
    assert_eq!(
        req(&s, "POST", "/rooms/a/edits", Some(&ed), Some(add.clone()))
            .await
            .0,
        200
    );
    let (st, b) = req(&s, "POST", "/rooms/a/edits", Some(&vi), Some(add.clone())).await;
    assert_eq!((st, code(&b)), (403, "forbidden"), "a viewer may not edit");
    let (st, _) = req(
        &s,
        "POST",
        "/rooms/a/edits",
        Some(&other_ed),
        Some(add.clone()),
    )
    .await;
    assert_eq!(st, 403, "another room's token");
    let (st, _) = req(&s, "POST", "/rooms/a/edits", None, Some(add.clone())).await;
    assert_eq!(st, 401);
    for t in [&ed, &vi] {
        assert_eq!(req(&s, "GET", "/rooms/a/nodes", Some(t), None).await.0, 200);
        assert_eq!(req(&s, "GET", "/rooms/a", Some(t), None).await.0, 200);
        let q = json!({"min": [-1, -1, -1], "max": [1, 1, 1]});
        assert_eq!(
            req(&s, "POST", "/rooms/a/query/region", Some(t), Some(q))
                .await
                .0,
            200
        );
        assert_eq!(
            req(&s, "GET", "/rooms", Some(t), None).await.0,
            403,
            "listing rooms is admin-only"
        );
        assert_eq!(
            req(&s, "DELETE", "/rooms/a", Some(t), None).await.0,
            403,
            "deleting is admin-only"
        );
        assert_eq!(
            req(&s, "GET", "/rooms/b/nodes", Some(t), None).await.0,
            403,
            "not in another room"
        );
    }
    assert_eq!(req(&s, "GET", "/metrics", admin, None).await.0, 200);

    // WebSocket: the token travels as a query parameter.
    let url = |t: &str, f: &str| format!("{}/rooms/a/ws?format={f}&token={t}", s.ws_base);
    assert!(
        tokio_tungstenite::connect_async(format!("{}/rooms/a/ws", s.ws_base))
            .await
            .is_err(),
        "401 without a token"
    );
    assert!(
        tokio_tungstenite::connect_async(url("bad", "json"))
            .await
            .is_err(),
        "403 with a wrong one"
    );
    let (stream, _) = tokio_tungstenite::connect_async(url(&vi, "json"))
        .await
        .unwrap();
    let mut ws = common::Ws {
        stream,
        format: Format::Json,
    };
    ws.send(&ClientMsg::subscribe(None, u32::MAX)).await;
    let ServerMsg::Snapshot { nodes, .. } = ws.recv().await else {
        panic!()
    };
    assert_eq!(nodes.len(), 1);
    ws.send(&ClientMsg::Edits {
        seq: 4,
        ops: vec![Op::Remove { node: 1 }],
    })
    .await;
    let ServerMsg::Error { seq, code, .. } = ws
        .recv_until(|m| matches!(m, ServerMsg::Error { .. }))
        .await
    else {
        panic!()
    };
    assert_eq!((seq, code), (Some(4), ErrorCode::Forbidden));
    let (stream, _) = tokio_tungstenite::connect_async(url(&ed, "bincode"))
        .await
        .unwrap();
    let mut ws = common::Ws {
        stream,
        format: Format::Bincode,
    };
    ws.send(&ClientMsg::Edits {
        seq: 5,
        ops: vec![Op::Remove { node: 1 }],
    })
    .await;
    assert!(matches!(ws.recv().await, ServerMsg::Ack { seq: 5, .. }));
    s.stop().await;
}

#[tokio::test]
async fn origins_rate_limits_and_message_size() {
    let mut cfg = common::config();
    cfg.allowed_origins = vec!["https://editor.example".into()];
    cfg.query_rate = 5;
    cfg.max_ws_message_bytes = 1024;
    let s = common::start(cfg).await;
    s.create_room("o", 30).await;
    let url = format!("{}/rooms/o/ws?format=json", s.ws_base);
    let mut r = url.as_str().into_client_request().unwrap();
    r.headers_mut()
        .insert("origin", "https://evil.example".parse().unwrap());
    assert!(
        tokio_tungstenite::connect_async(r).await.is_err(),
        "origin not on the list"
    );
    let mut r = url.as_str().into_client_request().unwrap();
    r.headers_mut()
        .insert("origin", "https://editor.example".parse().unwrap());
    let (stream, _) = tokio_tungstenite::connect_async(r).await.unwrap();
    let mut ws = common::Ws {
        stream,
        format: Format::Json,
    };

    // Over quota: 429 rate_limited on HTTP.
    let q = json!({"point": [0, 0, 0], "k": 1});
    let mut limited = 0;
    for _ in 0..40 {
        let (st, b) = s
            .req("POST", "/rooms/o/query/nearest", Some(q.clone()))
            .await;
        if st == 429 {
            assert_eq!(code(&b), "rate_limited");
            limited += 1;
        }
    }
    assert!(limited > 0, "some queries were refused");

    // A message over the limit is refused as too_large and closes the socket with 1009.
    ws.send_raw(Message::text("x".repeat(4096))).await;
    let mut close_code = None;
    let mut refused = false;
    while let Ok(Some(m)) =
        tokio::time::timeout(std::time::Duration::from_secs(5), ws.stream.next()).await
    {
        match m {
            Ok(Message::Close(Some(f))) => {
                close_code = Some(u16::from(f.code));
                break;
            }
            Ok(Message::Text(t)) if t.contains("too_large") => refused = true,
            Ok(_) => continue,
            Err(_) => break,
        }
    }
    assert_eq!(close_code, Some(1009));
    assert!(
        refused,
        "an error with code too_large came before the close"
    );
    s.stop().await;
}
