//! The apply phase of a tick: waiting batches, in their accepted order, until the tick's
//! op budget is spent; the rest wait, still in order, for the next tick.
//!
//! Invariant: a batch whose caller cancelled it (an HTTP request that timed out or went
//! away) is skipped, never applied; every other batch taken is applied atomically or
//! refused whole, and its outcome is answered by the answer phase of the same tick.

use canopy_protocol::NodeId;

use super::Room;
use super::edit::EditReply;
use super::scene_state::SceneState;
use crate::refusal::Refusal;

/// The outcomes of one apply phase, for the answer phase.
#[derive(Debug, Default)]
pub(super) struct Applied {
    pub replies: Vec<(EditReply, Result<Vec<NodeId>, Refusal>)>,
    pub batches_applied: usize,
    pub batches_rejected: usize,
    pub batches_cancelled: usize,
    pub ops: usize,
}

impl Room {
    /// Applies the batches that fit in this tick's op budget.
    pub(super) fn apply(&mut self, scene: &mut SceneState) -> Applied {
        let mut applied = Applied::default();
        let budget = self.config.tick_op_budget;
        while let Some(edit) = self.edits.take_within(applied.ops, budget) {
            self.shared.release(&edit);
            if !edit.ticket.take() {
                applied.batches_cancelled += 1;
                continue;
            }
            applied.ops += edit.cost();
            let result = scene.apply(&edit.ops).map_err(Refusal::from);
            match &result {
                Ok(_) => applied.batches_applied += 1,
                Err(e) => {
                    applied.batches_rejected += 1;
                    self.metrics.rejected(e.code);
                }
            }
            applied.replies.push((edit.reply, result));
        }
        applied
    }
}
