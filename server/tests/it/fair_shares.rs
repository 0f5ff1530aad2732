//! Hostile clients against the fair shares of the server-wide budgets: each test runs
//! the attack against a real server and asserts what an innocent client sees (its
//! snapshot, its `/nodes` answer, within generous deadlines), or that what the attacker
//! makes the server hold stays bounded.

use crate::common;

use std::time::Duration;

use canopy_protocol::{ClientMsg, Format, ServerMsg, codec};
use common::{config, start};
use futures_util::SinkExt;
use serde_json::json;
use tokio_tungstenite::tungstenite::Message;

pub(crate) fn add_ops(n: u32) -> serde_json::Value {
    json!((0..n)
        .map(|i| json!({"op":"add","id":i,"local":{"t":[(i % 100) as f32, (i / 100) as f32, 0.0]},"extent":[0.4,0.4,0.4]}))
        .collect::<Vec<_>>())
}

/// A flood of `unsubscribe` and `subscribe` frames to a slow room: the session
/// coalesces them, so at most one subscription command of the connection waits in the
/// room's channel (before, each frame was a command until the next tick: 2.6M frames
/// grew the server by 100 MB), and the last one is what the room does.
#[tokio::test]
async fn a_subscription_flood_leaves_one_command_waiting() {
    let s = start(config()).await;
    s.create_room("slow", 1).await;
    assert_eq!(s.edits("slow", add_ops(10)).await.0, 200);
    let room = s.state.room("slow").unwrap();
    let mut ws = s.ws("slow", Format::Bincode).await;
    let unsub = codec::encode_client(&ClientMsg::Unsubscribe, Format::Bincode);
    let mut most = 0;
    for i in 0..50_000 {
        ws.stream
            .feed(Message::binary(unsub.clone()))
            .await
            .unwrap();
        if i % 1000 == 0 {
            ws.stream.flush().await.unwrap();
            most = most.max(room.queued_commands());
        }
    }
    ws.send(&ClientMsg::subscribe(None, u32::MAX)).await;
    let snapshot = ws
        .recv_until(|m| matches!(m, ServerMsg::Snapshot { .. }))
        .await;
    let ServerMsg::Snapshot { nodes, .. } = snapshot else {
        unreachable!()
    };
    assert_eq!(
        nodes.len(),
        10,
        "the last change (subscribe) is what the room did"
    );
    assert!(most <= 2, "{most} commands waited for the room");
    assert!(room.queued_commands() <= 1);
    s.stop().await;
}

pub(crate) type RawWs = tokio_tungstenite::WebSocketStream<tokio::net::TcpStream>;

/// A WebSocket to `room` from address `from` (named by `X-Forwarded-For`, the server
/// trusting 127.0.0.1 as a proxy), through a socket with a receive buffer of `rcvbuf`
/// bytes, so a client that does not read is seen at once.
pub(crate) async fn ws_from(s: &common::TestServer, room: &str, from: &str, rcvbuf: u32) -> RawWs {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let addr: std::net::SocketAddr = s.base.trim_start_matches("http://").parse().unwrap();
    let sock = tokio::net::TcpSocket::new_v4().unwrap();
    sock.set_recv_buffer_size(rcvbuf).unwrap();
    let tcp = sock.connect(addr).await.unwrap();
    let mut req = format!("{}/rooms/{room}/ws?format=json", s.ws_base)
        .into_client_request()
        .unwrap();
    req.headers_mut()
        .insert("x-forwarded-for", from.parse().unwrap());
    tokio_tungstenite::client_async(req, tcp).await.unwrap().0
}

/// The next data message of `ws` within `secs`, decoded.
pub(crate) async fn next_within(ws: &mut RawWs, secs: f64) -> Option<ServerMsg> {
    use futures_util::StreamExt;
    let deadline = tokio::time::Instant::now() + Duration::from_secs_f64(secs);
    loop {
        let m = tokio::time::timeout_at(deadline, ws.next())
            .await
            .ok()??
            .ok()?;
        if let Message::Text(t) = m {
            return Some(codec::decode_server(t.as_bytes(), Format::Json).unwrap());
        }
    }
}

pub(crate) async fn send_json(ws: &mut RawWs, msg: &ClientMsg) {
    let text = String::from_utf8(codec::encode_client(msg, Format::Json)).unwrap();
    ws.send(Message::text(text)).await.unwrap();
}

pub(crate) fn behind_proxy() -> canopy_server::config::ServerConfig {
    let mut cfg = config();
    cfg.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()];
    cfg
}

/// N1: one caller's readers that never read, each with its own mask (so no snapshot is
/// shared), cannot fill the server's unsent snapshot bytes: past its share, its
/// subscriptions answer `overloaded`, and a subscriber of another room, another
/// caller, gets its snapshot at once. Before, they filled the server-wide cap and no
/// room answered a subscription while they stayed.
#[tokio::test]
async fn readers_that_do_not_read_cannot_hold_every_rooms_snapshots() {
    let mut cfg = behind_proxy();
    cfg.max_unsent_snapshot_bytes = 8 << 20;
    let s = start(cfg).await;
    s.create_room("big", 30).await;
    assert_eq!(s.edits("big", add_ops(20_000)).await.0, 200);
    s.create_room("small", 30).await;
    assert_eq!(s.edits("small", add_ops(1)).await.0, 200);
    let mut attackers = Vec::new();
    let mut refused = 0;
    for i in 0..12u32 {
        let mut ws = ws_from(&s, "big", "10.0.0.1", 4096).await;
        send_json(&mut ws, &ClientMsg::subscribe(None, u32::MAX - i)).await;
        attackers.push(ws);
        tokio::time::sleep(Duration::from_millis(40)).await;
    }
    // Each attacker's first message: the snapshot (which it does not read) or a refusal.
    // The refusals are small and arrive whole; the snapshot fills the socket.
    for ws in &mut attackers {
        if let Some(ServerMsg::Error { code, .. }) = next_within(ws, 0.3).await {
            assert_eq!(code, canopy_protocol::ErrorCode::Overloaded);
            refused += 1;
        }
    }
    let unsent = s.state.metrics.room.unsent_snapshot_bytes.get();
    assert!(
        refused >= 9,
        "{refused} of 12 refused; {unsent} bytes unsent"
    );
    assert!(
        unsent < 8 << 20,
        "{unsent} bytes unsent: the attacker filled the server"
    );
    let mut innocent = ws_from(&s, "small", "10.0.0.2", 1 << 20).await;
    send_json(&mut innocent, &ClientMsg::subscribe(None, u32::MAX)).await;
    let got = next_within(&mut innocent, 2.0).await;
    assert!(matches!(got, Some(ServerMsg::Snapshot { .. })), "{got:?}");
    drop(attackers);
    s.stop().await;
}

/// N3: a resumed subscription is charged like a snapshot: its delta counts in the
/// unsent snapshot bytes while its reader does not read (before, it counted nowhere),
/// so the same caller's next resume past its share answers `overloaded`.
#[tokio::test]
async fn resumed_deltas_are_charged_like_snapshots() {
    let mut cfg = behind_proxy();
    // A caller's share 512 KiB, the room's 2 MiB.
    cfg.max_unsent_snapshot_bytes = 4 << 20;
    cfg.budgets.room_share_divisor = 2;
    let s = start(cfg).await;
    s.create_room("hist", 30).await;
    assert_eq!(s.edits("hist", add_ops(20_000)).await.0, 200);
    let since = s.state.room("hist").unwrap().stats.tick();
    let moved = json!(
        (0..20_000)
            .map(|i| json!({"op":"set_local","node":i,"t":[1.0, 2.0, i as f32]}))
            .collect::<Vec<_>>()
    );
    assert_eq!(s.edits("hist", moved).await.0, 200);
    let resume = ClientMsg::Subscribe {
        region: None,
        mask: u32::MAX,
        since: Some(since),
        encoding: canopy_protocol::Encoding::Exact,
        follow: None,
        frustum: None,
        send_hz: None,
        tiers: Vec::new(),
    };
    let mut first = ws_from(&s, "hist", "10.0.0.1", 4096).await;
    send_json(&mut first, &resume).await;
    let unsent = || s.state.metrics.room.unsent_snapshot_bytes.get();
    for _ in 0..200 {
        if unsent() > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert!(
        unsent() > 512 << 10,
        "{} bytes of the resumed delta unsent",
        unsent()
    );
    let mut second = ws_from(&s, "hist", "10.0.0.1", 1 << 20).await;
    send_json(&mut second, &resume).await;
    let got = next_within(&mut second, 5.0).await;
    assert!(
        matches!(
            got,
            Some(ServerMsg::Error {
                code: canopy_protocol::ErrorCode::Overloaded,
                ..
            })
        ),
        "{got:?}"
    );
    // Another caller resumes at once.
    let mut other = ws_from(&s, "hist", "10.0.0.2", 1 << 20).await;
    send_json(&mut other, &resume).await;
    let got = next_within(&mut other, 5.0).await;
    assert!(
        matches!(got, Some(ServerMsg::Delta { resumed: true, .. })),
        "{got:?}"
    );
    drop(first);
    s.stop().await;
}

/// Starts `GET /rooms/{room}/nodes` from `from` on a socket with a 4 KiB receive buffer
/// and never reads past the status line; returns the status.
async fn unread_nodes(
    s: &common::TestServer,
    room: &str,
    from: &str,
) -> (u16, tokio::net::TcpStream) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let addr: std::net::SocketAddr = s.base.trim_start_matches("http://").parse().unwrap();
    let sock = tokio::net::TcpSocket::new_v4().unwrap();
    sock.set_recv_buffer_size(4096).unwrap();
    let mut tcp = sock.connect(addr).await.unwrap();
    let request = format!(
        "GET /rooms/{room}/nodes HTTP/1.1\r\nHost: localhost\r\nX-Forwarded-For: {from}\r\n\r\n"
    );
    tcp.write_all(request.as_bytes()).await.unwrap();
    let mut head = [0u8; 12];
    tcp.read_exact(&mut head).await.unwrap();
    let status = std::str::from_utf8(&head[9..12]).unwrap().parse().unwrap();
    (status, tcp)
}

/// N2 and N10: whole-room reads that never read hold at most their caller's share of
/// the server's slots; the caller's next one (`/nodes` or `/octree`) answers `503
/// overloaded` at once, and another caller's `/nodes` of another room is answered
/// within 2 s. Before, two such readers held the server's two slots and every other
/// `/nodes` waited.
#[tokio::test]
async fn whole_room_readers_that_do_not_read_hold_only_their_share() {
    let s = start(behind_proxy()).await;
    s.create_room("big", 30).await;
    assert_eq!(s.edits("big", add_ops(20_000)).await.0, 200);
    s.create_room("small", 30).await;
    assert_eq!(s.edits("small", add_ops(1)).await.0, 200);
    let (st, _held) = unread_nodes(&s, "big", "10.0.0.1").await;
    assert_eq!(st, 200);
    let began = std::time::Instant::now();
    let (st, _) = unread_nodes(&s, "big", "10.0.0.1").await;
    assert_eq!(st, 503, "over its share: refused, not queued");
    let octree = s
        .http
        .get(format!("{}/rooms/small/octree", s.base))
        .header("x-forwarded-for", "10.0.0.1")
        .send()
        .await
        .unwrap();
    assert_eq!(octree.status().as_u16(), 503, "/octree shares the slots");
    let body: serde_json::Value = octree.json().await.unwrap();
    assert_eq!(body["error"]["code"], "overloaded", "{body}");
    assert!(began.elapsed() < Duration::from_secs(2));
    let began = std::time::Instant::now();
    let answer = s
        .http
        .get(format!("{}/rooms/small/nodes", s.base))
        .header("x-forwarded-for", "10.0.0.2")
        .timeout(Duration::from_secs(2))
        .send()
        .await
        .expect("the innocent's /nodes is answered within 2 s");
    assert_eq!(answer.status().as_u16(), 200);
    let body: serde_json::Value = answer.json().await.unwrap();
    assert_eq!(body["nodes"].as_array().map(Vec::len), Some(1));
    assert!(began.elapsed() < Duration::from_secs(2));
    s.stop().await;
}

/// Reads `ws` until its close frame (or the end), within `secs`; the close code.
async fn close_code_within(ws: &mut RawWs, secs: u64) -> Option<u16> {
    use futures_util::StreamExt;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(secs);
    loop {
        match tokio::time::timeout_at(deadline, ws.next()).await {
            Ok(Some(Ok(Message::Close(f)))) => return f.map(|f| u16::from(f.code)),
            Ok(Some(Ok(_))) => continue,
            Ok(_) => return None,
            Err(_) => panic!("no close within {secs} s"),
        }
    }
}

/// One fragment of a binary message (FIN clear), or its continuation.
fn fragment(first: bool, len: usize) -> Message {
    use tokio_tungstenite::tungstenite::protocol::frame::Frame;
    use tokio_tungstenite::tungstenite::protocol::frame::coding::{Data, OpCode};
    let opcode = if first {
        OpCode::Data(Data::Binary)
    } else {
        OpCode::Data(Data::Continue)
    };
    Message::Frame(Frame::message(vec![0u8; len], opcode, false))
}

/// N5: a message begun and never completed, kept alive with pongs and more fragments,
/// is closed at the message deadline (1008); one whose fragments pass its caller's
/// share of the partial-message bytes is closed with `overloaded` (1013); another
/// caller's connection goes on. Before, pongs counted as activity and such messages
/// were held for good (16 MiB per connection).
#[tokio::test]
async fn unfinished_messages_are_bounded_in_time_and_bytes() {
    let mut cfg = behind_proxy();
    cfg.ws_ping = Duration::from_millis(500);
    cfg.ws_idle = Duration::from_secs(3);
    cfg.budgets.ws_message_deadline = Duration::from_secs(2);
    cfg.budgets.max_partial_message_bytes = 1 << 20;
    let s = start(cfg).await;
    s.create_room("r", 30).await;
    // Slow: 64 KiB, then a pong and another 64 KiB every 500 ms (a caller's share is
    // 128 KiB: the trickler stays under it for a while, and is cut by the deadline).
    let mut slow = ws_from(&s, "r", "10.0.0.1", 1 << 20).await;
    slow.send(fragment(true, 1000)).await.unwrap();
    let trickle = tokio::spawn(async move {
        for _ in 0..20 {
            tokio::time::sleep(Duration::from_millis(500)).await;
            if slow.send(Message::Pong(Vec::new().into())).await.is_err()
                || slow.send(fragment(false, 1000)).await.is_err()
            {
                break;
            }
        }
        // Its close code may be lost to its own writes after the close: the server's
        // count of closes says why it ended.
        let _ = close_code_within(&mut slow, 10).await;
    });
    // Big: more than its caller's share at once.
    let mut big = ws_from(&s, "r", "10.0.0.2", 1 << 20).await;
    big.send(fragment(true, 64 << 10)).await.unwrap();
    big.send(fragment(false, 100 << 10)).await.unwrap();
    let got = next_within(&mut big, 5.0).await;
    assert!(
        matches!(
            &got,
            Some(ServerMsg::Error {
                code: canopy_protocol::ErrorCode::Overloaded,
                ..
            })
        ),
        "{got:?}"
    );
    assert_eq!(close_code_within(&mut big, 5).await, Some(1013));
    // The innocent, another caller, is served meanwhile.
    let mut innocent = ws_from(&s, "r", "10.0.0.3", 1 << 20).await;
    send_json(&mut innocent, &ClientMsg::subscribe(None, u32::MAX)).await;
    let got = next_within(&mut innocent, 2.0).await;
    assert!(matches!(got, Some(ServerMsg::Snapshot { .. })), "{got:?}");
    trickle.await.unwrap();
    let unfinished = s
        .state
        .metrics
        .ws_closed
        .with_label_values(&["message not completed in time"])
        .get();
    assert_eq!(
        unfinished, 1,
        "the trickler was closed at the message deadline"
    );
    assert_eq!(s.state.partial_messages.held().0, 0, "given back");
    s.stop().await;
}

/// F8: an editor's WebSocket connections share one pending-ops quota (its caller's),
/// so two sockets of one editor cannot take a room's whole pending budget; another
/// editor's batch is admitted meanwhile.
#[tokio::test]
async fn two_sockets_of_one_editor_share_its_pending_quota() {
    let mut cfg = behind_proxy();
    cfg.tick_op_budget = 1;
    cfg.max_pending_ops_per_conn = 10;
    let s = start(cfg).await;
    s.create_room("q", 240).await;
    assert_eq!(s.edits("q", add_ops(1)).await.0, 200);
    // A queue ahead of the editors (one batch per tick at 240 Hz: about a second).
    let room = s.state.room("q").unwrap();
    for _ in 0..240 {
        let (tx, _rx) = tokio::sync::oneshot::channel();
        let noop = vec![canopy_protocol::Op::SetLocal {
            node: 0,
            t: Some([1.0, 0.0, 0.0]),
            r: None,
            s: None,
        }];
        room.submit_edits(
            noop,
            canopy_room::EditReply::Oneshot(tx),
            std::sync::Arc::new(canopy_room::EditTicket::default()),
            None,
        )
        .unwrap();
    }
    let batch = |seq: u64, first: u32| ClientMsg::Edits {
        seq,
        ops: (first..first + 6)
            .map(|i| canopy_protocol::Op::Add {
                id: Some(i),
                parent: None,
                local: canopy_protocol::Transform::IDENTITY,
                extent: [1.0; 3],
                mask: u32::MAX,
            })
            .collect(),
    };
    let mut a = ws_from(&s, "q", "10.0.0.1", 1 << 20).await;
    let mut b = ws_from(&s, "q", "10.0.0.1", 1 << 20).await;
    let mut other = ws_from(&s, "q", "10.0.0.2", 1 << 20).await;
    send_json(&mut a, &batch(1, 100)).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    send_json(&mut b, &batch(1, 200)).await;
    send_json(&mut other, &batch(1, 300)).await;
    let refused = next_within(&mut b, 5.0).await;
    assert!(
        matches!(
            &refused,
            Some(ServerMsg::Error {
                code: canopy_protocol::ErrorCode::Overloaded,
                ..
            })
        ),
        "{refused:?}"
    );
    let acked = next_within(&mut other, 10.0).await;
    assert!(matches!(acked, Some(ServerMsg::Ack { .. })), "{acked:?}");
    let acked = next_within(&mut a, 10.0).await;
    assert!(matches!(acked, Some(ServerMsg::Ack { .. })), "{acked:?}");
    s.stop().await;
}
