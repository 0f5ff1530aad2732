//! Compact frames from the real server (v1.1 `encoding: compact`): after random edits
//! (moves, turns, scales, adds, removes, reparenting) every compact mirror, whole-room
//! and region, holds every in-scope node within the contract's bounds of the server's
//! exact state, and a slow reader that was merged holds them too.

use crate::common;

use std::time::Duration;

use canopy_client::{Client, ConnectOptions, Connection, Node, Scope};
use common::random_edits::RandomEditor;
use common::{TestServer, server_nodes, within};

/// The angle between two unit quaternions (x, y, z, w), in degrees, sign-insensitive:
/// from the relative rotation `conj(a) * b` with `atan2`, which stays accurate for tiny
/// angles where `acos` of a dot product near 1 would not.
fn angle_deg(a: [f32; 4], b: [f32; 4]) -> f64 {
    let [ax, ay, az, aw] = a.map(f64::from);
    let [bx, by, bz, bw] = b.map(f64::from);
    let (ax, ay, az) = (-ax, -ay, -az);
    let x = aw * bx + ax * bw + ay * bz - az * by;
    let y = aw * by - ax * bz + ay * bw + az * bx;
    let z = aw * bz + ax * by - ay * bx + az * bw;
    let w = aw * bw - ax * bx - ay * by - az * bz;
    2.0 * (x * x + y * y + z * z).sqrt().atan2(w.abs()).to_degrees()
}

/// Why `got` is not within the compact bounds of `want`, if it is not.
fn off(got: &Node, want: &Node) -> Option<String> {
    let (g, w) = (&got.world, &want.world);
    let dt = (0..3)
        .map(|i| (g.t[i] - w.t[i]).abs())
        .fold(0.0f32, f32::max);
    let da = angle_deg(g.r, w.r);
    let ds = ((g.s - w.s) / w.s).abs();
    let same_rest = got.parent == want.parent && got.extent == want.extent && got.mask == want.mask;
    (dt > 1e-3 || da > 0.01 || ds > 1e-3 || !same_rest).then(|| {
        format!(
            "node {}: dt {dt} m, {da}°, ds {ds}, rest same {same_rest}",
            want.id
        )
    })
}

async fn within_bounds(conn: &Connection, client: &Client, room: &str, region: Option<[f32; 6]>) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        let mut want = server_nodes(client, room).await;
        if let Some(r) = region {
            let q = canopy_client::protocol::query::RegionQuery {
                min: [r[0], r[1], r[2]],
                max: [r[3], r[4], r[5]],
                mask: u32::MAX,
            };
            let ids = client.query_region(room, &q).await.unwrap().nodes;
            want.retain(|n| ids.binary_search(&n.id).is_ok());
        }
        let have = conn.mirror().to_sorted_vec();
        let problems: Vec<String> =
            if have.len() == want.len() && have.iter().zip(&want).all(|(h, w)| h.id == w.id) {
                have.iter()
                    .zip(&want)
                    .filter_map(|(h, w)| off(h, w))
                    .collect()
            } else {
                vec![format!(
                    "{} nodes held, {} in scope",
                    have.len(),
                    want.len()
                )]
            };
        if problems.is_empty() {
            return;
        }
        assert!(tokio::time::Instant::now() < deadline, "{problems:?}");
        tokio::time::sleep(Duration::from_millis(30)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compact_mirrors_stay_within_the_bounds_of_the_server() {
    within(Duration::from_secs(120), async {
        let server = TestServer::start().await;
        let client = server.client();
        let room = "compact";
        client.ensure_room(room, Some(60)).await.unwrap();
        let region = [-15.0f32, -15.0, -15.0, 15.0, 15.0, 15.0];
        let mut watchers = Vec::new();
        for scope in [
            Scope::room(),
            Scope::region(
                [region[0], region[1], region[2]],
                [region[3], region[4], region[5]],
            ),
        ] {
            let conn = client
                .connect(room, ConnectOptions::default().compact())
                .await
                .unwrap();
            conn.subscribe(scope.clone()).await.unwrap();
            watchers.push((conn, scope));
        }
        let mut model = RandomEditor::new(0x5EED);
        for i in 0..200 {
            let planned = model.plan(if i < 20 { 12 } else { 6 });
            let ack = client
                .edit(room, planned.ops.clone())
                .await
                .expect("a valid batch");
            model.commit(planned, &ack.ids);
        }
        for (conn, scope) in &watchers {
            within_bounds(conn, &client, room, scope.region.map(|_| region)).await;
            assert_eq!(conn.mirror().inconsistencies(), 0);
        }
    })
    .await;
}
