//! The mirror against the server: after random edits in both formats every mirror
//! equals the server's state (whole room and region scopes), the event stream alone
//! rebuilds the same copy, and region subscriptions report nodes entering and leaving.

use crate::common;

use std::collections::HashMap;
use std::time::Duration;

use canopy_client::protocol::query::RegionQuery;
use canopy_client::{Client, ConnectOptions, Connection, Event, Events, Format, Node, Scope};
use common::random_edits::RandomEditor;
use common::{TestServer, add, collect_until, converge, move_to, server_nodes, wait_for, within};

/// A copy of the nodes built from events alone, as a game loop would keep one.
#[derive(Default)]
struct Shadow {
    nodes: HashMap<u32, Node>,
}

impl Shadow {
    fn apply(&mut self, event: Event) {
        match event {
            Event::Entered(n) | Event::Changed(n) => {
                self.nodes.insert(n.id, n);
            }
            Event::Updated { id, world } => {
                self.nodes
                    .get_mut(&id)
                    .expect("update of a known node")
                    .world = world;
            }
            Event::Left(id) => {
                self.nodes.remove(&id).expect("a known node left");
            }
            Event::Lagged { .. } => panic!("the test reader fell behind"),
            _ => {}
        }
    }

    fn sorted(&self) -> Vec<Node> {
        let mut v: Vec<Node> = self.nodes.values().copied().collect();
        v.sort_unstable_by_key(|n| n.id);
        v
    }
}

async fn region_expectation(client: &Client, room: &str, scope: Scope) -> Vec<Node> {
    let region = scope.region.expect("a region scope");
    let ids = client
        .query_region(
            room,
            &RegionQuery {
                min: region.min,
                max: region.max,
                mask: scope.mask,
            },
        )
        .await
        .expect("region query")
        .nodes;
    server_nodes(client, room)
        .await
        .into_iter()
        .filter(|n| ids.binary_search(&n.id).is_ok())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mirrors_converge_with_the_server_after_random_edits_in_both_formats() {
    within(Duration::from_secs(120), async {
        let server = TestServer::start().await;
        let client = server.client();
        let room = "random";
        client.ensure_room(room, Some(120)).await.unwrap();

        let region = Scope::region([-15.0; 3], [15.0; 3]);
        let masked_region = Scope::region([-40.0, -5.0, -40.0], [40.0, 5.0, 40.0]).with_mask(2);
        let mut watchers: Vec<(Connection, Scope, Events)> = Vec::new();
        for format in [Format::Bincode, Format::Json] {
            for scope in [Scope::room(), region.clone(), masked_region.clone()] {
                let conn = client
                    .connect(room, ConnectOptions::default().format(format))
                    .await
                    .unwrap();
                let events = conn.events();
                conn.subscribe(scope.clone()).await.unwrap();
                watchers.push((conn, scope, events));
            }
        }
        // Every format edits: HTTP, then each WebSocket format in turn.
        let editors = [
            None,
            Some(watchers[0].0.clone()),
            Some(watchers[3].0.clone()),
        ];

        let seed = 0xC0FFEE;
        let mut model = RandomEditor::new(seed);
        let (mut acked, mut refused) = (0, Vec::new());
        for i in 0..240 {
            let planned = model.plan(if i < 20 { 12 } else { 6 });
            let result = match &editors[i % editors.len()] {
                None => client.edit(room, planned.ops.clone()).await,
                Some(conn) => conn.edit(planned.ops.clone()).await,
            };
            match result {
                Ok(ack) => {
                    acked += 1;
                    model.commit(planned, &ack.ids);
                }
                Err(e) => refused.push(format!("batch {i}: {e}")),
            }
            // Read events as a game loop would, so the receivers never lag.
            for (_, _, events) in &mut watchers {
                while events.try_next().is_some() {}
            }
        }
        assert!(
            refused.is_empty(),
            "seed {seed}: refused batches {refused:?}"
        );
        assert!(acked > 200 && model.live() > 10, "too little was edited");

        for (conn, scope, _) in &watchers {
            let label = format!("{:?} {:?}", conn.format(), scope);
            let got = match scope.region {
                None => converge(conn, || server_nodes(&client, room)).await,
                Some(_) => {
                    converge(conn, || region_expectation(&client, room, scope.clone())).await
                }
            };
            assert_eq!(conn.mirror().inconsistencies(), 0, "{label}");
            if scope.region.is_none() {
                assert!(got.len() > 10, "{label}");
            }
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn events_alone_rebuild_the_mirror() {
    within(Duration::from_secs(120), async {
        let server = TestServer::start().await;
        let client = server.client();
        let room = "events";
        client.ensure_room(room, Some(120)).await.unwrap();
        let conn = client
            .connect(room, ConnectOptions::default().json())
            .await
            .unwrap();
        let mut events = conn.events();
        // Some nodes exist before the subscription, so the snapshot carries them.
        let mut model = RandomEditor::new(7);
        for _ in 0..10 {
            let planned = model.plan(8);
            let ack = client.edit(room, planned.ops.clone()).await.unwrap();
            model.commit(planned, &ack.ids);
        }
        conn.subscribe(Scope::region([-20.0; 3], [20.0; 3]))
            .await
            .unwrap();
        let mut shadow = Shadow::default();
        let reader = async {
            for _ in 0..150 {
                let planned = model.plan(6);
                let ack = conn.edit(planned.ops.clone()).await.unwrap();
                model.commit(planned, &ack.ids);
            }
        };
        let mut done = Box::pin(reader);
        loop {
            tokio::select! {
                _ = &mut done => break,
                Some(event) = events.next() => shadow.apply(event),
            }
        }
        // The subscription changes to the whole room: the snapshot's difference events
        // bring the shadow to the new scope as well.
        conn.subscribe(Scope::room()).await.unwrap();
        let want = converge(&conn, || server_nodes(&client, room)).await;
        while let Some(event) = events.try_next() {
            shadow.apply(event);
        }
        assert_eq!(shadow.sorted(), want);
        assert_eq!(conn.mirror().inconsistencies(), 0);
    })
    .await;
}

/// Reads whole delta frames (up to and including their `Tick`) until the events read
/// satisfy `done`.
async fn frames_until(
    events: &mut Events,
    what: &str,
    mut done: impl FnMut(&[Event]) -> bool,
) -> Vec<Event> {
    collect_until(events, what, |seen| {
        matches!(seen.last(), Some(Event::Tick { .. })) && done(seen)
    })
    .await
}

fn node_changes(events: &[Event]) -> usize {
    events.iter().filter(|e| e.is_node_change()).count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn region_subscription_reports_entering_and_leaving() {
    within(Duration::from_secs(60), async {
        let server = TestServer::start().await;
        let client = server.client();
        let room = "region";
        client.ensure_room(room, Some(60)).await.unwrap();
        let conn = client
            .connect(room, ConnectOptions::default())
            .await
            .unwrap();
        let mut events = conn.events();
        let scope = Scope::region([-1.0; 3], [1.0; 3]).with_mask(0b01);
        conn.subscribe(scope.clone()).await.unwrap();
        assert_eq!(conn.scope(), Some(scope.clone()));
        let (snapshot, _) = wait_for(&mut events, "the snapshot", |e| {
            matches!(e, Event::Snapshot { .. })
        })
        .await;
        assert!(matches!(snapshot, Event::Snapshot { len: 0, .. }));

        // 1 is in scope; 2 is in the box but on another layer; 3 is outside the box.
        conn.edit(vec![
            add(1, None, [0.0; 3], 0.1, 0b01),
            add(2, None, [0.0; 3], 0.1, 0b10),
            add(3, None, [5.0, 0.0, 0.0], 0.1, 0b01),
        ])
        .await
        .unwrap();
        let seen = frames_until(&mut events, "1 to enter", |seen| {
            seen.iter()
                .any(|e| matches!(e, Event::Entered(n) if n.id == 1))
        })
        .await;
        assert_eq!(node_changes(&seen), 1, "{seen:?}");
        assert_eq!(conn.mirror().len(), 1);

        // Moving 1 out of the box makes it leave; moving 3 in makes it enter.
        conn.edit(vec![
            move_to(1, [10.0, 0.0, 0.0]),
            move_to(3, [0.5, 0.0, 0.0]),
        ])
        .await
        .unwrap();
        let seen = frames_until(&mut events, "1 to leave and 3 to enter", |seen| {
            seen.contains(&Event::Left(1))
                && seen
                    .iter()
                    .any(|e| matches!(e, Event::Entered(n) if n.id == 3))
        })
        .await;
        assert_eq!(node_changes(&seen), 2, "{seen:?}");

        // A child follows its parent: adding 4 under 3 brings it in, and moving 3 away
        // takes both out.
        conn.edit(vec![add(4, Some(3), [0.0, 0.2, 0.0], 0.1, 0b01)])
            .await
            .unwrap();
        frames_until(&mut events, "4 to enter", |seen| {
            seen.iter()
                .any(|e| matches!(e, Event::Entered(n) if n.id == 4))
        })
        .await;
        conn.edit(vec![move_to(3, [0.0, 50.0, 0.0])]).await.unwrap();
        frames_until(&mut events, "3 and 4 to leave", |seen| {
            seen.contains(&Event::Left(3)) && seen.contains(&Event::Left(4))
        })
        .await;
        assert!(conn.mirror().is_empty());

        // A layer change brings 2 in, as a whole node.
        conn.edit(vec![canopy_client::Op::SetShape {
            node: 2,
            extent: None,
            mask: Some(0b11),
        }])
        .await
        .unwrap();
        frames_until(&mut events, "2 to enter", |seen| {
            seen.iter()
                .any(|e| matches!(e, Event::Entered(n) if n.id == 2 && n.mask == 0b11))
        })
        .await;

        // Widening the scope to the whole room replaces the copy through a snapshot.
        let tick = conn.subscribe(Scope::room()).await.unwrap();
        let (marker, before) = wait_for(&mut events, "the new snapshot", |e| {
            matches!(e, Event::Snapshot { .. })
        })
        .await;
        assert!(matches!(marker, Event::Snapshot { tick: t, len: 4, .. } if t == tick));
        let entered: Vec<u32> = before
            .iter()
            .filter_map(|e| match e {
                Event::Entered(n) => Some(n.id),
                _ => None,
            })
            .collect();
        assert_eq!(entered, vec![1, 3, 4]);
        converge(&conn, || server_nodes(&client, room)).await;

        // Unsubscribing empties the mirror and stops the frames.
        conn.unsubscribe().await.unwrap();
        let (_, before) = wait_for(&mut events, "the unsubscribe", |e| {
            matches!(e, Event::Unsubscribed)
        })
        .await;
        assert_eq!(
            before
                .iter()
                .filter(|e| matches!(e, Event::Left(_)))
                .count(),
            4
        );
        assert!(conn.mirror().is_empty());
        assert_eq!(conn.scope(), None);
        conn.edit(vec![move_to(1, [0.0; 3])]).await.unwrap();
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert!(events.drain().iter().all(|e| !e.is_node_change()));
        assert!(conn.mirror().is_empty());
    })
    .await;
}
