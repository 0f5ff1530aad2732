//! The v1.2 subscribe options (follow, frustum, send rate, tiers): what the client puts
//! on the wire in both formats, that they are kept across a reconnect (which resumes
//! with `since` as before), that bad ones are caught before sending, and that what only
//! the server can refuse (a followed node that does not exist, a send rate above the
//! room's tick rate) leaves the connection on the subscription it had.

use crate::common;

use std::time::Duration;

use canopy_client::protocol::{ClientMsg, Follow, ServerMsg, Tier};
use canopy_client::{
    Backoff, ClientError, ConnectOptions, Connection, ErrorCode, Event, Format, Scope,
};
use common::fake::{FakeConn, accept, fake_server, node};
use common::{TestServer, add, move_to, wait_for, within};
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

fn tiers() -> Vec<Tier> {
    vec![
        Tier {
            within: Some(10.0),
            every: 1,
        },
        Tier {
            within: None,
            every: 3,
        },
    ]
}

/// The v1.2 fields and `since` of the client's next `subscribe`.
async fn v1_2_fields(
    server: &mut FakeConn,
) -> (Option<Follow>, Option<u32>, Vec<Tier>, u32, Option<u64>) {
    match server.recv().await {
        ClientMsg::Subscribe {
            follow,
            send_hz,
            tiers,
            mask,
            since,
            region,
            frustum,
            ..
        } => {
            assert_eq!((region, frustum), (None, None));
            (follow, send_hz, tiers, mask, since)
        }
        other => panic!("expected a subscribe, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn follow_rate_and_tiers_go_out_in_both_formats_and_survive_a_reconnect() {
    within(Duration::from_secs(60), async {
        for format in [Format::Bincode, Format::Json] {
            let (addr, mut conns) = fake_server().await;
            let url = format!("http://{addr}");
            let options = ConnectOptions::default().format(format).backoff(Backoff {
                initial: Duration::from_millis(10),
                ..Backoff::default()
            });
            let (client, server) =
                tokio::join!(Connection::connect(&url, "r", options), accept(&mut conns));
            let (conn, mut server) = (client.unwrap(), server);
            let scope = Scope::follow_with_margin(7, 25.0, 2.5)
                .with_mask(0b11)
                .with_send_hz(10)
                .with_tiers(tiers());
            let want_follow = Some(Follow {
                node: 7,
                radius: 25.0,
                margin: Some(2.5),
            });
            let (tick, fields) = tokio::join!(conn.subscribe(scope.clone()), async {
                let fields = v1_2_fields(&mut server).await;
                server.send(&ServerMsg::snapshot(4, 0, vec![node(7)])).await;
                fields
            });
            assert_eq!(tick.unwrap(), 4);
            assert_eq!(fields, (want_follow, Some(10), tiers(), 0b11, None));

            // Asked to come back: the same options, resuming from the mirror's tick.
            server
                .ws
                .close(Some(CloseFrame {
                    code: CloseCode::from(4000),
                    reason: "resubscribe".into(),
                }))
                .await
                .unwrap();
            let mut again = accept(&mut conns).await;
            let fields = v1_2_fields(&mut again).await;
            assert_eq!(
                fields,
                (want_follow, Some(10), tiers(), 0b11, Some(4)),
                "{format:?}"
            );
            assert_eq!(conn.scope(), Some(scope));
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frustum_scope_goes_out_with_its_normalized_planes() {
    within(Duration::from_secs(60), async {
        let (addr, mut conns) = fake_server().await;
        let url = format!("http://{addr}");
        let (client, server) = tokio::join!(
            Connection::connect(&url, "r", ConnectOptions::default()),
            accept(&mut conns)
        );
        let (conn, mut server) = (client.unwrap(), server);
        // A box-shaped "frustum" |x|, |y|, |z| <= 5, its planes scaled by 2 on purpose.
        let planes = [
            [2.0, 0.0, 0.0, 10.0],
            [-2.0, 0.0, 0.0, 10.0],
            [0.0, 2.0, 0.0, 10.0],
            [0.0, -2.0, 0.0, 10.0],
            [0.0, 0.0, 2.0, 10.0],
            [0.0, 0.0, -2.0, 10.0],
        ];
        let (tick, ()) = tokio::join!(conn.subscribe(Scope::frustum(planes)), async {
            match server.recv().await {
                ClientMsg::Subscribe {
                    frustum: Some(f), ..
                } => {
                    assert_eq!(f.0, planes.map(|p| p.map(|v| v / 2.0)));
                }
                other => panic!("{other:?}"),
            }
            server.send(&ServerMsg::snapshot(2, 0, vec![])).await;
        });
        assert_eq!(tick.unwrap(), 2);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_the_server_refuses_leaves_the_old_subscription_going_on() {
    within(Duration::from_secs(60), async {
        let server = TestServer::start().await;
        let client = server.client();
        client.ensure_room("v12", Some(60)).await.unwrap();
        client
            .edit("v12", vec![add(1, None, [0.0; 3], 0.5, 1)])
            .await
            .unwrap();
        for format in [Format::Bincode, Format::Json] {
            let conn = client
                .connect("v12", ConnectOptions::default().format(format))
                .await
                .unwrap();

            // The first subscribe refused (no node 99 to follow): the connection stays
            // unsubscribed.
            let refused = conn.subscribe(Scope::follow(99, 10.0)).await;
            assert_eq!(refused.unwrap_err().code(), Some(ErrorCode::UnknownNode));
            assert_eq!(conn.scope(), None);

            let mut events = conn.events();
            conn.subscribe(Scope::room()).await.unwrap();
            // Above the room's 60 Hz.
            let refused = conn.subscribe(Scope::room().with_send_hz(61)).await;
            assert_eq!(refused.unwrap_err().code(), Some(ErrorCode::InvalidValue));
            assert_eq!(conn.scope(), Some(Scope::room()), "{format:?}");

            // Caught before sending: nothing changes at all.
            let bad = Scope::follow(1, 10.0).with_tiers(tiers()).with_send_hz(0);
            assert!(matches!(
                conn.subscribe(bad).await,
                Err(ClientError::InvalidArgument(_))
            ));
            assert_eq!(conn.scope(), Some(Scope::room()));

            // The whole-room subscription goes on.
            let ack = client
                .edit("v12", vec![move_to(1, [1.0, 2.0, 3.0])])
                .await
                .unwrap();
            wait_for(
                &mut events,
                "the move",
                |e| matches!(e, Event::Tick { tick, .. } if *tick >= ack.tick),
            )
            .await;
            assert_eq!(conn.mirror().get(1).unwrap().world.t, [1.0, 2.0, 3.0]);
            client
                .edit("v12", vec![move_to(1, [0.0; 3])])
                .await
                .unwrap();
        }
    })
    .await;
}
