//! Hostile clients against a room's in-scope entries: region subscribers of one scope
//! share one set, and one caller's region or follow scopes stop at its share of the
//! room's cap while another caller is served.

use std::time::Duration;

use canopy_protocol::{ClientMsg, Format, ServerMsg};
use serde_json::json;

use crate::common::{config, start};
use crate::fair_shares::{add_ops, behind_proxy, next_within, send_json, ws_from};

/// N4: region subscribers of one scope share one in-scope set, so a crowd of them
/// costs the room one set (before, each held its own copy: +188 KB per subscriber at
/// 20k nodes); and a region scope that would take the room past
/// `--max-in-scope-entries-per-room` answers `overloaded`.
#[tokio::test]
async fn identical_region_subscribers_share_one_in_scope_set() {
    let mut cfg = config();
    cfg.budgets.max_in_scope_entries_per_room = 30_000;
    let s = start(cfg).await;
    s.create_room("r", 30).await;
    assert_eq!(s.edits("r", add_ops(20_000)).await.0, 200);
    let everything = canopy_protocol::message::Region {
        min: [-1e9; 3],
        max: [1e9; 3],
    };
    let mut subs = Vec::new();
    for _ in 0..50 {
        let mut ws = s.ws("r", Format::Bincode).await;
        ws.send(&ClientMsg::subscribe(Some(everything), u32::MAX))
            .await;
        subs.push(ws);
    }
    for ws in &mut subs {
        let got = ws.recv().await;
        assert!(matches!(got, ServerMsg::Snapshot { .. }), "{got:?}");
    }
    // Moving every node makes every subscriber's set go through a tick's fan-out.
    let moved = json!(
        (0..20_000)
            .map(|i| json!({"op":"set_local","node":i,"t":[1.0, 2.0, i as f32]}))
            .collect::<Vec<_>>()
    );
    assert_eq!(s.edits("r", moved).await.0, 200);
    for ws in &mut subs {
        ws.recv_until(|m| matches!(m, ServerMsg::Delta { .. }))
            .await;
    }
    // Another scope of 20,000 ids would pass the room's 30,000.
    let other = canopy_protocol::message::Region {
        min: [-1e8; 3],
        max: [1e8; 3],
    };
    let mut over = s.ws("r", Format::Bincode).await;
    over.send(&ClientMsg::subscribe(Some(other), u32::MAX))
        .await;
    let got = over.recv().await;
    assert!(
        matches!(
            &got,
            ServerMsg::Error {
                code: canopy_protocol::ErrorCode::Overloaded,
                ..
            }
        ),
        "{got:?}"
    );
    // One more of the shared scope costs nothing and is served.
    let mut again = s.ws("r", Format::Bincode).await;
    again
        .send(&ClientMsg::subscribe(Some(everything), u32::MAX))
        .await;
    assert!(matches!(again.recv().await, ServerMsg::Snapshot { .. }));
    s.stop().await;
}

/// N4: one caller's many distinct region scopes cannot take a room's whole in-scope
/// cap: each new scope's set is charged to its caller, and past the caller's share
/// (1/`--caller-share-divisor` of `--max-in-scope-entries-per-room`) its next new scope
/// answers `overloaded`, while another caller's region subscription is served.
#[tokio::test]
async fn one_callers_region_scopes_cannot_take_a_rooms_in_scope_cap() {
    let mut cfg = behind_proxy();
    // A caller's share: 1,000 of the room's 8,000 ids.
    cfg.budgets.max_in_scope_entries_per_room = 8_000;
    let s = start(cfg).await;
    s.create_room("r", 30).await;
    // 20 rows of 100 nodes; `rows(k)` is rows 4k to 4k+3: 400 ids.
    assert_eq!(s.edits("r", add_ops(2_000)).await.0, 200);
    let rows = |k: u32| canopy_protocol::message::Region {
        min: [-1.0, 4.0 * k as f32 - 0.1, -1.0],
        max: [100.0, 4.0 * k as f32 + 3.1, 1.0],
    };
    let mut attacker = Vec::new();
    let mut answers = Vec::new();
    for k in 0..5 {
        let mut ws = ws_from(&s, "r", "10.0.0.1", 1 << 20).await;
        send_json(&mut ws, &ClientMsg::subscribe(Some(rows(k)), u32::MAX)).await;
        answers.push(next_within(&mut ws, 5.0).await);
        attacker.push(ws);
    }
    let snapshots = |a: &[Option<ServerMsg>]| {
        a.iter()
            .map(|m| match m {
                Some(ServerMsg::Snapshot { nodes, .. }) => nodes.len(),
                _ => 0,
            })
            .collect::<Vec<_>>()
    };
    // Admitted while under its share (0, 400, 800 held), then refused.
    assert_eq!(
        snapshots(&answers),
        vec![400, 400, 400, 0, 0],
        "{answers:?}"
    );
    for refused in &answers[3..] {
        assert!(
            matches!(
                refused,
                Some(ServerMsg::Error {
                    code: canopy_protocol::ErrorCode::Overloaded,
                    ..
                })
            ),
            "{refused:?}"
        );
    }
    let mut other = ws_from(&s, "r", "10.0.0.2", 1 << 20).await;
    send_json(&mut other, &ClientMsg::subscribe(Some(rows(4)), u32::MAX)).await;
    let got = next_within(&mut other, 5.0).await;
    assert!(
        matches!(got, Some(ServerMsg::Snapshot { ref nodes, .. }) if nodes.len() == 400),
        "{got:?}"
    );
    // A scope the room holds already costs nothing more, even for the caller at its share.
    let mut shared = ws_from(&s, "r", "10.0.0.1", 1 << 20).await;
    send_json(&mut shared, &ClientMsg::subscribe(Some(rows(4)), u32::MAX)).await;
    let got = next_within(&mut shared, 5.0).await;
    assert!(matches!(got, Some(ServerMsg::Snapshot { .. })), "{got:?}");
    // Its subscriptions gone, the caller's share is free again.
    drop(attacker);
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mut again = ws_from(&s, "r", "10.0.0.1", 1 << 20).await;
    send_json(&mut again, &ClientMsg::subscribe(Some(rows(3)), u32::MAX)).await;
    let got = next_within(&mut again, 5.0).await;
    assert!(matches!(got, Some(ServerMsg::Snapshot { .. })), "{got:?}");
    s.stop().await;
}

/// A follow scope's set is its subscriber's own and charged like a region scope's: one
/// caller's spheres around a node that take in the whole room stop at its share of the
/// room's in-scope entries, while another caller's follow subscription is served.
#[tokio::test]
async fn one_callers_follow_scopes_cannot_take_a_rooms_in_scope_cap() {
    let mut cfg = behind_proxy();
    // A caller's share: 1,000 of the room's 8,000 ids.
    cfg.budgets.max_in_scope_entries_per_room = 8_000;
    let s = start(cfg).await;
    s.create_room("r", 30).await;
    assert_eq!(s.edits("r", add_ops(600)).await.0, 200);
    let around = |node: u32| ClientMsg::Subscribe {
        region: None,
        mask: u32::MAX,
        since: None,
        encoding: Default::default(),
        follow: Some(canopy_protocol::interest::Follow {
            node,
            radius: 1e6,
            margin: None,
        }),
        frustum: None,
        send_hz: None,
        tiers: Vec::new(),
    };
    let kinds = |m: &Option<ServerMsg>| match m {
        Some(ServerMsg::Snapshot { nodes, .. }) => Ok(nodes.len()),
        Some(ServerMsg::Error { code, .. }) => Err(Some(*code)),
        _ => Err(None),
    };
    let mut attacker = Vec::new();
    let mut answers = Vec::new();
    for _ in 0..3 {
        let mut ws = ws_from(&s, "r", "10.0.0.1", 1 << 20).await;
        send_json(&mut ws, &around(0)).await;
        answers.push(kinds(&next_within(&mut ws, 5.0).await));
        attacker.push(ws);
    }
    // Two whole-room spheres (0 and 600 held, under 1,000), then refused.
    let overloaded = Err(Some(canopy_protocol::ErrorCode::Overloaded));
    assert_eq!(answers, vec![Ok(600), Ok(600), overloaded], "{answers:?}");
    let mut other = ws_from(&s, "r", "10.0.0.2", 1 << 20).await;
    send_json(&mut other, &around(1)).await;
    assert_eq!(kinds(&next_within(&mut other, 5.0).await), Ok(600));
    s.stop().await;
}
