//! A room's write lease as the room itself sees it: until when it may take edits.
//!
//! In cluster mode the registry (`cluster/`) extends the deadline after each renewal and
//! revokes it when the lease is lost; the edit path and the tick only read it, so they
//! stay free of I/O. Invariant: once the deadline has passed, no edit is queued or
//! applied until a renewal extends it again. Outside cluster mode the lease never ends.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// Milliseconds on the process's monotonic clock (from the first call). Unlike wall
/// time it never jumps, and it keeps running while the process is stopped (SIGSTOP), so
/// a paused owner finds its lease lapsed the moment it resumes.
pub fn monotonic_ms() -> u64 {
    static START: OnceLock<Instant> = OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_millis() as u64
}

/// The deadline of a room's write lease.
#[derive(Debug)]
pub struct LeaseClock {
    /// Writable while [`monotonic_ms`] is below this; `u64::MAX`: no lease needed.
    until_ms: AtomicU64,
}

impl Default for LeaseClock {
    fn default() -> Self {
        Self::unbounded()
    }
}

impl LeaseClock {
    /// A room of a single server: always writable.
    pub fn unbounded() -> Self {
        LeaseClock {
            until_ms: AtomicU64::new(u64::MAX),
        }
    }

    /// A room whose lease has yet to be confirmed: not writable until extended.
    pub fn lapsed() -> Self {
        LeaseClock {
            until_ms: AtomicU64::new(0),
        }
    }

    /// True while edits may be taken.
    pub fn writable(&self) -> bool {
        monotonic_ms() < self.until_ms.load(Ordering::Acquire)
    }

    /// Makes the room writable until `until_ms` on the [`monotonic_ms`] clock.
    pub fn extend_to(&self, until_ms: u64) {
        self.until_ms.store(until_ms, Ordering::Release);
    }

    /// Ends the lease now.
    pub fn revoke(&self) {
        self.until_ms.store(0, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lease_is_writable_until_its_deadline() {
        assert!(LeaseClock::unbounded().writable());
        let lease = LeaseClock::lapsed();
        assert!(!lease.writable());
        lease.extend_to(monotonic_ms() + 60_000);
        assert!(lease.writable());
        lease.extend_to(monotonic_ms().saturating_sub(1));
        assert!(!lease.writable());
        lease.extend_to(u64::MAX);
        lease.revoke();
        assert!(!lease.writable());
    }
}
