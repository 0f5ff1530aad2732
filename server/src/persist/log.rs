//! [`Persist`]: the handle rooms and handlers use. It owns the append queue, the
//! durable watermark and its notifications, the failed state, and the two threads (the
//! log thread doing group commit, the snapshot writer).
//!
//! Invariants:
//! * seqs are assigned under one lock in the order records are appended, gapless, and
//!   written in that order; `durable_seq` only grows, and only after the `fdatasync` that
//!   made every record up to it durable has returned;
//! * `append` never blocks on I/O: it takes the queue lock for a few field updates and
//!   refuses (`Overloaded`) when the bytes appended and not yet durable would exceed the
//!   bound;
//! * never more than one log fsync in flight: only the log thread writes the log;
//! * fsyncgate: after any failed write or fsync the layer is failed for good: the error is
//!   kept, `durable_seq` stops, the queue is dropped, every later append is refused,
//!   waiters are woken with the error. Nothing is retried.

use std::any::Any;
use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::thread::JoinHandle;

use canopy_protocol::Op;
use parking_lot::{Condvar, Mutex, RwLock};
use tokio::sync::watch;

use super::PersistConfig;
use super::error::{PersistError, Result};
use super::record::{Body, FRAME_LEN, Kind, MAX_PAYLOAD, RoomMeta, encode_batches, encode_payload};
use super::snapshot::{RoomSnapshot, RoomState};
use super::snapwriter::{SnapJob, SnapWriter};
use super::stats::{Counters, PersistObserver, PersistStats};
use super::writer::{Cover, LogWriter, Pending};

/// The durable watermark, as watchers and hooks see it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Durability {
    /// Every record with a seq up to this one is durable (0: none yet).
    pub durable_seq: u64,
    /// The layer has failed; `durable_seq` will not move again.
    pub failed: bool,
}

type Hook = Box<dyn Fn(Durability) + Send + Sync>;

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
    pub(super) durable: Mutex<Durability>,
    pub(super) durable_cv: Condvar,
    pub(super) durable_seq: AtomicU64,
    pub(super) watch: watch::Sender<Durability>,
    pub(super) hooks: RwLock<Vec<Hook>>,
    pub(super) failed: OnceLock<Arc<PersistError>>,
    pub(super) snaps: Mutex<SnapQueue>,
    pub(super) snap_cv: Condvar,
    pub(super) cover: Mutex<HashMap<u64, Cover>>,
}

enum Engine {
    Threads {
        log: JoinHandle<Option<LogWriter>>,
        snap: JoinHandle<()>,
    },
    Manual {
        log: Box<LogWriter>,
        snap: Box<SnapWriter>,
    },
    Stopped,
}

/// The storage layer, open on one data dir. Cheap to share behind an `Arc`; every method
/// takes `&self`.
pub struct Persist {
    shared: Arc<Shared>,
    engine: Mutex<Engine>,
    _lock: Mutex<Box<dyn Any + Send>>,
}

impl std::fmt::Debug for Persist {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Persist")
            .field("durable_seq", &self.durable_seq())
            .field("failed", &self.failed().is_some())
            .finish_non_exhaustive()
    }
}

/// What recovery hands to [`Persist::start`].
pub(crate) struct StartState {
    pub next_seq: u64,
    pub rooms: HashMap<String, RoomEntry>,
    pub cover: HashMap<u64, Cover>,
    pub lock: Box<dyn Any + Send>,
}

impl Persist {
    pub(crate) fn start(
        config: &PersistConfig,
        counters: Arc<Counters>,
        state: StartState,
        log: LogWriter,
        snap: SnapWriter,
    ) -> Persist {
        let durable = Durability {
            durable_seq: state.next_seq - 1,
            failed: false,
        };
        let shared = Arc::new(Shared {
            counters,
            observer: config.observer.clone(),
            capacity: config.max_queued_bytes,
            queue: Mutex::new(Queue {
                next_seq: state.next_seq,
                pending: Vec::new(),
                unsynced: 0,
                rooms: state.rooms,
                shutdown: false,
                poke: true,
            }),
            work: Condvar::new(),
            durable: Mutex::new(durable),
            durable_cv: Condvar::new(),
            durable_seq: AtomicU64::new(durable.durable_seq),
            watch: watch::Sender::new(durable),
            hooks: RwLock::new(Vec::new()),
            failed: OnceLock::new(),
            snaps: Mutex::new(SnapQueue::default()),
            snap_cv: Condvar::new(),
            cover: Mutex::new(state.cover),
        });
        let engine = if config.threads {
            let s = Arc::clone(&shared);
            let log = std::thread::Builder::new()
                .name("canopy-log".into())
                .spawn(move || s.log_loop(log))
                .expect("spawning the log thread");
            let s = Arc::clone(&shared);
            let snap = std::thread::Builder::new()
                .name("canopy-snapshot".into())
                .spawn(move || s.snap_loop(snap))
                .expect("spawning the snapshot thread");
            Engine::Threads { log, snap }
        } else {
            Engine::Manual {
                log: Box::new(log),
                snap: Box::new(snap),
            }
        };
        Persist {
            shared,
            engine: Mutex::new(engine),
            _lock: Mutex::new(state.lock),
        }
    }

    /// Logs a room's creation; returns its seq (also the room incarnation's id).
    pub fn create_room(&self, meta: &RoomMeta) -> Result<u64> {
        let id = &meta.id;
        let valid = (1..=64).contains(&id.len())
            && id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if !valid {
            return Err(PersistError::Misuse(format!("invalid room id {id:?}")));
        }
        let payload = encode_payload(id, 0, &Body::Created(meta.clone()));
        self.shared
            .push(Kind::Created, id, payload, Some(meta), None)
    }

    /// Logs a room's deletion.
    pub fn delete_room(&self, room: &str) -> Result<u64> {
        let payload = encode_payload(room, 0, &Body::Deleted);
        self.shared.push(Kind::Deleted, room, payload, None, None)
    }

    /// Logs a tick that applied `batches` (in order). Encoding happens here, outside the
    /// queue lock.
    pub fn tick(&self, room: &str, tick: u64, time_ms: u64, batches: &[Vec<Op>]) -> Result<u64> {
        let body = Body::Tick {
            tick,
            time_ms,
            batches: encode_batches(batches),
        };
        let payload = encode_payload(room, 0, &body);
        self.shared.push(Kind::Tick, room, payload, None, None)
    }

    /// [`Persist::tick`] for the incarnation of `room` created by record `incarnation`
    /// only: a room deleted and created again under the same id is another incarnation,
    /// so a late record of the old one is refused instead of joining the new one's chain.
    pub fn tick_of(
        &self,
        room: &str,
        incarnation: u64,
        tick: u64,
        time_ms: u64,
        batches: &[Vec<Op>],
    ) -> Result<u64> {
        let body = Body::Tick {
            tick,
            time_ms,
            batches: encode_batches(batches),
        };
        let payload = encode_payload(room, 0, &body);
        self.shared
            .push(Kind::Tick, room, payload, None, Some(incarnation))
    }

    /// [`Persist::checkpoint`] for one incarnation of `room` (see [`Persist::tick_of`]).
    pub fn checkpoint_of(
        &self,
        room: &str,
        incarnation: u64,
        tick: u64,
        time_ms: u64,
    ) -> Result<u64> {
        let payload = encode_payload(room, 0, &Body::Checkpoint { tick, time_ms });
        self.shared
            .push(Kind::Checkpoint, room, payload, None, Some(incarnation))
    }

    /// Bytes that may still be appended before appends are refused as overloaded. A
    /// room checks it before applying batches, so that the record of a tick it has
    /// applied is not refused for room.
    pub fn headroom(&self) -> u64 {
        let unsynced = self.shared.queue.lock().unsynced;
        self.shared.capacity.saturating_sub(unsynced)
    }

    /// Fails the layer for good with `reason` (a caller that cannot keep its records
    /// and memory in step, as a refused append of an applied tick): from now on every
    /// append is refused, as after a failed fsync.
    pub fn fail_with(&self, reason: String) {
        self.shared.fail(PersistError::Misuse(reason));
    }

    /// Logs a room's tick counter when it applied nothing.
    pub fn checkpoint(&self, room: &str, tick: u64, time_ms: u64) -> Result<u64> {
        let payload = encode_payload(room, 0, &Body::Checkpoint { tick, time_ms });
        self.shared
            .push(Kind::Checkpoint, room, payload, None, None)
    }

    /// Asks for a snapshot of `room` reflecting its records up to `seq`, which must be
    /// the seq of its last record. It is installed once the log is durable up to `seq`.
    /// A request replaces one for the same room that has not started yet.
    pub fn request_snapshot(&self, room: &str, seq: u64, state: RoomState) -> Result<()> {
        self.shared.request_snapshot(room, seq, state)
    }

    /// The seq of the last durable record (0: none).
    pub fn durable_seq(&self) -> u64 {
        self.shared.durable_seq.load(Ordering::Acquire)
    }

    /// The seq of the last record of `room`, if it exists.
    pub fn last_seq(&self, room: &str) -> Option<u64> {
        self.shared.queue.lock().rooms.get(room).map(|r| r.last_seq)
    }

    /// The error that failed the layer, if it failed.
    pub fn failed(&self) -> Option<Arc<PersistError>> {
        self.shared.failed.get().cloned()
    }

    /// Calls `hook` on the log thread after every advance of `durable_seq` and on
    /// failure, before blocked and async waiters are woken. Keep it short (wake a thread).
    pub fn on_durable(&self, hook: impl Fn(Durability) + Send + Sync + 'static) {
        self.shared.hooks.write().push(Box::new(hook));
    }

    /// A watch of the durable watermark (for async callers; no runtime needed to send).
    pub fn watch(&self) -> watch::Receiver<Durability> {
        self.shared.watch.subscribe()
    }

    /// Resolves once `seq` is durable, or with the failure that means it never will be.
    pub fn durable(&self, seq: u64) -> impl Future<Output = Result<()>> + Send + 'static {
        let mut rx = self.watch();
        let shared = Arc::clone(&self.shared);
        async move {
            let reached = match rx.wait_for(|d| d.durable_seq >= seq || d.failed).await {
                Ok(d) => d.durable_seq >= seq,
                Err(_) => false,
            };
            if reached {
                Ok(())
            } else {
                Err(shared.failure())
            }
        }
    }

    /// Blocks until `seq` is durable, or returns the failure.
    pub fn wait_durable(&self, seq: u64) -> Result<()> {
        self.shared.wait_durable(seq)
    }

    /// Blocks until every requested snapshot is installed (or dropped by a failure).
    pub fn wait_snapshots(&self) -> Result<()> {
        let manual = matches!(&*self.engine.lock(), Engine::Manual { .. });
        if manual {
            return self.step();
        }
        let mut s = self.shared.snaps.lock();
        while (!s.jobs.is_empty() || s.busy) && self.shared.failed.get().is_none() {
            self.shared.snap_cv.wait(&mut s);
        }
        match self.shared.failed.get() {
            Some(e) => Err(PersistError::Failed(Arc::clone(e))),
            None => Ok(()),
        }
    }

    /// Counters and gauges for metrics.
    pub fn stats(&self) -> PersistStats {
        let mut s = PersistStats::default();
        self.shared.counters.fill(&mut s);
        let q = self.shared.queue.lock();
        s.appended_seq = q.next_seq - 1;
        s.queued_bytes = q.unsynced;
        drop(q);
        s.queue_capacity = self.shared.capacity;
        s.durable_seq = self.durable_seq();
        s.snapshots_pending = self.shared.snaps.lock().jobs.len() as u64;
        s.failed = self.shared.failed.get().is_some();
        s
    }

    /// Without threads (`PersistConfig::threads == false`, for deterministic tests): does
    /// on the caller's thread what the threads would do now: write and sync every queued
    /// record, install every requested snapshot, delete covered segments.
    pub fn step(&self) -> Result<()> {
        let mut engine = self.engine.lock();
        let Engine::Manual { log, snap } = &mut *engine else {
            return Ok(());
        };
        let sh = &self.shared;
        if sh.failed.get().is_some() {
            return Err(sh.failure());
        }
        let batch = std::mem::take(&mut sh.queue.lock().pending);
        if !batch.is_empty() {
            sh.drain(log, batch).map_err(|e| sh.fail(e))?;
        }
        let jobs = std::mem::take(&mut sh.snaps.lock().jobs);
        for job in jobs {
            let durable = |seq| sh.durable_seq.load(Ordering::Acquire) >= seq;
            sh.run_job(snap, job, durable).map_err(|e| sh.fail(e))?;
        }
        sh.truncate(log).map_err(|e| sh.fail(e))?;
        Ok(())
    }

    /// Writes and syncs everything appended, installs requested snapshots, stops the
    /// threads and releases the data dir. Also done on drop.
    pub fn shutdown(&self) -> Result<()> {
        let mut engine = self.engine.lock();
        let sh = &self.shared;
        match std::mem::replace(&mut *engine, Engine::Stopped) {
            Engine::Threads { log, snap } => {
                sh.queue.lock().shutdown = true;
                sh.work.notify_all();
                let writer = log.join().ok().flatten();
                sh.snaps.lock().shutdown = true;
                sh.snap_cv.notify_all();
                let _ = snap.join();
                if let Some(mut w) = writer
                    && sh.failed.get().is_none()
                {
                    sh.truncate(&mut w).map_err(|e| sh.fail(e))?;
                }
            }
            manual @ Engine::Manual { .. } => {
                *engine = manual;
                drop(engine);
                self.step()?;
                *self.engine.lock() = Engine::Stopped;
                sh.queue.lock().shutdown = true;
            }
            Engine::Stopped => {}
        }
        // Nothing more is written: the data dir is free for another process (rooms
        // that still hold this handle only get `Closed` from it).
        *self._lock.lock() = Box::new(());
        match sh.failed.get() {
            Some(e) => Err(PersistError::Failed(Arc::clone(e))),
            None => Ok(()),
        }
    }
}

impl Drop for Persist {
    fn drop(&mut self) {
        let _ = self.shutdown();
    }
}

impl Shared {
    pub(super) fn failure(&self) -> PersistError {
        match self.failed.get() {
            Some(e) => PersistError::Failed(Arc::clone(e)),
            None => PersistError::Closed,
        }
    }

    fn push(
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

    fn request_snapshot(&self, room: &str, seq: u64, state: RoomState) -> Result<()> {
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

    /// Tells everyone watching the watermark: the hooks first, so that whoever a waiter
    /// hands the news to can count on the hooks (the tick threads' wake-ups) having seen
    /// it already, then blocked and async waiters.
    fn publish(&self, d: Durability) {
        for hook in self.hooks.read().iter() {
            hook(d);
        }
        self.durable_cv.notify_all();
        self.watch.send_replace(d);
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
