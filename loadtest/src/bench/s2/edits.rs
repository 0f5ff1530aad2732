//! S2's editor: one SDK connection that, once per room tick, sends one batch moving
//! every avatar a step along its walk and jittering `others` random other nodes near
//! their homes, every value stamped (see `stamps`) so subscribers measure
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

/// Sends a batch per tick until `stop` turns true, then waits for every answer in
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
    let pick = ctx.batch_size.min(others.len());
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut interval = tokio::time::interval(Duration::from_secs_f64(1.0 / ctx.rate));
    // Open loop, as the load test's editors: a late tick is caught up, each batch
    // stamped when it is really sent.
    interval.set_missed_tick_behavior(MissedTickBehavior::Burst);
    let mut in_flight = JoinSet::new();
    let mut k = 0u64;
    loop {
        tokio::select! {
            biased;
            _ = stop.raised() => break,
            _ = interval.tick() => {}
        }
        let now = ctx.clock.now_us();
        let mut ops = Vec::with_capacity(layout.walks.len() + pick);
        for walk in &layout.walks {
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
        k += 1;
        // Reap finished sends so the set stays as small as the batches in flight.
        while in_flight.try_join_next().is_some() {}
    }
    while in_flight.join_next().await.is_some() {}
    k
}
