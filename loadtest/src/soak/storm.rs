//! The soak's reconnect storms: every `--storm-every` seconds a random batch of
//! `--storm-fraction` of the subscribers disconnects at once, reconnects and
//! resubscribes (see `subscriber`, which does the reconnecting when kicked).
//!
//! Invariant: storms happen only while the load runs, so by the final check every
//! kicked subscriber has had the settle time to take its fresh snapshot.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use rand::SeedableRng;
use rand::rngs::SmallRng;
use rand::seq::index;

use crate::load::subscriber::SubShared;
use crate::stop::Stop;

/// Kicks a batch of subscribers every `every` until `stop`; counts the storms.
pub(crate) async fn run(
    subs: Vec<Arc<SubShared>>,
    every: Duration,
    fraction: f64,
    seed: u64,
    storms: Arc<AtomicU64>,
    mut stop: Stop,
) {
    let count = ((subs.len() as f64 * fraction).round() as usize).min(subs.len());
    if count == 0 {
        return;
    }
    let mut rng = SmallRng::seed_from_u64(seed);
    loop {
        tokio::select! {
            biased;
            _ = stop.raised() => return,
            _ = tokio::time::sleep(every) => {}
        }
        for i in index::sample(&mut rng, subs.len(), count) {
            // `notify_one` keeps a permit when the reader is not waiting right now
            // (busy applying a frame, or reconnecting), so no kick is lost.
            subs[i].kick.notify_one();
        }
        storms.fetch_add(1, Ordering::Relaxed);
    }
}
