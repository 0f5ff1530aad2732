//! The server's side of persistence at start and for room commands: opening the data
//! dir (its lock, recovery), bringing every recovered room back into the registry at
//! its last durable tick, and the offline tools (`canopy verify`, `canopy snapshot`).
//!
//! Invariant: a room is in the registry after a restart exactly when its `created`
//! record is durable and no durable `deleted` record follows it; its scene is its
//! snapshot plus every durable batch after it, in order (see `room/durable.rs`).

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use canopy_room::metrics::RoomMetrics;
use canopy_room::{LogLink, Room, RoomConfig, SceneState, durable};
use canopy_store::metrics::StorageMetrics;
use canopy_store::{PersistConfig, PersistError, Recovered, RecoveredRoom};

use crate::config::ServerConfig;
use crate::metrics::Metrics;
use crate::start_error::StartError;

/// Opens `config.data_dir` (unless `--in-memory`): locks it and reads it back. A dir
/// another server holds, or one that cannot be read back exactly, is an error naming
/// the file (and offset).
pub fn open(
    config: &ServerConfig,
    metrics: &Arc<Metrics>,
) -> Result<Option<(LogLink, Recovered)>, PersistError> {
    if config.in_memory {
        return Ok(None);
    }
    let storage_metrics = StorageMetrics::new(metrics.registry());
    let persist_config = PersistConfig {
        observer: Some(Arc::new(storage_metrics.clone())),
        ..PersistConfig::default()
    };
    let dir = &config.data_dir;
    // The layer's errors name the file (and offset) themselves.
    let (persist, recovered) = canopy_store::open_dir(dir, persist_config)?;
    storage_metrics.recovered(&recovered.report);
    let r = &recovered.report;
    if let Some((file, torn)) = &r.torn {
        tracing::warn!(file = %file.display(), ?torn, "cut a torn last write from the log (never acknowledged)");
    }
    for (file, why) in &r.set_aside {
        tracing::warn!(%file, %why, "snapshot set aside; the log covers it");
    }
    tracing::info!(
        data_dir = %dir.display(),
        rooms = r.rooms,
        deleted_rooms = r.deleted_rooms,
        segments = r.segments,
        log_bytes = r.log_bytes,
        snapshots = r.snapshots_read,
        records_replayed = r.records_replayed,
        took_ms = r.took.as_millis() as u64,
        "data dir read back"
    );
    Ok(Some((LogLink::new(Arc::new(persist)), recovered)))
}

/// Rebuilds one recovered room, logged from its last record on (a room whose stored
/// state contradicts itself stops the start, naming it).
pub fn restore_room(
    recovered: &RecoveredRoom,
    config: RoomConfig,
    metrics: Arc<RoomMetrics>,
    persist: LogLink,
    relays: Option<canopy_room::replica::FeedLink>,
) -> Result<Room, StartError> {
    canopy_room::recovered::restore_room(recovered, config, metrics, persist, relays).map_err(
        |error| StartError::Room {
            room: recovered.meta.id.clone(),
            error,
        },
    )
}

/// Why `canopy verify` or `canopy snapshot` failed.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// The data dir could not be opened or read back.
    #[error("data dir {dir}: {source}")]
    DataDir {
        /// The data dir.
        dir: std::path::PathBuf,
        /// Why.
        source: PersistError,
    },
    /// The data dir holds damage; the report names the files and offsets.
    #[error("{0}")]
    Damaged(String),
    /// A room's stored state could not be rebuilt.
    #[error("room {room}: {source}")]
    Room {
        /// The room.
        room: String,
        /// Why.
        source: canopy_room::RestoreError,
    },
    /// A snapshot could not be written.
    #[error("room {room}: {source}")]
    Snapshot {
        /// The room.
        room: String,
        /// Why.
        source: PersistError,
    },
    /// The storage failed while the snapshots were written.
    #[error(transparent)]
    Storage(#[from] PersistError),
}

/// `canopy verify`: reads a data dir and reports what it holds; damage is an error
/// whose report names the damaged file and offset.
pub fn verify(dir: &Path) -> Result<String, ToolError> {
    let storage = canopy_store::FsStorage::new(dir).map_err(|source| ToolError::DataDir {
        dir: dir.to_path_buf(),
        source,
    })?;
    let report = canopy_store::verify(&storage);
    if report.problems.is_empty() {
        Ok(format!("{report:#?}"))
    } else {
        Err(ToolError::Damaged(format!("{report:#?}")))
    }
}

/// `canopy snapshot`: recovers a stopped server's data dir, writes a snapshot of every
/// room at its last record, waits until they are installed (which lets the log drop
/// the segments they cover), and stops. Returns a summary line.
pub fn snapshot_all(dir: &Path) -> Result<String, ToolError> {
    let started = Instant::now();
    let (persist, recovered) =
        canopy_store::open_dir(dir, PersistConfig::default()).map_err(|source| {
            ToolError::DataDir {
                dir: dir.to_path_buf(),
                source,
            }
        })?;
    let persist = Arc::new(persist);
    let config = RoomConfig::default();
    let mut nodes = 0;
    for room in &recovered.rooms {
        let scene = SceneState::new(config.hierarchy, config.octree);
        let scene =
            durable::restore(room, scene, room.meta.tick_hz).map_err(|source| ToolError::Room {
                room: room.meta.id.clone(),
                source,
            })?;
        nodes += scene.hierarchy().len();
        let state = durable::capture(&scene);
        persist
            .request_snapshot(&room.meta.id, room.last_seq, state)
            .map_err(|source| ToolError::Snapshot {
                room: room.meta.id.clone(),
                source,
            })?;
    }
    persist.wait_snapshots()?;
    persist.shutdown()?;
    Ok(format!(
        "{} rooms, {nodes} nodes snapshotted in {} ms",
        recovered.rooms.len(),
        started.elapsed().as_millis()
    ))
}
