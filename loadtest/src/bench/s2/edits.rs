//! S2's editor: one SDK connection that, for every room tick, sends batches (see
//! [`PARTS`]) moving every avatar a step along its walk and jittering `batch_size`
//! random other nodes near their homes, every value stamped (see `stamps`) so subscribers measure
//! edit-to-delta on whatever reaches them.
//!
//! Invariants: a batch never names a node twice (avatars and the others are disjoint,
//! the others drawn without replacement); a value is stamped before it is sent; the
//! batches of a window depend only on the seed and the tick number, so the whole-room
//! and the follow windows send the same edits.

use std::sync::Arc;
use std::time::Duration;

use canopy_client::Connection;
use rand::rngs::SmallRng;
use rand::{SeedableRng, seq::index};
use tokio::task::JoinSet;
use tokio::time::MissedTickBehavior;

use super::layout::Layout;
use crate::load::editor::{EditorContext, edit_op, send_batch};
use crate::load::stamps::Stamps;
use crate::stop::Stop;

/// Batches per tick's worth of edits: each carries every `PARTS`-th avatar and its
/// share of the random nodes. One batch per tick, sent on the harness's clock, would
/// miss a server tick now and then (two landing in one, none in the next), and a tick
/// without changes sends no frame: the whole-room baseline would lose frames that the
/// frame ratio counts. With two, every tick receives changes.
pub(super) const PARTS: usize = 2;

/// Sends [`PARTS`] batches per tick until `stop` turns true, then waits for every answer in
/// flight; answers the number of ticks sent.
pub(super) async fn run(
    conn: Connection,
    layout: Arc<Layout>,
    stamps: Arc<Stamps>,
    ctx: EditorContext,
    seed: u64,
    mut stop: Stop,
) -> u64 {
    if ctx.rate <= 0.0 {
        return 0;
    }
    let others = layout.others();
    let pick = ctx.batch_size.min(others.len()) / PARTS;
    let mut rng = SmallRng::seed_from_u64(seed);
    let every = Duration::from_secs_f64(1.0 / ctx.rate / PARTS as f64);
    let mut interval = tokio::time::interval(every);
    // Open loop, as the load test's editors: a late tick is caught up, each batch
    // stamped when it is really sent.
    interval.set_missed_tick_behavior(MissedTickBehavior::Burst);
    let mut in_flight = JoinSet::new();
    // Batches sent; batch `j` is part `j % PARTS` of tick `j / PARTS`.
    let mut j = 0u64;
    loop {
        tokio::select! {
            biased;
            _ = stop.raised() => break,
            _ = interval.tick() => {}
        }
        let now = ctx.clock.now_us();
        let part = (j % PARTS as u64) as usize;
        let k = j / PARTS as u64;
        let mut ops = Vec::with_capacity(layout.walks.len() / PARTS + 1 + pick);
        for walk in layout.walks.iter().skip(part).step_by(PARTS) {
            let scale = stamps.next_scale();
            stamps.stamp(walk.id, scale, now);
            ops.push(walk.op(k, scale));
        }
        for i in index::sample(&mut rng, others.len(), pick) {
            let (id, home) = others[i];
            let scale = stamps.next_scale();
            stamps.stamp(id, scale, now);
            ops.push(edit_op(&mut rng, id, home, scale));
        }
        send_batch(&mut in_flight, &conn, ops, &ctx, now);
        j += 1;
        // Reap finished sends so the set stays as small as the batches in flight.
        while in_flight.try_join_next().is_some() {}
    }
    while in_flight.join_next().await.is_some() {}
    j / PARTS as u64
}
