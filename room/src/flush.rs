//! [`FlushQueue`]: the outboxes a tick filled whose writers it did not wake, waiting for
//! the WebSocket edge's flusher tasks (`ws/flusher.rs`) to write them.
//!
//! Why: waking one writer task per subscriber per tick costs a task switch each, which
//! at thousands of subscribers is most of the server's own work per frame; a few
//! flusher tasks writing a tick's frames in chunks cost a wake-up per chunk instead.
//!
//! Each entry carries the moment its tick handed it over, so that the flushers can report
//! how long the fan-out kept it waiting (`canopy_fanout_delay_seconds`): the server's own
//! share of a subscriber's latency, apart from the network's and the client's.
//!
//! Invariant: an outbox is queued here only while it has a direct socket and an idle
//! writer (see `Outbox::push_delta`), so nothing it holds waits for anyone else; the
//! queue holds at most one entry per subscriber (the outbox remembers it is queued, and
//! frames it gains meanwhile go with that entry) until the flushers take them,
//! and nothing once the room is closed.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use parking_lot::Mutex;
use tokio::sync::Notify;

use super::outbox::Outbox;

/// An outbox waiting for a flusher, and when its tick handed it over.
pub type Waiting = (Arc<Outbox>, Instant);

/// The room's outboxes waiting for a flusher.
#[derive(Debug, Default)]
pub struct FlushQueue {
    waiting: Mutex<VecDeque<Waiting>>,
    wake: Notify,
    started: AtomicBool,
    closed: AtomicBool,
}

impl FlushQueue {
    /// Hands this tick's outboxes to the flushers; `batch` is left empty, its capacity
    /// kept for the next tick.
    pub fn submit(&self, batch: &mut Vec<Arc<Outbox>>) {
        if batch.is_empty() {
            return;
        }
        if self.closed.load(Ordering::Acquire) {
            batch.clear();
            return;
        }
        // One clock read per tick, not per outbox.
        let now = Instant::now();
        self.waiting
            .lock()
            .extend(batch.drain(..).map(|outbox| (outbox, now)));
        self.wake.notify_waiters();
    }

    /// Moves up to `max` waiting outboxes into `into`; false when none waited.
    pub fn take(&self, into: &mut Vec<Waiting>, max: usize) -> bool {
        let mut waiting = self.waiting.lock();
        let n = waiting.len().min(max);
        into.extend(waiting.drain(..n));
        !into.is_empty()
    }

    /// Completes once outboxes wait (at once if some do) or the queue is closed.
    pub async fn ready(&self) {
        loop {
            let notified = self.wake.notified();
            tokio::pin!(notified);
            // Registered before the check, so a submit in between is not missed.
            notified.as_mut().enable();
            if self.closed.load(Ordering::Acquire) || !self.waiting.lock().is_empty() {
                return;
            }
            notified.await;
        }
    }

    /// True the first time only: whoever gets it starts the flushers.
    pub fn start(&self) -> bool {
        !self.started.swap(true, Ordering::AcqRel)
    }

    /// True once flushers were started for this room.
    pub fn is_started(&self) -> bool {
        self.started.load(Ordering::Acquire)
    }

    /// Ends the flushers and drops what waits (the room is gone).
    pub fn close(&self) {
        self.closed.store(true, Ordering::Release);
        self.waiting.lock().clear();
        self.wake.notify_waiters();
    }

    /// True once closed.
    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }
}
