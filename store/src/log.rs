//! [`Persist`]: the handle rooms and handlers use, and the two threads it runs (the log
//! thread doing group commit, the snapshot writer). What the handle and the threads share
//! (the append queue, the durable watermark, the failed state) is [`Shared`], in
//! `shared.rs`, with the invariants of seqs, the append bound and fsyncgate.
//!
//! Invariant: never more than one log fsync in flight: only the log thread writes the
//! log, and a handle in manual mode (tests) steps it from one caller.

use std::any::Any;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::thread::JoinHandle;

use canopy_protocol::Op;
use parking_lot::{Condvar, Mutex, RwLock};

use super::PersistConfig;
use super::error::{PersistError, Result};
use super::record::{Body, Kind, RoomMeta, encode_batches, encode_payload};
use super::shared::{Queue, RoomEntry, Shared, SnapQueue, Watermark};
use super::snapshot::RoomState;
use super::snapwriter::SnapWriter;
use super::stats::{Counters, PersistStats};
use super::writer::{Cover, LogWriter};

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
        let durable = Watermark {
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
    pub fn on_durable(&self, hook: impl Fn(Watermark) + Send + Sync + 'static) {
        self.shared.hooks.write().push(Box::new(hook));
    }

    /// The durable watermark now (async callers keep their own watch of it, fed by an
    /// [`on_durable`](Self::on_durable) hook: this layer knows no runtime).
    pub fn watermark(&self) -> Watermark {
        *self.shared.durable.lock()
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
