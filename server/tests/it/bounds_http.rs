//! The HTTP edge as a hostile peer meets it: a batch answered with an error is
//! never applied, headers that never finish, idle and excess connections, oversized
//! answers, cross-site requests and rebinding hosts, ray directions of any length, and
//! the contract's error bodies for unknown routes and methods.

use crate::common;

use std::sync::Arc;
use std::time::Duration;

use canopy_protocol::{ErrorCode, Op, Transform};
use canopy_room::{EditReply, EditTicket};
use common::{config, start};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

fn code(b: &Value) -> &str {
    b["error"]["code"].as_str().unwrap_or("")
}

async fn raw_tcp(s: &common::TestServer) -> TcpStream {
    TcpStream::connect(s.base.trim_start_matches("http://"))
        .await
        .unwrap()
}

/// Reads until the server closes the connection (or `secs` pass): what it sent.
async fn read_to_close(tcp: &mut TcpStream, secs: u64) -> Option<Vec<u8>> {
    let mut got = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(secs), tcp.read_to_end(&mut got)).await;
    read.ok().map(|_| got)
}

/// Queues `n` one-op batches that change nothing (node 0 stays at x = 1) in `room`, from
/// no connection: with a tick op budget of 1, a queue of `n` ticks ahead of what follows.
pub(crate) fn queue_noops(room: &canopy_room::RoomShared, n: usize) {
    let noop = Op::SetLocal {
        node: 0,
        t: Some([1.0, 0.0, 0.0]),
        r: None,
        s: None,
    };
    for _ in 0..n {
        let (tx, _rx) = tokio::sync::oneshot::channel();
        let ticket = Arc::new(EditTicket::default());
        room.submit_edits(vec![noop.clone()], EditReply::Oneshot(tx), ticket, None)
            .unwrap();
    }
}

#[tokio::test]
async fn an_edit_answered_overloaded_is_never_applied() {
    let mut cfg = config();
    cfg.request_timeout = std::time::Duration::from_secs(1);
    cfg.tick_op_budget = 1;
    let s = start(cfg).await;
    s.create_room("slow", 240).await;
    assert_eq!(s.edits("slow", json!([{"op":"add","id":0}])).await.0, 200);
    // 600 one-op batches ahead of ours, one per tick at 240 Hz: about 2.5 s of queue.
    let room = s.state.room("slow").unwrap();
    queue_noops(&room, 600);
    let (st, b) = s
        .edits(
            "slow",
            json!([{"op":"add","id":4242,"local":Transform::IDENTITY}]),
        )
        .await;
    assert_eq!((st, code(&b)), (503, "overloaded"), "{b}");
    // Wait until the queue has drained past where the batch stood.
    for _ in 0..200 {
        if room.pending_batches() == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(room.pending_batches(), 0);
    let (st, b) = s.req("GET", "/rooms/slow/nodes/4242", None).await;
    assert_eq!(
        (st, code(&b)),
        (404, "unknown_node"),
        "withdrawn, never applied: {b}"
    );
    s.stop().await;
}

#[tokio::test]
async fn half_sent_headers_and_idle_sockets_are_closed() {
    let mut cfg = config();
    cfg.http_header_timeout = std::time::Duration::from_secs(1);
    let s = start(cfg).await;
    let mut partial = raw_tcp(&s).await;
    partial
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        .await
        .unwrap();
    let mut idle = raw_tcp(&s).await;
    let mut keep_alive = raw_tcp(&s).await;
    keep_alive
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .await
        .unwrap();
    // Before: all three were held open for as long as the client liked.
    assert!(
        read_to_close(&mut partial, 10).await.is_some(),
        "partial headers"
    );
    assert!(read_to_close(&mut idle, 10).await.is_some(), "idle socket");
    let answered = read_to_close(&mut keep_alive, 10)
        .await
        .expect("idle keep-alive");
    assert!(String::from_utf8_lossy(&answered).starts_with("HTTP/1.1 200"));
    s.stop().await;
}

#[tokio::test]
async fn connections_per_address_are_capped_and_the_server_keeps_serving() {
    let mut cfg = config();
    cfg.max_connections_per_ip = 3;
    let s = start(cfg).await;
    let held: Vec<TcpStream> = futures_util::future::join_all((0..3).map(|_| raw_tcp(&s))).await;
    let mut excess = raw_tcp(&s).await;
    let got = read_to_close(&mut excess, 10)
        .await
        .expect("closed at accept");
    assert!(got.is_empty());
    drop(held);
    tokio::time::sleep(Duration::from_millis(100)).await;
    let (st, b) = s.req("GET", "/healthz", None).await;
    assert_eq!(st, 200);
    assert_eq!(b["status"], "ok");
    assert_eq!(b["protocol"], canopy_protocol::PROTOCOL_VERSION);
    s.stop().await;
}

#[tokio::test]
async fn answers_over_the_limit_are_too_large_and_whole_room_reads_stream() {
    let mut cfg = config();
    cfg.max_answer_items = 10;
    let s = start(cfg).await;
    s.create_room("r", 30).await;
    let ops: Vec<Value> = (0..3000)
        .map(|i| json!({"op":"add","id":i,"local":{"t":[i as f32, 0.0, 0.0]}}))
        .collect();
    assert_eq!(s.edits("r", json!(ops)).await.0, 200);
    let (st, b) = s
        .req(
            "POST",
            "/rooms/r/query/region",
            Some(json!({"min":[-1,-1,-1],"max":[1e4,1,1]})),
        )
        .await;
    assert_eq!((st, code(&b)), (413, "too_large"), "{b}");
    let (st, b) = s
        .req(
            "POST",
            "/rooms/r/query/region",
            Some(json!({"min":[-1,-1,-1],"max":[5,1,1]})),
        )
        .await;
    assert_eq!((st, b["nodes"].as_array().unwrap().len()), (200, 6));
    // The whole-room read is not an answer of a query: it streams every node.
    let (st, b) = s.req("GET", "/rooms/r/nodes", None).await;
    assert_eq!(st, 200);
    let nodes = b["nodes"].as_array().unwrap();
    assert_eq!(nodes.len(), 3000);
    let mut ids: Vec<u64> = nodes.iter().map(|n| n["id"].as_u64().unwrap()).collect();
    ids.sort_unstable();
    assert_eq!(ids, (0..3000).collect::<Vec<u64>>());
    assert_eq!(
        b["tick"].as_u64(),
        s.req("GET", "/rooms/r", None).await.1["tick"]
            .as_u64()
            .map(|t| t.min(b["tick"].as_u64().unwrap()))
    );
    // The octree's cells hold every node.
    let (st, b) = s.req("GET", "/rooms/r/octree", None).await;
    assert_eq!(st, 200);
    let objects: u64 = b["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["objects"].as_u64().unwrap())
        .sum();
    assert_eq!(objects, 3000);
    s.stop().await;
}

/// Reads what the server still sends until it closes, and checks the chunked answer was
/// cut: it never ends with the last chunk, so no client takes it for a whole one.
async fn assert_answer_cut(tcp: &mut TcpStream) {
    let got = read_to_close(tcp, 30).await.expect("the server closed it");
    assert!(
        !got.ends_with(b"0\r\n\r\n"),
        "a cut answer must not end cleanly"
    );
}

/// Adds nodes `0..n` to `room`, each at its own x (about 150 bytes of JSON each).
async fn fill_room(s: &common::TestServer, room: &str, n: u32) {
    let ops: Vec<Value> = (0..n)
        .map(|i| json!({"op":"add","id":i,"local":{"t":[i as f32, 0.0, 0.0]}}))
        .collect();
    assert_eq!(s.edits(room, json!(ops)).await.0, 200);
}

/// A connection with a 4 KiB receive buffer whose `GET /rooms/{room}/nodes` answer has
/// started (its whole-room turn is taken); the caller then reads no more.
async fn start_unread_nodes(s: &common::TestServer, room: &str) -> TcpStream {
    let addr: std::net::SocketAddr = s.base.trim_start_matches("http://").parse().unwrap();
    let sock = tokio::net::TcpSocket::new_v4().unwrap();
    sock.set_recv_buffer_size(4096).unwrap();
    let mut tcp = sock.connect(addr).await.unwrap();
    let request = format!("GET /rooms/{room}/nodes HTTP/1.1\r\nHost: localhost\r\n\r\n");
    tcp.write_all(request.as_bytes()).await.unwrap();
    let mut head = [0u8; 12];
    tcp.read_exact(&mut head).await.unwrap();
    assert_eq!(&head, b"HTTP/1.1 200");
    tcp
}

/// A reader of a whole-room read that never reads cannot keep its slot (one of its
/// caller's share) for good: once it has accepted nothing for the request timeout its
/// connection closes, and its caller's whole-room reads are served again.
#[tokio::test]
async fn whole_room_readers_that_stop_reading_are_cut_off() {
    let mut cfg = config();
    cfg.request_timeout = std::time::Duration::from_secs(1);
    let s = start(cfg).await;
    s.create_room("big", 30).await;
    s.create_room("small", 30).await;
    // About 3 MB of JSON: far more than the kernel's buffers hold for a reader that
    // does not read.
    fill_room(&s, "big", 20_000).await;
    assert_eq!(s.edits("small", json!([{"op":"add","id":1}])).await.0, 200);
    let mut stalled = Vec::new();
    stalled.push(start_unread_nodes(&s, "big").await);
    // It is closed once they have accepted nothing for the request timeout (by the
    // connection's write deadline; the whole-read deadline counts as a cut too).
    let m = &s.state.metrics;
    let cut = || (m.http_reads_cut.get() + m.http_write_stalls.get()) as usize;
    for _ in 0..600 {
        if cut() == stalled.len() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(cut(), stalled.len());
    // Another room's whole-room read gets a turn again.
    let (st, b) = s.req("GET", "/rooms/small/nodes", None).await;
    assert_eq!(
        (st, b["nodes"].as_array().map(Vec::len)),
        (200, Some(1)),
        "{b}"
    );
    // A stalled reader that reads again finds its answer cut: the connection closes
    // without the chunked body's last chunk, so no client takes it for the whole room.
    for mut tcp in stalled {
        assert_answer_cut(&mut tcp).await;
    }
    s.stop().await;
}

/// A client that stops reading an answer small enough for hyper to take whole (so the
/// body has nothing left to ask for and its whole-read deadline never fires) is still
/// closed: the connection's write deadline ends it once the client has accepted nothing
/// for `--request-timeout-secs`, and the cut answer never ends as a whole one would.
#[tokio::test]
async fn a_connection_whose_client_stops_reading_is_closed_at_the_write_deadline() {
    let mut cfg = config();
    cfg.request_timeout = std::time::Duration::from_secs(1);
    // A small send buffer, so the answer backs up into hyper rather than the kernel.
    cfg.send_buffer_bytes = 16 * 1024;
    let s = start(cfg).await;
    s.create_room("mid", 30).await;
    // About 220 KB of JSON: more than the kernel holds for this reader, less than
    // hyper's queue of chunks, so the read's own task hands over every chunk.
    fill_room(&s, "mid", 1_500).await;
    let mut tcp = start_unread_nodes(&s, "mid").await;
    for _ in 0..600 {
        if s.state.metrics.http_write_stalls.get() == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        s.state.metrics.http_write_stalls.get(),
        1,
        "closed by the write deadline"
    );
    assert_eq!(
        s.state.metrics.http_reads_cut.get(),
        0,
        "the whole-read deadline never fired: hyper had taken every chunk"
    );
    assert_answer_cut(&mut tcp).await;
    s.stop().await;
}

/// An open server on a wildcard address (a container's `0.0.0.0`) checks `Host` once it
/// is given `--allowed-hosts`: the listed names and IP addresses pass, a rebinding
/// page's own name does not. Without the flag it answers any name, as before.
#[tokio::test]
async fn allowed_hosts_guard_an_open_server_on_any_address() {
    for (listed, evil_status) in [(vec!["canopy".to_owned()], 403), (vec![], 201)] {
        let mut cfg = config();
        cfg.addr = "0.0.0.0:7878".parse().unwrap();
        cfg.allowed_hosts = listed.clone();
        let s = start(cfg).await;
        let create = |host: &'static str, id: &'static str| {
            s.http
                .post(format!("{}/rooms", s.base))
                .header("host", host)
                .json(&json!({ "id": id }))
                .send()
        };
        let evil = create("evil.example:7878", "a").await.unwrap();
        assert_eq!(evil.status(), evil_status, "{listed:?}");
        let named = create("canopy:7878", "b").await.unwrap();
        assert_eq!(named.status(), 201, "{listed:?}");
        let by_ip = create("10.1.2.3:7878", "c").await.unwrap();
        assert_eq!(by_ip.status(), 201, "{listed:?}");
        s.stop().await;
    }
}

#[tokio::test]
async fn cross_site_requests_and_rebinding_hosts_are_refused() {
    let s = start(config()).await;
    let post = |origin: Option<&str>, host: Option<&str>| {
        let mut r = s
            .http
            .post(format!("{}/rooms", s.base))
            .header("content-type", "text/plain")
            .body(r#"{"id":"csrf"}"#);
        if let Some(o) = origin {
            r = r.header("origin", o);
        }
        if let Some(h) = host {
            r = r.header("host", h);
        }
        r.send()
    };
    let evil = post(Some("http://evil.example"), None).await.unwrap();
    assert_eq!(evil.status(), 403);
    let rebind = post(None, Some("evil.example:7878")).await.unwrap();
    assert_eq!(rebind.status(), 403);
    let addr = s.base.trim_start_matches("http://").to_string();
    let same = post(Some(&s.base), Some(&addr)).await.unwrap();
    assert_eq!(same.status(), 201, "a page of the server's own origin may");
    s.stop().await;

    let mut cfg = config();
    cfg.allowed_origins = vec!["http://good.example".into()];
    let s = start(cfg).await;
    let pre = s
        .http
        .request(reqwest::Method::OPTIONS, format!("{}/rooms", s.base))
        .header("origin", "http://good.example")
        .header("access-control-request-method", "POST")
        .header("access-control-request-headers", "content-type")
        .send()
        .await
        .unwrap();
    assert!(pre.status().is_success(), "{}", pre.status());
    assert_eq!(
        pre.headers()["access-control-allow-origin"],
        "http://good.example"
    );
    let ok = s
        .http
        .get(format!("{}/rooms", s.base))
        .header("origin", "http://good.example")
        .send()
        .await
        .unwrap();
    assert_eq!(ok.status(), 200);
    let url = format!("{}/rooms/none/ws", s.ws_base);
    let mut req =
        tokio_tungstenite::tungstenite::client::IntoClientRequest::into_client_request(url)
            .unwrap();
    req.headers_mut()
        .insert("origin", "http://evil.example".parse().unwrap());
    assert!(tokio_tungstenite::connect_async(req).await.is_err());
    s.stop().await;
}

#[tokio::test]
async fn ray_directions_of_any_finite_length_work() {
    let s = start(config()).await;
    s.create_room("t", 30).await;
    let add = json!([{"op":"add","id":0,"extent":[1,1,1]}]);
    assert_eq!(s.edits("t", add).await.0, 200);
    for dir in [
        json!([1, 0, 0]),
        json!([1e20, 0, 0]),
        json!([1e-30, 0, 0]),
        json!([3e38, 0, 0]),
    ] {
        let (st, b) = s
            .req(
                "POST",
                "/rooms/t/query/ray",
                Some(json!({"origin":[-10,0,0],"dir":dir})),
            )
            .await;
        assert_eq!(st, 200, "{dir}: {b}");
        assert_eq!(b["hits"][0]["node"], 0, "{dir}: {b}");
        assert_eq!(b["hits"][0]["t"], 9.0, "{dir}: {b}");
    }
    let (st, b) = s
        .req(
            "POST",
            "/rooms/t/query/ray",
            Some(json!({"origin":[0,0,0],"dir":[0,0,0]})),
        )
        .await;
    assert_eq!((st, code(&b)), (400, "invalid_value"));
    // A negative radius below the smallest f32 is still negative, so invalid; `-0` and
    // `-0.0` are zero (as JSON Schema's `minimum: 0` reads them).
    for radius in ["-8.5e-76", "-1e-300", "-1"] {
        let body = format!(r#"{{"center":[0,0,0],"radius":{radius}}}"#).into_bytes();
        let (st, b) = s.raw("POST", "/rooms/t/query/sphere", body).await;
        assert_eq!((st, code(&b)), (400, "invalid_value"), "{radius}");
    }
    for radius in ["-0.0", "-0", "0", "1e-300"] {
        let body = format!(r#"{{"center":[0,0,0],"radius":{radius}}}"#).into_bytes();
        let (st, b) = s.raw("POST", "/rooms/t/query/sphere", body).await;
        assert_eq!(st, 200, "{radius}: {b}");
    }
    s.stop().await;
}

#[tokio::test]
async fn every_error_answer_carries_the_contract_body() {
    let mut cfg = config();
    cfg.admin_token = Some("adm".parse().unwrap());
    let s = start(cfg).await;
    let (st, b) = s.req("GET", "/no/such/route", None).await;
    assert_eq!((st, code(&b)), (401, "unauthorized"), "{b}");
    let r = s
        .http
        .get(format!("{}/nope", s.base))
        .header("authorization", "BEARER adm")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404, "the scheme is case-insensitive");
    let b: Value = r.json().await.unwrap();
    assert_eq!(code(&b), "not_found");
    let r = s
        .http
        .put(format!("{}/rooms", s.base))
        .header("authorization", "bearer adm")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 405);
    let b: Value = r.json().await.unwrap();
    assert_eq!(code(&b), "method_not_allowed");
    let r = s
        .http
        .post(format!("{}/rooms", s.base))
        .header("authorization", "Bearer adm")
        .json(&json!({"id":"n"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let get = |path: &'static str| {
        s.http
            .get(format!("{}{path}", s.base))
            .header("authorization", "Bearer adm")
            .send()
    };
    let r = get("/rooms/n/nodes/+1").await.unwrap();
    assert_eq!(r.status(), 400);
    let b: Value = r.json().await.unwrap();
    assert_eq!(code(&b), "bad_request");
    // Path segments that are not UTF-8 once decoded: the body too, on every route.
    for path in [
        "/rooms/%FF",
        "/rooms/%C0%AF/nodes",
        "/rooms/n/nodes/%FF",
        "/rooms/%FF/octree",
        "/rooms/%FF/ws",
    ] {
        let r = get(path).await.unwrap();
        assert_eq!(r.status(), 400, "{path}");
        let b: Value = r.json().await.unwrap();
        assert_eq!(code(&b), "bad_request", "{path}: {b}");
    }
    let r = s
        .http
        .post(format!("{}/rooms/%FF/edits", s.base))
        .header("authorization", "Bearer adm")
        .json(&json!({"ops": []}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    let b: Value = r.json().await.unwrap();
    assert_eq!(code(&b), "bad_request", "{b}");
    let _ = ErrorCode::NotFound;
    s.stop().await;
}
