//! [`Shared`]: what the [`Persist`](super::Persist) handle and the layer's two threads
//! share: the append queue with its seq counter and byte bound, the durable watermark and
//! its notifications (hooks and a condvar), the failed state, the snapshot job
//! queue and what snapshots cover.
//!
//! Invariants:
//! * seqs are assigned under one lock in the order records are appended, gapless, and
//!   written in that order; `durable_seq` only grows, and only after the `fdatasync` that
//!   made every record up to it durable has returned;
//! * an append never blocks on I/O: it takes the queue lock for a few field updates and
//!   refuses (`Overloaded`) when the bytes appended and not yet durable would exceed the
//!   bound;
//! * fsyncgate: after any failed write or fsync the layer is failed for good: the error is
//!   kept, `durable_seq` stops, the queue is dropped, every later append is refused,
//!   waiters are woken with the error. Nothing is retried.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use parking_lot::{Condvar, Mutex, RwLock};

use super::error::{PersistError, Result};
use super::record::{FRAME_LEN, Kind, MAX_PAYLOAD, RoomMeta};
use super::snapshot::{RoomSnapshot, RoomState};
use super::snapwriter::SnapJob;
use super::stats::{Counters, PersistObserver};
use super::writer::{Cover, LogWriter, Pending};

/// The durable watermark, as watchers and hooks see it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Watermark {
    /// Every record with a seq up to this one is durable (0: none yet).
    pub durable_seq: u64,
    /// The layer has failed; `durable_seq` will not move again.
    pub failed: bool,
}

pub(super) type Hook = Box<dyn Fn(Watermark) + Send + Sync>;

pub(crate) struct RoomEntry {
    pub meta: RoomMeta,
    pub incarnation: u64,
    pub last_seq: u64,
}

pub(super) struct Queue {
    pub(super) next_seq: u64,
    pub(super) pending: Vec<Pending>,
    /// Bytes appended and not yet durable.
    pub(super) unsynced: u64,
    pub(super) rooms: HashMap<String, RoomEntry>,
    pub(super) shutdown: bool,
    /// Coverage changed: the log thread should try truncation.
    pub(super) poke: bool,
}

#[derive(Default)]
pub(super) struct SnapQueue {
    pub(super) jobs: VecDeque<SnapJob>,
    pub(super) busy: bool,
    pub(super) shutdown: bool,
}

pub(crate) struct Shared {
    pub(super) counters: Arc<Counters>,
    pub(super) observer: Option<Arc<dyn PersistObserver>>,
    pub(super) capacity: u64,
    pub(super) queue: Mutex<Queue>,
    pub(super) work: Condvar,
    pub(super) durable: Mutex<Watermark>,
    pub(super) durable_cv: Condvar,
    pub(super) durable_seq: AtomicU64,
    pub(super) hooks: RwLock<Vec<Hook>>,
    pub(super) failed: OnceLock<Arc<PersistError>>,
    pub(super) snaps: Mutex<SnapQueue>,
    pub(super) snap_cv: Condvar,
    pub(super) cover: Mutex<HashMap<u64, Cover>>,
}

impl Shared {
    pub(super) fn failure(&self) -> PersistError {
        match self.failed.get() {
            Some(e) => PersistError::Failed(Arc::clone(e)),
            None => PersistError::Closed,
        }
    }

    pub(super) fn push(
        &self,
        kind: Kind,
        room: &str,
        mut payload: Vec<u8>,
        meta: Option<&RoomMeta>,
        incarnation: Option<u64>,
    ) -> Result<u64> {
        let size = (FRAME_LEN + payload.len()) as u64;
        if payload.len() > MAX_PAYLOAD || size > self.capacity {
            let limit = self.capacity.min((FRAME_LEN + MAX_PAYLOAD) as u64);
            return Err(PersistError::TooLarge { size, limit });
        }
        let mut q = self.queue.lock();
        if self.failed.get().is_some() {
            return Err(self.failure());
        }
        if q.shutdown {
            return Err(PersistError::Closed);
        }
        if q.unsynced + size > self.capacity {
            return Err(PersistError::Overloaded {
                queued: q.unsynced,
                capacity: self.capacity,
            });
        }
        let seq = q.next_seq;
        let incarnation = match meta {
            Some(meta) => {
                if q.rooms.contains_key(room) {
                    return Err(PersistError::Misuse(format!("room {room:?} exists")));
                }
                let entry = RoomEntry {
                    meta: meta.clone(),
                    incarnation: seq,
                    last_seq: seq,
                };
                q.rooms.insert(room.to_string(), entry);
                seq
            }
            None => {
                let Some(entry) = q
                    .rooms
                    .get_mut(room)
                    .filter(|e| incarnation.is_none_or(|i| i == e.incarnation))
                else {
                    return Err(PersistError::Misuse(format!("no room {room:?}")));
                };
                // `prev` sits right after the room id in every payload but `created`'s.
                let at = 1 + room.len();
                payload[at..at + 8].copy_from_slice(&entry.last_seq.to_le_bytes());
                entry.last_seq = seq;
                let incarnation = entry.incarnation;
                if kind == Kind::Deleted {
                    q.rooms.remove(room);
                }
                incarnation
            }
        };
        q.next_seq += 1;
        q.unsynced += size;
        q.pending.push(Pending {
            kind,
            seq,
            payload,
            incarnation,
            room: room.to_string(),
        });
        drop(q);
        self.work.notify_one();
        Ok(seq)
    }

    pub(super) fn request_snapshot(&self, room: &str, seq: u64, state: RoomState) -> Result<()> {
        let q = self.queue.lock();
        if self.failed.get().is_some() {
            return Err(self.failure());
        }
        if q.shutdown {
            return Err(PersistError::Closed);
        }
        let Some(entry) = q.rooms.get(room) else {
            return Err(PersistError::Misuse(format!("no room {room:?}")));
        };
        if entry.last_seq != seq {
            let last = entry.last_seq;
            let what =
                format!("snapshot of room {room:?} at seq {seq}, but its last record is {last}");
            return Err(PersistError::Misuse(what));
        }
        let snap = RoomSnapshot {
            meta: entry.meta.clone(),
            created_seq: entry.incarnation,
            seq,
            state,
        };
        // Queued under the append lock, so that a later deletion's job comes after it.
        let mut s = self.snaps.lock();
        let same = s.jobs.iter_mut().find_map(|j| match j {
            SnapJob::Write(old) if old.created_seq == snap.created_seq => Some(old),
            _ => None,
        });
        match same {
            Some(old) => **old = snap,
            None => s.jobs.push_back(SnapJob::Write(Box::new(snap))),
        }
        drop(s);
        drop(q);
        self.snap_cv.notify_all();
        Ok(())
    }

    pub(super) fn wait_durable(&self, seq: u64) -> Result<()> {
        let mut d = self.durable.lock();
        while d.durable_seq < seq && !d.failed {
            self.durable_cv.wait(&mut d);
        }
        if d.durable_seq >= seq {
            Ok(())
        } else {
            Err(self.failure())
        }
    }

    /// Enters the failed state (once); returns the error to hand to the caller.
    pub(super) fn fail(&self, err: PersistError) -> PersistError {
        let err = Arc::new(err);
        if self.failed.set(Arc::clone(&err)).is_ok() {
            tracing::error!(error = %err, "storage failed: refusing every edit from now on");
            if let Some(o) = &self.observer {
                o.failed(&err);
            }
        }
        self.queue.lock().pending.clear();
        self.snaps.lock().jobs.clear();
        let d = {
            let mut d = self.durable.lock();
            d.failed = true;
            *d
        };
        self.publish(d);
        self.work.notify_all();
        self.snap_cv.notify_all();
        self.failure()
    }

    /// Tells everyone watching the watermark: the hooks, in the order they were
    /// registered (the tick threads' wake-ups, then async waiters' watches), then
    /// blocked waiters.
    pub(super) fn publish(&self, d: Watermark) {
        for hook in self.hooks.read().iter() {
            hook(d);
        }
        self.durable_cv.notify_all();
    }

    /// Writes `batch`, then publishes the new watermark and queues deletion jobs.
    pub(super) fn drain(&self, log: &mut LogWriter, batch: Vec<Pending>) -> Result<()> {
        let last = log.drain(&batch)?;
        let bytes: u64 = batch.iter().map(Pending::size).sum();
        self.queue.lock().unsynced -= bytes;
        let d = {
            let mut d = self.durable.lock();
            d.durable_seq = last;
            *d
        };
        self.durable_seq.store(last, Ordering::Release);
        self.publish(d);
        let deleted = batch.into_iter().filter(|p| p.kind == Kind::Deleted);
        let mut s = self.snaps.lock();
        for p in deleted {
            s.jobs.push_back(SnapJob::Deleted {
                room: p.room,
                incarnation: p.incarnation,
                seq: p.seq,
            });
        }
        drop(s);
        self.snap_cv.notify_all();
        Ok(())
    }

    pub(super) fn truncate(&self, log: &mut LogWriter) -> Result<()> {
        let cover = self.cover.lock().clone();
        if log.truncate(&cover)? > 0 {
            // Forget deleted incarnations that no segment mentions any more.
            let live: std::collections::HashSet<u64> = log.incarnations().collect();
            self.cover
                .lock()
                .retain(|inc, c| *c != Cover::Gone || live.contains(inc));
        }
        Ok(())
    }
}
