//! A room moving between cluster nodes, as the client sees it (docs/protocol.md section
//! 11): its subscribers are closed with `closed` reason `moving` and close code 4002,
//! and while the room is between owners upgrades and HTTP requests answer
//! `503 overloaded` with `Retry-After`. Played by the scripted fake server (and a raw
//! HTTP responder), since the in-process server is not a cluster. The waits run on
//! paused tokio time, so a `Retry-After: 1` costs no real second and its length is
//! measured exactly.

use crate::common;

use std::time::Duration;

use canopy_client::protocol::{ClientMsg, ServerMsg, UpdateRow};
use canopy_client::{
    Backoff, CLOSE_MOVING, ClientError, ConnState, ConnectOptions, Connection, ErrorCode, Event,
    REASON_MOVING, Scope, StopReason, Transform,
};
use common::fake::{FakeConn, Refusal, accept, node, scripted_server};
use common::{wait_for, within};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

fn quick_backoff() -> Backoff {
    Backoff {
        initial: Duration::from_millis(10),
        max: Duration::from_millis(100),
        ..Backoff::default()
    }
}

/// Closes `server`'s connection the way an owner handing its room over does.
async fn close_as_moving(server: &mut FakeConn) {
    server
        .send(&ServerMsg::Closed {
            reason: REASON_MOVING.into(),
        })
        .await;
    server
        .ws
        .close(Some(CloseFrame {
            code: CloseCode::from(CLOSE_MOVING),
            reason: REASON_MOVING.into(),
        }))
        .await
        .unwrap();
}

/// Reads the client's `subscribe` and returns its `since`.
async fn since_of(server: &mut FakeConn) -> Option<u64> {
    match server.recv().await {
        ClientMsg::Subscribe { since, .. } => since,
        other => panic!("expected a subscribe, got {other:?}"),
    }
}

/// A resumed delta at `tick` that moves node 1 to `x`.
fn resumed(tick: u64, x: f32) -> ServerMsg {
    ServerMsg::Delta {
        tick,
        time: 0,
        upsert: vec![],
        update: vec![UpdateRow {
            id: 1,
            world: Transform {
                t: [x, 0.0, 0.0],
                ..Transform::IDENTITY
            },
        }],
        remove: vec![],
        resumed: true,
        compact: None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subscriber_closed_as_moving_reconnects_and_resumes_from_its_tick() {
    within(Duration::from_secs(60), async {
        let (addr, mut conns, _) = scripted_server().await;
        let url = format!("http://{addr}");
        let options = ConnectOptions::default().backoff(quick_backoff());
        let (client, server) =
            tokio::join!(Connection::connect(&url, "r", options), accept(&mut conns));
        let (conn, mut server) = (client.unwrap(), server);
        let mut events = conn.events();
        let (tick, ()) = tokio::join!(
            conn.subscribe(Scope::room()),
            server.answer_subscribe(5, vec![node(1), node(2)])
        );
        assert_eq!(tick.unwrap(), 5);

        close_as_moving(&mut server).await;
        let mut again = accept(&mut conns).await;
        assert_eq!(since_of(&mut again).await, Some(5), "resumes from its tick");
        again.send(&resumed(9, 4.0)).await;
        let (_, before) = wait_for(&mut events, "the resumed delta", |e| {
            matches!(e, Event::Tick { tick: 9, .. })
        })
        .await;
        assert!(
            before
                .iter()
                .any(|e| matches!(e, Event::Disconnected { error } if error.contains("moving"))),
            "{before:?}"
        );
        assert!(before.contains(&Event::Reconnected), "{before:?}");
        assert!(
            !before.iter().any(|e| matches!(e, Event::Resynced { .. })),
            "resumed, not resynchronised: {before:?}"
        );
        assert_eq!(conn.state(), ConnState::Connected);
        let mirror = conn.mirror();
        assert_eq!((mirror.tick(), mirror.len()), (9, 2));
        assert_eq!(mirror.get(1).unwrap().world.t, [4.0, 0.0, 0.0]);
    })
    .await;
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn a_reconnect_refused_while_the_room_moves_waits_the_retry_after_and_retries() {
    within(Duration::from_secs(120), async {
        let (addr, mut conns, mut refusals) = scripted_server().await;
        let url = format!("http://{addr}");
        // One failed attempt would give up; the server's asked-for waits are no failures.
        let options = ConnectOptions::default().backoff(Backoff {
            max_attempts: Some(1),
            ..quick_backoff()
        });
        let (client, server) =
            tokio::join!(Connection::connect(&url, "r", options), accept(&mut conns));
        let (conn, mut server) = (client.unwrap(), server);
        let (tick, ()) = tokio::join!(
            conn.subscribe(Scope::room()),
            server.answer_subscribe(5, vec![node(1)])
        );
        assert_eq!(tick.unwrap(), 5);

        // The room is between owners for two attempts.
        refusals.push(Refusal::moving(1));
        refusals.push(Refusal::moving(1));
        close_as_moving(&mut server).await;
        let first = refusals.given().await;
        let second = refusals.given().await;
        assert!(matches!(conn.state(), ConnState::Reconnecting { .. }));
        let mut again = accept(&mut conns).await;
        // Waited at least the Retry-After each time, lengthened by at most the jitter.
        let most = Duration::from_millis(1500);
        for (gap, what) in [(second - first, "second"), (again.at - second, "third")] {
            assert!(
                gap >= Duration::from_secs(1) && gap <= most,
                "{what} attempt after {gap:?}"
            );
        }
        assert_eq!(since_of(&mut again).await, Some(5));
        again.send(&resumed(12, 2.0)).await;
        let mut state = conn.state_watch();
        tokio::time::timeout(Duration::from_secs(5), async {
            while conn.mirror().tick() != 12 {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        })
        .await
        .expect("the resumed delta applied");
        assert_eq!(*state.borrow_and_update(), ConnState::Connected);
        assert_eq!(conn.mirror().get(1).unwrap().world.t, [2.0, 0.0, 0.0]);
    })
    .await;
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn a_room_found_gone_after_a_move_stops_the_connection() {
    within(Duration::from_secs(60), async {
        let (addr, mut conns, mut refusals) = scripted_server().await;
        let url = format!("http://{addr}");
        let options = ConnectOptions::default().backoff(quick_backoff());
        let (client, server) =
            tokio::join!(Connection::connect(&url, "r", options), accept(&mut conns));
        let (conn, mut server) = (client.unwrap(), server);
        let mut events = conn.events();
        refusals.push(Refusal::moving(1));
        refusals.push(Refusal {
            status: 404,
            retry_after: None,
            body: r#"{"error":{"code":"unknown_room","message":"no room r"}}"#.into(),
        });
        close_as_moving(&mut server).await;
        let (event, _) =
            wait_for(&mut events, "the stop", |e| matches!(e, Event::Stopped(_))).await;
        match event {
            Event::Stopped(StopReason::Refused { code, status, .. }) => {
                assert_eq!((code, status), (Some(ErrorCode::UnknownRoom), 404));
            }
            other => panic!("{other:?}"),
        }
        refusals.given().await;
        refusals.given().await;
    })
    .await;
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn a_first_connect_to_a_moving_room_fails_with_the_retry_after() {
    within(Duration::from_secs(60), async {
        let (addr, _conns, refusals) = scripted_server().await;
        refusals.push(Refusal::moving(2));
        let url = format!("http://{addr}");
        match Connection::connect(&url, "r", ConnectOptions::default()).await {
            Err(error @ ClientError::Api { .. }) => {
                assert_eq!(error.code(), Some(ErrorCode::Overloaded));
                assert_eq!(error.retry_after(), Some(Duration::from_secs(2)));
                assert!(error.to_string().contains("moving"), "{error}");
            }
            other => panic!("{other:?}"),
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_http_request_to_a_moving_room_carries_the_retry_after() {
    within(Duration::from_secs(60), async {
        // A raw HTTP responder answering every request as a room between owners.
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            while let Ok((mut tcp, _)) = listener.accept().await {
                let mut buf = vec![0u8; 4096];
                let _ = tcp.read(&mut buf).await;
                let body = r#"{"error":{"code":"overloaded","message":"room r is moving"}}"#;
                let answer = format!(
                    "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n\
                     retry-after: 1\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = tcp.write_all(answer.as_bytes()).await;
            }
        });
        let client = canopy_client::Client::new(&format!("http://{addr}")).unwrap();
        let error = client.get_room("r").await.unwrap_err();
        assert_eq!(error.code(), Some(ErrorCode::Overloaded));
        assert_eq!(error.retry_after(), Some(Duration::from_secs(1)));
        assert!(matches!(
            error,
            ClientError::Api {
                status: Some(503),
                ..
            }
        ));
    })
    .await;
}
