//! WebSocket clients as a hostile peer drives them: subscribe floods, a reader
//! that stops reading and then vanishes, a socket of a deleted room, the documented
//! maximum bincode batch, connection caps, and ticks that run on tick threads. Each test
//! failed on the code before the fix it guards.

use crate::common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use canopy_protocol::{ClientMsg, ErrorCode, Format, Op, ServerMsg, codec};
use canopy_scene::{UpdateCallback, UpdateContext};
use common::{config, start};
use futures_util::SinkExt;
use serde_json::json;
use tokio::io::AsyncWriteExt;
use tokio_tungstenite::tungstenite::Message;

fn add_ops(n: u32) -> serde_json::Value {
    json!((0..n)
        .map(|i| json!({"op":"add","id":i,"local":{"t":[(i % 50) as f32, (i / 50) as f32, 0.0]},"extent":[0.4,0.4,0.4]}))
        .collect::<Vec<_>>())
}

/// Polls the server's metrics until `name` reads `want`, for at most `secs`.
async fn metric_reaches(s: &common::TestServer, name: &str, want: f64, secs: u64) -> f64 {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(secs);
    loop {
        let (_, body) = s.req("GET", "/metrics", None).await;
        let text = body.as_str().unwrap_or_default().to_string();
        let value = text
            .lines()
            .find(|l| l.starts_with(name) && l[name.len()..].starts_with(' '))
            .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
            .unwrap_or(f64::NAN);
        if value == want || tokio::time::Instant::now() > deadline {
            return value;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_subscribe_flood_costs_one_snapshot_per_tick_at_most() {
    let s = start(config()).await;
    s.create_room("flood", 30).await;
    assert_eq!(s.edits("flood", add_ops(2000)).await.0, 200);
    let mut ws = s.ws("flood", Format::Json).await;
    for _ in 0..500 {
        ws.send(&ClientMsg::subscribe(None, u32::MAX)).await;
    }
    let mut snapshots = 0;
    while let Some(m) = ws.recv_within(1.0).await {
        if matches!(m, ServerMsg::Snapshot { .. }) {
            snapshots += 1;
        }
    }
    // Before: one full snapshot per subscribe (500). Now a newer subscription replaces
    // a waiting one, and a queued snapshot is replaced by a newer one.
    assert!((1..=40).contains(&snapshots), "{snapshots} snapshots");
    s.stop().await;
}

#[tokio::test]
async fn a_reader_that_stops_reading_and_vanishes_is_let_go() {
    let mut cfg = config();
    cfg.ws_queue_replies = 16;
    cfg.ws_write_deadline = std::time::Duration::from_secs(1);
    let s = start(cfg).await;
    s.create_room("r", 30).await;
    assert_eq!(s.edits("r", add_ops(2000)).await.0, 200);
    let mut ws = s.ws("r", Format::Json).await;
    let query = json!({"type":"query","id":1,"query":{"kind":"region","min":[-1e6,-1e6,-1e6],"max":[1e6,1e6,1e6]}});
    for _ in 0..20 {
        ws.send_raw(Message::text(query.to_string())).await;
    }
    for n in 0..5000 {
        let ping = json!({"type":"ping","nonce":n}).to_string();
        if tokio::time::timeout(
            Duration::from_millis(200),
            ws.stream.send(Message::text(ping)),
        )
        .await
        .is_err()
        {
            break; // the server stopped reading: its replies are over their bound
        }
    }
    drop(ws);
    // Before: the reader waited for its queue forever and the connection never ended.
    assert_eq!(
        metric_reaches(&s, "canopy_ws_connections", 0.0, 20).await,
        0.0
    );
    s.stop().await;
}

#[tokio::test]
async fn a_socket_of_a_deleted_room_cannot_read_its_successor() {
    let mut cfg = config();
    cfg.admin_token = Some("admin-secret".parse().unwrap());
    let s = start(cfg).await;
    let admin = |r: reqwest::RequestBuilder| r.bearer_auth("admin-secret");
    let created: serde_json::Value = admin(s.http.post(format!("{}/rooms", s.base)))
        .json(&json!({"id":"reuse"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let viewer = created["viewer_token"].as_str().unwrap().to_string();
    let url = format!("{}/rooms/reuse/ws?format=json&token={viewer}", s.ws_base);
    let (stream, _) = tokio_tungstenite::connect_async(url).await.unwrap();
    let mut ws = common::Ws {
        stream,
        format: Format::Json,
    };
    let st = admin(s.http.delete(format!("{}/rooms/reuse", s.base)))
        .send()
        .await
        .unwrap()
        .status();
    assert_eq!(st, 204);
    // The unsubscribed socket is closed with the room (before: it stayed open and its
    // queries read whatever room next took the id).
    let m = ws.recv().await;
    assert!(
        matches!(&m, ServerMsg::Closed { reason } if reason == "room deleted"),
        "{m:?}"
    );
    assert!(
        ws.recv_within(5.0).await.is_none(),
        "then the socket closes"
    );
    s.stop().await;
}

#[tokio::test]
async fn the_documented_maximum_bincode_batch_is_accepted_and_one_more_is_too_large() {
    let mut cfg = config();
    cfg.max_ops_per_batch = 262_144;
    let s = start(cfg).await;
    s.create_room("big", 30).await;
    assert_eq!(s.edits("big", add_ops(1)).await.0, 200);
    let mut ws = s.ws("big", Format::Bincode).await;
    let noop = Op::SetLocal {
        node: 0,
        t: None,
        r: None,
        s: None,
    };
    ws.send(&ClientMsg::Edits {
        seq: 1,
        ops: vec![noop.clone(); 262_144],
    })
    .await;
    let m = ws
        .recv_until(|m| !matches!(m, ServerMsg::Pong { .. }))
        .await;
    assert!(matches!(m, ServerMsg::Ack { seq: 1, .. }), "{m:?}");
    ws.send(&ClientMsg::Edits {
        seq: 2,
        ops: vec![noop; 262_145],
    })
    .await;
    let m = ws.recv().await;
    let ServerMsg::Error { seq, code, .. } = m else {
        panic!("{m:?}")
    };
    assert_eq!((seq, code), (Some(2), ErrorCode::TooLarge));
    s.stop().await;
}

#[tokio::test]
async fn websocket_connections_per_room_are_capped() {
    let mut cfg = config();
    cfg.max_ws_per_room = 2;
    let s = start(cfg).await;
    s.create_room("cap", 30).await;
    let _a = s.ws("cap", Format::Json).await;
    let _b = s.ws("cap", Format::Json).await;
    let url = format!("{}/rooms/cap/ws?format=json", s.ws_base);
    let err = tokio_tungstenite::connect_async(url).await.unwrap_err();
    let tokio_tungstenite::tungstenite::Error::Http(resp) = err else {
        panic!("{err:?}")
    };
    assert_eq!(resp.status(), 503);
    s.stop().await;
}

/// Records the name of the thread each update runs on.
#[derive(Clone, Default)]
struct ThreadProbe(Arc<Mutex<Vec<String>>>);

impl UpdateCallback for ThreadProbe {
    fn update(
        &mut self,
        _node: u32,
        ctx: &mut UpdateContext<'_>,
        next: &mut dyn FnMut(&mut UpdateContext<'_>),
    ) {
        let name = std::thread::current().name().unwrap_or("").to_string();
        self.0.lock().unwrap().push(name);
        next(ctx);
    }
}

#[tokio::test]
async fn rooms_tick_on_tick_threads_not_on_the_async_workers() {
    let s = start(config()).await;
    s.create_room("t", 60).await;
    assert_eq!(s.edits("t", add_ops(1)).await.0, 200);
    let probe = ThreadProbe::default();
    let room = s.state.room("t").unwrap();
    room.scene
        .write()
        .hierarchy_mut()
        .set_update_callback(0, Box::new(probe.clone()));
    tokio::time::sleep(Duration::from_millis(300)).await;
    let names = probe.0.lock().unwrap().clone();
    assert!(!names.is_empty());
    assert!(
        names.iter().all(|n| n.starts_with("canopy-tick-")),
        "{names:?}"
    );
    s.stop().await;
}

#[tokio::test]
async fn the_websocket_answer_names_the_protocol_version() {
    let s = start(config()).await;
    s.create_room("v", 30).await;
    let mut req = tokio_tungstenite::tungstenite::client::IntoClientRequest::into_client_request(
        format!("{}/rooms/v/ws", s.ws_base),
    )
    .unwrap();
    req.headers_mut()
        .insert("sec-websocket-protocol", "canopy.1".parse().unwrap());
    let (_ws, resp) = tokio_tungstenite::connect_async(req).await.unwrap();
    assert_eq!(resp.headers()["sec-websocket-protocol"], "canopy.1");
    assert_eq!(
        resp.headers()[canopy_protocol::PROTOCOL_HEADER],
        canopy_protocol::PROTOCOL_VERSION
    );
    s.stop().await;
}

#[tokio::test]
async fn a_large_snapshot_arrives_whole_across_fragments() {
    let s = start(config()).await;
    s.create_room("frag", 30).await;
    assert_eq!(s.edits("frag", add_ops(3000)).await.0, 200);
    for format in [Format::Bincode, Format::Json] {
        let mut ws = s.ws("frag", format).await;
        ws.send(&ClientMsg::subscribe(None, u32::MAX)).await;
        let ServerMsg::Snapshot { nodes, .. } = ws.recv().await else {
            panic!("a snapshot")
        };
        assert_eq!(nodes.len(), 3000, "{format:?}");
        let bytes = codec::encode_server(&ServerMsg::snapshot(0, 0, nodes), format);
        assert!(bytes.len() > canopy_server::ws::FRAGMENT_BYTES * 4);
    }
    // A raw peer that sends garbage after the handshake is dropped, nothing more.
    let mut tcp = tokio::net::TcpStream::connect(s.base.trim_start_matches("http://"))
        .await
        .unwrap();
    tcp.write_all(b"GET /rooms/frag/ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n\xff\xff\xff\xff")
        .await
        .unwrap();
    drop(tcp);
    s.stop().await;
}

/// A message far over the limit, still being sent when the server refuses it: the client
/// reads the `too_large` error and the 1009 close, not a reset, even when it reads only
/// after its send is done (the server drains what the client still sends for a moment
/// before it closes: a socket closed with unread bytes sends RST, which would throw
/// away the answer the client had not read yet).
#[tokio::test]
async fn a_huge_message_is_answered_before_the_close_while_the_client_still_sends() {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;

    let mut cfg = common::config();
    cfg.max_ws_message_bytes = 64 * 1024;
    let s = common::start(cfg).await;
    s.create_room("big", 30).await;
    let ws = s.ws("big", Format::Json).await;
    let (mut sink, mut stream) = ws.stream.split();
    // 64 MiB: far more than the socket buffers hold, so the client is mid-send when the
    // server gives up on the message. Like many client libraries, it reads only once
    // its send is done.
    let sent = sink.send(Message::text("x".repeat(64 << 20))).await;
    let mut refused = false;
    let mut close_code = None;
    while let Ok(Some(m)) =
        tokio::time::timeout(std::time::Duration::from_secs(10), stream.next()).await
    {
        match m {
            Ok(Message::Text(t)) if t.contains("too_large") => refused = true,
            Ok(Message::Close(f)) => {
                close_code = f.map(|f| u16::from(f.code));
                break;
            }
            Ok(_) => continue,
            Err(e) => {
                panic!("the answer was lost: {e} (send: {sent:?}, refused before: {refused})")
            }
        }
    }
    assert!(refused, "an error with code too_large came first");
    assert_eq!(close_code, Some(1009));
    drop(sink);
    s.stop().await;
}

/// Readers that never read each hold the snapshot they were sent until it is written or
/// their connection ends, charged to their caller's share of
/// `--max-unsent-snapshot-bytes`: past it, that caller's next subscription answers
/// `overloaded`, so a crowd of them cannot make the server hold one room-sized snapshot
/// per tick each. What a written snapshot held is given back.
#[tokio::test]
async fn snapshots_held_by_readers_that_do_not_read_are_bounded() {
    let mut cfg = config();
    cfg.max_unsent_snapshot_bytes = 1;
    let s = start(cfg).await;
    let unsent = || s.state.metrics.room.unsent_snapshot_bytes.get();
    s.create_room("big", 30).await;
    assert_eq!(s.edits("big", add_ops(20_000)).await.0, 200);
    s.create_room("small", 30).await;
    assert_eq!(s.edits("small", add_ops(1)).await.0, 200);
    // A reader that reads: its snapshot is given back once written.
    let mut fast = s.ws("small", Format::Json).await;
    fast.send(&ClientMsg::subscribe(None, u32::MAX)).await;
    assert!(matches!(fast.recv().await, ServerMsg::Snapshot { .. }));
    assert_eq!(
        metric_reaches(&s, "canopy_unsent_snapshot_bytes", 0.0, 20).await,
        0.0
    );
    // A reader that does not read holds 2.8 MB of JSON, far more than the sockets take.
    let mut stalled = s.ws("big", Format::Json).await;
    stalled.send(&ClientMsg::subscribe(None, u32::MAX)).await;
    for _ in 0..400 {
        if unsent() > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert!(unsent() > 1_000_000, "{} bytes unsent", unsent());
    // Meanwhile a new subscription of the same caller, of another room, is refused.
    let mut refused = s.ws("small", Format::Json).await;
    refused.send(&ClientMsg::subscribe(None, u32::MAX)).await;
    let got = refused.recv().await;
    assert!(
        matches!(
            &got,
            ServerMsg::Error {
                code: ErrorCode::Overloaded,
                ..
            }
        ),
        "{got:?}"
    );
    // The stalled reader goes: what it held is given back, and the caller is served.
    drop(stalled);
    assert_eq!(
        metric_reaches(&s, "canopy_unsent_snapshot_bytes", 0.0, 20).await,
        0.0
    );
    refused.send(&ClientMsg::subscribe(None, u32::MAX)).await;
    let got = refused.recv().await;
    assert!(matches!(got, ServerMsg::Snapshot { .. }), "{got:?}");
    s.stop().await;
}
