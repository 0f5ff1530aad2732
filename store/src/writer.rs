//! The log writer: turns drained records into one write and one `fdatasync`, rolls
//! segments, and deletes old segments once snapshots cover them.
//!
//! Invariants:
//! * records reach the file in seq order, and a drain returns only once every one of
//!   them is durable (file data synced, and the directory too if a segment was created);
//! * a segment is synced in full before the next one is created, so every segment but the
//!   last is complete on disk at any crash;
//! * segments are deleted oldest first, one durable removal at a time, so the log on
//!   disk is always one gapless run of seqs;
//! * a segment is deleted only if every room incarnation with records in it is gone
//!   (deleted, its snapshots removed durably) or has a retained snapshot, not the newest,
//!   at or past its last record there: the newest snapshot can then be corrupt and
//!   recovery still falls back to the older one with the log covering the gap.

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use super::error::{PersistError, Result};
use super::record::{FRAME_LEN, Kind, put_frame, segment_header, segment_name};
use super::stats::{Counters, PersistObserver};
use super::storage::{Storage, WriteFile};

/// The log's directory in the data dir.
pub(super) const LOG_DIR: &str = "log";

/// A record appended and not yet written.
#[derive(Debug)]
pub(crate) struct Pending {
    pub kind: Kind,
    pub seq: u64,
    pub payload: Vec<u8>,
    /// The room incarnation (the seq of its `created` record).
    pub incarnation: u64,
    pub room: String,
}

impl Pending {
    pub(crate) fn size(&self) -> u64 {
        (FRAME_LEN + self.payload.len()) as u64
    }
}

/// What truncation may assume of a room incarnation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cover {
    /// Deleted, and its snapshots removed durably: none of its records are needed.
    Gone,
    /// Its records up to this seq are covered by a retained snapshot that is not the
    /// newest one.
    Upto(u64),
}

/// A segment on disk, as the writer tracks it.
#[derive(Debug)]
pub(crate) struct SegmentInfo {
    pub first_seq: u64,
    pub len: u64,
    /// Incarnation -> seq of its last record in this segment.
    pub rooms: HashMap<u64, u64>,
}

struct Active {
    info: SegmentInfo,
    file: Box<dyn WriteFile>,
    records: u64,
}

pub(crate) struct LogWriter {
    storage: Arc<dyn Storage>,
    counters: Arc<Counters>,
    observer: Option<Arc<dyn PersistObserver>>,
    epoch: u64,
    binary_version: String,
    segment_bytes: u64,
    sealed: VecDeque<SegmentInfo>,
    active: Active,
    buf: Vec<u8>,
}

fn seg_path(first_seq: u64) -> PathBuf {
    Path::new(LOG_DIR).join(segment_name(first_seq))
}

pub(crate) struct WriterConfig {
    pub epoch: u64,
    pub binary_version: String,
    pub segment_bytes: u64,
    pub observer: Option<Arc<dyn PersistObserver>>,
}

impl LogWriter {
    /// A writer continuing after `sealed` segments with a new segment at `next_seq`
    /// (created and made durable here).
    pub(crate) fn start(
        storage: Arc<dyn Storage>,
        counters: Arc<Counters>,
        config: WriterConfig,
        sealed: VecDeque<SegmentInfo>,
        next_seq: u64,
    ) -> Result<Self> {
        let (file, len) = create_segment(&*storage, &counters, next_seq, &config.binary_version)?;
        let dir = Path::new(LOG_DIR);
        storage
            .sync_dir(dir)
            .map_err(|e| PersistError::io(storage.display(dir), "fsync dir", e))?;
        let live = sealed.len() as u64 + 1;
        let bytes = sealed.iter().map(|s| s.len).sum::<u64>() + len;
        counters
            .segments_live
            .store(live, std::sync::atomic::Ordering::Relaxed);
        counters
            .log_disk_bytes
            .store(bytes, std::sync::atomic::Ordering::Relaxed);
        Ok(LogWriter {
            storage,
            counters,
            observer: config.observer,
            epoch: config.epoch,
            binary_version: config.binary_version,
            segment_bytes: config.segment_bytes,
            sealed,
            active: Active {
                info: SegmentInfo {
                    first_seq: next_seq,
                    len,
                    rooms: HashMap::new(),
                },
                file,
                records: 0,
            },
            buf: Vec::new(),
        })
    }

    /// Writes the buffered bytes to the active segment.
    fn flush(&mut self) -> Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let path = seg_path(self.active.info.first_seq);
        let err = super::storage::io_error(&*self.storage, &path, "write");
        self.active.file.write_all(&self.buf).map_err(err)?;
        let n = self.buf.len() as u64;
        self.active.info.len += n;
        Counters::add(&self.counters.log_bytes_written, n);
        Counters::add(&self.counters.log_disk_bytes, n);
        self.buf.clear();
        Ok(())
    }

    fn sync(&mut self, bytes: u64) -> Result<()> {
        let path = seg_path(self.active.info.first_seq);
        let err = super::storage::io_error(&*self.storage, &path, "fdatasync");
        let start = Instant::now();
        self.active.file.sync_data().map_err(err)?;
        let took = start.elapsed();
        let nanos = took.as_nanos() as u64;
        Counters::add(&self.counters.fsyncs, 1);
        Counters::add(&self.counters.fsync_nanos_total, nanos);
        Counters::max(&self.counters.fsync_nanos_max, nanos);
        if let Some(o) = &self.observer {
            o.fsync(took, bytes);
        }
        Ok(())
    }

    /// Writes `batch` (in seq order) and makes it durable; returns its last seq.
    pub(crate) fn drain(&mut self, batch: &[Pending]) -> Result<u64> {
        let mut created = false;
        let mut bytes = 0;
        for p in batch {
            let size = p.size();
            let full = self.active.info.len + self.buf.len() as u64 + size > self.segment_bytes;
            if full && self.active.records > 0 {
                self.roll(p.seq)?;
                created = true;
            }
            put_frame(&mut self.buf, p.kind, self.epoch, p.seq, &p.payload);
            self.active.info.rooms.insert(p.incarnation, p.seq);
            self.active.records += 1;
            bytes += size;
        }
        self.flush()?;
        self.sync(bytes)?;
        if created {
            let dir = Path::new(LOG_DIR);
            let err = super::storage::io_error(&*self.storage, dir, "fsync dir");
            self.storage.sync_dir(dir).map_err(err)?;
        }
        Counters::add(&self.counters.records_written, batch.len() as u64);
        Ok(batch.last().map_or(0, |p| p.seq))
    }

    /// Seals the active segment (durably) and starts one at `first_seq`.
    fn roll(&mut self, first_seq: u64) -> Result<()> {
        self.flush()?;
        self.sync(0)?;
        let (file, len) = create_segment(
            &*self.storage,
            &self.counters,
            first_seq,
            &self.binary_version,
        )?;
        let next = Active {
            info: SegmentInfo {
                first_seq,
                len,
                rooms: HashMap::new(),
            },
            file,
            records: 0,
        };
        let old = std::mem::replace(&mut self.active, next);
        self.sealed.push_back(old.info);
        Counters::add(&self.counters.segments_live, 1);
        Counters::add(&self.counters.log_disk_bytes, len);
        Ok(())
    }

    /// Deletes the oldest segments that `cover` makes unneeded; returns how many.
    pub(crate) fn truncate(&mut self, cover: &HashMap<u64, Cover>) -> Result<usize> {
        let mut deleted = 0;
        while let Some(seg) = self.sealed.front() {
            let needed = seg.rooms.iter().any(|(inc, &last)| match cover.get(inc) {
                Some(Cover::Gone) => false,
                Some(Cover::Upto(seq)) => *seq < last,
                None => true,
            });
            if needed {
                break;
            }
            let path = seg_path(seg.first_seq);
            let err = super::storage::io_error(&*self.storage, &path, "remove");
            self.storage.remove(&path).map_err(err)?;
            // One durable removal at a time: a crash never leaves a hole in the log.
            let dir = Path::new(LOG_DIR);
            let err = super::storage::io_error(&*self.storage, dir, "fsync dir");
            self.storage.sync_dir(dir).map_err(err)?;
            let seg = self.sealed.pop_front().expect("checked above");
            Counters::add(&self.counters.segments_deleted, 1);
            self.counters
                .segments_live
                .fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
            self.counters
                .log_disk_bytes
                .fetch_sub(seg.len, std::sync::atomic::Ordering::Relaxed);
            deleted += 1;
        }
        Ok(deleted)
    }

    /// Incarnations that still have records in some segment.
    pub(crate) fn incarnations(&self) -> impl Iterator<Item = u64> + '_ {
        self.sealed
            .iter()
            .chain(std::iter::once(&self.active.info))
            .flat_map(|s| s.rooms.keys().copied())
    }
}

fn create_segment(
    storage: &dyn Storage,
    counters: &Counters,
    first_seq: u64,
    binary_version: &str,
) -> Result<(Box<dyn WriteFile>, u64)> {
    let path = seg_path(first_seq);
    let show = || storage.display(&path);
    let mut file = storage
        .create(&path)
        .map_err(|e| PersistError::io(show(), "create", e))?;
    let header = segment_header(first_seq, binary_version);
    file.write_all(&header)
        .map_err(|e| PersistError::io(show(), "write", e))?;
    Counters::add(&counters.segments_created, 1);
    Counters::add(&counters.log_bytes_written, header.len() as u64);
    Ok((file, header.len() as u64))
}
