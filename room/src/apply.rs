//! The apply phase of a tick: waiting batches, in their accepted order, until the tick's
//! op budget is spent; the rest wait, still in order, for the next tick.
//!
//! Invariant: a batch whose caller cancelled it (an HTTP request that timed out or went
//! away) is skipped, never applied; every other batch taken is applied atomically or
//! refused whole, and its outcome is answered by the answer phase of the same tick.

use super::Room;
use super::durable;
use super::edit::PendingEdit;
use super::scene_state::SceneState;
use crate::refusal::Refusal;

pub(super) use crate::applied::Applied;

impl Room {
    /// Applies the batches that fit in this tick's op budget.
    pub(super) fn apply(&mut self, scene: &mut SceneState) -> Applied {
        let mut applied = Applied::default();
        let budget = self.config.tick_op_budget;
        let failure = self.shared.gate.failure();
        // Read once a tick, like the storage failure: a batch queued while the lease
        // was valid is refused, never applied, once it has lapsed (fencing).
        let lapsed = !self.shared.lease.writable();
        // A cluster room whose journal has stored nothing for a while (NATS away)
        // applies nothing more: what it applied already waits for the journal, and
        // what it refuses now is never applied.
        let stalled = self
            .shared
            .gate
            .journal()
            .and_then(|j| j.stalled_ms(self.shared.gate.need(), super::JOURNAL_STALL_MS));
        // A logged room takes no more than the log queue can still hold, so that the
        // record of what it applies is never refused for room (the rest waits).
        let mut headroom = self.durability.log().map(|l| l.link().headroom());
        let records = self.durability.records();
        while let Some(edit) = self.edits.peek() {
            let bytes = (edit.cost() * crate::applied::LOGGED_BYTES_PER_OP) as u64;
            if failure.is_none() && headroom.is_some_and(|h| h < bytes) {
                break;
            }
            let Some(edit) = self.edits.take_within(applied.ops, budget) else {
                break;
            };
            self.shared.release(&edit);
            if !edit.ticket.take() {
                applied.batches_cancelled += 1;
                continue;
            }
            if let Some(why) = &failure {
                // Queued before the storage failed: refused like a new one, never applied.
                let refusal =
                    Refusal::overloaded(format!("edits are refused: the storage failed ({why})"));
                applied.batches_rejected += 1;
                self.metrics.rejected(refusal.code);
                applied.replies.push((edit.reply, Err(refusal)));
                continue;
            }
            if let Some(ms) = stalled {
                let refusal = Refusal::overloaded(format!(
                    "edits are refused: the cluster's journal has stored none of room {}'s \
                     last ticks for {ms} ms (NATS unreachable?); the batch was not applied",
                    self.shared.id
                ));
                applied.batches_rejected += 1;
                self.metrics.rejected(refusal.code);
                applied.replies.push((edit.reply, Err(refusal)));
                continue;
            }
            if lapsed {
                let refusal = self.shared.lease_lapsed();
                applied.batches_rejected += 1;
                self.metrics.rejected(refusal.code);
                applied.replies.push((edit.reply, Err(refusal)));
                continue;
            }
            if let Some(h) = &mut headroom {
                *h = h.saturating_sub(bytes);
            }
            applied.ops += edit.cost();
            let PendingEdit { ops, reply, .. } = edit;
            let result = scene.apply_ops(ops.iter()).map_err(Refusal::from);
            match &result {
                Ok(ids) => {
                    applied.batches_applied += 1;
                    if records {
                        // Kept as a list until recorded: decoded only for rooms that log
                        // or feed a cluster, and only once applied.
                        let batch = durable::with_assigned_ids(ops.to_vec(), ids);
                        self.tick_batches.push(batch);
                    }
                }
                Err(e) => {
                    applied.batches_rejected += 1;
                    self.metrics.rejected(e.code);
                }
            }
            applied.replies.push((reply, result));
        }
        applied
    }
}
