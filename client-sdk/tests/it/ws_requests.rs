//! Requests over the WebSocket in both formats: edit batches answered by `ack` or a
//! typed `error` (matched by `seq`), queries matched by `id` and equal to the HTTP
//! answers, pings, and refusals caught before sending.

use crate::common;

use std::time::Duration;

use canopy_client::protocol::query::{NearestQuery, RayQuery, RegionQuery, SphereQuery};
use canopy_client::{ClientError, ConnState, ConnectOptions, ErrorCode, Format, Op, Query, Scope};
use common::{TestServer, add, move_to, within};

fn options(format: Format) -> ConnectOptions {
    ConnectOptions::default().format(format)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edits_are_acked_or_refused_with_typed_errors_in_both_formats() {
    within(Duration::from_secs(60), async {
        let server = TestServer::start().await;
        let client = server.client();
        for (i, format) in [Format::Bincode, Format::Json].into_iter().enumerate() {
            let room = format!("edits-{i}");
            client.ensure_room(&room, Some(60)).await.unwrap();
            let conn = client.connect(&room, options(format)).await.unwrap();
            assert_eq!(conn.format(), format);
            assert_eq!(conn.state(), ConnState::Connected);

            let ack = conn
                .edit(vec![
                    add(5, None, [1.0, 0.0, 0.0], 0.5, 1),
                    Op::Add {
                        id: None,
                        parent: Some(5),
                        local: Default::default(),
                        extent: [0.0; 3],
                        mask: 1,
                    },
                ])
                .await
                .unwrap();
            assert_eq!(ack.ids.len(), 2);
            assert_eq!(ack.ids[0], 5);

            // Several batches in flight at once are each matched to their own answer.
            let (a, b, c) = tokio::join!(
                conn.edit(vec![move_to(5, [2.0, 0.0, 0.0])]),
                conn.edit(vec![move_to(5, [3.0, 0.0, 0.0]), move_to(77, [0.0; 3])]),
                conn.edit(vec![add(5, None, [0.0; 3], 0.0, 1)]),
            );
            assert!(a.unwrap().ids.is_empty());
            match b {
                Err(ClientError::Api { code, op, .. }) => {
                    assert_eq!((code, op), (ErrorCode::UnknownNode, Some(1)));
                }
                other => panic!("{other:?}"),
            }
            assert_eq!(c.unwrap_err().code(), Some(ErrorCode::DuplicateId));

            let cycle = conn
                .edit(vec![Op::SetParent {
                    node: 5,
                    parent: Some(ack.ids[1]),
                }])
                .await;
            assert_eq!(cycle.unwrap_err().code(), Some(ErrorCode::Cycle));

            // The refused batch changed nothing: node 5 is where the good batch put it.
            let node = client.node(&room, 5).await.unwrap();
            assert_eq!(node.local.t, [2.0, 0.0, 0.0]);

            let pong = conn.ping().await.unwrap();
            assert!(pong.tick >= ack.tick);
            conn.close().await;
            assert!(matches!(conn.state(), ConnState::Stopped(_)));
            assert!(matches!(conn.ping().await, Err(ClientError::Stopped(_))));
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn queries_over_websocket_match_http_in_both_formats() {
    within(Duration::from_secs(60), async {
        let server = TestServer::start().await;
        let client = server.client();
        client.ensure_room("q", Some(60)).await.unwrap();
        let mut ops = Vec::new();
        for i in 0..40u32 {
            let x = (i % 8) as f32 * 3.0;
            let z = (i / 8) as f32 * 3.0;
            ops.push(add(i, None, [x, 0.0, z], 0.75, 1 << (i % 3)));
        }
        client.edit("q", ops).await.unwrap();

        let queries = vec![
            Query::Region(RegionQuery {
                min: [-1.0, -1.0, -1.0],
                max: [7.0, 1.0, 7.0],
                mask: u32::MAX,
            }),
            Query::Region(RegionQuery {
                min: [-1.0, -1.0, -1.0],
                max: [30.0, 1.0, 30.0],
                mask: 2,
            }),
            Query::Sphere(SphereQuery {
                center: Some([9.0, 0.0, 9.0]),
                around: None,
                radius: 4.0,
                mask: u32::MAX,
            }),
            Query::Ray(RayQuery {
                origin: [-5.0, 0.0, 0.0],
                dir: [1.0, 0.0, 0.0],
                max_t: None,
                mask: u32::MAX,
                all: false,
            }),
            Query::Ray(RayQuery {
                origin: [-5.0, 0.0, 3.0],
                dir: [1.0, 0.0, 0.0],
                max_t: Some(10.0),
                mask: u32::MAX,
                all: true,
            }),
            Query::Ray(RayQuery {
                origin: [-5.0, 50.0, 0.0],
                dir: [1.0, 0.0, 0.0],
                max_t: None,
                mask: u32::MAX,
                all: true,
            }),
            Query::Nearest(NearestQuery {
                point: Some([10.0, 0.0, 10.0]),
                around: None,
                k: 5,
                max_dist: None,
                mask: u32::MAX,
            }),
            Query::Nearest(NearestQuery {
                point: Some([1000.0, 0.0, 0.0]),
                around: None,
                k: 5,
                max_dist: Some(1.0),
                mask: u32::MAX,
            }),
        ];
        for format in [Format::Bincode, Format::Json] {
            let conn = client.connect("q", options(format)).await.unwrap();
            for q in &queries {
                let ws = conn.query(q.clone()).await.unwrap();
                let http = client.query("q", q).await.unwrap();
                // The room keeps ticking, so only the answers are compared, not the ticks.
                assert_eq!(ws.node_ids(), http.node_ids(), "{q:?} over {format:?}");
                assert_eq!(
                    std::mem::discriminant(&ws),
                    std::mem::discriminant(&http),
                    "{q:?}"
                );
            }
            let region = conn
                .query_region(RegionQuery {
                    min: [-1.0; 3],
                    max: [1.0; 3],
                    mask: u32::MAX,
                })
                .await
                .unwrap();
            assert_eq!(region.nodes, vec![0]);
            let ray = conn
                .query_ray(RayQuery {
                    origin: [-5.0, 0.0, 0.0],
                    dir: [1.0, 0.0, 0.0],
                    max_t: None,
                    mask: u32::MAX,
                    all: false,
                })
                .await
                .unwrap();
            assert_eq!(ray.hits.len(), 1);
            assert!((ray.hits[0].t - 4.25).abs() < 1e-4);
            let near = conn
                .query_nearest(NearestQuery {
                    point: Some([0.0; 3]),
                    around: None,
                    k: 1,
                    max_dist: None,
                    mask: u32::MAX,
                })
                .await
                .unwrap();
            assert_eq!(near.hits[0].node, 0);
            let sphere = conn
                .query_sphere(SphereQuery {
                    center: Some([0.0; 3]),
                    around: None,
                    radius: -1.0,
                    mask: u32::MAX,
                })
                .await;
            assert_eq!(sphere.unwrap_err().code(), Some(ErrorCode::InvalidValue));
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_scopes_and_unknown_rooms_fail_before_anything_is_sent() {
    within(Duration::from_secs(60), async {
        let server = TestServer::start().await;
        let client = server.client();
        match client.connect("missing", ConnectOptions::default()).await {
            Err(ClientError::Api { code, status, .. }) => {
                assert_eq!((code, status), (ErrorCode::UnknownRoom, Some(404)));
            }
            other => panic!("{other:?}"),
        }
        client.ensure_room("s", None).await.unwrap();
        let conn = client
            .connect("s", ConnectOptions::default())
            .await
            .unwrap();
        let bad = Scope::region([1.0, 0.0, 0.0], [0.0, 1.0, 1.0]);
        assert!(matches!(
            conn.subscribe(bad).await,
            Err(ClientError::InvalidArgument(_))
        ));
        assert_eq!(conn.scope(), None);
    })
    .await;
}
