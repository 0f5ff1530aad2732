//! Editors: each one is a WebSocket [`Connection`] of the client SDK that sends
//! `set_local` batches at a fixed rate to the leaves it owns, stamping every value it
//! sends (see `stamps`), and counts acks, ack latency and errors.
//!
//! Invariants: editors own disjoint sets of leaves and walk them round robin, so a
//! node's next edit comes as late as the load allows and its stamp is rarely
//! overwritten before subscribers see it; a batch never names a node twice; and a
//! value is stamped before it is sent, so a subscriber can never see a value whose
//! stamp is not there yet. In a soak an editor also sends invalid batches (see
//! `invalid`), which are never stamped and never counted as the measured load.

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use canopy_client::Connection;
use canopy_protocol::{NodeId, Op};
use hdrhistogram::Histogram;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use tokio::task::JoinSet;
use tokio::time::MissedTickBehavior;

use crate::load::stamps::{Clock, Stamps};
use crate::observe::errors::ErrorTally;
use crate::observe::latency;
use crate::soak::invalid::{self, Invalid, InvalidEdits};
use crate::stop::Stop;

/// How far (in each ground-plane axis) an edit moves a leaf from its home position.
pub(crate) const EDIT_JITTER: f32 = 1.0;

/// Counters shared by all editors.
#[derive(Debug)]
pub(crate) struct EditStats {
    pub batches_sent: AtomicU64,
    pub ops_sent: AtomicU64,
    pub acks: AtomicU64,
    /// Send to ack, in microseconds.
    pub ack_latency: Mutex<Histogram<u64>>,
}

impl Default for EditStats {
    fn default() -> Self {
        EditStats {
            batches_sent: AtomicU64::new(0),
            ops_sent: AtomicU64::new(0),
            acks: AtomicU64::new(0),
            ack_latency: Mutex::new(latency::histogram()),
        }
    }
}

/// One editor's connection and the leaves it owns (id and home local translation).
#[derive(Debug)]
pub(crate) struct Editor {
    pub conn: Connection,
    pub leaves: Vec<(NodeId, [f32; 3])>,
    pub stamps: Arc<Stamps>,
}

/// What every editor shares.
#[derive(Clone, Debug)]
pub(crate) struct EditorContext {
    pub rate: f64,
    pub batch_size: usize,
    pub clock: Clock,
    pub stats: Arc<EditStats>,
    pub errors: Arc<ErrorTally>,
    /// Soak: invalid batches mixed into the load.
    pub invalid: Option<InvalidEdits>,
}

/// Shares `leaves` out round robin among `editors` editors.
pub(crate) fn share_out(
    leaves: &[(NodeId, [f32; 3])],
    editors: usize,
) -> Vec<Vec<(NodeId, [f32; 3])>> {
    let mut shares = vec![Vec::new(); editors];
    if editors == 0 {
        return shares;
    }
    for (i, leaf) in leaves.iter().enumerate() {
        shares[i % editors].push(*leaf);
    }
    shares
}

/// A `set_local` that moves a leaf near its home, turns it about the vertical axis and
/// gives it `scale`.
pub(crate) fn edit_op(rng: &mut SmallRng, id: NodeId, home: [f32; 3], scale: f32) -> Op {
    let jx = rng.random_range(-EDIT_JITTER..=EDIT_JITTER);
    let jz = rng.random_range(-EDIT_JITTER..=EDIT_JITTER);
    let half_angle = rng.random_range(0.0..std::f32::consts::PI);
    Op::SetLocal {
        node: id,
        t: Some([home[0] + jx, home[1], home[2] + jz]),
        r: Some([0.0, half_angle.sin(), 0.0, half_angle.cos()]),
        s: Some(scale),
    }
}

/// Sends one batch of stamped ops (stamped at `now`) without waiting for its answer:
/// counts it, and, once answered, its ack and ack latency or its error.
pub(crate) fn send_batch(
    in_flight: &mut JoinSet<()>,
    conn: &Connection,
    ops: Vec<Op>,
    ctx: &EditorContext,
    now: u64,
) {
    ctx.stats.batches_sent.fetch_add(1, Ordering::Relaxed);
    ctx.stats
        .ops_sent
        .fetch_add(ops.len() as u64, Ordering::Relaxed);
    let conn = conn.clone();
    let ctx = ctx.clone();
    in_flight.spawn(async move {
        match conn.edit(ops).await {
            Ok(_) => {
                let took = ctx.clock.now_us().saturating_sub(now);
                ctx.stats.acks.fetch_add(1, Ordering::Relaxed);
                let mut h = ctx
                    .stats
                    .ack_latency
                    .lock()
                    .unwrap_or_else(|e| e.into_inner());
                latency::record(&mut h, took);
            }
            Err(e) => ctx.errors.record_client("edit", &e),
        }
    });
}

/// Sends batches until `stop` turns true, then waits for every answer in flight.
pub(crate) async fn run(editor: Editor, ctx: EditorContext, seed: u64, mut stop: Stop) {
    let batch = ctx.batch_size.min(editor.leaves.len());
    if ctx.rate <= 0.0 || batch == 0 {
        return;
    }
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut interval = tokio::time::interval(Duration::from_secs_f64(1.0 / ctx.rate));
    // Open-loop load: an editor that was not scheduled in time catches up with the
    // batches it owes (each stamped when it is really sent, so the latency it measures
    // stays honest), so the offered rate is the scenario's, not the harness's luck.
    interval.set_missed_tick_behavior(MissedTickBehavior::Burst);
    let mut cursor = 0usize;
    let mut invalid_turn = 0usize;
    let mut in_flight = JoinSet::new();
    loop {
        tokio::select! {
            biased;
            _ = stop.raised() => break,
            _ = interval.tick() => {}
        }
        let mut ops = Vec::with_capacity(batch);
        let now = ctx.clock.now_us();
        for _ in 0..batch {
            let (id, home) = editor.leaves[cursor];
            cursor = (cursor + 1) % editor.leaves.len();
            let scale = editor.stamps.next_scale();
            editor.stamps.stamp(id, scale, now);
            ops.push(edit_op(&mut rng, id, home, scale));
        }
        send_batch(&mut in_flight, &editor.conn, ops, &ctx, now);
        if let Some(inv) = &ctx.invalid
            && rng.random_bool(inv.share.clamp(0.0, 1.0))
        {
            let kind = Invalid::ALL[invalid_turn % Invalid::ALL.len()];
            invalid_turn += 1;
            let (ops, want) = invalid::batch(kind, editor.leaves[cursor].0, &inv.plan);
            in_flight.spawn(invalid::send(
                editor.conn.clone(),
                ops,
                want,
                inv.clone(),
                Arc::clone(&ctx.errors),
            ));
        }
        // Reap finished sends so the set stays as small as the batches in flight.
        while in_flight.try_join_next().is_some() {}
    }
    while in_flight.join_next().await.is_some() {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_are_disjoint_and_cover_every_leaf() {
        let leaves: Vec<(NodeId, [f32; 3])> = (0..10).map(|i| (i, [0.0; 3])).collect();
        let shares = share_out(&leaves, 3);
        assert_eq!(
            shares.iter().map(Vec::len).collect::<Vec<_>>(),
            vec![4, 3, 3]
        );
        let mut all: Vec<NodeId> = shares.iter().flatten().map(|l| l.0).collect();
        all.sort_unstable();
        assert_eq!(all, (0..10).collect::<Vec<_>>());
        assert!(share_out(&leaves, 0).is_empty());
    }

    #[test]
    fn edit_ops_are_valid_set_locals() {
        let mut rng = SmallRng::seed_from_u64(7);
        match edit_op(&mut rng, 3, [1.0, 2.0, 3.0], 1.5) {
            Op::SetLocal {
                node: 3,
                t: Some(t),
                r: Some(r),
                s: Some(s),
            } => {
                assert!((t[0] - 1.0).abs() <= EDIT_JITTER && t[1] == 2.0);
                let len: f32 = r.iter().map(|v| v * v).sum();
                assert!((len - 1.0).abs() < 1e-5);
                assert_eq!(s, 1.5);
            }
            other => panic!("{other:?}"),
        }
    }
}
