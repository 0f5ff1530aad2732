//! The snapshot writer: installs per-room snapshots atomically and removes the snapshots
//! of deleted rooms.
//!
//! A snapshot is written to `snap/<room>.<seq>.snap.tmp`, fsynced, and renamed into place
//! only once the log is durable up to the seq it covers (never ahead of the durable
//! log), then the directory is fsynced. The two newest snapshots of a room are kept.
//!
//! Invariants: jobs run one at a time in the order they were queued (a room's deletion
//! is processed after every snapshot requested before it, so a deleted room is never
//! resurrected by a late install); truncation learns of a snapshot or a deletion only
//! after it is durable.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use super::error::Result;
use super::snapshot::{self, RoomSnapshot};
use super::stats::{Counters, PersistObserver};
use super::storage::Storage;
use super::writer::Cover;

/// The snapshots' directory in the data dir.
pub(super) const SNAP_DIR: &str = "snap";

/// Work for the snapshot writer.
#[derive(Debug)]
pub(crate) enum SnapJob {
    Write(Box<RoomSnapshot>),
    /// The room incarnation was deleted by the durable record `seq`.
    Deleted {
        room: String,
        incarnation: u64,
        seq: u64,
    },
}

/// A snapshot file on disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Installed {
    pub seq: u64,
    pub incarnation: u64,
}

pub(crate) struct SnapWriter {
    storage: Arc<dyn Storage>,
    counters: Arc<Counters>,
    observer: Option<Arc<dyn PersistObserver>>,
    /// Room id -> its snapshot files, oldest first.
    installed: HashMap<String, Vec<Installed>>,
}

fn path_of(room: &str, seq: u64) -> PathBuf {
    Path::new(SNAP_DIR).join(snapshot::file_name(room, seq))
}

impl SnapWriter {
    pub(crate) fn new(
        storage: Arc<dyn Storage>,
        counters: Arc<Counters>,
        observer: Option<Arc<dyn PersistObserver>>,
        installed: HashMap<String, Vec<Installed>>,
    ) -> Self {
        SnapWriter {
            storage,
            counters,
            observer,
            installed,
        }
    }

    fn sync_dir(&self) -> Result<()> {
        let dir = Path::new(SNAP_DIR);
        self.storage.sync_dir(dir).map_err(super::storage::io_error(
            &*self.storage,
            dir,
            "fsync dir",
        ))
    }

    /// Writes `snap`; `wait_durable(seq)` blocks until the log covers `seq`, false if it
    /// never will (the log failed). Returns the coverage change for truncation, if any.
    pub(crate) fn write(
        &mut self,
        snap: &RoomSnapshot,
        wait_durable: impl FnOnce(u64) -> bool,
    ) -> Result<Option<(u64, Cover)>> {
        let start = Instant::now();
        let bytes = snapshot::encode(snap);
        let room = &snap.meta.id;
        let done = path_of(room, snap.seq);
        let tmp = done.with_extension("snap.tmp");
        let mut file = self.storage.create(&tmp).map_err(super::storage::io_error(
            &*self.storage,
            &tmp,
            "create",
        ))?;
        file.write_all(&bytes)
            .map_err(super::storage::io_error(&*self.storage, &tmp, "write"))?;
        file.sync_data()
            .map_err(super::storage::io_error(&*self.storage, &tmp, "fdatasync"))?;
        drop(file);
        if !wait_durable(snap.seq) {
            // The log failed: this snapshot may cover records that are not durable.
            // Leave the temporary file: the next start removes it.
            return Ok(None);
        }
        self.storage
            .rename(&tmp, &done)
            .map_err(super::storage::io_error(&*self.storage, &tmp, "rename"))?;
        self.sync_dir()?;
        let took = start.elapsed();
        Counters::add(&self.counters.snapshots_written, 1);
        Counters::add(&self.counters.snapshot_bytes_written, bytes.len() as u64);
        Counters::add(&self.counters.snapshot_nanos_total, took.as_nanos() as u64);
        Counters::max(&self.counters.snapshot_nanos_max, took.as_nanos() as u64);
        if let Some(o) = &self.observer {
            o.snapshot(room, bytes.len() as u64, took);
        }
        let list = self.installed.entry(room.clone()).or_default();
        let me = Installed {
            seq: snap.seq,
            incarnation: snap.created_seq,
        };
        // A second snapshot at the same seq replaced the first (same name).
        if list.last() != Some(&me) {
            list.push(me);
        }
        // Keep the two newest of this incarnation; older incarnations' files go with
        // their deletion job.
        let mine: Vec<u64> = list
            .iter()
            .filter(|i| i.incarnation == snap.created_seq)
            .map(|i| i.seq)
            .collect();
        let drop_below = mine.len().checked_sub(2).map(|n| mine[n]);
        let mut old = Vec::new();
        if let Some(keep_from) = drop_below {
            old = list
                .iter()
                .copied()
                .filter(|i| i.incarnation == snap.created_seq && i.seq < keep_from)
                .collect();
            list.retain(|i| !old.contains(i));
        }
        for i in &old {
            let p = path_of(room, i.seq);
            self.storage.remove(&p).map_err(super::storage::io_error(
                &*self.storage,
                &p,
                "remove",
            ))?;
        }
        let removed = !old.is_empty();
        if removed {
            self.sync_dir()?;
        }
        Ok(drop_below.map(|seq| (snap.created_seq, Cover::Upto(seq))))
    }

    /// Removes the snapshots of a deleted incarnation (every file of `room` before
    /// `seq`), durably; returns the coverage change.
    pub(crate) fn deleted(
        &mut self,
        room: &str,
        incarnation: u64,
        seq: u64,
    ) -> Result<(u64, Cover)> {
        let list = self.installed.entry(room.to_string()).or_default();
        let old: Vec<Installed> = list.iter().copied().filter(|i| i.seq < seq).collect();
        list.retain(|i| i.seq >= seq);
        if list.is_empty() {
            self.installed.remove(room);
        }
        for i in &old {
            let p = path_of(room, i.seq);
            self.storage.remove(&p).map_err(super::storage::io_error(
                &*self.storage,
                &p,
                "remove",
            ))?;
        }
        if !old.is_empty() {
            self.sync_dir()?;
        }
        Ok((incarnation, Cover::Gone))
    }
}
