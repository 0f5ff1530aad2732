//! Every HTTP route of the contract, with every error code, against an in-process server.

use crate::common;

use serde_json::{Value, json};

fn code(b: &Value) -> &str {
    b["error"]["code"].as_str().unwrap_or("<none>")
}

#[tokio::test]
async fn meta_routes() {
    let s = common::start(common::config()).await;
    assert_eq!(s.req("GET", "/healthz", None).await.0, 200);
    assert_eq!(s.req("GET", "/readyz", None).await.0, 200);
    let (st, doc) = s.req("GET", "/openapi.json", None).await;
    assert_eq!(st, 200);
    assert!(doc["openapi"].as_str().unwrap().starts_with("3."));
    assert!(doc["paths"]["/rooms/{room}/edits"]["post"].is_object());
    for q in ["region", "sphere", "ray", "nearest"] {
        let answers = &doc["paths"][format!("/rooms/{{room}}/query/{q}")]["post"]["responses"];
        for status in ["200", "400", "404", "413", "429"] {
            assert!(
                answers[status].is_object(),
                "query/{q} documents {status}: {answers}"
            );
        }
    }
    let (st, m) = s.req("GET", "/metrics", None).await;
    assert_eq!(st, 200);
    let text = m.as_str().unwrap();
    for name in [
        "canopy_tick_duration_seconds",
        "canopy_nodes_recomputed_total",
        "canopy_delta_bytes_sent_total",
        "canopy_subscribers",
        "canopy_merged_frames_total",
        "canopy_batches_rejected_total",
    ] {
        assert!(text.contains(name), "metrics lack {name}");
    }
    s.stop().await;
}

#[tokio::test]
async fn room_lifecycle_and_errors() {
    let s = common::start(common::config()).await;
    let (st, b) = s
        .req(
            "POST",
            "/rooms",
            Some(json!({"id": "arena", "tick_hz": 20})),
        )
        .await;
    assert_eq!(
        (st, b["id"].as_str(), b["tick_hz"].as_u64()),
        (201, Some("arena"), Some(20))
    );
    let (st, b) = s.req("POST", "/rooms", Some(json!({"id": "arena"}))).await;
    assert_eq!((st, code(&b)), (409, "room_exists"));
    let (st, b) = s.req("POST", "/rooms", None).await;
    assert_eq!(st, 201, "{b}");
    assert_eq!(b["tick_hz"], 30, "default tick rate");
    let auto = b["id"].as_str().unwrap().to_string();
    let (st, b) = s
        .req("POST", "/rooms", Some(json!({"id": "bad id!"})))
        .await;
    assert_eq!((st, code(&b)), (400, "bad_request"));
    let (st, b) = s
        .req("POST", "/rooms", Some(json!({"id": "x".repeat(65)})))
        .await;
    assert_eq!((st, code(&b)), (400, "bad_request"));
    let (st, b) = s.req("POST", "/rooms", Some(json!({"tick_hz": 0}))).await;
    assert_eq!((st, code(&b)), (400, "invalid_value"));
    let (st, b) = s.req("POST", "/rooms", Some(json!({"tick_hz": 241}))).await;
    assert_eq!((st, code(&b)), (400, "invalid_value"));
    let (st, b) = s.raw("POST", "/rooms", b"{nope".to_vec()).await;
    assert_eq!((st, code(&b)), (400, "bad_request"));
    let (st, b) = s.raw("POST", "/rooms", b"[null, null]".to_vec()).await;
    assert_eq!(
        (st, code(&b)),
        (400, "bad_request"),
        "a body must be an object"
    );

    let (st, b) = s.req("GET", "/rooms", None).await;
    assert_eq!(st, 200);
    let ids: Vec<&str> = b["rooms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&"arena") && ids.contains(&auto.as_str()));
    for r in b["rooms"].as_array().unwrap() {
        for f in ["id", "tick", "nodes", "subscribers", "tick_hz"] {
            assert!(!r[f].is_null(), "room summary lacks {f}");
        }
    }
    let (st, b) = s.req("GET", "/rooms/arena", None).await;
    assert_eq!(st, 200);
    for f in ["id", "tick", "nodes", "subscribers", "tick_hz", "tick_ms"] {
        assert!(!b[f].is_null(), "room detail lacks {f}");
    }
    let (st, b) = s.req("GET", "/rooms/nope", None).await;
    assert_eq!((st, code(&b)), (404, "unknown_room"));
    assert_eq!(s.req("DELETE", "/rooms/arena", None).await.0, 204);
    let (st, b) = s.req("DELETE", "/rooms/arena", None).await;
    assert_eq!((st, code(&b)), (404, "unknown_room"));
    let (st, b) = s.req("GET", "/rooms/arena/nodes", None).await;
    assert_eq!((st, code(&b)), (404, "unknown_room"));
    s.stop().await;
}

#[tokio::test]
async fn edits_and_reads_follow_the_contract() {
    let s = common::start(common::config()).await;
    s.create_room("r", 60).await;
    let h = std::f32::consts::FRAC_1_SQRT_2;
    let (st, b) = s
        .edits(
            "r",
            json!([
                {"op": "add", "id": 1, "local": {"t": [10, 0, 0], "r": [0, 0, h, h]}, "extent": [1, 1, 1]},
                {"op": "add", "id": 2, "parent": 1, "local": {"t": [2, 0, 0], "s": 0.5}, "extent": [1, 1, 1], "mask": 2},
                {"op": "add", "parent": 1}
            ]),
        )
        .await;
    assert_eq!(st, 200, "{b}");
    let ids = b["ids"].as_array().unwrap();
    assert_eq!(ids.len(), 3);
    assert_eq!((ids[0].as_u64(), ids[1].as_u64()), (Some(1), Some(2)));
    let assigned = ids[2].as_u64().unwrap();
    assert!(b["tick"].as_u64().unwrap() >= 1);

    let (st, n) = s.req("GET", "/rooms/r/nodes/2", None).await;
    assert_eq!(st, 200);
    let t: Vec<f64> = n["world"]["t"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert!(
        (t[0] - 10.0).abs() < 1e-4 && (t[1] - 2.0).abs() < 1e-4 && t[2].abs() < 1e-4,
        "{n}"
    );
    assert!((n["world"]["s"].as_f64().unwrap() - 0.5).abs() < 1e-6);
    assert_eq!(n["parent"], 1);
    assert_eq!(n["mask"], 2);
    assert_eq!(n["local"]["s"], 0.5);
    for f in [
        "id", "parent", "children", "local", "world", "extent", "mask", "tick",
    ] {
        assert!(n.get(f).is_some(), "node detail lacks {f}");
    }
    let (_, root) = s.req("GET", "/rooms/r/nodes/1", None).await;
    let mut kids: Vec<u64> = root["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    kids.sort();
    let mut want = vec![2, assigned];
    want.sort();
    assert_eq!(kids, want);
    assert_eq!(root["parent"], Value::Null);

    let (st, b) = s.req("GET", "/rooms/r/nodes/99", None).await;
    assert_eq!((st, code(&b)), (404, "unknown_node"));
    let (st, b) = s.req("GET", "/rooms/r/nodes/abc", None).await;
    assert_eq!((st, code(&b)), (400, "bad_request"));

    let (st, all) = s.req("GET", "/rooms/r/nodes", None).await;
    assert_eq!(st, 200);
    assert_eq!(all["nodes"].as_array().unwrap().len(), 3);
    for n in all["nodes"].as_array().unwrap() {
        for f in ["id", "parent", "world", "extent", "mask"] {
            assert!(n.get(f).is_some(), "node lacks {f}");
        }
    }
    s.stop().await;
}

#[tokio::test]
async fn every_batch_error_code_applies_nothing() {
    let mut cfg = common::config();
    cfg.max_ops_per_batch = 10;
    cfg.max_body_bytes = 4096;
    let s = common::start(cfg).await;
    s.create_room("r", 60).await;
    let (st, _) = s
        .edits(
            "r",
            json!([{"op": "add", "id": 1}, {"op": "add", "id": 2, "parent": 1}]),
        )
        .await;
    assert_eq!(st, 200);
    let (_, before) = s.req("GET", "/rooms/r/nodes", None).await;

    // Each case: a valid first op (which must not be applied), then the bad one.
    let cases: Vec<(Value, u16, &str, Option<u64>)> = vec![
        (
            json!([{"op": "add", "id": 3}, {"op": "set_local", "node": 1, "s": 0}]),
            400,
            "invalid_value",
            Some(1),
        ),
        (
            json!([{"op": "add", "id": 3}, {"op": "set_local", "node": 1, "s": -1}]),
            400,
            "invalid_value",
            Some(1),
        ),
        (
            json!([{"op": "add", "id": 3}, {"op": "set_local", "node": 1, "t": [1e39, 0, 0]}]),
            400,
            "invalid_value",
            Some(1),
        ),
        (
            json!([{"op": "add", "id": 3}, {"op": "set_local", "node": 1, "r": [0, 0, 0, 0]}]),
            400,
            "invalid_value",
            Some(1),
        ),
        (
            json!([{"op": "add", "id": 3}, {"op": "set_shape", "node": 1, "extent": [1, -1, 1]}]),
            400,
            "invalid_value",
            Some(1),
        ),
        (
            json!([{"op": "add", "id": 3}, {"op": "set_local", "node": 42, "s": 2}]),
            400,
            "unknown_node",
            Some(1),
        ),
        (
            json!([{"op": "add", "id": 3}, {"op": "add", "id": 4, "parent": 42}]),
            400,
            "unknown_node",
            Some(1),
        ),
        (
            json!([{"op": "add", "id": 3}, {"op": "add", "id": 1}]),
            409,
            "duplicate_id",
            Some(1),
        ),
        (
            json!([{"op": "add", "id": 3}, {"op": "add", "id": 3}]),
            409,
            "duplicate_id",
            Some(1),
        ),
        (
            json!([{"op": "add", "id": 3}, {"op": "set_parent", "node": 1, "parent": 2}]),
            409,
            "cycle",
            Some(1),
        ),
        (
            json!([{"op": "add", "id": 3}, {"op": "set_parent", "node": 1, "parent": 1}]),
            409,
            "cycle",
            Some(1),
        ),
        (
            json!([{"op": "add", "id": 3}, {"op": "remove", "node": 2}, {"op": "set_local", "node": 2, "s": 1}]),
            400,
            "unknown_node",
            Some(2),
        ),
        (
            json!([{"op": "add", "id": 3}, {"op": "explode", "node": 1}]),
            400,
            "bad_request",
            Some(1),
        ),
        (
            json!([{"op": "add", "id": 3}, {"op": "set_local"}]),
            400,
            "bad_request",
            Some(1),
        ),
        (
            json!([{"op": "add", "id": 3}, {"op": "set_parent", "node": 1}]),
            400,
            "bad_request",
            Some(1),
        ),
        (
            json!(
                (0..11)
                    .map(|i| json!({"op": "add", "id": 100 + i}))
                    .collect::<Vec<_>>()
            ),
            413,
            "too_large",
            None,
        ),
    ];
    for (ops, status, want, op) in cases {
        let (st, b) = s.edits("r", ops.clone()).await;
        assert_eq!((st, code(&b)), (status, want), "{ops} -> {b}");
        assert!(
            b["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty())
        );
        if let Some(op) = op {
            assert_eq!(b["error"]["op"].as_u64(), Some(op), "{ops} -> {b}");
        }
        let (_, now) = s.req("GET", "/rooms/r/nodes", None).await;
        assert_eq!(
            before["nodes"], now["nodes"],
            "a rejected batch changed the room: {ops}"
        );
    }
    let (st, b) = s
        .raw("POST", "/rooms/r/edits", b"{\"ops\": [".to_vec())
        .await;
    assert_eq!((st, code(&b)), (400, "bad_request"));
    let (st, b) = s.raw("POST", "/rooms/r/edits", vec![b' '; 5000]).await;
    assert_eq!((st, code(&b)), (413, "too_large"));
    let (st, b) = s.edits("nope", json!([])).await;
    assert_eq!((st, code(&b)), (404, "unknown_room"));
    // The id 3 was never applied, so it is still free.
    let (st, b) = s.edits("r", json!([{"op": "add", "id": 3}])).await;
    assert_eq!(st, 200, "{b}");
    s.stop().await;
}

#[tokio::test]
async fn queries_answer_as_the_contract_says() {
    let s = common::start(common::config()).await;
    s.create_room("q", 60).await;
    let h = std::f32::consts::FRAC_1_SQRT_2;
    let (st, _) = s
        .edits(
            "q",
            json!([
                {"op": "add", "id": 1, "local": {"t": [10, 0, 0], "r": [0, 0, h, h]}, "extent": [1, 1, 1]},
                {"op": "add", "id": 2, "parent": 1, "local": {"t": [2, 0, 0], "s": 0.5}, "extent": [1, 1, 1], "mask": 2}
            ]),
        )
        .await;
    assert_eq!(st, 200);
    let q = |kind: &str| format!("/rooms/q/query/{kind}");
    let (st, b) = s
        .req(
            "POST",
            &q("region"),
            Some(json!({"min": [9, 1.6, -1], "max": [11, 3, 1]})),
        )
        .await;
    assert_eq!((st, b["nodes"].clone()), (200, json!([2])));
    assert!(b["tick"].is_u64());
    let (_, b) = s
        .req(
            "POST",
            &q("region"),
            Some(json!({"min": [0, -9, -9], "max": [20, 9, 9], "mask": 1})),
        )
        .await;
    assert_eq!(b["nodes"], json!([1]));
    let (_, b) = s
        .req(
            "POST",
            &q("region"),
            Some(json!({"min": [0, -9, -9], "max": [20, 9, 9]})),
        )
        .await;
    assert_eq!(b["nodes"], json!([1, 2]));
    let (_, b) = s
        .req(
            "POST",
            &q("sphere"),
            Some(json!({"center": [10, 0, 0], "radius": 0.5})),
        )
        .await;
    assert_eq!(b["nodes"], json!([1]));
    let (_, b) = s
        .req(
            "POST",
            &q("ray"),
            Some(json!({"origin": [10, -10, 0], "dir": [0, 1, 0], "all": true})),
        )
        .await;
    let hits = b["hits"].as_array().unwrap();
    assert_eq!(
        hits.iter()
            .map(|h| h["node"].as_u64().unwrap())
            .collect::<Vec<_>>(),
        vec![1, 2]
    );
    assert!((hits[0]["t"].as_f64().unwrap() - 9.0).abs() < 1e-4);
    assert!((hits[1]["t"].as_f64().unwrap() - 11.5).abs() < 1e-4);
    let (_, b) = s
        .req(
            "POST",
            &q("ray"),
            Some(json!({"origin": [10, -10, 0], "dir": [0, 5, 0]})),
        )
        .await;
    assert_eq!(
        b["hits"].as_array().unwrap().len(),
        1,
        "nearest hit only: {b}"
    );
    let (_, b) = s
        .req(
            "POST",
            &q("ray"),
            Some(json!({"origin": [10, -10, 0], "dir": [0, 1, 0], "max_t": 5})),
        )
        .await;
    assert_eq!(b["hits"], json!([]));
    let (_, b) = s
        .req(
            "POST",
            &q("ray"),
            Some(json!({"origin": [10, 0, 0], "dir": [1, 0, 0]})),
        )
        .await;
    assert_eq!(b["hits"][0]["t"], 0.0, "origin inside: t = 0: {b}");
    let (_, b) = s
        .req(
            "POST",
            &q("nearest"),
            Some(json!({"point": [10, 20, 0], "k": 1})),
        )
        .await;
    assert_eq!(b["hits"][0]["node"], 2);
    assert!((b["hits"][0]["dist"].as_f64().unwrap() - 17.5).abs() < 1e-4);
    let (_, b) = s
        .req(
            "POST",
            &q("nearest"),
            Some(json!({"point": [10, 20, 0], "k": 5, "max_dist": 18})),
        )
        .await;
    assert_eq!(b["hits"].as_array().unwrap().len(), 1);

    let bad = [
        ("region", json!({"min": [1, 0, 0], "max": [0, 1, 1]})),
        ("sphere", json!({"center": [0, 0, 0], "radius": -1})),
        ("ray", json!({"origin": [0, 0, 0], "dir": [0, 0, 0]})),
        ("nearest", json!({"point": [0, 0, 0], "k": 0})),
        ("region", json!({"min": [0, 0, 0], "max": [1e39, 1, 1]})),
    ];
    for (kind, body) in bad {
        let (st, b) = s.req("POST", &q(kind), Some(body.clone())).await;
        assert_eq!((st, code(&b)), (400, "invalid_value"), "{kind} {body}");
    }
    let (st, b) = s
        .req("POST", &q("region"), Some(json!({"min": [0, 0, 0]})))
        .await;
    assert_eq!((st, code(&b)), (400, "bad_request"));
    let (st, b) = s
        .req(
            "POST",
            "/rooms/none/query/region",
            Some(json!({"min": [0, 0, 0], "max": [1, 1, 1]})),
        )
        .await;
    assert_eq!((st, code(&b)), (404, "unknown_room"));
    s.stop().await;
}

#[tokio::test]
async fn the_demo_room_moves_on_its_own() {
    let s = common::start(common::config()).await;
    let n = canopy_server::demo::create(&s.state).unwrap();
    assert!(n > 2000, "a few thousand nodes: {n}");
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    let (_, a) = s.req("GET", "/rooms/demo/nodes/100", None).await;
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    let (_, b) = s.req("GET", "/rooms/demo/nodes/100", None).await;
    assert_ne!(a["world"], b["world"], "the planet orbits");
    let (_, room) = s.req("GET", "/rooms/demo", None).await;
    assert_eq!(room["nodes"].as_u64().unwrap() as usize, n);
    s.stop().await;
}

#[tokio::test]
async fn the_openapi_document_allows_the_whole_u32_range_and_an_empty_room_body() {
    let doc = canopy_server::http::meta::document();
    fn walk(v: &Value) {
        match v {
            Value::Object(m) => {
                if m.get("format") == Some(&Value::from("int32")) {
                    assert!(m.contains_key("maximum"), "an int32 without a maximum: {v}");
                }
                m.values().for_each(walk);
            }
            Value::Array(a) => a.iter().for_each(walk),
            _ => {}
        }
    }
    walk(&doc);
    assert!(
        doc.to_string().contains("4294967295"),
        "u32 fields reach u32::MAX"
    );
    assert_eq!(
        doc.pointer("/paths/~1rooms/post/requestBody/required"),
        Some(&Value::Bool(false))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn overload_is_refused_at_once_with_503() {
    let mut cfg = common::config();
    cfg.max_pending_batches = 4;
    cfg.max_rooms = 1;
    let s = common::start(cfg).await;
    s.create_room("slow", 1).await;
    let (st, b) = s.req("POST", "/rooms", Some(json!({"id": "second"}))).await;
    assert_eq!((st, code(&b)), (503, "overloaded"), "the room limit");
    // At 1 Hz batches wait for the tick: of ten sent at once, those past the fourth
    // waiting one are refused at once, and the others are applied at the tick.
    let mut sent = Vec::new();
    for i in 0..10u32 {
        let http = s.http.clone();
        let url = format!("{}/rooms/slow/edits", s.base);
        sent.push(tokio::spawn(async move {
            let started = std::time::Instant::now();
            let r = http
                .post(url)
                .json(&json!({"ops": [{"op": "add", "id": i}]}))
                .send()
                .await
                .unwrap();
            let st = r.status().as_u16();
            let b: Value = r.json().await.unwrap();
            (st, b, started.elapsed())
        }));
    }
    let (mut ok, mut refused) = (0, 0);
    for t in sent {
        let (st, b, took) = t.await.unwrap();
        match st {
            200 => ok += 1,
            503 => {
                assert_eq!(code(&b), "overloaded");
                assert!(
                    took < std::time::Duration::from_millis(500),
                    "refused within milliseconds, not at the tick"
                );
                refused += 1;
            }
            _ => panic!("unexpected {st} {b}"),
        }
    }
    assert!(refused >= 1 && ok >= 4, "{ok} applied, {refused} refused");
    s.stop().await;
}
