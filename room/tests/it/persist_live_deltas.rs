//! `--live-deltas` on a logged room (simulated disk, the log's fsync driven by hand):
//! a subscriber's snapshot, delta frames and replies other than acks leave before the
//! tick's record is durable, while acks still wait for it, over HTTP and on a
//! WebSocket, and a connection that edits still gets its ack before the frame that
//! shows its batch. The default (`FramePassage::Durable`) holds the same frames and
//! replies back until the fsync.

use crate::room_support;
use room_support::CheckedTick;

use std::sync::Arc;

use canopy_protocol::{Format, Op, ServerMsg, Transform};
use canopy_room::metrics::RoomMetrics;
use canopy_room::outbox::{Outbox, OutboxLimits, Outgoing};
use canopy_room::scope::Scope;
use canopy_room::{
    EditAnswer, EditReply, EditTicket, FramePassage, LogLink, Room, RoomCommand, RoomConfig,
    RoomLog, SceneState, SubscribeRequest,
};
use canopy_store::{Persist, PersistConfig, SimDisk, open};
use tokio::sync::oneshot;

/// A logged room with one root node (already durable), its persistence driven by hand.
fn logged_room(frames: FramePassage) -> (Room, Arc<Persist>) {
    let config = PersistConfig {
        threads: false,
        ..PersistConfig::default()
    };
    let (persist, _) = open(Arc::new(SimDisk::new(11)), config).expect("opens");
    let persist = Arc::new(persist);
    let created = persist
        .create_room(&canopy_room::recovered::room_meta("r", 30, None, 1))
        .unwrap();
    persist.step().unwrap();
    let c = RoomConfig {
        frames,
        ..RoomConfig::default()
    };
    let scene = SceneState::new(c.hierarchy, c.octree);
    let log = RoomLog::new(LogLink::new(Arc::clone(&persist)), created, created, 0);
    let metrics = Arc::new(RoomMetrics::default());
    let mut room = Room::owner(
        canopy_room::RoomSpec {
            id: "r".into(),
            tick_hz: 30,
            config: c,
            metrics,
            tokens: None,
        },
        scene,
        canopy_room::Durability::logged(log),
    );
    let _rx = http(&room, vec![Op::add_root(1, Transform::IDENTITY)]);
    room.checked_tick(100);
    persist.step().unwrap();
    (room, persist)
}

/// Submits a batch as an HTTP edit would; the receiver gets its answer.
fn http(room: &Room, ops: Vec<Op>) -> oneshot::Receiver<EditAnswer> {
    let (tx, rx) = oneshot::channel();
    submit(room, ops, EditReply::Oneshot(tx));
    rx
}

fn submit(room: &Room, ops: Vec<Op>, reply: EditReply) {
    let ticket = Arc::new(EditTicket::default());
    room.shared()
        .submit_edits(ops, reply, ticket, None)
        .expect("admitted");
}

fn subscribed(room: &mut Room, conn: u64) -> Arc<Outbox> {
    let o = Outbox::new(conn, Format::Json, OutboxLimits::DEFAULT);
    o.set_gate(Arc::clone(&room.shared().gate));
    room.handle(RoomCommand::from(SubscribeRequest::new(
        Arc::clone(&o),
        Scope::WHOLE_ROOM,
    )));
    o
}

/// The type of the next message the outbox would send now, if any.
fn next_type(outbox: &Outbox) -> Option<String> {
    match outbox.try_next()? {
        Outgoing::Message(bytes) | Outgoing::Frame(bytes) => {
            let v: serde_json::Value = serde_json::from_slice(&bytes).expect("JSON");
            Some(v["type"].as_str().expect("typed").to_string())
        }
        other => panic!("expected a message, got {other:?}"),
    }
}

#[tokio::test]
async fn live_frames_leave_before_the_fsync_and_acks_still_wait() {
    let (mut room, persist) = logged_room(FramePassage::Live);
    let viewer = subscribed(&mut room, 1);
    let editor = subscribed(&mut room, 2);
    room.checked_tick(133);
    // The snapshots name the last record, which is durable already.
    assert_eq!(next_type(&viewer).as_deref(), Some("snapshot"));
    assert_eq!(next_type(&editor).as_deref(), Some("snapshot"));
    let http_answer = http(&room, vec![Op::set_t(1, [1.0, 0.0, 0.0])]);
    let reply = EditReply::Outbox {
        outbox: Arc::clone(&editor),
        seq: 9,
        held: None,
    };
    submit(&room, vec![Op::set_local(1, None, None, Some(2.0))], reply);
    room.checked_tick(166);

    let answer = http_answer.await.unwrap();
    assert!(answer.outcome.is_ok());
    assert!(
        answer.durable_at > persist.durable_seq(),
        "the tick's record is not durable yet"
    );
    // The viewer sees the tick at once, and the answer to its ping (a reply that is
    // not an ack), and a later subscriber its snapshot.
    assert_eq!(next_type(&viewer).as_deref(), Some("delta"));
    assert_eq!(next_type(&viewer), None);
    viewer.push_reply(&ServerMsg::Pong { nonce: 1, tick: 2 });
    assert_eq!(next_type(&viewer).as_deref(), Some("pong"));
    let late = subscribed(&mut room, 3);
    room.checked_tick(200);
    assert!(persist.durable_seq() < answer.durable_at);
    assert_eq!(next_type(&late).as_deref(), Some("snapshot"));
    // The editor's ack waits, and the delta that shows its batch waits behind it.
    assert_eq!(next_type(&editor), None, "the ack waits for the fsync");

    persist.step().unwrap();
    assert!(persist.durable_seq() >= answer.durable_at);
    assert_eq!(next_type(&editor).as_deref(), Some("ack"));
    assert_eq!(next_type(&editor).as_deref(), Some("delta"));
    assert_eq!(next_type(&editor), None);
}

#[tokio::test]
async fn by_default_frames_wait_for_the_fsync_like_acks() {
    let (mut room, persist) = logged_room(FramePassage::Durable);
    let viewer = subscribed(&mut room, 1);
    room.checked_tick(133);
    // The snapshot names the last record, which is durable already.
    assert_eq!(next_type(&viewer).as_deref(), Some("snapshot"));
    let _answer = http(&room, vec![Op::set_t(1, [1.0, 0.0, 0.0])]);
    room.checked_tick(166);
    assert_eq!(next_type(&viewer), None, "the delta waits for the fsync");
    viewer.push_reply(&ServerMsg::Pong { nonce: 1, tick: 2 });
    assert_eq!(next_type(&viewer), None, "and so does what follows it");
    persist.step().unwrap();
    assert_eq!(next_type(&viewer).as_deref(), Some("delta"));
    assert_eq!(next_type(&viewer).as_deref(), Some("pong"));
}
