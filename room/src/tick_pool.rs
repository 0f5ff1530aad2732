//! The threads that tick rooms: a pool sized to the machine (`--tick-threads`), many
//! rooms per thread, none of them a tokio worker, so a heavy tick never delays an HTTP
//! request or a WebSocket read.
//!
//! Each thread keeps its rooms on a fixed grid (start + n × period): a tick that runs
//! long is reported slow and the missed slots are skipped, so lateness is reported, never
//! accumulated as drift. Rooms are placed on the thread with the fewest rooms. A deleted
//! room is stopped as soon as its thread is woken; on shutdown every room runs one last
//! tick, so each batch already accepted is applied and answered, then closes its
//! subscribers with 1001.
//!
//! Invariant: a room lives on exactly one thread from placement until it stops, and
//! that thread is the only one that calls its [`Room::tick`] (so the tick stays the only
//! writer of its scene).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::{Arc, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use parking_lot::Mutex;

use crate::Room;

/// Housekeeping the embedding process wants on every tick thread, set once before any
/// room starts (the `canopy` binary hands freed memory back to the OS with it).
static HOUSEKEEPING: OnceLock<fn()> = OnceLock::new();

/// Sets the function every tick thread calls once per pass of its loop (before it
/// sleeps until its next room is due); it must be cheap or throttle itself. Only the
/// first call takes effect.
pub fn set_housekeeping(f: fn()) {
    let _ = HOUSEKEEPING.set(f);
}

/// How long a tick thread without rooms sleeps between two housekeeping calls.
const IDLE_WAKE: Duration = Duration::from_secs(1);

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

enum Msg {
    Place(Box<Room>),
    /// Look for rooms that were deleted.
    Wake,
    Shutdown,
}

struct Worker {
    tx: Sender<Msg>,
    rooms: Arc<AtomicUsize>,
}

/// The tick threads of a server.
#[derive(Default)]
pub struct TickPool {
    workers: Vec<Worker>,
    handles: Mutex<Vec<JoinHandle<()>>>,
}

impl std::fmt::Debug for TickPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TickPool")
            .field("threads", &self.workers.len())
            .finish_non_exhaustive()
    }
}

impl TickPool {
    /// Starts `threads` tick threads (at least one), each `nice` steps below the
    /// priority of the threads that serve requests.
    pub fn new(threads: usize, nice: i32) -> Self {
        let mut workers = Vec::new();
        let mut handles = Vec::new();
        for i in 0..threads.max(1) {
            let (tx, rx) = mpsc::channel();
            let rooms = Arc::new(AtomicUsize::new(0));
            let load = Arc::clone(&rooms);
            let handle = std::thread::Builder::new()
                .name(format!("canopy-tick-{i}"))
                .spawn(move || {
                    lower_priority(nice);
                    run(rx, load)
                })
                .expect("spawning a tick thread");
            workers.push(Worker { tx, rooms });
            handles.push(handle);
        }
        TickPool {
            workers,
            handles: Mutex::new(handles),
        }
    }

    /// The number of tick threads.
    pub fn threads(&self) -> usize {
        self.workers.len()
    }

    /// Hands a room to the thread with the fewest rooms; it ticks from one period on.
    pub fn place(&self, room: Room) {
        let Some((i, w)) = self
            .workers
            .iter()
            .enumerate()
            .min_by_key(|(_, w)| w.rooms.load(Ordering::Relaxed))
        else {
            return;
        };
        w.rooms.fetch_add(1, Ordering::Relaxed);
        let tx = w.tx.clone();
        room.shared().set_waker(Box::new(move || {
            let _ = tx.send(Msg::Wake);
        }));
        tracing::debug!(room = %room.shared().id, thread = i, "room placed");
        if w.tx.send(Msg::Place(Box::new(room))).is_err() {
            w.rooms.fetch_sub(1, Ordering::Relaxed);
        }
    }

    /// Runs every room's last tick, stops them and joins the threads. Blocks.
    pub fn shutdown(&self) {
        for w in &self.workers {
            let _ = w.tx.send(Msg::Shutdown);
        }
        for h in self.handles.lock().drain(..) {
            let _ = h.join();
        }
    }
}

/// One room on a thread and its place on the grid.
struct Slot {
    room: Box<Room>,
    period: Duration,
    next: Instant,
}

impl Slot {
    /// Moves `next` to the first grid slot after `now`, skipping the missed ones.
    fn reschedule(&mut self, now: Instant) {
        self.next += self.period;
        if self.next <= now {
            let late = now - self.next;
            let period = self.period.as_nanos().max(1);
            let skip = late.as_nanos() / period + 1;
            self.next += self.period * skip as u32;
        }
    }
}

/// Raises this thread's niceness by `nice`. On Linux the niceness is per thread
/// (`setpriority` on the thread id), so the tokio workers keep theirs; elsewhere the
/// flag does nothing. A refusal (a sandbox without the syscall) costs only the
/// preference, so it is logged, not fatal.
fn lower_priority(nice: i32) {
    if nice == 0 {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        let tid = rustix::thread::gettid();
        let result = rustix::process::getpriority_process(Some(tid))
            .and_then(|now| rustix::process::setpriority_process(Some(tid), now + nice));
        if let Err(e) = result {
            tracing::warn!(error = %e, nice, "could not lower the tick thread's priority");
        }
    }
}

fn run(rx: mpsc::Receiver<Msg>, load: Arc<AtomicUsize>) {
    let mut slots: Vec<Slot> = Vec::new();
    let housekeeping = HOUSEKEEPING.get().copied();
    loop {
        if let Some(f) = housekeeping {
            f();
        }
        let now = Instant::now();
        let due = slots.iter().map(|s| s.next).min();
        let msg = match due {
            Some(d) if d <= now => None,
            Some(d) => match rx.recv_timeout(d - now) {
                Ok(m) => Some(m),
                Err(RecvTimeoutError::Timeout) => None,
                Err(RecvTimeoutError::Disconnected) => Some(Msg::Shutdown),
            },
            // No room: still wake now and then for the housekeeping above, which a
            // thread blocked for good would never run again (the `canopy` binary hands
            // back the memory of the rooms this thread dropped there).
            None => match rx.recv_timeout(IDLE_WAKE) {
                Ok(m) => Some(m),
                Err(RecvTimeoutError::Timeout) => None,
                Err(RecvTimeoutError::Disconnected) => Some(Msg::Shutdown),
            },
        };
        match msg {
            Some(Msg::Place(room)) => {
                let period = Duration::from_nanos(room.period_ns());
                slots.push(Slot {
                    room,
                    period,
                    next: Instant::now() + period,
                });
            }
            Some(Msg::Shutdown) => {
                for s in &mut slots {
                    let report = s.room.tick(now_ms());
                    log_tick(&s.room, report);
                    s.room.stop(crate::CloseCause::ShuttingDown);
                }
                load.store(0, Ordering::Relaxed);
                return;
            }
            Some(Msg::Wake) | None => {}
        }
        slots.retain_mut(|s| {
            if s.room.shared().is_closed() && !s.room.is_stopped() {
                // Closed from outside: deleted, or unloaded because it moves on.
                let cause = s.room.shared().close_cause();
                s.room.stop(cause);
            }
            if s.room.is_stopped() {
                load.fetch_sub(1, Ordering::Relaxed);
                tracing::info!(room = %s.room.shared().id, "room stopped");
                return false;
            }
            true
        });
        let now = Instant::now();
        for s in &mut slots {
            // A relay's replica with an owner's record waiting runs now.
            if s.room.shared().take_early() {
                s.next = now;
            }
        }
        slots.sort_unstable_by_key(|s| s.next);
        for s in slots.iter_mut().take_while(|s| s.next <= now) {
            // Lateness against the grid, not against `now`: a room behind another on
            // this thread waits for that one's tick too.
            s.room
                .record_start_delay(Instant::now().saturating_duration_since(s.next));
            let report = s.room.tick(now_ms());
            log_tick(&s.room, report);
            s.reschedule(Instant::now());
        }
    }
}

fn log_tick(room: &Room, report: crate::TickReport) {
    if report.slow {
        tracing::warn!(
            room = %room.shared().id,
            tick = report.tick,
            ms = report.duration_ns as f64 / 1e6,
            waiting = report.batches_waiting,
            "slow tick"
        );
    } else {
        tracing::trace!(room = %room.shared().id, tick = report.tick, recomputed = report.recomputed, "tick");
    }
}
