//! Hostile clients against the fair shares of the server-wide budgets: each test runs
//! the attack against a real server and asserts what an innocent client sees (its
//! snapshot, its `/nodes` answer, within generous deadlines), or that what the attacker
//! makes the server hold stays bounded.

use crate::common;

use std::time::Duration;

use canopy_protocol::{ClientMsg, Format, ServerMsg, codec};
use common::{config, start};
use futures_util::SinkExt;
use serde_json::json;
use tokio_tungstenite::tungstenite::Message;

fn add_ops(n: u32) -> serde_json::Value {
    json!((0..n)
        .map(|i| json!({"op":"add","id":i,"local":{"t":[(i % 100) as f32, (i / 100) as f32, 0.0]},"extent":[0.4,0.4,0.4]}))
        .collect::<Vec<_>>())
}

/// A flood of `unsubscribe` and `subscribe` frames to a slow room: the session
/// coalesces them, so at most one subscription command of the connection waits in the
/// room's channel (before, each frame was a command until the next tick: 2.6M frames
/// grew the server by 100 MB), and the last one is what the room does.
#[tokio::test]
async fn a_subscription_flood_leaves_one_command_waiting() {
    let s = start(config()).await;
    s.create_room("slow", 1).await;
    assert_eq!(s.edits("slow", add_ops(10)).await.0, 200);
    let room = s.state.room("slow").unwrap();
    let mut ws = s.ws("slow", Format::Bincode).await;
    let unsub = codec::encode_client(&ClientMsg::Unsubscribe, Format::Bincode);
    let mut most = 0;
    for i in 0..50_000 {
        ws.stream
            .feed(Message::binary(unsub.clone()))
            .await
            .unwrap();
        if i % 1000 == 0 {
            ws.stream.flush().await.unwrap();
            most = most.max(room.queued_commands());
        }
    }
    ws.send(&ClientMsg::subscribe(None, u32::MAX)).await;
    let snapshot = ws
        .recv_until(|m| matches!(m, ServerMsg::Snapshot { .. }))
        .await;
    let ServerMsg::Snapshot { nodes, .. } = snapshot else {
        unreachable!()
    };
    assert_eq!(
        nodes.len(),
        10,
        "the last change (subscribe) is what the room did"
    );
    assert!(most <= 2, "{most} commands waited for the room");
    assert!(room.queued_commands() <= 1);
    s.stop().await;
}
