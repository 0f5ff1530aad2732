//! `Room::tick` driven synchronously, without a runtime or sockets: the order of a
//! tick's outputs, frames and snapshots shared among subscribers, merging for a full
//! queue, the op and snapshot budgets, superseded subscriptions and withdrawn batches.

use crate::room_support;
use room_support::CheckedTick;

use std::sync::Arc;

use bytes::Bytes;
use canopy_protocol::{Format, Op, ServerMsg, Transform, codec};
use canopy_room::metrics::RoomMetrics;
use canopy_room::outbox::{Outbox, OutboxLimits, Outgoing};
use canopy_room::scope::Scope;
use canopy_room::{
    EditQuota, EditReply, EditTicket, Room, RoomCommand, RoomConfig, SubscribeRequest,
};

fn room_with(config: RoomConfig) -> Room {
    Room::new(
        "t".into(),
        30,
        config,
        Arc::new(RoomMetrics::default()),
        None,
    )
}

fn room() -> Room {
    room_with(RoomConfig::default())
}

fn outbox(conn: u64, format: Format, frames: usize) -> Arc<Outbox> {
    Outbox::new(
        conn,
        format,
        OutboxLimits {
            frames,
            ..OutboxLimits::DEFAULT
        },
    )
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

/// Submits a batch the way an edge does, answering into `reply`.
fn submit(r: &Room, ops: Vec<Op>, reply: EditReply) -> Arc<EditTicket> {
    let ticket = Arc::new(EditTicket::default());
    r.shared()
        .submit_edits(ops, reply, Arc::clone(&ticket), None)
        .expect("admitted");
    ticket
}

fn ws_reply(o: &Arc<Outbox>, seq: u64) -> EditReply {
    EditReply::Outbox {
        outbox: Arc::clone(o),
        seq,
        held: None,
    }
}

fn subscribe(r: &mut Room, o: &Arc<Outbox>, scope: Scope) {
    r.handle(RoomCommand::from(SubscribeRequest::new(
        Arc::clone(o),
        scope,
    )));
}

fn drain(o: &Outbox) -> Vec<Outgoing> {
    std::iter::from_fn(|| o.try_next()).collect()
}

fn decode(bytes: &Bytes, format: Format) -> ServerMsg {
    codec::decode_server(bytes, format).expect("the server's own encoding")
}

fn message(o: &Outgoing, format: Format) -> ServerMsg {
    match o {
        Outgoing::Message(b) | Outgoing::Frame(b) | Outgoing::Merged(b) => decode(b, format),
        other => panic!("not a message: {other:?}"),
    }
}

#[test]
fn subscribers_share_one_encoded_frame_and_acks_come_first() {
    let mut r = room();
    let a = outbox(1, Format::Bincode, 8);
    let b = outbox(2, Format::Bincode, 8);
    let j = outbox(3, Format::Json, 8);
    for o in [&a, &b, &j] {
        subscribe(&mut r, o, Scope::WHOLE_ROOM);
    }
    r.checked_tick(999);
    let snaps: Vec<_> = [&a, &b, &j].iter().map(|o| drain(o)).collect();
    for (s, f) in snaps
        .iter()
        .zip([Format::Bincode, Format::Bincode, Format::Json])
    {
        assert!(matches!(
            message(&s[0], f),
            ServerMsg::Snapshot { tick: 1, .. }
        ));
    }
    let (Outgoing::Message(sa), Outgoing::Message(sb)) = (&snaps[0][0], &snaps[1][0]) else {
        panic!("snapshots")
    };
    assert_eq!(sa.as_ptr(), sb.as_ptr(), "one snapshot encoding shared");

    submit(&r, vec![add(1)], ws_reply(&a, 9));
    let report = r.checked_tick(1000);
    assert_eq!((report.tick, report.batches_applied), (2, 1));
    let out_a = drain(&a);
    assert!(
        matches!(
            message(&out_a[0], Format::Bincode),
            ServerMsg::Ack {
                seq: 9,
                tick: 2,
                ..
            }
        ),
        "the ack comes first"
    );
    let out_b = drain(&b);
    let (Outgoing::Frame(fa), [Outgoing::Frame(fb)]) = (&out_a[1], out_b.as_slice()) else {
        panic!("frames")
    };
    assert_eq!(
        fa.as_ptr(),
        fb.as_ptr(),
        "one encoding shared by both bincode subscribers"
    );
    let out_j = drain(&j);
    assert!(matches!(
        message(&out_j[0], Format::Json),
        ServerMsg::Delta { tick: 2, .. }
    ));

    // A tick that changes nothing sends nothing.
    r.checked_tick(1001);
    assert!(drain(&a).is_empty());
}

#[test]
fn a_full_queue_switches_to_one_merged_frame() {
    let mut r = room();
    let slow = outbox(1, Format::Bincode, 2);
    let sink = outbox(9, Format::Json, 1);
    submit(&r, vec![add(1), add(2)], ws_reply(&sink, 0));
    r.checked_tick(0);
    subscribe(&mut r, &slow, Scope::WHOLE_ROOM);
    let mut merged_ticks = 0;
    for k in 1..=10 {
        let (tx, _rx) = tokio::sync::oneshot::channel();
        submit(&r, vec![move_to(1, k as f32)], EditReply::Oneshot(tx));
        if r.checked_tick(k).frames_merged == 1 {
            merged_ticks += 1;
        }
    }
    // The subscription is answered by the first of those ticks, whose delta it does
    // not get; then two frames fill the queue and seven ticks merge.
    assert_eq!(merged_ticks, 7, "two frames queued, seven ticks merged");
    assert_eq!(
        slow.pending_entries
            .load(std::sync::atomic::Ordering::Relaxed),
        1,
        "one entry per node"
    );
    let out = drain(&slow);
    assert!(matches!(
        message(&out[0], Format::Bincode),
        ServerMsg::Snapshot { tick: 2, .. }
    ));
    assert!(matches!(out[1], Outgoing::Frame(_)) && matches!(out[2], Outgoing::Frame(_)));
    let ServerMsg::Delta { tick, update, .. } = message(&out[3], Format::Bincode) else {
        panic!("a merged frame")
    };
    assert!(matches!(out[3], Outgoing::Merged(_)));
    assert_eq!(
        tick, 11,
        "the merged frame carries the latest tick it covers"
    );
    assert_eq!(update.len(), 1);
    assert_eq!(update[0].world.t, [10.0, 0.0, 0.0], "latest value wins");
    assert_eq!(out.len(), 4);
}

#[test]
fn a_subscribe_flood_costs_one_snapshot() {
    let mut r = room();
    submit(
        &r,
        (0..100).map(add).collect(),
        ws_reply(&outbox(9, Format::Json, 1), 0),
    );
    r.checked_tick(0);
    let flood = outbox(1, Format::Json, 8);
    for _ in 0..1000 {
        subscribe(&mut r, &flood, Scope::WHOLE_ROOM);
    }
    let report = r.checked_tick(1);
    assert_eq!(
        report.snapshots, 1,
        "later subscriptions replace earlier ones"
    );
    let out = drain(&flood);
    assert_eq!(out.len(), 1);
    // Subscriptions answered in different ticks: the newer snapshot replaces the older
    // one still queued.
    subscribe(&mut r, &flood, Scope::WHOLE_ROOM);
    r.checked_tick(2);
    subscribe(&mut r, &flood, Scope::WHOLE_ROOM);
    r.checked_tick(3);
    let out = drain(&flood);
    assert_eq!(out.len(), 1, "one snapshot queued: {out:?}");
    assert!(matches!(
        message(&out[0], Format::Json),
        ServerMsg::Snapshot { tick: 4, .. }
    ));
}

#[test]
fn the_op_budget_spreads_batches_over_ticks_in_order() {
    let mut r = room_with(RoomConfig {
        tick_op_budget: 10,
        ..RoomConfig::default()
    });
    let o = outbox(1, Format::Json, 8);
    // 4 + 4 fit in one tick, 4 + 8 do not: the third waits, then the fourth (larger
    // than the budget) gets a tick of its own.
    submit(&r, (0..4).map(add).collect(), ws_reply(&o, 1));
    submit(&r, (4..8).map(add).collect(), ws_reply(&o, 2));
    submit(&r, (8..12).map(add).collect(), ws_reply(&o, 3));
    submit(&r, (12..32).map(add).collect(), ws_reply(&o, 4));
    let ticks: Vec<_> = (0..3).map(|t| r.checked_tick(t)).collect();
    assert_eq!(
        ticks.iter().map(|t| t.batches_applied).collect::<Vec<_>>(),
        [2, 1, 1]
    );
    assert_eq!(ticks[0].batches_waiting, 2);
    let acks: Vec<(u64, u64)> = drain(&o)
        .iter()
        .filter_map(|m| match message(m, Format::Json) {
            ServerMsg::Ack { seq, tick, .. } => Some((seq, tick)),
            _ => None,
        })
        .collect();
    assert_eq!(
        acks,
        [(1, 1), (2, 1), (3, 2), (4, 3)],
        "in order, each naming its tick"
    );
    assert_eq!(r.shared().pending_batches(), 0);
    assert_eq!(r.shared().pending_ops(), 0);
}

#[test]
fn a_withdrawn_batch_is_never_applied() {
    let mut r = room();
    let (tx, rx) = tokio::sync::oneshot::channel();
    let ticket = submit(&r, vec![add(7)], EditReply::Oneshot(tx));
    assert!(ticket.cancel(), "not taken yet");
    let report = r.checked_tick(0);
    assert_eq!((report.batches_applied, report.batches_cancelled), (0, 1));
    assert!(!r.shared().scene.read().hierarchy().contains(7));
    drop(rx);
    // Once the tick took a batch, it can no longer be withdrawn.
    let (tx, _rx) = tokio::sync::oneshot::channel();
    let ticket = submit(&r, vec![add(8)], EditReply::Oneshot(tx));
    r.checked_tick(1);
    assert!(!ticket.cancel());
    assert!(r.shared().scene.read().hierarchy().contains(8));
}

#[test]
fn pending_edits_are_bounded_per_room_and_per_connection() {
    let r = room_with(RoomConfig {
        edits: canopy_room::EditLimits {
            max_pending_batches: 100,
            max_pending_ops: 10,
            max_pending_ops_per_conn: 6,
        },
        ..RoomConfig::default()
    });
    let a = outbox(1, Format::Json, 8);
    let b = outbox(2, Format::Json, 8);
    // One quota per editor (the server keeps them per caller).
    let quotas = [
        Arc::new(EditQuota::default()),
        Arc::new(EditQuota::default()),
    ];
    let sub = |o: &Arc<Outbox>, n: u32| {
        r.shared().submit_edits(
            (0..n).map(add).collect(),
            ws_reply(o, 0),
            Arc::new(EditTicket::default()),
            Some(Arc::clone(&quotas[(o.conn - 1) as usize])),
        )
    };
    assert!(sub(&a, 4).is_ok());
    let e = sub(&a, 4).unwrap_err();
    assert_eq!(e.code, canopy_protocol::ErrorCode::Overloaded, "{e}");
    assert!(e.message.contains("this editor"), "{e}");
    assert!(sub(&b, 5).is_ok(), "the other editor still gets in");
    let e = sub(&b, 2).unwrap_err();
    assert!(e.message.contains("ops waiting"), "{e}");
    assert_eq!(r.shared().pending_ops(), 9);
}
