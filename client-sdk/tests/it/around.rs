//! Sphere and nearest queries measured from a node (v1.2 `around`), over HTTP and over
//! the WebSocket in both formats, against the in-process server: the answers follow the
//! node as it moves, match what the same query around its known position answers, and a
//! query naming no origin (or two) is refused before it is sent.

use crate::common;

use std::time::Duration;

use canopy_client::protocol::query::{NearestQuery, SphereQuery};
use canopy_client::{
    ClientError, ConnectOptions, ErrorCode, Format, Query, nearest_around, sphere_around,
};
use common::{TestServer, add, move_to, within};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn queries_around_a_node_follow_it_over_http_and_websocket() {
    within(Duration::from_secs(60), async {
        let server = TestServer::start().await;
        let client = server.client();
        client.ensure_room("around", Some(60)).await.unwrap();
        client
            .edit(
                "around",
                vec![
                    add(1, None, [0.0; 3], 0.5, 1),
                    add(2, None, [3.0, 0.0, 0.0], 0.5, 1),
                    add(3, None, [10.0, 0.0, 0.0], 0.5, 1),
                ],
            )
            .await
            .unwrap();
        let conns = [
            client
                .connect("around", ConnectOptions::default().format(Format::Bincode))
                .await
                .unwrap(),
            client
                .connect("around", ConnectOptions::default().format(Format::Json))
                .await
                .unwrap(),
        ];

        // Node 1 at the origin: node 2's box (from 2.5) is within 3, node 3's is not.
        let near_1 = sphere_around(1, 3.0);
        assert_eq!(
            client.query_sphere("around", &near_1).await.unwrap().nodes,
            vec![1, 2]
        );
        let at_origin = SphereQuery::at([0.0; 3], 3.0);
        assert_eq!(
            client
                .query_sphere("around", &at_origin)
                .await
                .unwrap()
                .nodes,
            vec![1, 2]
        );
        for conn in &conns {
            assert_eq!(
                conn.query_sphere(near_1.clone()).await.unwrap().nodes,
                vec![1, 2]
            );
        }

        // Node 1 moves next to node 3: the same queries now find node 3.
        client
            .edit("around", vec![move_to(1, [9.0, 0.0, 0.0])])
            .await
            .unwrap();
        assert_eq!(
            client.query_sphere("around", &near_1).await.unwrap().nodes,
            vec![1, 3]
        );
        let nearest = nearest_around(3, 2);
        let hits = client.query_nearest("around", &nearest).await.unwrap().hits;
        let ids: Vec<u32> = hits.iter().map(|h| h.node).collect();
        assert_eq!(ids, vec![3, 1], "itself first, at distance 0");
        assert_eq!(hits[0].dist, 0.0);
        assert!((hits[1].dist - 0.5).abs() < 1e-5, "{hits:?}");
        let from_point = NearestQuery::at([10.0, 0.0, 0.0], 2);
        assert_eq!(
            client
                .query_nearest("around", &from_point)
                .await
                .unwrap()
                .hits,
            hits
        );
        for conn in &conns {
            assert_eq!(
                conn.query_nearest(nearest.clone()).await.unwrap().hits,
                hits
            );
            let answer = conn.query(Query::Sphere(near_1.clone())).await.unwrap();
            assert_eq!(answer.node_ids(), vec![1, 3]);
        }

        // A node that does not exist is the server's `unknown_node`.
        let missing = client.query_sphere("around", &sphere_around(99, 1.0)).await;
        match missing {
            Err(ClientError::Api { code, status, .. }) => {
                assert_eq!((code, status), (ErrorCode::UnknownNode, Some(404)));
            }
            other => panic!("{other:?}"),
        }
        for conn in &conns {
            let missing = conn.query_nearest(nearest_around(99, 1)).await;
            assert_eq!(missing.unwrap_err().code(), Some(ErrorCode::UnknownNode));
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_query_with_no_origin_or_two_is_refused_before_it_is_sent() {
    within(Duration::from_secs(60), async {
        let server = TestServer::start().await;
        let client = server.client();
        client.ensure_room("origins", None).await.unwrap();
        let both = SphereQuery {
            center: Some([0.0; 3]),
            ..sphere_around(1, 1.0)
        };
        let neither = NearestQuery {
            point: None,
            ..NearestQuery::at([0.0; 3], 1)
        };
        assert!(matches!(
            client.query_sphere("origins", &both).await,
            Err(ClientError::InvalidArgument(_))
        ));
        assert!(matches!(
            client.query_nearest("origins", &neither).await,
            Err(ClientError::InvalidArgument(_))
        ));
        for format in [Format::Bincode, Format::Json] {
            let conn = client
                .connect("origins", ConnectOptions::default().format(format))
                .await
                .unwrap();
            assert!(matches!(
                conn.query_sphere(both.clone()).await,
                Err(ClientError::InvalidArgument(_))
            ));
            assert!(matches!(
                conn.query(Query::Nearest(neither.clone())).await,
                Err(ClientError::InvalidArgument(_))
            ));
            // Nothing was sent, and the connection is as good as before.
            assert!(conn.ping().await.is_ok());
        }
    })
    .await;
}
