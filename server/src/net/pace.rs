//! The pace a reader must keep: [`Pace`] combines the write deadline (no progress for
//! that long ends the connection) with a minimum transfer rate over a whole message or
//! answer, so a reader that takes a few bytes now and then, never stalling, still
//! cannot hold a snapshot or a whole-room read (and the budget share it is charged to)
//! for hours.
//!
//! Invariant: a message of `n` bytes may take at most the stall allowance plus `n` at
//! the minimum rate, never less than the stall allowance alone, so the rate never cuts
//! a reader the write deadline would have kept for a small message.

use std::time::Duration;

/// A transfer rate, in bytes a second.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BytesPerSec(pub u64);

/// How fast a reader must take what it is sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pace {
    /// The longest a write may wait without progress; also the grace a message gets
    /// before the minimum rate counts.
    pub stall: Duration,
    /// The slowest a whole message may be taken on average after the grace; `None`:
    /// no minimum.
    pub min_rate: Option<BytesPerSec>,
}

impl Pace {
    /// Only the no-progress deadline.
    pub fn stall_only(stall: Duration) -> Self {
        Pace {
            stall,
            min_rate: None,
        }
    }

    /// How long `bytes` may take in all.
    pub fn allowance(&self, bytes: usize) -> Duration {
        let rate = match self.min_rate {
            Some(BytesPerSec(r)) if r > 0 => r,
            _ => return Duration::MAX,
        };
        self.stall
            .saturating_add(Duration::from_secs_f64(bytes as f64 / rate as f64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_allowance_is_the_grace_plus_the_size_at_the_rate() {
        let pace = Pace {
            stall: Duration::from_secs(30),
            min_rate: Some(BytesPerSec(64 * 1024)),
        };
        assert_eq!(pace.allowance(0), Duration::from_secs(30));
        assert_eq!(pace.allowance(640 * 1024), Duration::from_secs(40));
        assert_eq!(
            Pace::stall_only(Duration::from_secs(1)).allowance(1),
            Duration::MAX
        );
    }
}
