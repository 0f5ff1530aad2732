//! The owner's side of relayed edits: a relayed batch answered with an error is never
//! applied, as for an edit posted to the owner itself; a batch for a room not served
//! here, or for a room unloaded because it moves, is told `moving`, never `unknown_room`.

use std::sync::Arc;
use std::time::Duration;

use canopy_protocol::{ErrorCode, Op, Transform};

use super::queue_relayed;
use crate::config::ServerConfig;
use crate::state::AppState;
use canopy_room::{EditReply, EditTicket};

#[tokio::test]
async fn a_relayed_batch_answered_overloaded_is_never_applied() {
    let state = AppState::new(ServerConfig {
        in_memory: true,
        request_timeout: std::time::Duration::from_secs(1),
        tick_op_budget: 1,
        ..ServerConfig::default()
    });
    let room = state
        .create_room_in_memory(Some("slow".into()), Some(240))
        .unwrap();
    let add = |id| Op::add(Some(id), None, Transform::IDENTITY);
    let first = queue_relayed(&state, "slow", vec![vec![add(0)]]).await;
    assert!(first[0].is_ok(), "{first:?}");
    // 600 one-op batches ahead, one per tick at 240 Hz: about 2.5 s of queue, more than
    // the request's deadline of 1 s.
    let noop = Op::set_local(0, Some([1.0, 0.0, 0.0]), None, None);
    let _waiting: Vec<_> = (0..600)
        .map(|_| {
            let (tx, rx) = tokio::sync::oneshot::channel();
            let queued = room.submit_edits(
                vec![noop.clone()],
                EditReply::Oneshot(tx),
                Arc::new(EditTicket::default()),
                None,
            );
            queued.map(|()| rx).unwrap()
        })
        .collect();
    let answers = queue_relayed(&state, "slow", vec![vec![add(7)], vec![add(8)]]).await;
    for a in &answers {
        let refused = a.as_ref().expect_err("both waited past the deadline");
        assert_eq!(refused.code, ErrorCode::Overloaded, "{refused:?}");
    }
    for _ in 0..200 {
        if room.pending_batches() == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(room.pending_batches(), 0);
    let scene = room.scene.read();
    assert!(scene.hierarchy().node(0).is_some());
    for id in [7, 8] {
        assert!(
            scene.hierarchy().node(id).is_none(),
            "node {id}: withdrawn, never applied"
        );
    }
}

#[tokio::test]
async fn a_relayed_batch_for_a_room_not_served_here_is_told_moving() {
    let state = AppState::new(ServerConfig {
        in_memory: true,
        ..ServerConfig::default()
    });
    let add = Op::add(Some(1), None, Transform::IDENTITY);
    let answers = queue_relayed(&state, "elsewhere", vec![vec![add]]).await;
    let refused = answers[0].as_ref().expect_err("not served here");
    assert_eq!(refused.code, ErrorCode::Overloaded, "{refused:?}");
    assert!(refused.message.contains("moving"), "{refused:?}");
}

#[tokio::test]
async fn a_room_unloaded_because_it_moves_refuses_edits_as_moving_not_unknown() {
    let state = AppState::new(ServerConfig {
        in_memory: true,
        ..ServerConfig::default()
    });
    let room = state
        .create_room_in_memory(Some("moves".into()), Some(30))
        .unwrap();
    state.unload_room("moves", canopy_room::CloseCause::Moving);
    assert_eq!(room.close_cause(), canopy_room::CloseCause::Moving);
    let (tx, _rx) = tokio::sync::oneshot::channel();
    let add = Op::add(Some(1), None, Transform::IDENTITY);
    let refused = room
        .submit_edits(
            vec![add],
            EditReply::Oneshot(tx),
            Arc::new(EditTicket::default()),
            None,
        )
        .expect_err("closed");
    assert_eq!(refused.code, ErrorCode::Overloaded, "{refused:?}");
    // A deletion, and only a deletion, is `unknown_room`.
    let deleted = state
        .create_room_in_memory(Some("deleted".into()), Some(30))
        .unwrap();
    state.delete_room("deleted").unwrap();
    assert_eq!(deleted.close_cause(), canopy_room::CloseCause::RoomDeleted);
    assert_eq!(deleted.closed_refusal().code, ErrorCode::UnknownRoom);
}
