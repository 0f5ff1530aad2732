//! The HTTP client against an in-process server: rooms, edits with typed errors, node
//! reads and the four queries.

use crate::common;

use std::time::Duration;

use canopy_client::protocol::http::CreateRoom;
use canopy_client::protocol::query::{NearestQuery, RayQuery, RegionQuery, SphereQuery};
use canopy_client::{ClientError, ErrorCode, Op, Query, QueryAnswer};
use canopy_server::config::ServerConfig;
use common::{TestServer, add, move_to, within};

fn api_error(
    result: Result<impl std::fmt::Debug, ClientError>,
) -> (ErrorCode, Option<u32>, Option<u16>) {
    match result {
        Err(ClientError::Api {
            code, op, status, ..
        }) => (code, op, status),
        other => panic!("expected an API error, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rooms_can_be_created_listed_read_and_deleted() {
    within(Duration::from_secs(60), async {
        let server = TestServer::start().await;
        let client = server.client();
        client.health().await.unwrap();
        let created = client
            .create_room(&CreateRoom {
                id: Some("lobby".into()),
                tick_hz: Some(20),
            })
            .await
            .unwrap();
        assert_eq!((created.id.as_str(), created.tick_hz), ("lobby", 20));
        let again = client
            .create_room(&CreateRoom {
                id: Some("lobby".into()),
                tick_hz: None,
            })
            .await;
        assert_eq!(api_error(again), (ErrorCode::RoomExists, None, Some(409)));
        assert!(!client.ensure_room("lobby", None).await.unwrap());

        let unnamed = client.create_room(&CreateRoom::default()).await.unwrap();
        let rooms = client.list_rooms().await.unwrap();
        let ids: Vec<&str> = rooms.iter().map(|r| r.id.as_str()).collect();
        assert!(ids.contains(&"lobby") && ids.contains(&unnamed.id.as_str()));

        let detail = client.get_room("lobby").await.unwrap();
        assert_eq!(
            (detail.id.as_str(), detail.tick_hz, detail.nodes),
            ("lobby", 20, 0)
        );

        client.delete_room("lobby").await.unwrap();
        assert_eq!(
            api_error(client.get_room("lobby").await),
            (ErrorCode::UnknownRoom, None, Some(404))
        );
        assert_eq!(
            api_error(client.delete_room("lobby").await),
            (ErrorCode::UnknownRoom, None, Some(404))
        );
        assert!(client.metrics().await.unwrap().contains('#'));
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edits_answer_ids_and_typed_errors() {
    within(Duration::from_secs(60), async {
        let server = TestServer::start().await;
        let client = server.client();
        client.ensure_room("e", Some(60)).await.unwrap();

        let ok = client
            .edit(
                "e",
                vec![
                    add(7, None, [1.0, 2.0, 3.0], 0.5, u32::MAX),
                    Op::Add {
                        id: None,
                        parent: Some(7),
                        local: Default::default(),
                        extent: [0.0; 3],
                        mask: 1,
                    },
                ],
            )
            .await
            .unwrap();
        assert_eq!(ok.ids.len(), 2);
        assert_eq!(ok.ids[0], 7);
        let child = ok.ids[1];

        // The batch is atomic: the good first op is not applied when the second fails.
        let dup = client
            .edit(
                "e",
                vec![
                    add(100, None, [0.0; 3], 0.0, 1),
                    add(7, None, [0.0; 3], 0.0, 1),
                ],
            )
            .await;
        assert_eq!(api_error(dup), (ErrorCode::DuplicateId, Some(1), Some(409)));
        assert_eq!(
            api_error(client.node("e", 100).await),
            (ErrorCode::UnknownNode, None, Some(404))
        );

        let unknown = client.edit("e", vec![move_to(999, [0.0; 3])]).await;
        assert_eq!(
            api_error(unknown),
            (ErrorCode::UnknownNode, Some(0), Some(400))
        );

        let cycle = client
            .edit(
                "e",
                vec![Op::SetParent {
                    node: 7,
                    parent: Some(child),
                }],
            )
            .await;
        assert_eq!(api_error(cycle), (ErrorCode::Cycle, Some(0), Some(409)));

        let bad_scale = client
            .edit(
                "e",
                vec![Op::SetLocal {
                    node: 7,
                    t: None,
                    r: None,
                    s: Some(0.0),
                }],
            )
            .await;
        assert_eq!(
            api_error(bad_scale),
            (ErrorCode::InvalidValue, Some(0), Some(400))
        );

        assert_eq!(
            api_error(client.edit("nope", vec![]).await),
            (ErrorCode::UnknownRoom, None, Some(404))
        );

        let node = client.node("e", child).await.unwrap();
        assert_eq!(node.parent, Some(7));
        assert_eq!(node.world.t, [1.0, 2.0, 3.0]);
        let parent = client.node("e", 7).await.unwrap();
        assert_eq!(parent.children, vec![child]);
        let all = client.nodes("e").await.unwrap();
        assert_eq!(all.nodes.len(), 2);
        assert!(all.tick >= ok.tick);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_four_queries_answer_over_http() {
    within(Duration::from_secs(60), async {
        let server = TestServer::start().await;
        let client = server.client();
        client.ensure_room("q", Some(60)).await.unwrap();
        client
            .edit(
                "q",
                vec![
                    add(1, None, [0.0, 0.0, 0.0], 1.0, 1),
                    add(2, None, [10.0, 0.0, 0.0], 1.0, 2),
                    add(3, None, [20.0, 0.0, 0.0], 1.0, 1),
                ],
            )
            .await
            .unwrap();

        let region = RegionQuery {
            min: [-2.0; 3],
            max: [12.0, 2.0, 2.0],
            mask: u32::MAX,
        };
        assert_eq!(
            client.query_region("q", &region).await.unwrap().nodes,
            vec![1, 2]
        );
        let masked = RegionQuery { mask: 2, ..region };
        assert_eq!(
            client.query_region("q", &masked).await.unwrap().nodes,
            vec![2]
        );

        let sphere = SphereQuery {
            center: Some([20.0, 0.0, 3.0]),
            around: None,
            radius: 2.5,
            mask: u32::MAX,
        };
        assert_eq!(
            client.query_sphere("q", &sphere).await.unwrap().nodes,
            vec![3]
        );

        let ray = RayQuery {
            origin: [-10.0, 0.0, 0.0],
            dir: [2.0, 0.0, 0.0],
            max_t: None,
            mask: u32::MAX,
            all: true,
        };
        let hits = client.query_ray("q", &ray).await.unwrap().hits;
        let ids: Vec<u32> = hits.iter().map(|h| h.node).collect();
        assert_eq!(ids, vec![1, 2, 3]);
        assert!((hits[0].t - 9.0).abs() < 1e-4);

        let nearest = NearestQuery {
            point: Some([9.0, 0.0, 0.0]),
            around: None,
            k: 2,
            max_dist: None,
            mask: u32::MAX,
        };
        let near = client.query_nearest("q", &nearest).await.unwrap().hits;
        assert_eq!(near.iter().map(|h| h.node).collect::<Vec<_>>(), vec![2, 1]);
        assert_eq!(near[0].dist, 0.0);

        // The generic entry point routes by kind and gives the same answers.
        match client.query("q", &Query::Nearest(nearest)).await.unwrap() {
            QueryAnswer::Nearest(r) => assert_eq!(r.hits, near),
            other => panic!("{other:?}"),
        }

        let bad = RegionQuery {
            min: [1.0; 3],
            max: [0.0; 3],
            mask: u32::MAX,
        };
        assert_eq!(
            api_error(client.query_region("q", &bad).await),
            (ErrorCode::InvalidValue, None, Some(400))
        );
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_is_sent_and_an_open_server_accepts_it() {
    within(Duration::from_secs(60), async {
        let server = TestServer::start().await;
        let client = server.client().with_token("secret");
        assert_eq!(client.token(), Some("secret"));
        client.ensure_room("t", None).await.unwrap();
        assert!(client.get_room("t").await.is_ok());
    })
    .await;
}

/// The pool drops an idle connection before a server with the default keep-alive limit
/// would: otherwise a request may go out on a connection the server is closing, and fail
/// with a transport error (seen in the soak's over-quota caller).
#[test]
fn pooled_connections_are_let_go_before_the_server_closes_them() {
    let keep_alive = ServerConfig::default().http_header_timeout;
    assert!(
        canopy_client::POOL_IDLE_TIMEOUT < keep_alive,
        "pool idle {:?} vs server keep-alive {keep_alive:?}",
        canopy_client::POOL_IDLE_TIMEOUT
    );
}
