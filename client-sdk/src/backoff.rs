//! [`Backoff`]: how long a dropped connection waits before each reconnect attempt.
//!
//! The delay of attempt `n` (from 0) is `min(max, initial * multiplier^n)`, shortened by
//! a random fraction of up to `jitter` of itself, so that many clients dropped at once
//! (a server restart) do not all come back in the same millisecond.
//!
//! When the server refused an attempt with a `Retry-After` (a room moving between
//! cluster nodes answers `503 overloaded` with one), the next wait is what it asked,
//! capped by `retry_after_cap` and raised to at least `initial`, then *lengthened* by a
//! random fraction of up to `jitter` of itself: never shorter than asked, and many
//! clients refused together do not come back together.
//!
//! Invariant: a backoff delay is never longer than `max` and never shorter than
//! `(1 - jitter) * min(max, initial)`; a wait the server asked for is never shorter than
//! `min(asked, retry_after_cap)`; the attempt count only goes back to zero through
//! [`BackoffState::reset`], which the connection calls once a new connection is stable,
//! and a wait the server asked for does not add to it.

use std::time::Duration;

use rand::Rng;

/// The reconnect policy of a [`Connection`](crate::Connection).
#[derive(Clone, Debug, PartialEq)]
pub struct Backoff {
    /// The delay before the first attempt.
    pub initial: Duration,
    /// The longest delay.
    pub max: Duration,
    /// How much the delay grows per failed attempt (at least 1).
    pub multiplier: f64,
    /// The largest fraction (0 to 1) taken off a delay at random.
    pub jitter: f64,
    /// Give up after this many failed attempts in a row; `None` retries forever.
    pub max_attempts: Option<u32>,
    /// A connection that stays up this long counts as stable and resets the delay; so
    /// does one that delivered its resynchronising snapshot.
    pub stable_after: Duration,
    /// The longest wait a server's `Retry-After` can impose (before jitter).
    pub retry_after_cap: Duration,
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff {
            initial: Duration::from_millis(100),
            max: Duration::from_secs(5),
            multiplier: 2.0,
            jitter: 0.5,
            max_attempts: None,
            stable_after: Duration::from_secs(5),
            retry_after_cap: Duration::from_secs(30),
        }
    }
}

impl Backoff {
    /// The delay of attempt `attempt` (from 0) with the random draw `unit` in `[0, 1)`.
    pub fn delay(&self, attempt: u32, unit: f64) -> Duration {
        let growth = self.multiplier.max(1.0).powi(attempt.min(64) as i32);
        let base = self.initial.as_secs_f64() * growth;
        let capped = base.min(self.max.as_secs_f64());
        let cut = self.jitter.clamp(0.0, 1.0) * unit.clamp(0.0, 1.0);
        Duration::from_secs_f64((capped * (1.0 - cut)).max(0.0))
    }

    /// The wait before the next attempt when the server asked for `asked`
    /// (`Retry-After`), with the random draw `unit` in `[0, 1)`: `asked` capped by
    /// `retry_after_cap`, at least `initial`, lengthened by up to `jitter` of itself.
    pub fn delay_asked(&self, asked: Duration, unit: f64) -> Duration {
        let base = asked.min(self.retry_after_cap).max(self.initial);
        let extra = self.jitter.clamp(0.0, 1.0) * unit.clamp(0.0, 1.0);
        base.mul_f64(1.0 + extra)
    }

    /// A fresh state for a run of attempts.
    pub(crate) fn start(&self) -> BackoffState {
        BackoffState {
            policy: self.clone(),
            attempt: 0,
        }
    }
}

/// The attempts made since the last stable connection.
#[derive(Debug)]
pub(crate) struct BackoffState {
    policy: Backoff,
    attempt: u32,
}

impl BackoffState {
    /// The delay before the next attempt, or `None` when `max_attempts` is used up.
    pub(crate) fn next_delay(&mut self) -> Option<Duration> {
        if self.policy.max_attempts.is_some_and(|m| self.attempt >= m) {
            return None;
        }
        let delay = self.policy.delay(self.attempt, rand::rng().random::<f64>());
        self.attempt = self.attempt.saturating_add(1);
        Some(delay)
    }

    /// The wait before an attempt the server asked to delay by `asked`; unlike
    /// [`BackoffState::next_delay`] it does not count as a failed attempt.
    pub(crate) fn delay_asked(&self, asked: Duration) -> Duration {
        self.policy.delay_asked(asked, rand::rng().random::<f64>())
    }

    /// The number of attempts made so far (the next attempt's number, from 1, minus one).
    pub(crate) fn attempts(&self) -> u32 {
        self.attempt
    }

    /// Starts over from `initial`, after a stable connection.
    pub(crate) fn reset(&mut self) {
        self.attempt = 0;
    }

    pub(crate) fn stable_after(&self) -> Duration {
        self.policy.stable_after
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grows_exponentially_and_caps() {
        let b = Backoff {
            jitter: 0.0,
            ..Backoff::default()
        };
        assert_eq!(b.delay(0, 0.5), Duration::from_millis(100));
        assert_eq!(b.delay(1, 0.5), Duration::from_millis(200));
        assert_eq!(b.delay(3, 0.5), Duration::from_millis(800));
        assert_eq!(b.delay(30, 0.5), Duration::from_secs(5));
        assert_eq!(b.delay(u32::MAX, 0.5), Duration::from_secs(5));
    }

    #[test]
    fn jitter_only_shortens_within_its_fraction() {
        let b = Backoff::default();
        assert_eq!(b.delay(10, 0.0), Duration::from_secs(5));
        let d = b.delay(10, 0.999_999);
        assert!(d >= Duration::from_millis(2500) && d < Duration::from_secs(5));
    }

    #[test]
    fn a_wait_the_server_asked_for_is_never_shortened_and_is_capped() {
        let b = Backoff::default();
        let second = Duration::from_secs(1);
        assert_eq!(b.delay_asked(second, 0.0), second);
        let d = b.delay_asked(second, 0.999_999);
        assert!(d > second && d < Duration::from_millis(1500), "{d:?}");
        assert_eq!(
            b.delay_asked(Duration::from_secs(3600), 0.0),
            Duration::from_secs(30)
        );
        // `Retry-After: 0` still waits the initial delay: no busy loop.
        assert_eq!(b.delay_asked(Duration::ZERO, 0.0), b.initial);
        // Asked waits do not use up attempts.
        let mut s = Backoff {
            max_attempts: Some(1),
            ..Backoff::default()
        }
        .start();
        for _ in 0..10 {
            s.delay_asked(second);
        }
        assert_eq!(s.attempts(), 0);
        assert!(s.next_delay().is_some());
    }

    #[test]
    fn gives_up_after_max_attempts_and_resets() {
        let mut s = Backoff {
            max_attempts: Some(2),
            ..Backoff::default()
        }
        .start();
        assert!(s.next_delay().is_some());
        assert!(s.next_delay().is_some());
        assert!(s.next_delay().is_none());
        assert_eq!(s.attempts(), 2);
        s.reset();
        assert!(s.next_delay().is_some());
    }
}
