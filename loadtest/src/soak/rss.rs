//! The soak's memory watch: the server's resident memory, sampled from `GET /metrics`
//! (`canopy_process_resident_memory_bytes`) every [`SAMPLE_EVERY`], and the growth rule.
//!
//! The rule: after a warm-up, the baseline is the largest sample of the first
//! [`BASELINE_SECS`] after warm-up; the run fails when the largest sample of its last
//! [`TAIL_SECS`] exceeds the baseline by more than the allowed fraction. Maxima rather
//! than single samples, so one sample taken between an allocation and its release
//! neither makes nor hides growth. With `--spawn` the figure is the whole process,
//! harness included; the harness keeps its own memory flat by design (dense mirrors
//! and histograms sized once at start, snapshots decoded into the same mirror), so
//! growth in the series is the server's. Invariant: a failed scrape is counted and
//! skipped, never a sample of 0.

use std::sync::Arc;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use canopy_client::Client;
use serde::Serialize;

use crate::observe::metrics_scrape;
use crate::stop::Stop;

/// The server's resident memory in `/metrics`.
const RSS_METRIC: &str = "canopy_process_resident_memory_bytes";

/// How often the series is sampled. The hostile clients' memory comes and goes within a
/// few tenths of a second (`noop-batches`, before pending batches waited packed: 30 to
/// 60 MiB of decoded batches, freed at their tick, for 0.2-0.4 s),
/// so a once-a-second sample caught a varying part of each peak, or missed it: in one
/// logged 10-minute soak it saw 5 of 14 such peaks, at heights from 191 to 223 MiB, and
/// whether the check passed depended on which. Ten samples a second see each peak
/// whole, so the windows' maxima below compare like with like.
pub(crate) const SAMPLE_EVERY: Duration = Duration::from_millis(100);

/// Seconds at the end of the run whose largest sample is compared with the baseline.
pub(crate) const TAIL_SECS: f64 = 60.0;
/// Seconds after warm-up whose largest sample is the baseline: as long as the tail, so
/// that both maxima are taken over the same length of the same repeating pressure. The
/// hostile clients with a memory effect come round about every 40 s (`noop-batches`, for
/// a few tenths of a second, see [`SAMPLE_EVERY`]); a 30 s baseline could miss
/// the peak the 60 s tail then caught, and fail a server that kept nothing.
pub(crate) const BASELINE_SECS: f64 = TAIL_SECS;

/// The series: (seconds since the load started, bytes).
#[derive(Debug, Default)]
pub(crate) struct RssSeries {
    pub samples: Mutex<Vec<(f64, u64)>>,
    /// The harness process's own resident memory at the same moments (Linux only):
    /// with `--url` that tells the two apart; with `--spawn` it is the same process.
    pub harness: Mutex<Vec<(f64, u64)>>,
    pub failed_scrapes: Mutex<u64>,
}

/// Samples every [`SAMPLE_EVERY`] until `stop` is raised.
pub(crate) async fn sample(client: Client, series: Arc<RssSeries>, mut stop: Stop) {
    let started = Instant::now();
    let mut every = tokio::time::interval(SAMPLE_EVERY);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            biased;
            _ = stop.raised() => return,
            _ = every.tick() => {}
        }
        let at = started.elapsed().as_secs_f64();
        let bytes = client
            .metrics()
            .await
            .ok()
            .and_then(|text| metrics_scrape::value(&metrics_scrape::parse(&text), RSS_METRIC));
        match bytes {
            Some(b) if b > 0.0 => lock(&series.samples).push((at, b as u64)),
            _ => *lock(&series.failed_scrapes) += 1,
        }
        if let Some(own) = own_rss_bytes() {
            lock(&series.harness).push((at, own));
        }
    }
}

/// This process's resident memory, from `/proc/self/status` (`VmRSS`, in kB).
fn own_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The verdict of the growth rule, with the series' summary.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct RssVerdict {
    pub samples: usize,
    pub warmup_s: f64,
    pub min_mib: f64,
    pub baseline_mib: f64,
    pub tail_max_mib: f64,
    pub last_mib: f64,
    /// (tail max - baseline) / baseline.
    pub growth: f64,
    pub passed: bool,
    /// The largest sample of each minute of the run, MiB.
    pub per_minute_max_mib: Vec<f64>,
}

const MIB: f64 = 1024.0 * 1024.0;

/// Applies the growth rule to `samples` (time-ordered); `None` when there is no sample
/// after warm-up to judge by.
pub(crate) fn judge(samples: &[(f64, u64)], warmup_s: f64, max_growth: f64) -> Option<RssVerdict> {
    let end = samples.last()?.0;
    let max_in = |from: f64, to: f64| {
        samples
            .iter()
            .filter(|(t, _)| *t >= from && *t <= to)
            .map(|&(_, b)| b)
            .max()
    };
    let baseline = max_in(warmup_s, warmup_s + BASELINE_SECS)?;
    let tail = max_in((end - TAIL_SECS).max(warmup_s), end)?;
    let growth = (tail as f64 - baseline as f64) / baseline.max(1) as f64;
    let minutes = (end / 60.0).floor() as usize + 1;
    let per_minute_max_mib = (0..minutes)
        .filter_map(|m| max_in(m as f64 * 60.0, (m + 1) as f64 * 60.0 - 1e-9))
        .map(|b| b as f64 / MIB)
        .collect();
    Some(RssVerdict {
        samples: samples.len(),
        warmup_s,
        min_mib: samples.iter().map(|s| s.1).min()? as f64 / MIB,
        baseline_mib: baseline as f64 / MIB,
        tail_max_mib: tail as f64 / MIB,
        last_mib: samples.last()?.1 as f64 / MIB,
        growth,
        passed: growth <= max_growth,
        per_minute_max_mib,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn series(f: impl Fn(f64) -> u64, secs: usize) -> Vec<(f64, u64)> {
        (0..secs).map(|t| (t as f64, f(t as f64))).collect()
    }

    #[test]
    fn warm_up_growth_is_ignored_and_flat_passes() {
        // Memory doubles during warm-up, then stays flat with noise: a pass.
        let s = series(
            |t| {
                if t < 60.0 {
                    500 + 8 * t as u64
                } else {
                    1000 + (t as u64 % 7)
                }
            },
            600,
        );
        let v = judge(&s, 60.0, 0.10).unwrap();
        assert!(v.passed, "{v:?}");
        assert!(v.growth < 0.01);
        assert_eq!(v.per_minute_max_mib.len(), 10);
    }

    #[test]
    fn steady_growth_after_warm_up_fails() {
        // 1000 at warm-up, growing 0.05% a second: +27% by the end.
        let s = series(|t| (1000.0 * (1.0 + 0.0005 * t)) as u64, 600);
        let v = judge(&s, 60.0, 0.10).unwrap();
        assert!(!v.passed, "{v:?}");
        assert!(v.growth > 0.2);
        // The same growth is within a 30% allowance.
        assert!(judge(&s, 60.0, 0.30).unwrap().passed);
    }

    #[test]
    fn a_peak_that_comes_back_every_40_s_is_no_growth() {
        // Flat at 1000 with a one-second peak of +30% every 40 s, first at 95 s: both
        // windows hold a peak. A 30 s baseline would have held none and failed.
        let s = series(|t| if t as u64 % 40 == 15 { 1300 } else { 1000 }, 600);
        let v = judge(&s, 60.0, 0.10).unwrap();
        assert!(v.passed, "{v:?}");
        assert_eq!(v.baseline_mib * MIB, 1300.0);
        // The same peaks on top of a leak still fail.
        let leak = series(
            |t| {
                let floor = (1000.0 * (1.0 + 0.0005 * t)) as u64;
                if t as u64 % 40 == 15 {
                    floor + 300
                } else {
                    floor
                }
            },
            600,
        );
        assert!(!judge(&leak, 60.0, 0.10).unwrap().passed);
    }

    #[test]
    fn peaks_shorter_than_a_second_are_seen_whole_at_the_sampling_rate() {
        // A peak of +30% that lasts 0.3 s, every 43 s (not a whole number of samples
        // apart), on a flat 1000: sampled at `SAMPLE_EVERY`, both windows hold a whole
        // peak, so the verdict is flat. Sampled once a second at a drifting phase, the
        // same memory gives windows whose maxima differ by the peak's height.
        let step = SAMPLE_EVERY.as_secs_f64();
        let memory = |t: f64| if t % 43.0 < 0.3 { 1300 } else { 1000 };
        let fine: Vec<(f64, u64)> = (0..6000)
            .map(|i| i as f64 * step)
            .map(|t| (t, memory(t)))
            .collect();
        let v = judge(&fine, 60.0, 0.10).unwrap();
        assert!(v.passed, "{v:?}");
        assert_eq!(
            (v.baseline_mib * MIB, v.tail_max_mib * MIB),
            (1300.0, 1300.0)
        );
        let coarse: Vec<(f64, u64)> = (0..600)
            .map(|i| i as f64 * 1.0 + 0.37)
            .map(|t| (t, memory(t)))
            .collect();
        let seen = coarse.iter().filter(|s| s.1 > 1000).count();
        assert!(
            seen < 14 / 2,
            "a one-second sample misses most short peaks: saw {seen}"
        );
    }

    #[test]
    fn no_samples_after_warm_up_gives_no_verdict() {
        assert!(judge(&series(|_| 1, 30), 60.0, 0.1).is_none());
        assert!(judge(&[], 60.0, 0.1).is_none());
    }
}
