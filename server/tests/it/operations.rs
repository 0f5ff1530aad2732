//! What an operator relies on: the drain before a shutdown, request metrics by
//! route and status, process and build metrics, and the versions `/healthz` names.

use crate::common;

use std::time::Duration;

use common::{config, start};

#[tokio::test]
async fn sigterm_drains_before_the_listener_closes() {
    let mut cfg = config();
    cfg.drain = std::time::Duration::from_secs(2);
    let mut s = start(cfg).await;
    s.create_room("d", 30).await;
    assert_eq!(s.req("GET", "/readyz", None).await.0, 200);
    s.signal_stop();
    tokio::time::sleep(Duration::from_millis(300)).await;
    // Draining: not ready, still serving, no new WebSocket sessions.
    assert_eq!(s.req("GET", "/readyz", None).await.0, 503);
    assert_eq!(s.req("GET", "/healthz", None).await.0, 200);
    assert_eq!(s.req("GET", "/rooms/d", None).await.0, 200);
    let url = format!("{}/rooms/d/ws", s.ws_base);
    let err = tokio_tungstenite::connect_async(url).await.unwrap_err();
    let tokio_tungstenite::tungstenite::Error::Http(resp) = err else {
        panic!("{err:?}")
    };
    assert_eq!(resp.status(), 503);
    s.stop().await;
}

#[tokio::test]
async fn metrics_give_the_process_cpu_time_finer_than_whole_seconds() {
    let s = start(config()).await;
    // Use some CPU first, so the process has a figure above a few clock ticks.
    let mut x = 0u64;
    while canopy_server::metrics::cpu_seconds() < 0.05 {
        for i in 0..100_000u64 {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(i));
        }
    }
    let (_, body) = s.req("GET", "/metrics", None).await;
    let text = body.as_str().unwrap().to_string();
    let value = |name: &str| -> f64 {
        let line = text
            .lines()
            .find(|l| l.starts_with(name) && l[name.len()..].starts_with(' '))
            .unwrap_or_else(|| panic!("no {name} in /metrics"));
        line.rsplit(' ').next().unwrap().parse().unwrap()
    };
    let fine = value("canopy_process_cpu_seconds");
    let coarse = value("process_cpu_seconds_total");
    assert!(fine >= 0.05, "{fine}");
    // The standard metric is the same time in whole seconds.
    assert!(coarse <= fine && fine < coarse + 1.01, "{coarse} vs {fine}");
    s.stop().await;
}

#[tokio::test]
async fn metrics_count_requests_by_route_and_status() {
    let s = start(config()).await;
    s.create_room("m", 30).await;
    s.req("GET", "/rooms/m/nodes/7", None).await;
    s.req("GET", "/no/such", None).await;
    let (_, body) = s.req("GET", "/metrics", None).await;
    let text = body.as_str().unwrap().to_string();
    for line in [
        r#"canopy_http_requests_total{route="/rooms",status="201"} 1"#,
        r#"canopy_http_requests_total{route="/rooms/{room}/nodes/{id}",status="404"} 1"#,
        r#"canopy_http_requests_total{route="unmatched",status="404"} 1"#,
        r#"canopy_build_info{protocol="1.2",version=""#,
        "process_open_fds ",
        "process_start_time_seconds ",
        "canopy_http_request_duration_seconds_bucket{route=\"/rooms\"",
    ] {
        assert!(text.contains(line), "missing {line:?}");
    }
    let (st, health) = s.req("GET", "/healthz", None).await;
    assert_eq!(st, 200);
    assert_eq!(health["version"], env!("CARGO_PKG_VERSION"));
    s.stop().await;
}

/// The value of one unlabelled sample in a `/metrics` text (it must be there).
fn sample(text: &str, name: &str) -> f64 {
    let line = text
        .lines()
        .find(|l| l.split(' ').next() == Some(name))
        .unwrap_or_else(|| panic!("{name} in /metrics"));
    line.rsplit(' ').next().unwrap().parse().unwrap()
}

#[tokio::test]
async fn metrics_time_how_late_each_tick_starts() {
    let s = start(config()).await;
    let count = |text: &str| sample(text, "canopy_tick_start_delay_seconds_count");
    let (_, body) = s.req("GET", "/metrics", None).await;
    let before = count(body.as_str().unwrap());
    s.create_room("late", 60).await;
    // Every tick of the room records its start: wait for a few (no time bound asserted).
    let mut seen = before;
    for _ in 0..500 {
        let (_, body) = s.req("GET", "/metrics", None).await;
        seen = count(body.as_str().unwrap());
        if seen >= before + 3.0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(
        seen >= before + 3.0,
        "{seen} tick starts timed, {before} before"
    );
    s.stop().await;
}

#[tokio::test]
async fn metrics_time_the_fan_out_of_each_frame() {
    use canopy_protocol::{ClientMsg, Format, ServerMsg};
    use serde_json::json;

    let s = start(config()).await;
    s.create_room("f", 30).await;
    s.edits("f", json!([{"op": "add", "id": 1}])).await;
    let mut subscribers = Vec::new();
    for format in [Format::Json, Format::Bincode, Format::Bincode] {
        let mut ws = s.ws("f", format).await;
        ws.send(&ClientMsg::subscribe(None, u32::MAX)).await;
        assert!(matches!(ws.recv().await, ServerMsg::Snapshot { .. }));
        subscribers.push(ws);
    }
    for k in 1..=3 {
        let (st, _) = s
            .edits("f", json!([{"op": "set_local", "node": 1, "t": [k, 0, 0]}]))
            .await;
        assert_eq!(st, 200);
        for ws in &mut subscribers {
            ws.recv_until(|m| matches!(m, ServerMsg::Delta { .. }))
                .await;
        }
    }
    // Each of the 9 frames was written by a flusher, which adds its tally to the shared
    // histogram when its round ends: wait for that (no time bound asserted).
    let count = |text: &str| sample(text, "canopy_fanout_delay_seconds_count");
    let mut seen = 0.0;
    for _ in 0..200 {
        let (_, body) = s.req("GET", "/metrics", None).await;
        seen = count(body.as_str().unwrap());
        if seen >= 9.0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(seen >= 9.0, "{seen} frames timed, 9 written");
    s.stop().await;
}
