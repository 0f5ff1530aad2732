//! Resuming a subscription (v1.1 `since`): a client that held a scope at tick N gets one
//! delta marked `resumed` that brings its copy up to date, checked against a model mirror
//! and the server's own nodes, for whole-room and region scopes; a tick the history no
//! longer covers (or never saw) gets a snapshot.

use crate::common;

use std::collections::BTreeMap;

use canopy_protocol::message::Region;
use canopy_protocol::{ClientMsg, Encoding, Format, Node, ServerMsg};
use common::{config, start};
use serde_json::json;

/// What a client holds: nodes by id.
#[derive(Default, Debug, PartialEq)]
struct Mirror(BTreeMap<u32, Node>);

impl Mirror {
    fn apply(&mut self, m: &ServerMsg) -> u64 {
        match m {
            ServerMsg::Snapshot { tick, nodes, .. } => {
                self.0 = nodes.iter().map(|n| (n.id, *n)).collect();
                *tick
            }
            ServerMsg::Delta {
                tick,
                upsert,
                update,
                remove,
                ..
            } => {
                for id in remove {
                    self.0.remove(id);
                }
                for n in upsert {
                    self.0.insert(n.id, *n);
                }
                for r in update {
                    self.0
                        .get_mut(&r.id)
                        .expect("an update of a held node")
                        .world = r.world;
                }
                *tick
            }
            other => panic!("{other:?}"),
        }
    }
}

fn subscribe(region: Option<Region>, since: Option<u64>) -> ClientMsg {
    ClientMsg::Subscribe {
        region,
        mask: u32::MAX,
        since,
        encoding: Encoding::Exact,
        follow: None,
        frustum: None,
        send_hz: None,
        tiers: Vec::new(),
    }
}

async fn server_nodes(s: &common::TestServer, room: &str, region: Option<Region>) -> Mirror {
    let (_, b) = s.req("GET", &format!("/rooms/{room}/nodes"), None).await;
    let nodes: Vec<Node> = serde_json::from_value(b["nodes"].clone()).unwrap();
    let keep = |n: &Node| match region {
        None => true,
        Some(r) => (0..3).all(|a| {
            n.world.t[a] + n.extent[a] >= r.min[a] && n.world.t[a] - n.extent[a] <= r.max[a]
        }),
    };
    Mirror(nodes.into_iter().filter(keep).map(|n| (n.id, n)).collect())
}

#[tokio::test]
async fn a_client_resumes_from_the_tick_it_held() {
    let s = start(config()).await;
    let region = Region {
        min: [-0.5, -1.0, -1.0],
        max: [19.5, 1.0, 1.0],
    };
    for (room, scope) in [("whole", None), ("region", Some(region))] {
        s.create_room(room, 60).await;
        let adds: Vec<_> = (0..40)
            .map(|i| json!({"op":"add","id":i,"local":{"t":[i as f32, 0, 0]}}))
            .collect();
        assert_eq!(s.edits(room, json!(adds)).await.0, 200);
        let mut mirror = Mirror::default();
        let mut ws = s.ws(room, Format::Json).await;
        ws.send(&subscribe(scope, None)).await;
        let held = mirror.apply(&ws.recv().await);
        drop(ws);
        // Changes while the client is away: moves (also into and out of the region),
        // a reshape, a reparent, a removal and additions.
        let edits = json!([
            {"op":"set_local","node":3,"t":[3.0, 0.5, 0]},
            {"op":"set_local","node":25,"t":[5.0, 0, 0]},
            {"op":"set_local","node":7,"t":[30.0, 0, 0]},
            {"op":"set_shape","node":9,"extent":[1,1,1]},
            {"op":"set_parent","node":11,"parent":12},
            {"op":"remove","node":13},
            {"op":"add","id":100,"local":{"t":[1,0,0]}},
            {"op":"add","id":101,"local":{"t":[35,0,0]}}
        ]);
        assert_eq!(s.edits(room, edits).await.0, 200);
        let mut ws = s.ws(room, Format::Json).await;
        ws.send(&subscribe(scope, Some(held))).await;
        let m = ws.recv().await;
        assert!(matches!(m, ServerMsg::Delta { resumed: true, .. }), "{m:?}");
        mirror.apply(&m);
        assert_eq!(mirror, server_nodes(&s, room, scope).await, "{scope:?}");
    }
    s.stop().await;
}

#[tokio::test]
async fn a_tick_out_of_reach_gets_a_snapshot() {
    let mut cfg = config();
    cfg.resume_ticks = 2;
    let s = start(cfg).await;
    s.create_room("h", 60).await;
    assert_eq!(s.edits("h", json!([{"op":"add","id":1}])).await.0, 200);
    let mut ws = s.ws("h", Format::Json).await;
    ws.send(&subscribe(None, None)).await;
    let ServerMsg::Snapshot { tick: held, .. } = ws.recv().await else {
        panic!("a snapshot")
    };
    for x in 0..5 {
        let e = json!([{"op":"set_local","node":1,"t":[x as f32, 0, 0]}]);
        assert_eq!(s.edits("h", e).await.0, 200);
    }
    for since in [held, u64::MAX] {
        let mut ws = s.ws("h", Format::Json).await;
        ws.send(&subscribe(None, Some(since))).await;
        assert!(
            matches!(ws.recv().await, ServerMsg::Snapshot { .. }),
            "since {since}"
        );
    }
    s.stop().await;
}

/// A client that cannot read the upgrade's headers (a browser) learns the instance from
/// `GET /rooms/{room}` and names it in the upgrade: `since` is honoured only on the
/// same instance, so a room deleted and created again never gets a resumed delta.
#[tokio::test]
async fn since_is_honoured_only_on_the_instance_the_upgrade_names() {
    let s = start(config()).await;
    s.create_room("i", 60).await;
    assert_eq!(s.edits("i", json!([{"op":"add","id":1}])).await.0, 200);
    let (_, detail) = s.req("GET", "/rooms/i", None).await;
    let first = detail["instance"].as_str().unwrap().to_owned();
    assert!(
        first.len() == 16 && first.bytes().all(|b| b.is_ascii_hexdigit()),
        "{first}"
    );
    let mut ws = s
        .ws_with("i", Format::Json, &format!("&instance={first}"))
        .await
        .unwrap();
    ws.send(&subscribe(None, None)).await;
    let ServerMsg::Snapshot { tick: held, .. } = ws.recv().await else {
        panic!("a snapshot")
    };
    drop(ws);
    let e = json!([{"op":"set_local","node":1,"t":[2.0, 0, 0]}]);
    assert_eq!(s.edits("i", e).await.0, 200);
    // The same instance (in either case): resumed.
    for name in [first.clone(), first.to_uppercase()] {
        let mut ws = s
            .ws_with("i", Format::Json, &format!("&instance={name}"))
            .await
            .unwrap();
        ws.send(&subscribe(None, Some(held))).await;
        let m = ws.recv().await;
        assert!(matches!(m, ServerMsg::Delta { resumed: true, .. }), "{m:?}");
    }
    // The room deleted and created again: a new instance, and the old one named in the
    // upgrade turns the same `since` into a snapshot.
    assert_eq!(s.req("DELETE", "/rooms/i", None).await.0, 204);
    s.create_room("i", 60).await;
    assert_eq!(s.edits("i", json!([{"op":"add","id":1}])).await.0, 200);
    for x in 0..3 {
        let e = json!([{"op":"set_local","node":1,"t":[x as f32, 0, 0]}]);
        assert_eq!(s.edits("i", e).await.0, 200);
    }
    let (_, detail) = s.req("GET", "/rooms/i", None).await;
    assert_ne!(detail["instance"].as_str().unwrap(), first);
    let mut ws = s
        .ws_with("i", Format::Json, &format!("&instance={first}"))
        .await
        .unwrap();
    ws.send(&subscribe(None, Some(held))).await;
    let m = ws.recv().await;
    assert!(matches!(m, ServerMsg::Snapshot { .. }), "{m:?}");
    // A malformed instance is refused at the upgrade.
    for bad in ["xyz", "0123456789abcdef0", "0123456789abcdeg", ""] {
        let got = s
            .ws_with("i", Format::Json, &format!("&instance={bad}"))
            .await;
        assert_eq!(got.err(), Some(400), "instance={bad:?}");
    }
    s.stop().await;
}
