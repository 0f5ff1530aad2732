//! Where the server is in its life, in one place: serving, draining (readiness off and
//! new WebSocket upgrades refused, everything else served), or shutting down (the
//! listener closed, rooms' last ticks, connections awaited).
//!
//! Invariant: the phase only moves forward, and every task that must stop watches the
//! one token [`Lifecycle::stopping`] completes.

use std::sync::atomic::{AtomicU8, Ordering};

use tokio_util::sync::{CancellationToken, WaitForCancellationFuture};

/// A phase of the server's life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Phase {
    /// Serving everything.
    Serving = 0,
    /// SIGTERM arrived: readiness fails and new WebSocket upgrades are refused while
    /// the rest is served, so that a load balancer sees the node leave first.
    Draining = 1,
    /// The listener is closed; rooms run their last tick and connections finish.
    ShuttingDown = 2,
}

/// The server's phase and the signal of its end.
#[derive(Debug, Default)]
pub struct Lifecycle {
    phase: AtomicU8,
    stop: CancellationToken,
}

impl Lifecycle {
    /// The phase now.
    pub fn phase(&self) -> Phase {
        match self.phase.load(Ordering::Acquire) {
            0 => Phase::Serving,
            1 => Phase::Draining,
            _ => Phase::ShuttingDown,
        }
    }

    /// Whether the server still takes new WebSocket upgrades and reports ready.
    pub fn is_serving(&self) -> bool {
        self.phase() == Phase::Serving
    }

    /// Starts the drain (once; a later phase stays).
    pub fn drain(&self) {
        self.phase
            .fetch_max(Phase::Draining as u8, Ordering::AcqRel);
    }

    /// Starts the shutdown proper: every task watching [`Lifecycle::stopping`] ends.
    pub fn shut_down(&self) {
        self.phase
            .fetch_max(Phase::ShuttingDown as u8, Ordering::AcqRel);
        self.stop.cancel();
    }

    /// Whether the shutdown proper has begun.
    pub fn is_stopping(&self) -> bool {
        self.stop.is_cancelled()
    }

    /// Completes when the shutdown proper begins.
    pub fn stopping(&self) -> WaitForCancellationFuture<'_> {
        self.stop.cancelled()
    }

    /// A token cancelled when the shutdown proper begins, for tasks that outlive a
    /// borrow of the state.
    pub fn token(&self) -> CancellationToken {
        self.stop.clone()
    }
}
