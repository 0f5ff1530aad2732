//! `Room::tick` driven synchronously, without a runtime or sockets: the order of a
//! tick's outputs, frames shared among subscribers, merging for a full queue.

use std::sync::Arc;

use axum::extract::ws::Message;
use canopy_protocol::{Format, Op, ServerMsg, Transform};
use canopy_server::metrics::Metrics;
use canopy_server::room::outbox::{Outbox, Outgoing};
use canopy_server::room::scope::Scope;
use canopy_server::room::{EditReply, Room, RoomCommand, RoomConfig};

fn room(frames: usize) -> Room {
    let config = RoomConfig {
        outbox_frames: frames,
        ..RoomConfig::default()
    };
    let (room, rx) = Room::new("t".into(), 30, config, Arc::new(Metrics::new()), None);
    // The room is driven by hand; the channel's sender side lives in the room.
    std::mem::forget(rx);
    room
}

fn add(id: u32) -> Op {
    Op::Add {
        id: Some(id),
        parent: None,
        local: Transform::IDENTITY,
        extent: [1.0; 3],
        mask: u32::MAX,
    }
}

fn move_to(id: u32, x: f32) -> Op {
    Op::SetLocal {
        node: id,
        t: Some([x, 0.0, 0.0]),
        r: None,
        s: None,
    }
}

fn drain(o: &Outbox) -> Vec<Outgoing> {
    std::iter::from_fn(|| o.try_next()).collect()
}

#[test]
fn subscribers_share_one_encoded_frame_and_acks_come_first() {
    let mut r = room(8);
    let a = Outbox::new(1, Format::Bincode, 8);
    let b = Outbox::new(2, Format::Bincode, 8);
    let j = Outbox::new(3, Format::Json, 8);
    for o in [&a, &b, &j] {
        r.handle(RoomCommand::Subscribe {
            outbox: Arc::clone(o),
            scope: Scope::WHOLE_ROOM,
        });
        assert!(matches!(
            drain(o).as_slice(),
            [Outgoing::Msg(ServerMsg::Snapshot { .. })]
        ));
    }
    r.handle(RoomCommand::Edits {
        ops: vec![add(1)],
        reply: EditReply::Ws {
            outbox: Arc::clone(&a),
            seq: 9,
        },
    });
    let report = r.tick(1000, 0);
    assert_eq!((report.tick, report.batches_applied), (1, 1));
    let out_a = drain(&a);
    assert!(
        matches!(
            &out_a[0],
            Outgoing::Msg(ServerMsg::Ack {
                seq: 9,
                tick: 1,
                ..
            })
        ),
        "the ack comes first"
    );
    let out_b = drain(&b);
    let (Outgoing::Frame(Message::Binary(fa)), [Outgoing::Frame(Message::Binary(fb))]) =
        (&out_a[1], out_b.as_slice())
    else {
        panic!("binary frames")
    };
    assert_eq!(
        fa.as_ptr(),
        fb.as_ptr(),
        "one encoding shared by both bincode subscribers"
    );
    assert!(matches!(
        drain(&j).as_slice(),
        [Outgoing::Frame(Message::Text(_))]
    ));

    // A tick that changes nothing sends nothing.
    r.tick(1001, 0);
    assert!(drain(&a).is_empty());
}

#[test]
fn a_full_queue_switches_to_one_merged_frame() {
    let mut r = room(2);
    let slow = Outbox::new(1, Format::Bincode, 2);
    r.handle(RoomCommand::Edits {
        ops: vec![add(1), add(2)],
        reply: EditReply::Ws {
            outbox: Outbox::new(9, Format::Json, 1),
            seq: 0,
        },
    });
    r.tick(0, 0);
    r.handle(RoomCommand::Subscribe {
        outbox: Arc::clone(&slow),
        scope: Scope::WHOLE_ROOM,
    });
    let mut merged_ticks = 0;
    for k in 1..=10 {
        let (tx, _rx) = tokio::sync::oneshot::channel();
        r.handle(RoomCommand::Edits {
            ops: vec![move_to(1, k as f32)],
            reply: EditReply::Http(tx),
        });
        if r.tick(k, 0).frames_merged == 1 {
            merged_ticks += 1;
        }
    }
    assert_eq!(merged_ticks, 8, "two frames queued, eight ticks merged");
    assert_eq!(
        slow.pending_entries
            .load(std::sync::atomic::Ordering::Relaxed),
        1,
        "one entry per node"
    );
    let out = drain(&slow);
    assert!(matches!(out[0], Outgoing::Msg(ServerMsg::Snapshot { .. })));
    assert!(matches!(out[1], Outgoing::Frame(_)) && matches!(out[2], Outgoing::Frame(_)));
    let Outgoing::Merged(ServerMsg::Delta { tick, update, .. }, ticks) = &out[3] else {
        panic!("a merged frame")
    };
    assert_eq!(
        (*tick, *ticks),
        (11, 8),
        "the merged frame carries the latest tick it covers"
    );
    assert_eq!(update.len(), 1);
    assert_eq!(update[0].world.t, [10.0, 0.0, 0.0], "latest value wins");
    assert_eq!(out.len(), 4);
}
