//! The written slow-client policy: a reader that makes no progress for the write
//! deadline is disconnected (close code 4000 when it can still be sent), and its pending
//! state goes with it; a connection silent past the idle limit is closed too.

use crate::common;

use std::time::{Duration, Instant};

use canopy_protocol::{ClientMsg, Format, ServerMsg};

async fn connections(s: &common::TestServer) -> i64 {
    let (_, m) = s.req("GET", "/metrics", None).await;
    m.as_str()
        .unwrap()
        .lines()
        .find(|l| l.starts_with("canopy_ws_connections "))
        .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_reader_is_dropped_after_the_write_deadline() {
    let mut cfg = common::config();
    cfg.ws_write_deadline = std::time::Duration::from_secs(1);
    let s = common::start(cfg).await;
    s.create_room("stall", 120).await;
    // Big nodes lists make each frame large, so the socket buffers fill quickly.
    let ops: Vec<_> = (0..5000u32)
        .map(|i| serde_json::json!({"op": "add", "id": i, "local": {"t": [i as f32, 0, 0]}}))
        .collect();
    assert_eq!(s.edits("stall", serde_json::Value::Array(ops)).await.0, 200);
    let mut ws = s.ws("stall", Format::Bincode).await;
    ws.send(&ClientMsg::subscribe(None, u32::MAX)).await;
    assert!(matches!(ws.recv().await, ServerMsg::Snapshot { .. }));
    assert_eq!(connections(&s).await, 1);
    // Stop reading; move every node every tick.
    let started = Instant::now();
    let mut k = 0.0f32;
    while connections(&s).await > 0 {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the stalled reader was never dropped"
        );
        k += 1.0;
        let ops: Vec<_> = (0..5000u32)
            .step_by(1)
            .map(|i| serde_json::json!({"op": "set_local", "node": i, "s": 1.0 + k * 1e-3}))
            .collect();
        s.edits("stall", serde_json::Value::Array(ops)).await;
    }
    drop(ws);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_connection_is_closed_as_idle() {
    let mut cfg = common::config();
    cfg.ws_ping = std::time::Duration::from_secs(1);
    cfg.ws_idle = std::time::Duration::from_secs(1);
    let s = common::start(cfg).await;
    s.create_room("idle", 30).await;
    // This client never reads, so it never answers the server's pings.
    let _ws = s.ws("idle", Format::Json).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(connections(&s).await, 1);
    let started = Instant::now();
    while connections(&s).await > 0 {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the idle connection was never closed"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    s.stop().await;
}
