//! Dropped connections and the lifecycle policy, forced through a TCP proxy between the
//! client and an in-process server: the mirror resynchronises by itself after a cut in
//! the middle of a stream, in-flight edits fail with `Disconnected`, a silent connection
//! is detected, a server shutdown reconnects, and a deleted room or a refused reconnect
//! stops the connection.

use crate::common;

use std::time::Duration;

use canopy_client::{
    Backoff, ClientError, ConnState, ConnectOptions, Connection, ErrorCode, Event, Format, Op,
    Scope, StopReason,
};
use common::random_edits::RandomEditor;
use common::{
    Proxy, TestServer, add, converge, move_to, server_nodes, wait_for, wait_for_catch_up, within,
};
use tokio::sync::watch;

fn fast_backoff() -> Backoff {
    Backoff {
        initial: Duration::from_millis(20),
        max: Duration::from_millis(200),
        ..Backoff::default()
    }
}

/// Animates every node of `room` over HTTP (not through the proxy) until told to stop.
async fn animate(
    client: canopy_client::Client,
    room: String,
    ids: Vec<u32>,
    mut stop: watch::Receiver<bool>,
) {
    let mut step = 0u32;
    while !*stop.borrow_and_update() {
        step += 1;
        let ops = ids
            .iter()
            .map(|&id| Op::SetLocal {
                node: id,
                t: Some([(step % 50) as f32 * 0.1, id as f32, 0.0]),
                r: None,
                s: None,
            })
            .collect();
        client.edit(&room, ops).await.expect("animation batch");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cut_in_the_middle_of_a_stream_resynchronises_the_mirror() {
    within(Duration::from_secs(120), async {
        let server = TestServer::start().await;
        let proxy = Proxy::start(server.addr).await;
        let client = server.client();
        let room = "cut";
        client.ensure_room(room, Some(60)).await.unwrap();
        let mut model = RandomEditor::new(11);
        for _ in 0..20 {
            let planned = model.plan(10);
            let ack = client.edit(room, planned.ops.clone()).await.unwrap();
            model.commit(planned, &ack.ids);
        }
        let ids: Vec<u32> = server_nodes(&client, room)
            .await
            .iter()
            .map(|n| n.id)
            .collect();

        let via_proxy = canopy_client::Client::new(&proxy.url()).unwrap();
        let mut conns: Vec<(Connection, canopy_client::Events)> = Vec::new();
        for (format, scope) in [
            (Format::Bincode, Scope::room()),
            (Format::Json, Scope::room()),
            (Format::Bincode, Scope::region([-2.0; 3], [3.0, 30.0, 3.0])),
        ] {
            let conn = via_proxy
                .connect(
                    room,
                    ConnectOptions::default()
                        .format(format)
                        .backoff(fast_backoff()),
                )
                .await
                .unwrap();
            let events = conn.events();
            conn.subscribe(scope).await.unwrap();
            conns.push((conn, events));
        }

        let (stop_tx, stop_rx) = watch::channel(false);
        let animator = tokio::spawn(animate(client.clone(), room.to_string(), ids, stop_rx));
        for (_, events) in &mut conns {
            wait_for(events, "a delta", |e| matches!(e, Event::Tick { .. })).await;
        }

        // Cut every connection in the middle of the stream, twice, while edits go on.
        for round in 0..2 {
            proxy.cut();
            for (conn, events) in &mut conns {
                let (_, before) = wait_for_catch_up(events).await;
                assert!(
                    before
                        .iter()
                        .any(|e| matches!(e, Event::Disconnected { .. })),
                    "round {round}: {before:?}"
                );
                assert!(
                    before.contains(&Event::Reconnected),
                    "round {round}: {before:?}"
                );
                assert_eq!(conn.state(), ConnState::Connected);
                wait_for(events, "a delta after the resync", |e| {
                    matches!(e, Event::Tick { .. })
                })
                .await;
            }
        }
        stop_tx.send_replace(true);
        animator.await.unwrap();

        for (conn, _) in &conns {
            let scope = conn.scope().unwrap();
            match scope.region {
                None => {
                    converge(conn, || server_nodes(&client, room)).await;
                }
                Some(region) => {
                    converge(conn, || async {
                        let ids = client
                            .query_region(
                                room,
                                &canopy_client::protocol::query::RegionQuery {
                                    min: region.min,
                                    max: region.max,
                                    mask: scope.mask,
                                },
                            )
                            .await
                            .unwrap()
                            .nodes;
                        server_nodes(&client, room)
                            .await
                            .into_iter()
                            .filter(|n| ids.contains(&n.id))
                            .collect()
                    })
                    .await;
                }
            }
            assert_eq!(conn.mirror().inconsistencies(), 0);
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reader_held_back_gets_merged_frames_and_still_converges() {
    within(Duration::from_secs(120), async {
        let server = TestServer::start().await;
        let proxy = Proxy::start(server.addr).await;
        let client = server.client();
        let room = "slow";
        client.ensure_room(room, Some(60)).await.unwrap();
        // Two roots with many children each: moving a root changes every child's world
        // transform, so one small op per batch makes large delta frames.
        let roots = [1_000_000u32, 2_000_000];
        for root in roots {
            let mut ops = vec![add(root, None, [0.0; 3], 0.5, 1)];
            ops.extend(
                (1..=4000).map(|i| add(root + i, Some(root), [i as f32 * 0.01, 0.0, 0.0], 0.1, 1)),
            );
            client.edit(room, ops).await.unwrap();
        }
        let conn = Connection::connect(&proxy.url(), room, ConnectOptions::default())
            .await
            .unwrap();
        let mut events = conn.events();
        conn.subscribe(Scope::room()).await.unwrap();

        // While the proxy holds the server's bytes back, the server's socket fills up
        // and it merges ticks for this reader.
        let (stop_tx, stop_rx) = watch::channel(false);
        let animators: Vec<_> = roots
            .iter()
            .map(|&root| {
                tokio::spawn(animate(
                    client.clone(),
                    room.to_string(),
                    vec![root],
                    stop_rx.clone(),
                ))
            })
            .collect();
        proxy.freeze(true);
        tokio::time::sleep(Duration::from_secs(3)).await;
        proxy.freeze(false);
        tokio::time::sleep(Duration::from_millis(500)).await;
        stop_tx.send_replace(true);
        for animator in animators {
            animator.await.unwrap();
        }

        converge(&conn, || server_nodes(&client, room)).await;
        assert_eq!(conn.mirror().inconsistencies(), 0);
        // Merged frames are plain deltas to the client: no resync was needed.
        let seen = events.drain();
        assert!(
            !seen
                .iter()
                .any(|e| matches!(e, Event::Resynced { .. } | Event::Disconnected { .. }))
        );
        let merged = client.get_room(room).await.unwrap().merged_frames;
        println!(
            "ticks seen: {}",
            seen.iter()
                .filter(|e| matches!(e, Event::Tick { .. }))
                .count()
        );
        println!("merged frames: {merged}");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_flight_requests_fail_with_disconnected_and_never_hang() {
    within(Duration::from_secs(60), async {
        let server = TestServer::start().await;
        let proxy = Proxy::start(server.addr).await;
        let client = server.client();
        client.ensure_room("inflight", Some(30)).await.unwrap();
        let conn = canopy_client::Client::new(&proxy.url())
            .unwrap()
            .connect(
                "inflight",
                ConnectOptions::default()
                    .backoff(fast_backoff())
                    .request_timeout(Duration::from_secs(30)),
            )
            .await
            .unwrap();
        let mut events = conn.events();
        conn.subscribe(Scope::room()).await.unwrap();

        // Hold the server's answers back in the proxy, so the ack and the pong cannot
        // arrive, then cut the connection under them.
        proxy.freeze(true);
        let edit = tokio::spawn({
            let conn = conn.clone();
            async move { conn.edit(vec![add(1, None, [0.0; 3], 1.0, 1)]).await }
        });
        let ping = tokio::spawn({
            let conn = conn.clone();
            async move { conn.ping().await }
        });
        tokio::time::sleep(Duration::from_millis(300)).await;
        let cut_at = tokio::time::Instant::now();
        proxy.cut();
        proxy.freeze(false);
        assert!(matches!(
            edit.await.unwrap(),
            Err(ClientError::Disconnected)
        ));
        assert!(matches!(
            ping.await.unwrap(),
            Err(ClientError::Disconnected)
        ));
        assert!(cut_at.elapsed() < Duration::from_secs(5));

        // The batch was applied by the server even though its ack was lost: the
        // resynchronised mirror shows it.
        wait_for_catch_up(&mut events).await;
        converge(&conn, || server_nodes(&client, "inflight")).await;
        assert!(conn.mirror().contains(1));
        assert!(conn.edit(vec![move_to(1, [1.0, 0.0, 0.0])]).await.is_ok());
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_while_reconnecting_fail_at_once_but_the_new_scope_is_kept() {
    within(Duration::from_secs(60), async {
        let server = TestServer::start().await;
        let proxy = Proxy::start(server.addr).await;
        let client = server.client();
        client.ensure_room("away", Some(60)).await.unwrap();
        client
            .edit(
                "away",
                vec![
                    add(1, None, [0.0; 3], 0.5, 1),
                    add(2, None, [50.0, 0.0, 0.0], 0.5, 1),
                ],
            )
            .await
            .unwrap();
        let conn = Connection::connect(
            &proxy.url(),
            "away",
            ConnectOptions::default()
                .backoff(fast_backoff())
                .request_timeout(Duration::from_secs(30)),
        )
        .await
        .unwrap();
        let mut events = conn.events();
        conn.subscribe(Scope::room()).await.unwrap();
        assert_eq!(conn.mirror().len(), 2);

        // Nothing listens behind the proxy: the client keeps trying to reconnect.
        let dead = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        proxy.set_upstream(dead.local_addr().unwrap());
        drop(dead);
        proxy.cut();
        wait_for(&mut events, "the drop", |e| {
            matches!(e, Event::Disconnected { .. })
        })
        .await;
        let asked = tokio::time::Instant::now();
        assert!(matches!(conn.ping().await, Err(ClientError::Disconnected)));
        assert!(matches!(
            conn.edit(vec![move_to(1, [1.0; 3])]).await,
            Err(ClientError::Disconnected)
        ));
        let region = Scope::region([-1.0; 3], [1.0; 3]);
        assert!(matches!(
            conn.subscribe(region.clone()).await,
            Err(ClientError::Disconnected)
        ));
        assert!(asked.elapsed() < Duration::from_secs(2));
        assert!(matches!(conn.state(), ConnState::Reconnecting { .. }));
        assert_eq!(conn.scope(), Some(region));
        // The mirror keeps its last state until the resync.
        assert_eq!(conn.mirror().len(), 2);

        // The server is back: the client subscribes with the scope asked for meanwhile.
        proxy.set_upstream(server.addr);
        let (marker, before) = wait_for(&mut events, "the resync", |e| {
            matches!(e, Event::Resynced { .. })
        })
        .await;
        assert!(matches!(marker, Event::Resynced { len: 1, .. }));
        assert!(before.contains(&Event::Left(2)), "{before:?}");
        let want = vec![server_nodes(&client, "away").await[0]];
        assert_eq!(conn.mirror().to_sorted_vec(), want);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_connection_is_detected_by_the_keepalive() {
    within(Duration::from_secs(60), async {
        let server = TestServer::start().await;
        let proxy = Proxy::start(server.addr).await;
        server
            .client()
            .ensure_room("quiet", Some(30))
            .await
            .unwrap();
        let conn = Connection::connect(
            &proxy.url(),
            "quiet",
            ConnectOptions::default()
                .keepalive(Duration::from_millis(100))
                .backoff(fast_backoff()),
        )
        .await
        .unwrap();
        let mut events = conn.events();
        conn.subscribe(Scope::room()).await.unwrap();
        // The socket stays open but nothing comes through: only the keep-alive can tell.
        proxy.freeze(true);
        let (event, _) = wait_for(&mut events, "the drop", |e| {
            matches!(e, Event::Disconnected { .. })
        })
        .await;
        assert!(
            matches!(&event, Event::Disconnected { error } if error.contains("nothing heard")),
            "{event:?}"
        );
        proxy.freeze(false);
        wait_for_catch_up(&mut events).await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_shutdown_reconnects_to_the_next_server() {
    within(Duration::from_secs(60), async {
        let mut first = TestServer::start().await;
        let second = TestServer::start().await;
        let proxy = Proxy::start(first.addr).await;
        let room = "moving";
        first.client().ensure_room(room, Some(30)).await.unwrap();
        first
            .client()
            .edit(
                room,
                vec![
                    add(1, None, [0.0; 3], 1.0, 1),
                    add(2, None, [1.0; 3], 1.0, 1),
                ],
            )
            .await
            .unwrap();
        second.client().ensure_room(room, Some(30)).await.unwrap();
        second
            .client()
            .edit(
                room,
                vec![
                    add(2, None, [5.0; 3], 1.0, 1),
                    add(3, None, [0.0; 3], 1.0, 1),
                ],
            )
            .await
            .unwrap();

        let conn = Connection::connect(
            &proxy.url(),
            room,
            ConnectOptions::default().json().backoff(fast_backoff()),
        )
        .await
        .unwrap();
        let mut events = conn.events();
        conn.subscribe(Scope::room()).await.unwrap();
        assert_eq!(conn.mirror().len(), 2);

        // The first server goes away with `closed` "server shutting down" (1001); the
        // client reconnects, now reaching the second server, and takes its state.
        proxy.set_upstream(second.addr);
        first.shutdown().await;
        let (marker, before) = wait_for(&mut events, "the resync", |e| {
            matches!(e, Event::Resynced { .. })
        })
        .await;
        assert!(matches!(marker, Event::Resynced { len: 2, .. }));
        assert!(
            before.iter().any(|e| matches!(
                e,
                Event::Disconnected { error } if error.contains("server shutting down")
            )),
            "{before:?}"
        );
        assert!(before.contains(&Event::Left(1)), "{before:?}");
        assert!(
            before
                .iter()
                .any(|e| matches!(e, Event::Changed(n) if n.id == 2 && n.world.t == [5.0; 3]))
        );
        assert!(
            before
                .iter()
                .any(|e| matches!(e, Event::Entered(n) if n.id == 3))
        );
        let second_client = second.client();
        converge(&conn, || server_nodes(&second_client, room)).await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deleted_room_stops_the_connection() {
    within(Duration::from_secs(60), async {
        let server = TestServer::start().await;
        let client = server.client();
        client.ensure_room("doomed", Some(30)).await.unwrap();
        let conn = client
            .connect("doomed", ConnectOptions::default().backoff(fast_backoff()))
            .await
            .unwrap();
        let mut events = conn.events();
        conn.subscribe(Scope::room()).await.unwrap();
        client.delete_room("doomed").await.unwrap();
        let (event, _) =
            wait_for(&mut events, "the stop", |e| matches!(e, Event::Stopped(_))).await;
        assert_eq!(event, Event::Stopped(StopReason::RoomDeleted));
        assert_eq!(conn.state(), ConnState::Stopped(StopReason::RoomDeleted));
        assert!(events.next().await.is_none(), "Stopped is the last event");
        match conn.edit(vec![add(1, None, [0.0; 3], 0.0, 1)]).await {
            Err(ClientError::Stopped(StopReason::RoomDeleted)) => {}
            other => panic!("{other:?}"),
        }
        assert!(conn.events().next().await.is_none());
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_reconnect_stops_and_a_dead_server_is_given_up_on() {
    within(Duration::from_secs(60), async {
        let server = TestServer::start().await;
        let elsewhere = TestServer::start().await;
        let proxy = Proxy::start(server.addr).await;
        server.client().ensure_room("here", None).await.unwrap();
        let conn = Connection::connect(
            &proxy.url(),
            "here",
            ConnectOptions::default().backoff(fast_backoff()),
        )
        .await
        .unwrap();
        let mut events = conn.events();
        // The next connection reaches a server without the room: 404, stop.
        proxy.set_upstream(elsewhere.addr);
        proxy.cut();
        let (event, _) =
            wait_for(&mut events, "the stop", |e| matches!(e, Event::Stopped(_))).await;
        match event {
            Event::Stopped(StopReason::Refused { code, status, .. }) => {
                assert_eq!((code, status), (Some(ErrorCode::UnknownRoom), 404));
            }
            other => panic!("{other:?}"),
        }

        // Nothing listens behind the proxy any more: attempts fail until max_attempts.
        proxy.set_upstream(server.addr);
        let conn = Connection::connect(
            &proxy.url(),
            "here",
            ConnectOptions::default().backoff(Backoff {
                max_attempts: Some(3),
                ..fast_backoff()
            }),
        )
        .await
        .unwrap();
        let mut events = conn.events();
        let dead = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        proxy.set_upstream(dead.local_addr().unwrap());
        drop(dead);
        proxy.cut();
        let (event, _) =
            wait_for(&mut events, "giving up", |e| matches!(e, Event::Stopped(_))).await;
        assert!(
            matches!(
                event,
                Event::Stopped(StopReason::GaveUp { attempts: 3, .. })
            ),
            "{event:?}"
        );
        assert!(matches!(conn.ping().await, Err(ClientError::Stopped(_))));
    })
    .await;
}
