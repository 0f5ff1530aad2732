//! [`ServerClock`]: the estimate of the server's clock from the client's, which the
//! interpolator uses to turn "now" into the server time it renders.
//!
//! Every frame gives one sample `offset = local_receive - server_time`: the true offset
//! between the clocks plus the frame's delay on the way (network, queueing, the time
//! until the caller read it), which is never negative. The smallest sample over a
//! sliding window is the least delayed frame, so it is the robust estimate: jitter only
//! ever adds to a sample, and one fast frame is enough to find the floor. The window
//! (5 s by default) lets the estimate rise again when the path gets slower for good.
//!
//! The offset in use does not jump to each new estimate: it moves towards it at most
//! `slew` (5%) of the elapsed local time, so the server time it gives is continuous and
//! runs at between `1 - slew` and `1 + slew` of local time, never backwards. A change
//! larger than `snap` (a reconnect to a server with another clock, say) is taken at once.
//!
//! Invariant: [`ServerClock::offset_at`] is continuous in local time between
//! observations, and its value at an observation's time is the one it had just before
//! unless the estimate moved by more than `snap`; the window's minimum is kept in a
//! monotonic queue, so an observation costs O(1) amortized and no allocation once the
//! queue has reached the window's size.

use std::collections::VecDeque;

/// The estimate of `local - server` time, in milliseconds.
#[derive(Clone, Debug)]
pub(crate) struct ServerClock {
    window_ms: f64,
    slew: f64,
    snap_ms: f64,
    /// Samples `(local_ms, offset)` that may still become the window's minimum: offsets
    /// increase from front to back, and the front is the minimum.
    floor: VecDeque<(f64, f64)>,
    /// The offset in use moves from `from` (at local time `since`) towards `target`.
    ramp: Option<Ramp>,
}

#[derive(Clone, Copy, Debug)]
struct Ramp {
    from: f64,
    since: f64,
    target: f64,
}

impl Ramp {
    fn at(&self, local_ms: f64, slew: f64) -> f64 {
        let reach = slew * (local_ms - self.since).max(0.0);
        self.from + (self.target - self.from).clamp(-reach, reach)
    }
}

impl ServerClock {
    /// A clock with no samples: `window_ms` long, moving at most `slew` (a fraction of
    /// local time), and taking changes larger than `snap_ms` at once.
    pub(crate) fn new(window_ms: f64, slew: f64, snap_ms: f64) -> Self {
        ServerClock {
            window_ms,
            slew: slew.clamp(0.0, 0.5),
            snap_ms,
            floor: VecDeque::new(),
            ramp: None,
        }
    }

    /// Changes how large a change is taken at once.
    pub(crate) fn set_snap(&mut self, snap_ms: f64) {
        self.snap_ms = snap_ms;
    }

    /// Takes a frame stamped `server_ms` received at `local_ms`.
    pub(crate) fn observe(&mut self, local_ms: f64, server_ms: f64) {
        let offset = local_ms - server_ms;
        while self.floor.back().is_some_and(|&(_, o)| o >= offset) {
            self.floor.pop_back();
        }
        self.floor.push_back((local_ms, offset));
        while self
            .floor
            .front()
            .is_some_and(|&(at, _)| at < local_ms - self.window_ms)
        {
            self.floor.pop_front();
        }
        let target = self.floor.front().map_or(offset, |&(_, o)| o);
        let from = match self.ramp {
            None => target,
            Some(ramp) => {
                let now = ramp.at(local_ms, self.slew);
                if (target - now).abs() > self.snap_ms {
                    target
                } else {
                    now
                }
            }
        };
        self.ramp = Some(Ramp {
            from,
            since: local_ms,
            target,
        });
    }

    /// Forgets the samples (after a reconnect: the path, or the server, may be another)
    /// but keeps the offset in use until the next observation moves it.
    pub(crate) fn reset(&mut self) {
        self.floor.clear();
    }

    /// The offset in use at `local_ms`; `None` before the first observation.
    pub(crate) fn offset_at(&self, local_ms: f64) -> Option<f64> {
        self.ramp.map(|r| r.at(local_ms, self.slew))
    }

    /// The window's smallest sample: the estimate the offset in use moves towards.
    #[cfg(test)]
    pub(crate) fn estimate(&self) -> Option<f64> {
        self.floor.front().map(|&(_, o)| o)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    /// The clocks differ by this much (local - server), and the path takes `BASE` ms.
    const TRUE_OFFSET: f64 = -1.7e12;
    const BASE: f64 = 30.0;

    #[test]
    fn the_estimate_finds_the_least_delayed_frame_under_jitter() {
        let mut rng = SmallRng::seed_from_u64(5);
        let mut clock = ServerClock::new(5000.0, 0.05, 100.0);
        let mut smallest = f64::INFINITY;
        for k in 0..200 {
            let server = 1.7e12 + 50.0 * k as f64;
            let jitter = rng.random_range(0.0..40.0);
            smallest = smallest.min(jitter);
            clock.observe(server + TRUE_OFFSET + BASE + jitter, server);
            let estimate = clock.estimate().unwrap() - TRUE_OFFSET - BASE;
            // Never below the truth (jitter only adds), never above the window's floor.
            assert!(estimate >= -1e-3, "frame {k}: {estimate}");
            assert!(estimate <= 40.0, "frame {k}: {estimate}");
        }
        // After 10 s of frames the window (5 s, 100 frames) holds its own floor.
        let estimate = clock.estimate().unwrap() - TRUE_OFFSET - BASE;
        assert!(estimate < 2.0, "{estimate} ms above the truth");
        assert!(smallest < 1.0);
    }

    #[test]
    fn the_estimate_rises_again_once_a_fast_frame_leaves_the_window() {
        let mut clock = ServerClock::new(1000.0, 0.05, 1000.0);
        clock.observe(100.0, 100.0 - 10.0);
        // The path is 40 ms slower from now on.
        for k in 1..=30 {
            let local = 100.0 + 100.0 * k as f64;
            clock.observe(local, local - 50.0);
        }
        assert_eq!(clock.estimate(), Some(50.0));
    }

    #[test]
    fn a_large_change_is_taken_at_once_and_a_small_one_slewed() {
        let mut clock = ServerClock::new(5000.0, 0.05, 100.0);
        clock.observe(0.0, -20.0);
        assert_eq!(clock.offset_at(0.0), Some(20.0));
        // 10 ms less: slewed at 5%, so it takes 200 ms of local time.
        clock.observe(1000.0, 990.0);
        assert_eq!(clock.offset_at(1000.0), Some(20.0));
        assert!((clock.offset_at(1100.0).unwrap() - 15.0).abs() < 1e-9);
        assert_eq!(clock.offset_at(1300.0), Some(10.0));
        // Another server, 500 ms away: at once.
        clock.reset();
        clock.observe(2000.0, 1490.0);
        assert_eq!(clock.offset_at(2000.0), Some(510.0));
    }

    proptest! {
        /// Whatever the jitter, the server time the clock gives never runs backwards,
        /// runs within the slew of local time, and stays within the window's jitter of
        /// the truth once it has settled.
        #[test]
        fn server_time_is_continuous_monotone_and_close(
            jitters in proptest::collection::vec(0.0f64..60.0, 20..200),
            step in 1.0f64..20.0,
        ) {
            let mut clock = ServerClock::new(5000.0, 0.05, 100.0);
            let mut last: Option<(f64, f64)> = None;
            let mut local = 0.0;
            let mut arrival = 0.0f64;
            for (k, jitter) in jitters.iter().enumerate() {
                let server = 50.0 * k as f64;
                // One stream: frames arrive in order, a late one holding up the next.
                arrival = arrival.max(server + BASE + jitter);
                while local < arrival {
                    let now = local - clock.offset_at(local).unwrap_or(0.0);
                    if let (Some((l0, s0)), true) = (last, clock.offset_at(local).is_some()) {
                        let dl = local - l0;
                        let ds = now - s0;
                        prop_assert!(ds >= dl * 0.95 - 1e-6, "{ds} after {dl}");
                        prop_assert!(ds <= dl * 1.05 + 1e-6, "{ds} after {dl}");
                    }
                    if clock.offset_at(local).is_some() {
                        last = Some((local, now));
                    }
                    local += step;
                }
                clock.observe(arrival, server);
                let settled = clock.offset_at(arrival).unwrap();
                // Within the largest jitter seen of the true path delay, from above.
                prop_assert!(settled >= BASE - 1e-6);
                prop_assert!(settled <= BASE + 60.0 + 1e-6);
                if last.is_some() {
                    // The observation moved nothing at its own instant (no snap here).
                    let now = arrival - settled;
                    let (l0, s0) = last.unwrap();
                    prop_assert!(now - s0 >= (arrival - l0) * 0.95 - 1e-6);
                    last = Some((arrival, now));
                }
            }
        }
    }
}
