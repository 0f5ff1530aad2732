//! A relay's replica against its owner, synchronously and without NATS: an owner room
//! with a feed, random batches over many ticks, a replica started partway from the
//! owner's state (taken by the owner's own tick) and fed the owner's records.
//!
//! After every tick the replica shows the owner's tick and the owner's nodes exactly
//! (world transforms bit for bit, parents, boxes, layers), a subscriber of the replica
//! mirrors the owner's state, answers of relayed edits wait for the replica to show
//! their tick, and a record out of step ends the replica instead of being skipped.

use crate::room_support;
use room_support::CheckedTick;

use std::sync::Arc;

use canopy_protocol::http::EditsResult;
use canopy_protocol::{Format, Node, Op, ServerMsg, Transform, codec};
use canopy_room::metrics::RoomMetrics;
use canopy_room::outbox::{Outbox, OutboxLimits, Outgoing};
use canopy_room::replica::{FedRecord, ReplicaRecord};
use canopy_room::scope::Scope;
use canopy_room::{EditReply, PendingEdit, Room, RoomCommand, RoomConfig, SubscribeRequest};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use tokio::sync::mpsc;

fn nodes(room: &Room) -> (u64, Vec<Node>) {
    let scene = room.shared().scene.read();
    let mut v: Vec<Node> = scene.hierarchy().iter_nodes().collect();
    v.sort_by_key(|n| n.id);
    (scene.tick(), v)
}

fn random_batch(rng: &mut SmallRng, next: &mut u32) -> Vec<Op> {
    (0..rng.random_range(1..6))
        .map(|_| {
            let node = rng.random_range(1..=40);
            match rng.random_range(0..10) {
                0..=4 => Op::SetLocal {
                    node,
                    t: Some([
                        rng.random_range(-9.0..9.0),
                        rng.random_range(-9.0..9.0),
                        0.5,
                    ]),
                    r: rng.random_bool(0.3).then(|| {
                        glam::Quat::from_rotation_z(rng.random_range(0.0..6.0)).to_array()
                    }),
                    s: rng.random_bool(0.2).then(|| rng.random_range(0.5..2.0)),
                },
                5..=6 => {
                    *next += 1;
                    Op::Add {
                        id: rng.random_bool(0.5).then_some(*next),
                        parent: rng.random_bool(0.6).then_some(node),
                        local: Transform {
                            t: [1.0, 0.0, 0.0],
                            ..Transform::IDENTITY
                        },
                        extent: [0.5; 3],
                        mask: 1 + rng.random_range(0..2),
                    }
                }
                7 => Op::SetParent {
                    node,
                    parent: rng.random_bool(0.7).then(|| rng.random_range(1..=40)),
                },
                8 => Op::SetShape {
                    node,
                    extent: Some([rng.random_range(0.1..2.0); 3]),
                    mask: None,
                },
                _ => Op::Remove {
                    node: rng.random_range(20..=40),
                },
            }
        })
        .collect()
}

fn message(o: &Outgoing) -> Option<ServerMsg> {
    match o {
        Outgoing::Message(b) | Outgoing::Frame(b) | Outgoing::Merged(b) => {
            Some(codec::decode_server(b, Format::Bincode).expect("the server's encoding"))
        }
        _ => None,
    }
}

fn submit(room: &Room, ops: Vec<Op>) {
    let _ = room.shared().submit_unanswered(ops);
}

fn start_of(owner: &mut Room, now: u64) -> canopy_room::replica::ReplicaStart {
    let (tx, mut rx) = tokio::sync::oneshot::channel();
    owner.handle(RoomCommand::Capture(tx));
    let _ = now;
    rx.try_recv()
        .expect("taken at once")
        .expect("a room without callbacks")
}

#[test]
fn a_replica_fed_the_owners_records_shows_the_owners_state_every_tick() {
    let metrics = Arc::new(RoomMetrics::default());
    let (link, queue) = canopy_room::replica::feed_channel();
    let mut feed = queue.rx;
    let spec = canopy_room::RoomSpec {
        id: "r".into(),
        tick_hz: 30,
        config: RoomConfig::default(),
        metrics: Arc::clone(&metrics),
        tokens: None,
    };
    let config = RoomConfig::default();
    let scene = canopy_room::SceneState::new(config.hierarchy, config.octree);
    let relays = Some(link);
    let mut owner = Room::owner(spec, scene, canopy_room::Durability::Memory { relays });
    let seed: Vec<Op> = (1..=40u32)
        .map(|i| Op::Add {
            id: Some(i),
            parent: (i > 4).then_some((i - 1) / 4),
            local: Transform {
                t: [i as f32, 0.0, 0.0],
                ..Transform::IDENTITY
            },
            extent: [0.5; 3],
            mask: 1,
        })
        .collect();
    submit(&owner, seed);
    let mut now = 1_000;
    owner.checked_tick(now);
    let mut rng = SmallRng::seed_from_u64(0x5eed);
    let mut next = 10_000;
    // Some ticks before the replica exists: their records are in its start.
    for _ in 0..20 {
        for _ in 0..rng.random_range(0..3) {
            submit(&owner, random_batch(&mut rng, &mut next));
        }
        now += 33;
        owner.checked_tick(now);
    }
    let start = start_of(&mut owner, now);
    let (up_tx, _up_rx) = mpsc::channel(16);
    let mut replica = Room::replica(
        "r".into(),
        RoomConfig::default(),
        Arc::clone(&metrics),
        &start,
        up_tx,
    )
    .expect("a replica");
    assert_eq!(
        nodes(&replica),
        nodes(&owner),
        "the start is the owner's state"
    );
    assert_eq!(replica.shared().instance, owner.shared().instance);
    // Records the start already holds come too (the relay subscribes first).
    while let Ok(bytes) = feed.try_recv() {
        let r: ReplicaRecord = bytes.record;
        replica.handle(RoomCommand::Replicate(Box::new(r)));
    }
    let sub = Outbox::new(1, Format::Bincode, OutboxLimits::DEFAULT);
    replica.handle(RoomCommand::from(SubscribeRequest::new(
        Arc::clone(&sub),
        Scope::WHOLE_ROOM,
    )));
    let mut mirror = std::collections::BTreeMap::<u32, Node>::new();
    let mut quiet = 0;
    for round in 0..300 {
        let idle = rng.random_bool(0.3);
        if !idle {
            for _ in 0..rng.random_range(1..4) {
                submit(&owner, random_batch(&mut rng, &mut next));
            }
        }
        now += 33;
        owner.checked_tick(now);
        let mut recorded = false;
        while let Ok(bytes) = feed.try_recv() {
            let r: ReplicaRecord = bytes.record;
            recorded = true;
            replica.handle(RoomCommand::Replicate(Box::new(r)));
        }
        replica.checked_tick(now + 1);
        let (rt, rn) = nodes(&replica);
        let (ot, on) = nodes(&owner);
        assert_eq!(rn, on, "round {round}: the replica's nodes are the owner's");
        // Ticks that applied nothing make no record: the replica shows the last that did.
        assert!(rt <= ot, "round {round}");
        if recorded {
            assert_eq!(rt, ot, "round {round}: the owner's tick numbers");
        }
        quiet += idle as usize;
        for o in std::iter::from_fn(|| sub.try_next()) {
            match message(&o) {
                Some(ServerMsg::Snapshot { nodes, .. }) => {
                    mirror = nodes.into_iter().map(|n| (n.id, n)).collect();
                }
                Some(ServerMsg::Delta {
                    upsert,
                    update,
                    remove,
                    ..
                }) => {
                    for n in upsert {
                        mirror.insert(n.id, n);
                    }
                    for u in update {
                        mirror.get_mut(&u.id).expect("held").world = u.world;
                    }
                    for id in remove {
                        mirror.remove(&id);
                    }
                }
                _ => {}
            }
        }
        let want: std::collections::BTreeMap<u32, Node> =
            on.into_iter().map(|n| (n.id, n)).collect();
        assert_eq!(
            mirror, want,
            "round {round}: the replica's subscriber mirrors the owner"
        );
    }
    assert!(quiet > 20, "idle ticks were covered");
}

/// An owner whose records go to the returned channel, and a replica of it built from
/// its start (with the replica's upstream, kept open).
fn owner_and_replica(
    id: &str,
) -> (
    Room,
    mpsc::UnboundedReceiver<FedRecord>,
    Room,
    mpsc::Receiver<PendingEdit>,
) {
    let metrics = Arc::new(RoomMetrics::default());
    let (link, queue) = canopy_room::replica::feed_channel();
    let feed = queue.rx;
    let spec = canopy_room::RoomSpec {
        id: id.into(),
        tick_hz: 30,
        config: RoomConfig::default(),
        metrics: Arc::clone(&metrics),
        tokens: None,
    };
    let config = RoomConfig::default();
    let scene = canopy_room::SceneState::new(config.hierarchy, config.octree);
    let relays = Some(link);
    let mut owner = Room::owner(spec, scene, canopy_room::Durability::Memory { relays });
    let start = start_of(&mut owner, 0);
    let (up_tx, up_rx) = mpsc::channel(16);
    let replica =
        Room::replica(id.into(), RoomConfig::default(), metrics, &start, up_tx).expect("a replica");
    (owner, feed, replica, up_rx)
}

/// A root node with the given id.
fn add_root(id: u32) -> Op {
    Op::Add {
        id: Some(id),
        parent: None,
        local: Transform::IDENTITY,
        extent: [0.5; 3],
        mask: 1,
    }
}

#[test]
fn a_relayed_answer_waits_for_its_tick_and_a_gap_ends_the_replica() {
    let (mut owner, mut feed, mut replica, _up_rx) = owner_and_replica("g");
    let client = Outbox::new(7, Format::Bincode, OutboxLimits::DEFAULT);
    let add = add_root;
    // The owner applies a batch at tick 1; its answer reaches the relay first.
    submit(&owner, vec![add(1)]);
    owner.checked_tick(100);
    let answer = EditsResult {
        tick: 1,
        ids: vec![1],
    };
    replica.handle(RoomCommand::Answer(
        EditReply::Outbox {
            outbox: Arc::clone(&client),
            seq: 9,
            held: None,
        },
        Ok(answer),
    ));
    replica.checked_tick(101);
    assert!(
        client.try_next().is_none(),
        "no ack before the replica shows tick 1"
    );
    let r: ReplicaRecord = feed.try_recv().unwrap().record;
    replica.handle(RoomCommand::Replicate(Box::new(r)));
    replica.checked_tick(102);
    let ack = client.try_next().and_then(|o| message(&o));
    assert!(
        matches!(
            ack,
            Some(ServerMsg::Ack {
                seq: 9,
                tick: 1,
                ..
            })
        ),
        "{ack:?}"
    );
    assert_eq!(nodes(&replica), nodes(&owner));

    // Record 2 lost on its way: record 3 ends the replica rather than being skipped.
    for id in [2, 3] {
        submit(&owner, vec![add(id)]);
        owner.checked_tick(200 + id as u64);
    }
    let _lost = feed.try_recv().unwrap();
    let third: ReplicaRecord = feed.try_recv().unwrap().record;
    let sub = Outbox::new(8, Format::Bincode, OutboxLimits::DEFAULT);
    replica.handle(RoomCommand::from(SubscribeRequest::new(
        Arc::clone(&sub),
        Scope::WHOLE_ROOM,
    )));
    replica.checked_tick(300);
    replica.handle(RoomCommand::Replicate(Box::new(third)));
    replica.checked_tick(301);
    assert!(replica.is_stopped(), "a gap ends the replica");
    let closed = std::iter::from_fn(|| sub.try_next())
        .any(|o| matches!(o, Outgoing::Close(canopy_room::CloseCause::ReplicaLost)));
    assert!(
        closed,
        "its subscribers are closed to subscribe again (4000), never as deleted"
    );
    // The server unloads it by this cause, and its sessions close with it.
    assert!(replica.shared().is_closed());
    assert_eq!(
        replica.shared().close_cause(),
        canopy_room::CloseCause::ReplicaLost
    );
}

/// The owner's record can reach a relay before the owner's answer: the editing client
/// must still get its `ack` before the delta of the ack's tick, as it would from the
/// owner (docs/protocol.md: the ack of a batch comes before the delta of the same tick),
/// while the frames of earlier ticks go first and nothing waits once the answer is in.
#[test]
fn at_a_relay_the_ack_comes_before_its_ticks_delta_even_when_the_record_came_first() {
    let (mut owner, mut feed, mut replica, _up_rx) = owner_and_replica("h");
    let client = Outbox::new(7, Format::Bincode, OutboxLimits::DEFAULT);
    replica.handle(RoomCommand::from(SubscribeRequest::new(
        Arc::clone(&client),
        Scope::WHOLE_ROOM,
    )));
    replica.checked_tick(10);
    assert!(matches!(
        client.try_next().and_then(|o| message(&o)),
        Some(ServerMsg::Snapshot { .. })
    ));
    let add = add_root;
    // Tick 1: someone else's batch, replayed before this client edits.
    submit(&owner, vec![add(1)]);
    owner.checked_tick(100);
    let first: ReplicaRecord = feed.try_recv().unwrap().record;
    // The client's batch is taken (its place held, as the session does at a relay)
    // and applied by the owner at tick 2; both records arrive before its answer.
    let held = client.hold_reply();
    submit(&owner, vec![add(2)]);
    owner.checked_tick(133);
    let second: ReplicaRecord = feed.try_recv().unwrap().record;
    replica.handle(RoomCommand::Replicate(Box::new(first)));
    replica.handle(RoomCommand::Replicate(Box::new(second)));
    replica.checked_tick(134);
    assert!(
        client.try_next().is_none(),
        "the deltas wait behind the answer's place"
    );
    replica.handle(RoomCommand::Answer(
        EditReply::Outbox {
            outbox: Arc::clone(&client),
            seq: 4,
            held: Some(held),
        },
        Ok(EditsResult {
            tick: 2,
            ids: vec![2],
        }),
    ));
    replica.checked_tick(135);
    let order: Vec<String> = std::iter::from_fn(|| client.try_next())
        .filter_map(|o| message(&o))
        .map(|m| match m {
            ServerMsg::Delta { tick, .. } => format!("delta {tick}"),
            ServerMsg::Ack { seq, tick, .. } => format!("ack {seq} at {tick}"),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(order, ["delta 1", "ack 4 at 2", "delta 2"]);

    // A place given up (the batch refused before it left) holds nothing back.
    let dropped = client.hold_reply();
    drop(dropped);
    submit(&owner, vec![add(3)]);
    owner.checked_tick(166);
    let third: ReplicaRecord = feed.try_recv().unwrap().record;
    replica.handle(RoomCommand::Replicate(Box::new(third)));
    replica.checked_tick(167);
    assert!(matches!(
        client.try_next().and_then(|o| message(&o)),
        Some(ServerMsg::Delta { tick: 3, .. })
    ));
}
