//! Query rate limits: a token bucket per caller (its token when it sent one, else its
//! address), refilled at `--query-rate` per second with bursts of twice that. A query
//! costs one token up front and, once its answer is known, one more per 1,000 items it
//! answered, so a caller pays for the bytes it makes the server build.
//!
//! Invariants: a bucket's balance may go below zero (a large answer charged after the
//! fact), and the caller is then refused until it refills; the limiter's memory is
//! bounded by the callers active recently, since [`QueryLimiter::sweep`] (called
//! periodically) forgets full buckets.
//!
//! Written here rather than taken from `governor` (which the server used before): GCRA
//! limiters cannot charge a cost after the fact, and that is the whole point.

use std::time::Instant;

use dashmap::DashMap;

/// Items of an answer that cost one more token.
pub(crate) const ITEMS_PER_TOKEN: usize = 1000;

#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

/// A keyed limiter for queries.
#[derive(Debug)]
pub struct QueryLimiter {
    /// Tokens per second; 0 turns limiting off.
    rate: f64,
    burst: f64,
    buckets: DashMap<String, Bucket>,
}

impl QueryLimiter {
    /// `per_second` 0 turns limiting off.
    pub fn new(per_second: u32) -> Self {
        Self {
            rate: f64::from(per_second),
            burst: 2.0 * f64::from(per_second),
            buckets: DashMap::new(),
        }
    }

    fn with_bucket<R>(&self, key: &str, f: impl FnOnce(&mut f64) -> R) -> R {
        let now = Instant::now();
        let refill = |b: &mut Bucket| {
            let dt = now.saturating_duration_since(b.at).as_secs_f64();
            b.tokens = (b.tokens + dt * self.rate).min(self.burst);
            b.at = now;
        };
        if let Some(mut b) = self.buckets.get_mut(key) {
            refill(&mut b);
            return f(&mut b.tokens);
        }
        let mut entry = self.buckets.entry(key.to_string()).or_insert(Bucket {
            tokens: self.burst,
            at: now,
        });
        refill(&mut entry);
        f(&mut entry.tokens)
    }

    /// True (and one token spent) when the caller may run one more query now.
    pub fn check(&self, key: &str) -> bool {
        if self.rate == 0.0 {
            return true;
        }
        self.with_bucket(key, |tokens| {
            if *tokens >= 1.0 {
                *tokens -= 1.0;
                true
            } else {
                false
            }
        })
    }

    /// Charges an answer of `items` items after the fact (one token per
    /// [`ITEMS_PER_TOKEN`]); the balance may go below zero.
    pub fn charge(&self, key: &str, items: usize) {
        let extra = items / ITEMS_PER_TOKEN;
        if self.rate == 0.0 || extra == 0 {
            return;
        }
        // Debt is capped at ten seconds' worth, so one huge answer cannot lock a caller
        // out for long.
        let floor = -10.0 * self.rate;
        self.with_bucket(key, |tokens| *tokens = (*tokens - extra as f64).max(floor));
    }

    /// Forgets callers whose buckets are full again.
    pub fn sweep(&self) {
        let now = Instant::now();
        self.buckets.retain(|_, b| {
            let dt = now.saturating_duration_since(b.at).as_secs_f64();
            b.tokens + dt * self.rate < self.burst
        });
        self.buckets.shrink_to_fit();
    }

    pub fn tracked_keys(&self) -> usize {
        self.buckets.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_over_quota_is_refused_per_key() {
        let l = QueryLimiter::new(5);
        let allowed = (0..100).filter(|_| l.check("a")).count();
        assert!((10..=11).contains(&allowed), "{allowed}");
        assert!(l.check("b"), "another caller has its own bucket");
        assert!(QueryLimiter::new(0).check("a"));
    }

    #[test]
    fn a_large_answer_is_charged_after_the_fact() {
        let l = QueryLimiter::new(100);
        assert!(l.check("a"));
        l.charge("a", 500_000);
        assert!(!l.check("a"), "500 tokens of debt");
        assert!(l.check("b"));
    }
}
