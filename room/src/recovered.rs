//! A room brought back from the data dir: the metadata it is logged with, and its
//! rebuild from what recovery found, logged from its last record on.
//!
//! Invariant: a rebuilt room shows exactly its snapshot plus every durable batch after
//! it, in order (see `durable.rs`), with the tokens it was created with.

use std::sync::Arc;

use canopy_store::{RecoveredRoom, Replay, RoomMeta};

use crate::durable::{self, RoomLog};
use crate::gate::LogLink;
use crate::metrics::RoomMetrics;
use crate::replica::FeedLink;
use crate::tokens::{RoomTokens, TokenDigest};
use crate::{Durability, RestoreError, Room, RoomConfig, RoomSpec, SceneState};

/// The metadata a room is logged with.
pub fn room_meta(id: &str, tick_hz: u32, tokens: Option<&RoomTokens>, created_ms: u64) -> RoomMeta {
    RoomMeta {
        id: id.to_string(),
        tick_hz,
        editor_token: tokens.map(|t| t.editor.to_stored()),
        viewer_token: tokens.map(|t| t.viewer.to_stored()),
        created_ms,
    }
}

/// The tokens a recovered room was created with (both or neither).
fn tokens_of(meta: &RoomMeta) -> Option<RoomTokens> {
    match (&meta.editor_token, &meta.viewer_token) {
        (Some(editor), Some(viewer)) => Some(RoomTokens {
            editor: TokenDigest::from_stored(editor),
            viewer: TokenDigest::from_stored(viewer),
        }),
        _ => None,
    }
}

/// Rebuilds one recovered room, logged from its last record on; in a cluster its
/// records also go to `relays`.
pub fn restore_room(
    recovered: &RecoveredRoom,
    config: RoomConfig,
    metrics: Arc<RoomMetrics>,
    persist: LogLink,
    relays: Option<FeedLink>,
) -> Result<Room, RestoreError> {
    let meta = &recovered.meta;
    let scene = SceneState::new(config.hierarchy, config.octree);
    let scene = durable::restore(recovered, scene, meta.tick_hz)?;
    let replayed_ops = recovered
        .replay
        .iter()
        .map(|r| match r {
            Replay::Tick { batches, .. } => batches.iter().map(Vec::len).sum(),
            Replay::Checkpoint { .. } => 0,
        })
        .sum();
    let log = RoomLog::new(
        persist,
        recovered.created_seq,
        recovered.last_seq,
        scene.tick(),
    )
    .with_replayed(replayed_ops, recovered.replay.len());
    let spec = RoomSpec {
        id: meta.id.clone(),
        tick_hz: meta.tick_hz,
        config,
        metrics,
        tokens: tokens_of(meta),
    };
    Ok(Room::owner(spec, scene, Durability::Log { log, relays }))
}
