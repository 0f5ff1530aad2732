//! Latency histograms (hdrhistogram, microseconds) and their summary for the report.
//!
//! Invariant: every histogram of the run has the same bounds (1 µs to one hour, 3
//! significant digits), so any two can be added, and a value out of range is clamped
//! rather than dropped, so a pathological sample still shows in `max`.

use hdrhistogram::Histogram;
use serde::Serialize;

/// The largest value a histogram holds: one hour in microseconds.
const MAX_US: u64 = 3_600_000_000;

/// A fresh histogram of microseconds.
pub(crate) fn histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, MAX_US, 3).expect("static bounds are valid")
}

/// Records `us`, clamped into the histogram's range.
pub(crate) fn record(h: &mut Histogram<u64>, us: u64) {
    h.saturating_record(us.clamp(1, MAX_US));
}

/// Records each of `samples` (microseconds; left sorted), one `record_n` per distinct
/// value: the rows of one frame mostly share their batch, hence their latency, and a
/// histogram of 3 significant digits is large enough that each record is a cache miss
/// at thousands of subscribers.
pub(crate) fn record_all(h: &mut Histogram<u64>, samples: &mut [u64]) {
    samples.sort_unstable();
    let mut rest = &samples[..];
    while let Some(&first) = rest.first() {
        let run = rest.iter().take_while(|&&v| v == first).count();
        h.saturating_record_n(first.clamp(1, MAX_US), run as u64);
        rest = &rest[run..];
    }
}

/// Records `us` from a probe meant to run every `interval_us`, adding the samples a
/// stalled probe could not take (hdrhistogram's coordinated-omission correction), so a
/// one-second stall counts as a second's worth of slow answers, not as one.
pub(crate) fn record_corrected(h: &mut Histogram<u64>, us: u64, interval_us: u64) {
    let _ = h.record_correct(us.clamp(1, MAX_US), interval_us.max(1));
}

/// Percentiles of a histogram, in milliseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub(crate) struct Summary {
    pub count: u64,
    pub mean_ms: f64,
    pub p50_ms: f64,
    pub p95_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
}

impl Summary {
    pub(crate) fn of(h: &Histogram<u64>) -> Self {
        if h.is_empty() {
            return Summary::default();
        }
        let ms = |us: u64| us as f64 / 1000.0;
        Summary {
            count: h.len(),
            mean_ms: h.mean() / 1000.0,
            p50_ms: ms(h.value_at_quantile(0.50)),
            p95_ms: ms(h.value_at_quantile(0.95)),
            p99_ms: ms(h.value_at_quantile(0.99)),
            max_ms: ms(h.max()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_all_counts_every_sample() {
        let mut one_by_one = histogram();
        let mut all = histogram();
        let mut samples = vec![5, 900, 5, 0, 5, MAX_US + 7, 900];
        for &s in &samples {
            record(&mut one_by_one, s);
        }
        record_all(&mut all, &mut samples);
        assert_eq!(all, one_by_one);
    }

    #[test]
    fn summary_in_milliseconds() {
        let mut h = histogram();
        for us in 1..=1000 {
            record(&mut h, us * 100);
        }
        record(&mut h, u64::MAX);
        let s = Summary::of(&h);
        assert_eq!(s.count, 1001);
        assert!((s.p50_ms - 50.0).abs() < 0.2, "{s:?}");
        assert!((s.p99_ms - 99.0).abs() < 0.2, "{s:?}");
        assert!(s.max_ms >= 3_599_000.0);
        assert_eq!(Summary::of(&histogram()), Summary::default());
    }

    #[test]
    fn corrected_recording_fills_in_the_missed_probes() {
        let mut h = histogram();
        record_corrected(&mut h, 1_000_000, 10_000);
        // One answer after 1 s stands for the 100 probes of that second.
        assert_eq!(h.len(), 100);
        assert!(Summary::of(&h).p50_ms >= 490.0);
    }
}
