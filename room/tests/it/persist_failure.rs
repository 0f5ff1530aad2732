//! A logged room on a simulated disk, the log driven by hand: acks and frames wait for
//! their tick's record to be durable (over HTTP and on a WebSocket outbox); when the disk
//! fails (full), what waited is never reported as done (HTTP: an error; WebSocket: the
//! connection is closed with 1011), new edits are refused with `overloaded` naming the
//! failure, and reads and new subscriptions go on.

use crate::room_support;
use room_support::CheckedTick;

use std::sync::Arc;

use canopy_protocol::{ErrorCode, Format, Op, Transform};
use canopy_room::metrics::RoomMetrics;
use canopy_room::outbox::{Outbox, OutboxLimits, Outgoing};
use canopy_room::scope::Scope;
use canopy_room::{
    EditAnswer, EditReply, EditTicket, LogLink, Room, RoomCommand, RoomConfig, RoomLog, SceneState,
    SubscribeRequest,
};
use canopy_store::{PersistConfig, SimDisk, open};
use tokio::sync::oneshot;

fn submit(room: &Room, ops: Vec<Op>, reply: EditReply) -> Result<(), ErrorCode> {
    let ticket = Arc::new(EditTicket::default());
    room.shared()
        .submit_edits(ops, reply, ticket, None)
        .map_err(|r| r.code)
}

fn http(room: &Room, ops: Vec<Op>) -> oneshot::Receiver<EditAnswer> {
    let (tx, rx) = oneshot::channel();
    submit(room, ops, EditReply::Oneshot(tx)).expect("admitted");
    rx
}

fn outbox(room: &Room, conn: u64) -> Arc<Outbox> {
    let o = Outbox::new(conn, Format::Json, OutboxLimits::DEFAULT);
    o.set_gate(Arc::clone(&room.shared().gate));
    o
}

#[tokio::test]
async fn acks_wait_for_durability_and_a_failed_disk_never_reports_them() {
    let disk = SimDisk::new(7);
    let config = PersistConfig {
        threads: false,
        ..PersistConfig::default()
    };
    let (persist, _) = open(Arc::new(disk.clone()), config).expect("opens");
    let persist = Arc::new(persist);
    let created = persist
        .create_room(&canopy_room::recovered::room_meta("r", 30, None, 1))
        .unwrap();
    persist.step().unwrap();
    let c = RoomConfig::default();
    let scene = SceneState::new(c.hierarchy, c.octree);
    let log = RoomLog::new(LogLink::new(Arc::clone(&persist)), created, created, 0);
    let spec = canopy_room::RoomSpec {
        id: "r".into(),
        tick_hz: 30,
        config: c,
        metrics: Arc::new(RoomMetrics::default()),
        tokens: None,
    };
    let mut room = Room::owner(spec, scene, canopy_room::Durability::logged(log));
    let gate = Arc::clone(&room.shared().gate);

    // Tick 1 applies an HTTP batch and a WebSocket batch; neither is reported yet.
    let ws = outbox(&room, 1);
    let answer = http(&room, vec![Op::add_root(1, Transform::IDENTITY)]);
    let reply = EditReply::Outbox {
        outbox: Arc::clone(&ws),
        seq: 5,
        held: None,
    };
    submit(&room, vec![Op::add_root(2, Transform::IDENTITY)], reply).unwrap();
    room.checked_tick(100);
    let answer = answer.await.unwrap();
    assert!(answer.outcome.is_ok());
    assert!(
        answer.durable_at > persist.durable_seq(),
        "the record is not durable yet"
    );
    assert_eq!(ws.try_next(), None, "the ack waits for the fsync");
    // The log thread's fsync (here: by hand) releases both.
    persist.step().unwrap();
    gate.durable(answer.durable_at).await.unwrap();
    match ws.try_next() {
        Some(Outgoing::Message(b)) => {
            assert!(String::from_utf8_lossy(&b).contains("\"ack\""), "{b:?}")
        }
        other => panic!("expected the ack, got {other:?}"),
    }

    // The disk fills up: the next tick's record never becomes durable.
    disk.capacity(0);
    let answer = http(&room, vec![Op::set_t(1, [1.0, 0.0, 0.0])]);
    let reply = EditReply::Outbox {
        outbox: Arc::clone(&ws),
        seq: 6,
        held: None,
    };
    submit(&room, vec![Op::set_t(2, [2.0, 0.0, 0.0])], reply).unwrap();
    room.checked_tick(133);
    assert!(persist.step().is_err(), "the write fails");
    assert!(persist.failed().is_some());
    let answer = answer.await.unwrap();
    let why = gate
        .durable(answer.durable_at)
        .await
        .unwrap_err()
        .to_string();
    assert!(why.contains("ENOSPC") || why.contains("space"), "{why}");
    match ws.try_next() {
        Some(Outgoing::Close(cause)) => {
            assert_eq!(cause, canopy_room::CloseCause::StorageFailed);
            assert!(cause.reason().contains("storage failed"));
        }
        other => panic!("expected the connection closed, got {other:?}"),
    }

    // Edits are refused from now on, naming the failure; nothing of them is applied.
    let refused = submit(
        &room,
        vec![Op::remove(1)],
        EditReply::Oneshot(oneshot::channel().0),
    );
    assert_eq!(refused, Err(ErrorCode::Overloaded));
    room.checked_tick(166);
    assert!(room.shared().scene.read().hierarchy().contains(1));

    // Reads and new subscriptions go on from memory.
    let viewer = outbox(&room, 2);
    room.handle(RoomCommand::from(SubscribeRequest::new(
        Arc::clone(&viewer),
        Scope::WHOLE_ROOM,
    )));
    room.checked_tick(200);
    match viewer.try_next() {
        Some(Outgoing::Message(b)) => {
            assert!(
                String::from_utf8_lossy(&b).contains("\"snapshot\""),
                "{b:?}"
            )
        }
        other => panic!("expected a snapshot, got {other:?}"),
    }
}
