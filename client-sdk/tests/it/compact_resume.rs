//! Compact world transforms and resume after a reconnect (docs/protocol.md, v1.1, `subscribe` with
//! `encoding` and `since`), against a scripted fake server that plays a v1.1 server (it
//! sends compact blocks and resumed deltas) or today's one (it ignores both and answers
//! with exact snapshots). Expected values are computed independently of the SDK: as
//! `dequantize(quantize(x))` of the transforms the fake server sent, or, for the random
//! stream, an exact mirror fed the same motion.

use crate::common;

use std::time::Duration;

use canopy_client::protocol::compact::{BlockWriter, CompactValue, quantize};
use canopy_client::protocol::message::Region;
use canopy_client::protocol::{ClientMsg, CompactRows, Encoding, ServerMsg, UpdateRow};
use canopy_client::{
    Backoff, ConnState, ConnectOptions, Connection, Event, Events, Mirror, Node, NodeId, Scope,
    Transform,
};
use common::fake::{FakeConn, accept, fake_server, node};
use common::{wait_for, within};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use tokio::sync::mpsc;

const PATIENCE: Duration = Duration::from_secs(60);

fn fast_reconnect() -> Backoff {
    Backoff {
        initial: Duration::from_millis(10),
        ..Backoff::default()
    }
}

fn at(id: u32, x: f32, turn: f32) -> (NodeId, Transform) {
    let (s, c) = (turn / 2.0).sin_cos();
    let world = Transform {
        t: [x, 0.25, -3.0],
        r: [s, 0.0, 0.0, c],
        s: 1.0,
    };
    (id, world)
}

/// What a compact client holds for `x`.
fn held(x: &Transform) -> Transform {
    quantize(x).to_transform()
}

/// A compact snapshot: nodes whose own `world` is a placeholder, the rows carry the truth.
fn compact_snapshot(tick: u64, values: &[(NodeId, Transform)]) -> ServerMsg {
    let mut w = BlockWriter::new();
    values.iter().for_each(|(_, x)| w.absolute(&quantize(x)));
    ServerMsg::Snapshot {
        tick,
        time: 0,
        nodes: values.iter().map(|(id, _)| node(*id)).collect(),
        compact: Some(w.snapshot()),
    }
}

fn delta_msg(tick: u64, upsert: Vec<Node>, block: CompactRows, resumed: bool) -> ServerMsg {
    ServerMsg::Delta {
        tick,
        time: 0,
        upsert,
        update: vec![],
        remove: vec![],
        resumed,
        compact: Some(block),
    }
}

/// Reads the client's `subscribe`; returns its `since` and `encoding`.
async fn subscribe_of(server: &mut FakeConn) -> (Option<u64>, Encoding) {
    match server.recv().await {
        ClientMsg::Subscribe {
            since, encoding, ..
        } => (since, encoding),
        other => panic!("expected a subscribe, got {other:?}"),
    }
}

async fn open(
    options: ConnectOptions,
) -> (Connection, FakeConn, mpsc::UnboundedReceiver<FakeConn>) {
    let (addr, mut conns) = fake_server().await;
    let url = format!("http://{addr}");
    let (client, server) =
        tokio::join!(Connection::connect(&url, "r", options), accept(&mut conns));
    (client.unwrap(), server, conns)
}

async fn tick(events: &mut Events, tick: u64) -> Vec<Event> {
    wait_for(
        events,
        "the delta's tick",
        |e| matches!(e, Event::Tick { tick: t, .. } if *t == tick),
    )
    .await
    .1
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compact_frames_leave_the_dequantized_values_in_the_mirror() {
    within(PATIENCE, async {
        let (conn, mut server, _conns) = open(ConnectOptions::default().compact()).await;
        let mut events = conn.events();
        let far = (
            2,
            Transform {
                t: [0.0, 9000.0, 0.0],
                ..Transform::IDENTITY
            },
        );
        let (ticked, ()) = tokio::join!(conn.subscribe(Scope::room()), async {
            assert_eq!(subscribe_of(&mut server).await, (None, Encoding::Compact));
            server
                .send(&compact_snapshot(4, &[at(1, 0.5, 0.1), far]))
                .await;
        });
        assert_eq!(ticked.unwrap(), 4);
        {
            let m = conn.mirror();
            assert_eq!(m.get(1).unwrap().world, held(&at(1, 0.5, 0.1).1));
            assert_eq!(m.get(2).unwrap().world, far.1, "out of range: exact");
        }

        // An upsert with its absolute row, a delta row for node 1, an absolute row for
        // node 2 coming back into range.
        let mut w = BlockWriter::new();
        w.absolute(&quantize(&at(3, -1.0, 0.0).1));
        let (p1, n1) = (quantize(&at(1, 0.5, 0.1).1), quantize(&at(1, 0.52, 0.12).1));
        assert!(w.update(1, Some(&p1), &n1));
        assert!(w.update(2, Some(&quantize(&far.1)), &quantize(&at(2, 7.0, 0.0).1)));
        server
            .send(&delta_msg(5, vec![node(3)], w.delta(), false))
            .await;
        let seen = tick(&mut events, 5).await;
        let want = [
            Event::Updated {
                id: 1,
                world: held(&at(1, 0.52, 0.12).1),
            },
            Event::Updated {
                id: 2,
                world: held(&at(2, 7.0, 0.0).1),
            },
        ];
        assert!(seen.ends_with(&want), "{seen:?}");
        let m = conn.mirror();
        assert_eq!(m.get(3).unwrap().world, held(&at(3, -1.0, 0.0).1));
        assert_eq!(m.get(2).unwrap().world, held(&at(2, 7.0, 0.0).1));
        assert_eq!(m.inconsistencies(), 0);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_connections_ask_for_exact_values() {
    within(PATIENCE, async {
        let (conn, mut server, _conns) = open(ConnectOptions::default().json().compact()).await;
        let (ticked, ()) = tokio::join!(conn.subscribe(Scope::room()), async {
            assert_eq!(subscribe_of(&mut server).await, (None, Encoding::Exact));
            server.send(&ServerMsg::snapshot(1, 0, vec![node(1)])).await;
        });
        assert_eq!(ticked.unwrap(), 1);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reconnect_resumes_from_the_mirror_tick_without_a_wipe() {
    within(PATIENCE, async {
        let options = ConnectOptions::default()
            .compact()
            .backoff(fast_reconnect());
        let (conn, mut server, mut conns) = open(options).await;
        let mut events = conn.events();
        let (ticked, ()) = tokio::join!(conn.subscribe(Scope::room()), async {
            subscribe_of(&mut server).await;
            let nodes = [at(1, 0.0, 0.0), at(2, 1.0, 0.0), at(3, 2.0, 0.0)];
            server.send(&compact_snapshot(5, &nodes)).await;
        });
        assert_eq!(ticked.unwrap(), 5);
        let mut w = BlockWriter::new();
        w.update(
            1,
            Some(&quantize(&at(1, 0.0, 0.0).1)),
            &quantize(&at(1, 0.1, 0.0).1),
        );
        server.send(&delta_msg(6, vec![], w.delta(), false)).await;
        tick(&mut events, 6).await;

        drop(server);
        let mut again = accept(&mut conns).await;
        assert_eq!(subscribe_of(&mut again).await, (Some(6), Encoding::Compact));
        // The resuming delta: node 2 moved (absolute: the server cannot know what the
        // client last received), node 3 left, node 4 entered; node 1 is untouched.
        let mut w = BlockWriter::new();
        w.absolute(&quantize(&at(4, 4.0, 0.0).1));
        w.update(2, None, &quantize(&at(2, 1.5, 0.5).1));
        let mut resumed = delta_msg(9, vec![node(4)], w.delta(), true);
        if let ServerMsg::Delta { remove, .. } = &mut resumed {
            remove.push(3);
        }
        again.send(&resumed).await;
        let seen = tick(&mut events, 9).await;
        let after_reconnect: Vec<&Event> = seen
            .iter()
            .skip_while(|e| !matches!(e, Event::Reconnected))
            .skip(1)
            .collect();
        let entered = Node {
            world: held(&at(4, 4.0, 0.0).1),
            ..node(4)
        };
        let updated = Event::Updated {
            id: 2,
            world: held(&at(2, 1.5, 0.5).1),
        };
        assert_eq!(
            after_reconnect,
            vec![&Event::Entered(entered), &updated, &Event::Left(3)]
        );
        {
            let m = conn.mirror();
            assert_eq!(m.tick(), 9);
            assert_eq!(m.len(), 3);
            assert_eq!(
                m.get(1).unwrap().world,
                held(&at(1, 0.1, 0.0).1),
                "kept, not wiped"
            );
        }

        // Node 1's baseline survived the reconnect: a delta row against it applies.
        let mut w = BlockWriter::new();
        w.update(
            1,
            Some(&quantize(&at(1, 0.1, 0.0).1)),
            &quantize(&at(1, 0.2, 0.0).1),
        );
        again.send(&delta_msg(10, vec![], w.delta(), false)).await;
        tick(&mut events, 10).await;
        assert_eq!(
            conn.mirror().get(1).unwrap().world,
            held(&at(1, 0.2, 0.0).1)
        );
        assert_eq!(conn.mirror().inconsistencies(), 0);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_ignores_since_and_encoding_answers_with_a_snapshot() {
    within(PATIENCE, async {
        let options = ConnectOptions::default()
            .compact()
            .backoff(fast_reconnect());
        let (conn, mut server, mut conns) = open(options).await;
        let mut events = conn.events();
        let (ticked, ()) = tokio::join!(conn.subscribe(Scope::room()), async {
            subscribe_of(&mut server).await;
            // Today's server: exact rows, whatever the subscribe asked for.
            server
                .send(&ServerMsg::snapshot(5, 0, vec![node(1), node(2)]))
                .await;
        });
        assert_eq!(ticked.unwrap(), 5);
        assert_eq!(conn.mirror().baseline(1), None);

        drop(server);
        let mut again = accept(&mut conns).await;
        assert_eq!(subscribe_of(&mut again).await, (Some(5), Encoding::Compact));
        let moved = Node {
            world: at(2, 3.0, 0.0).1,
            ..node(2)
        };
        again
            .send(&ServerMsg::snapshot(8, 0, vec![moved, node(3)]))
            .await;
        let (marker, before) = wait_for(&mut events, "the resync", |e| {
            matches!(e, Event::Resynced { .. })
        })
        .await;
        assert!(matches!(
            marker,
            Event::Resynced {
                tick: 8,
                len: 2,
                ..
            }
        ));
        assert!(before.contains(&Event::Left(1)));
        assert!(before.contains(&Event::Changed(moved)));
        assert!(before.contains(&Event::Entered(node(3))));
        assert_eq!(conn.mirror().to_sorted_vec(), vec![moved, node(3)]);

        // Exact deltas go on as before.
        let row = UpdateRow {
            id: 3,
            world: at(3, -2.0, 1.0).1,
        };
        again
            .send(&ServerMsg::delta(9, 0, vec![], vec![row], vec![]))
            .await;
        tick(&mut events, 9).await;
        assert_eq!(conn.mirror().get(3).unwrap().world, row.world);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_doubtful_copy_or_another_scope_is_never_resumed() {
    within(PATIENCE, async {
        let backoff = Backoff {
            initial: Duration::from_secs(1),
            ..Backoff::default()
        };
        let (conn, mut server, mut conns) = open(ConnectOptions::default().backoff(backoff)).await;
        let (ticked, ()) = tokio::join!(conn.subscribe(Scope::room()), async {
            server.answer_subscribe(5, vec![node(1)]).await;
        });
        assert_eq!(ticked.unwrap(), 5);

        // A delta for a node the mirror lacks: the client resubscribes without `since`,
        // and after a drop before the answer, it still does not resume.
        let row = UpdateRow {
            id: 99,
            world: Transform::IDENTITY,
        };
        server
            .send(&ServerMsg::delta(6, 0, vec![], vec![row], vec![]))
            .await;
        assert_eq!(subscribe_of(&mut server).await.0, None);
        drop(server);
        let mut again = accept(&mut conns).await;
        assert_eq!(subscribe_of(&mut again).await.0, None);
        again.send(&ServerMsg::snapshot(7, 0, vec![node(1)])).await;
        let pong = tokio::join!(conn.ping(), async {
            if let ClientMsg::Ping { nonce } = again.recv().await {
                again.send(&ServerMsg::Pong { nonce, tick: 7 }).await;
            }
        });
        pong.0.unwrap();
        assert_eq!(conn.mirror().tick(), 7);

        // A scope changed while offline is subscribed without `since` either. The long
        // backoff makes the caller's subscribe all but certainly land while offline; if
        // the reconnect wins instead, the room (still held) may be resumed and the region
        // is subscribed afterwards, never with `since`.
        let mut state = conn.state_watch();
        drop(again);
        state
            .wait_for(|s| matches!(s, ConnState::Reconnecting { .. }))
            .await
            .unwrap();
        let region = Scope::region([0.0; 3], [1.0; 3]);
        let caller = conn.clone();
        let asked = region.clone();
        let _subscribe = tokio::spawn(async move { caller.subscribe(asked).await });
        let mut third = accept(&mut conns).await;
        let mut first = subscribe_fields(&mut third).await;
        if first.0.is_none() {
            assert_eq!(first.1, Some(7), "the room the mirror holds may be resumed");
            first = subscribe_fields(&mut third).await;
        }
        assert_eq!(first, (region.region, None));
    })
    .await;
}

async fn subscribe_fields(server: &mut FakeConn) -> (Option<Region>, Option<u64>) {
    match server.recv().await {
        ClientMsg::Subscribe { region, since, .. } => (region, since),
        other => panic!("expected a subscribe, got {other:?}"),
    }
}

/// Random motion of 40 nodes over 150 frames (steps below and above the grid, turns,
/// nodes leaving the compact range and coming back, lagging frames sent absolute),
/// streamed compactly; an exact mirror fed the same motion is the reference. At every
/// frame the client's mirror must equal `dequantize(quantize(exact))` bit for bit and
/// be within the contract's bounds of the exact value.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_compact_stream_of_random_motion_stays_within_bounds_of_the_exact_one() {
    within(PATIENCE, async {
        let (conn, mut server, _conns) = open(ConnectOptions::default().compact()).await;
        let mut events = conn.events();
        let mut rng = SmallRng::seed_from_u64(15);
        let ids: Vec<NodeId> = (0..40).map(|i| i * 37 + 2).collect();
        let mut world: Vec<(NodeId, Transform)> =
            ids.iter().map(|&id| at(id, id as f32 * 0.1, 0.0)).collect();
        let mut reference = Mirror::new();
        reference.apply(ServerMsg::snapshot(
            1,
            0,
            world
                .iter()
                .map(|(id, x)| Node {
                    world: *x,
                    ..node(*id)
                })
                .collect(),
        ));
        let (ticked, ()) = tokio::join!(conn.subscribe(Scope::room()), async {
            subscribe_of(&mut server).await;
            server.send(&compact_snapshot(1, &world)).await;
        });
        assert_eq!(ticked.unwrap(), 1);
        let mut sent: Vec<CompactValue> = world.iter().map(|(_, x)| quantize(x)).collect();
        let mut w = BlockWriter::new();
        for frame in 2..152u64 {
            let lagging = rng.random_bool(0.05);
            let mut exact_rows = Vec::new();
            w.clear();
            for (i, (id, x)) in world.iter_mut().enumerate() {
                if !rng.random_bool(0.6) {
                    continue;
                }
                match rng.random_range(0..20) {
                    0 => x.t[1] = 9000.0,
                    1 => x.t[1] = rng.random_range(-50.0..50.0),
                    2..10 => {
                        x.t.iter_mut()
                            .for_each(|t| *t += rng.random_range(-0.0007..0.0007))
                    }
                    _ => {
                        x.t[0] += rng.random_range(-0.05..0.05);
                        let (s, c) = (rng.random_range(-0.02f32..0.02) / 2.0).sin_cos();
                        let r = x.r;
                        // Turn about z: r · (0, 0, s, c), renormalized.
                        let q = [
                            r[0] * c + r[1] * s,
                            r[1] * c - r[0] * s,
                            r[3] * s + r[2] * c,
                            r[3] * c - r[2] * s,
                        ];
                        let n = q.iter().map(|v| v * v).sum::<f32>().sqrt();
                        x.r = q.map(|v| v / n);
                    }
                }
                exact_rows.push(UpdateRow { id: *id, world: *x });
                let next = quantize(x);
                if w.update(*id, (!lagging).then_some(&sent[i]), &next) {
                    sent[i] = next;
                }
            }
            reference.apply(ServerMsg::delta(frame, 0, vec![], exact_rows, vec![]));
            server
                .send(&delta_msg(frame, vec![], w.delta(), false))
                .await;
            tick(&mut events, frame).await;
            let m = conn.mirror();
            for exact in reference.iter() {
                let got = m.get(exact.id).unwrap().world;
                assert_eq!(got, held(&exact.world), "frame {frame}, node {}", exact.id);
                assert_within_bounds(&got, &exact.world);
            }
            assert_eq!(m.inconsistencies(), 0);
        }
    })
    .await;
}

/// The contract's bounds: 1 mm per axis, 0.01° of rotation, 0.1% of scale; exact values
/// (outside the compact range) are equal.
fn assert_within_bounds(got: &Transform, exact: &Transform) {
    if let CompactValue::Exact(_) = quantize(exact) {
        assert_eq!(got, exact);
        return;
    }
    for k in 0..3 {
        assert!(
            (f64::from(got.t[k]) - f64::from(exact.t[k])).abs() < 1e-3,
            "{got:?} vs {exact:?}"
        );
    }
    let dot: f64 = (0..4)
        .map(|k| f64::from(got.r[k]) * f64::from(exact.r[k]))
        .sum();
    let norm = |q: &[f32; 4]| q.iter().map(|v| f64::from(*v).powi(2)).sum::<f64>().sqrt();
    let cos = (dot.abs() / (norm(&got.r) * norm(&exact.r))).min(1.0);
    assert!(
        (2.0 * cos.acos()).to_degrees() < 0.01,
        "{got:?} vs {exact:?}"
    );
    assert!((f64::from(got.s) / f64::from(exact.s) - 1.0).abs() < 1e-3);
}
