//! A room's share of the server's budgets, ticked by hand: region subscribers of one
//! scope share one in-scope set whenever they came; a caller past its share of the
//! unsent snapshot bytes is refused with `overloaded` while another caller is served.

use crate::room_support;
use room_support::CheckedTick;

use std::sync::Arc;

use canopy_protocol::message::Region;
use canopy_protocol::{ErrorCode, Format, Op, ServerMsg, Transform, codec};
use canopy_room::budget::CallerId;
use canopy_room::metrics::RoomMetrics;
use canopy_room::outbox::{Outbox, OutboxLimits, Outgoing};
use canopy_room::scope::Scope;
use canopy_room::{EditTicket, Room, RoomCommand, RoomConfig, SubscribeRequest};

fn room_with(config: RoomConfig) -> Room {
    Room::new(
        "t".into(),
        30,
        config,
        Arc::new(RoomMetrics::default()),
        None,
    )
}

fn edit(r: &Room, ops: Vec<Op>) {
    r.shared()
        .submit_edits(ops, reply(), Arc::new(EditTicket::default()), None)
        .expect("admitted");
}

/// An HTTP-style reply nobody waits for.
fn reply() -> canopy_room::EditReply {
    canopy_room::EditReply::Oneshot(tokio::sync::oneshot::channel().0)
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

fn subscribe(r: &mut Room, conn: u64, scope: Scope, caller: &str) -> Arc<Outbox> {
    let o = Outbox::new(conn, Format::Json, OutboxLimits::DEFAULT);
    let mut req = SubscribeRequest::new(Arc::clone(&o), scope);
    req.caller = CallerId::of(caller);
    r.handle(RoomCommand::from(req));
    o
}

fn first_message(o: &Outbox) -> Option<ServerMsg> {
    match o.try_next()? {
        Outgoing::Message(b) => Some(codec::decode_server(&b, Format::Json).unwrap()),
        other => panic!("{other:?}"),
    }
}

#[test]
fn region_subscribers_of_one_scope_share_one_set_whenever_they_came() {
    let mut r = room_with(RoomConfig::default());
    edit(&r, (0..100).map(add).collect());
    r.checked_tick(1);
    let scope = Scope::region(
        Some(Region {
            min: [-10.0; 3],
            max: [10.0; 3],
        }),
        u32::MAX,
    );
    let mut held = Vec::new();
    for conn in 0..20 {
        held.push(subscribe(&mut r, conn, scope, "a"));
        r.checked_tick(2 + conn);
    }
    assert_eq!(r.in_scope_entries(), 100, "one set for twenty subscribers");
    edit(&r, vec![Op::Remove { node: 5 }]);
    r.checked_tick(100);
    assert_eq!(r.in_scope_entries(), 99);
}

#[test]
fn a_caller_past_its_snapshot_share_is_refused_and_another_is_served() {
    let config = RoomConfig {
        // A caller's and a room's share: 1 byte; the server's: 10 bytes.
        snapshot_bytes: RoomConfig::snapshot_budget(10, 10, 1),
        ..RoomConfig::default()
    };
    let budget = Arc::clone(&config.snapshot_bytes);
    let mut r = room_with(config);
    edit(&r, (0..10).map(add).collect());
    r.checked_tick(1);
    let whole = |mask| Scope::region(None, mask);
    let first = subscribe(&mut r, 1, whole(1), "a");
    let second = subscribe(&mut r, 2, whole(2), "a");
    r.checked_tick(2);
    assert!(first.queued_bytes() > 0, "the snapshot waits, unwritten");
    let refused = first_message(&second);
    assert!(
        matches!(
            refused,
            Some(ServerMsg::Error {
                code: ErrorCode::Overloaded,
                ..
            })
        ),
        "{refused:?}"
    );
    // The room holds its share too: another caller's subscription waits, then is
    // served once the first snapshot is written.
    let other = subscribe(&mut r, 3, whole(3), "b");
    r.checked_tick(3);
    assert!(
        first_message(&other).is_none(),
        "waits for the room's share"
    );
    assert!(matches!(
        first_message(&first),
        Some(ServerMsg::Snapshot { .. })
    ));
    r.checked_tick(4);
    assert!(matches!(
        first_message(&other),
        Some(ServerMsg::Snapshot { .. })
    ));
    budget.assert_well_formed();
}
