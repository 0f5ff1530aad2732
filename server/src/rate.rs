//! Query rate limits: a token bucket per caller (its token when it sent one, else its
//! address), refilled at `--query-rate` per second with bursts of twice that.
//!
//! Invariant: the limiter's memory is bounded: keys idle for a while are dropped by
//! [`QueryLimiter::sweep`], which the server calls periodically.

use std::num::NonZeroU32;

use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

/// A keyed limiter for queries.
#[derive(Debug)]
pub struct QueryLimiter {
    limiter: Option<DefaultKeyedRateLimiter<String>>,
}

impl QueryLimiter {
    /// `per_second` 0 turns limiting off.
    pub fn new(per_second: u32) -> Self {
        let limiter = NonZeroU32::new(per_second).map(|rate| {
            let burst = NonZeroU32::new(per_second.saturating_mul(2)).unwrap_or(rate);
            RateLimiter::keyed(Quota::per_second(rate).allow_burst(burst))
        });
        Self { limiter }
    }

    /// True when the caller may run one more query now.
    pub fn check(&self, key: &str) -> bool {
        match &self.limiter {
            None => true,
            Some(l) => l.check_key(&key.to_string()).is_ok(),
        }
    }

    /// Forgets callers whose buckets are full again.
    pub fn sweep(&self) {
        if let Some(l) = &self.limiter {
            l.retain_recent();
            l.shrink_to_fit();
        }
    }

    pub fn tracked_keys(&self) -> usize {
        self.limiter.as_ref().map_or(0, |l| l.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_over_quota_is_refused_per_key() {
        let l = QueryLimiter::new(5);
        let allowed = (0..100).filter(|_| l.check("a")).count();
        assert!((5..=11).contains(&allowed), "{allowed}");
        assert!(l.check("b"), "another caller has its own bucket");
        assert!(QueryLimiter::new(0).check("a"));
    }
}
