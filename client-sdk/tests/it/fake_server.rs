//! The connection driver against a scripted fake server, for what a correct server
//! never does on its own: a delta naming nodes the mirror lacks, an unreadable frame,
//! close code 4000, an error that answers nothing, and a request never answered. It
//! also checks what the client puts on the wire (format and token in the URL, frame
//! kinds, the resubscribe after a reconnect).

use crate::common;

use std::time::Duration;

use canopy_client::protocol::{ClientMsg, ServerMsg, UpdateRow};
use canopy_client::{
    Backoff, ClientError, ConnectOptions, Connection, ErrorCode, Event, Scope, Transform,
};
use common::fake::{accept, fake_server, node};
use common::{wait_for, within};
use futures_util::SinkExt;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frame_the_mirror_cannot_apply_triggers_a_resync() {
    within(Duration::from_secs(60), async {
        let (addr, mut conns) = fake_server().await;
        let url = format!("http://{addr}");
        let (client, server) = tokio::join!(
            Connection::connect(&url, "r", ConnectOptions::default().json()),
            accept(&mut conns)
        );
        let (conn, mut server) = (client.unwrap(), server);
        assert!(
            server.uri.starts_with("/rooms/r/ws?format=json"),
            "{}",
            server.uri
        );
        let mut events = conn.events();
        let (tick, ()) = tokio::join!(
            conn.subscribe(Scope::room()),
            server.answer_subscribe(1, vec![node(1)])
        );
        assert_eq!(tick.unwrap(), 1);

        // An update for a node the mirror never had: the client asks for a snapshot.
        server
            .send(&ServerMsg::delta(
                2,
                0,
                vec![],
                vec![UpdateRow {
                    id: 99,
                    world: Transform::IDENTITY,
                }],
                vec![],
            ))
            .await;
        server.answer_subscribe(3, vec![node(1), node(2)]).await;
        let (marker, before) = wait_for(&mut events, "the resync", |e| {
            matches!(e, Event::Resynced { .. })
        })
        .await;
        assert!(matches!(
            marker,
            Event::Resynced {
                tick: 3,
                len: 2,
                ..
            }
        ));
        assert!(before.contains(&Event::Entered(node(2))));
        assert_eq!(conn.mirror().inconsistencies(), 1);

        // A frame that cannot be decoded might have been a delta: resync as well.
        server
            .ws
            .send(Message::text("{\"type\":\"delta\""))
            .await
            .unwrap();
        server.answer_subscribe(4, vec![node(2)]).await;
        let (_, before) = wait_for(&mut events, "the second resync", |e| {
            matches!(e, Event::Resynced { .. })
        })
        .await;
        assert!(before.contains(&Event::Left(1)));
        assert_eq!(conn.mirror().to_sorted_vec(), vec![node(2)]);

        // An error that names no request is reported as an event.
        server
            .send(&ServerMsg::Error {
                seq: None,
                id: None,
                code: ErrorCode::BadRequest,
                message: "what?".into(),
                op: None,
            })
            .await;
        let (event, _) = wait_for(&mut events, "the server error", |e| {
            matches!(e, Event::ServerError { .. })
        })
        .await;
        assert_eq!(
            event,
            Event::ServerError {
                code: ErrorCode::BadRequest,
                message: "what?".into()
            }
        );
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn close_code_4000_reconnects_and_resubscribes_with_the_token() {
    within(Duration::from_secs(60), async {
        let (addr, mut conns) = fake_server().await;
        let url = format!("http://{addr}");
        let options = ConnectOptions::default().token("s3cret").backoff(Backoff {
            initial: Duration::from_millis(10),
            ..Backoff::default()
        });
        let (client, server) =
            tokio::join!(Connection::connect(&url, "r", options), accept(&mut conns));
        let (conn, mut server) = (client.unwrap(), server);
        assert_eq!(server.uri, "/rooms/r/ws?format=bincode&token=s3cret");
        let mut events = conn.events();
        let scope = Scope::region([0.0; 3], [1.0; 3]).with_mask(6);
        let (tick, ()) = tokio::join!(
            conn.subscribe(scope.clone()),
            server.answer_subscribe(5, vec![node(1)])
        );
        assert_eq!(tick.unwrap(), 5);

        server
            .send(&ServerMsg::Closed {
                reason: "too slow".into(),
            })
            .await;
        server
            .ws
            .close(Some(CloseFrame {
                code: CloseCode::from(4000),
                reason: "resubscribe".into(),
            }))
            .await
            .unwrap();

        // The new connection carries the same token and subscribes with the same scope.
        let mut again = accept(&mut conns).await;
        assert_eq!(again.uri, server.uri);
        match again.recv().await {
            ClientMsg::Subscribe { region, mask, .. } => {
                assert_eq!((region, mask), (scope.region, 6));
            }
            other => panic!("{other:?}"),
        }
        again.send(&ServerMsg::snapshot(9, 0, vec![node(3)])).await;
        let (marker, before) = wait_for(&mut events, "the resync", |e| {
            matches!(e, Event::Resynced { .. })
        })
        .await;
        assert!(matches!(marker, Event::Resynced { tick: 9, .. }));
        assert!(
            before
                .iter()
                .any(|e| matches!(e, Event::Disconnected { error } if error.contains("too slow"))),
            "{before:?}"
        );
        assert_eq!(conn.mirror().to_sorted_vec(), vec![node(3)]);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unanswered_request_times_out_and_a_late_answer_is_ignored() {
    within(Duration::from_secs(60), async {
        let (addr, mut conns) = fake_server().await;
        let url = format!("http://{addr}");
        let options = ConnectOptions::default().request_timeout(Duration::from_millis(200));
        let (client, server) =
            tokio::join!(Connection::connect(&url, "r", options), accept(&mut conns));
        let (conn, mut server) = (client.unwrap(), server);
        let started = tokio::time::Instant::now();
        let (result, msg) = tokio::join!(conn.ping(), server.recv());
        assert!(matches!(result, Err(ClientError::Timeout(_))), "{result:?}");
        assert!(started.elapsed() < Duration::from_secs(2));
        // The late pong matches nothing and harms nothing; the next ping works.
        let ClientMsg::Ping { nonce } = msg else {
            panic!("{msg:?}")
        };
        server.send(&ServerMsg::Pong { nonce, tick: 1 }).await;
        let (result, msg) = tokio::join!(conn.ping(), async {
            let msg = server.recv().await;
            if let ClientMsg::Ping { nonce } = msg {
                server.send(&ServerMsg::Pong { nonce, tick: 2 }).await;
            }
        });
        let () = msg;
        assert_eq!(result.unwrap().tick, 2);
    })
    .await;
}
