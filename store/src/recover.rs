//! [`open`]: lock the data dir, recover, repair only what may be repaired, and start the
//! layer.
//!
//! Order of the changes made, each durable before the next: cut the torn end of the last
//! segment; remove temporary and stale snapshot files and set aside unusable ones
//! (renamed `.bad`, never read again); create the new active segment. Nothing is changed
//! before the whole data dir has been read and judged, so a refusal leaves it untouched.
//!
//! Invariant: what `open` returns for each room is exactly what the durable records and
//! snapshot say: the newest usable snapshot and every later record of the room, in order;
//! deleted rooms are not returned.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use canopy_protocol::Op;

use super::PersistConfig;
use super::error::{PersistError, Result};
use super::log::{Persist, StartState};
use super::plan::{Plan, plan};
use super::record::{Body, RoomMeta, decode_batches};
use super::segment::Torn;
use super::shared::RoomEntry;
use super::snapshot::RoomState;
use super::snapwriter::{SNAP_DIR, SnapWriter};
use super::stats::Counters;
use super::storage::Storage;
use super::writer::{LOG_DIR, LogWriter, WriterConfig};

/// One record to replay after a room's snapshot.
#[derive(Clone, Debug, PartialEq)]
pub enum Replay {
    /// A tick that applied `batches`, in order.
    Tick {
        /// The record's seq.
        seq: u64,
        /// The tick that applied the batches.
        tick: u64,
        /// The tick's time, milliseconds since the Unix epoch.
        time_ms: u64,
        /// The tick's batches, decoded, each applied all or nothing.
        batches: Vec<Vec<Op>>,
    },
    /// The tick counter reached `tick` with nothing applied.
    Checkpoint {
        /// The record's seq.
        seq: u64,
        /// The room's tick counter.
        tick: u64,
        /// That tick's time, milliseconds since the Unix epoch.
        time_ms: u64,
    },
}

/// A room that exists after recovery.
#[derive(Clone, Debug, PartialEq)]
pub struct RecoveredRoom {
    /// The room's id, rate, tokens and creation time.
    pub meta: RoomMeta,
    /// The seq of the room's `created` record (its incarnation).
    pub created_seq: u64,
    /// The seq of its last record (what the next snapshot request must name until the
    /// room appends again).
    pub last_seq: u64,
    /// The seq its snapshot covers, and the snapshot's state.
    pub snapshot: Option<(u64, RoomState)>,
    /// Records after the snapshot (or after creation), in order.
    pub replay: Vec<Replay>,
}

/// What recovery found and did.
#[derive(Clone, Debug, Default)]
pub struct RecoveryReport {
    /// How long recovery took.
    pub took: Duration,
    /// Log segment files read.
    pub segments: usize,
    /// Records in those segments.
    pub records: u64,
    /// Bytes of those segment files.
    pub log_bytes: u64,
    /// Rooms that exist after recovery.
    pub rooms: usize,
    /// Room incarnations the log shows deleted (not brought back).
    pub deleted_rooms: usize,
    /// Snapshot files read.
    pub snapshots_read: usize,
    /// Records to replay after the rooms' snapshots, over all rooms.
    pub records_replayed: u64,
    /// The torn end cut from the last segment: the file and the torn part.
    pub torn: Option<(std::path::PathBuf, Torn)>,
    /// Snapshot files set aside as unusable, with why.
    pub set_aside: Vec<(String, String)>,
    /// Snapshot files removed (stale, past retention, temporary).
    pub removed_files: usize,
}

/// Everything recovery returns.
#[derive(Debug)]
pub struct Recovered {
    /// Every room that exists, with what to rebuild it from.
    pub rooms: Vec<RecoveredRoom>,
    /// The seq the next record will get.
    pub next_seq: u64,
    /// What recovery found and did, for the start's log line and the storage metrics.
    pub report: RecoveryReport,
}

fn replay_of(plan: &Plan, storage: &dyn Storage, pos: (usize, usize)) -> Result<Replay> {
    let seg = &plan.segments[pos.0];
    let r = &seg.scan.records[pos.1];
    Ok(match &r.body {
        Body::Tick {
            tick,
            time_ms,
            batches,
        } => Replay::Tick {
            seq: r.seq,
            tick: *tick,
            time_ms: *time_ms,
            batches: decode_batches(batches).map_err(|e| {
                let at = seg.scan.offsets[pos.1];
                PersistError::corrupt(storage.display(&seg.path), at, e)
            })?,
        },
        Body::Checkpoint { tick, time_ms } => Replay::Checkpoint {
            seq: r.seq,
            tick: *tick,
            time_ms: *time_ms,
        },
        Body::Created(_) | Body::Deleted => unreachable!("live rooms replay ticks only"),
    })
}

/// Opens the data dir on `storage`: takes its lock, recovers every room, and starts the
/// log and snapshot threads (unless `config.threads` is false).
pub fn open(storage: Arc<dyn Storage>, config: PersistConfig) -> Result<(Persist, Recovered)> {
    let start = Instant::now();
    let lock = storage.lock()?;
    let io = |path: &Path, op| {
        let shown = storage.display(path);
        move |e| PersistError::io(shown, op, e)
    };
    for dir in [LOG_DIR, SNAP_DIR] {
        storage
            .create_dir(Path::new(dir))
            .map_err(io(Path::new(dir), "create dir"))?;
    }
    let mut plan = plan(&*storage)?;
    let last_epoch = plan
        .segments
        .iter()
        .rev()
        .find_map(|s| s.scan.records.last())
        .map_or(0, |r| r.epoch);
    if config.epoch < last_epoch {
        // A later owner fences with a higher epoch; going back would make the log refuse.
        return Err(PersistError::Misuse(format!(
            "epoch {} is lower than the log's epoch {last_epoch}",
            config.epoch
        )));
    }
    let mut rooms = Vec::with_capacity(plan.rooms.len());
    let mut replayed = 0;
    for i in 0..plan.rooms.len() {
        let room = &plan.rooms[i];
        let replay = room
            .replay
            .iter()
            .map(|&pos| replay_of(&plan, &*storage, pos))
            .collect::<Result<Vec<_>>>()?;
        replayed += replay.len() as u64;
        let (meta, created_seq, last_seq) = (room.meta.clone(), room.incarnation, room.last_seq);
        // Moved, not cloned: a 1M-node state is ~50 MB.
        let snapshot = plan.rooms[i].snapshot.take().map(|s| (s.seq, s.state));
        rooms.push(RecoveredRoom {
            meta,
            created_seq,
            last_seq,
            snapshot,
            replay,
        });
    }
    // Judged: now repair, each step durable before the next.
    if let Some((path, torn)) = &plan.torn {
        let shown = storage.display(path);
        tracing::warn!(file = %shown.display(), offset = torn.offset, bytes = torn.bytes, why = %torn.why,
            "cutting the torn end of the log");
        let has_records = plan
            .segments
            .last()
            .is_some_and(|s| !s.scan.records.is_empty());
        if has_records {
            storage
                .truncate(path, torn.offset)
                .map_err(io(path, "truncate"))?;
        }
    }
    let snap_dir = Path::new(SNAP_DIR);
    for name in &plan.remove {
        let path = snap_dir.join(name);
        storage.remove(&path).map_err(io(&path, "remove"))?;
    }
    for (name, why) in &plan.set_aside {
        let path = snap_dir.join(name);
        let aside = snap_dir.join(format!("{name}.bad"));
        tracing::warn!(file = %storage.display(&path).display(), why, "setting an unusable snapshot aside");
        storage.rename(&path, &aside).map_err(io(&path, "rename"))?;
    }
    if !plan.remove.is_empty() || !plan.set_aside.is_empty() {
        storage
            .sync_dir(snap_dir)
            .map_err(io(snap_dir, "fsync dir"))?;
    }
    let counters = Arc::new(Counters::default());
    let writer_config = WriterConfig {
        epoch: config.epoch,
        binary_version: config.binary_version.clone(),
        segment_bytes: config.segment_bytes,
        observer: config.observer.clone(),
    };
    let log = LogWriter::start(
        Arc::clone(&storage),
        Arc::clone(&counters),
        writer_config,
        plan.writer_segments,
        plan.next_seq,
    )?;
    let snap = SnapWriter::new(
        Arc::clone(&storage),
        Arc::clone(&counters),
        config.observer.clone(),
        plan.installed,
    );
    let table: HashMap<String, RoomEntry> = plan
        .rooms
        .iter()
        .map(|r| {
            let entry = RoomEntry {
                meta: r.meta.clone(),
                incarnation: r.incarnation,
                last_seq: r.last_seq,
            };
            (r.meta.id.clone(), entry)
        })
        .collect();
    let report = RecoveryReport {
        took: start.elapsed(),
        segments: plan.segments.len(),
        records: plan
            .segments
            .iter()
            .map(|s| s.scan.records.len() as u64)
            .sum(),
        log_bytes: plan.segments.iter().map(|s| s.scan.file_len).sum(),
        rooms: rooms.len(),
        deleted_rooms: plan.deleted_rooms,
        snapshots_read: plan.snapshots_read,
        records_replayed: replayed,
        torn: plan.torn.clone(),
        set_aside: plan.set_aside.clone(),
        removed_files: plan.remove.len(),
    };
    let state = StartState {
        next_seq: plan.next_seq,
        rooms: table,
        cover: plan.cover,
        lock,
    };
    let persist = Persist::start(&config, counters, state, log, snap);
    let recovered = Recovered {
        rooms,
        next_seq: plan.next_seq,
        report,
    };
    Ok((persist, recovered))
}
