//! What a tick's apply phase did, for the phases after it: the answer of each batch
//! taken (until the record phase turns acks into refusals, they say what the client will
//! be told), and the counts the tick's report shows.
//!
//! Invariant: every batch the apply phase took has exactly one entry in `replies`.

use canopy_protocol::NodeId;

use crate::edit::EditReply;
use crate::refusal::Refusal;

/// The outcomes of one apply phase, for the answer phase.
#[derive(Debug, Default)]
pub(crate) struct Applied {
    pub replies: Vec<(EditReply, Result<Vec<NodeId>, Refusal>)>,
    pub batches_applied: usize,
    pub batches_rejected: usize,
    pub batches_cancelled: usize,
    pub ops: usize,
}

impl Applied {
    /// Turns this tick's acks into `overloaded` refusals saying `why`: their record
    /// will never be durable, so they must not be acknowledged.
    pub(crate) fn refuse_acks(&mut self, why: &str) {
        for (_, result) in &mut self.replies {
            if result.is_ok() {
                *result = Err(Refusal::overloaded(why.to_string()));
            }
        }
    }
}

/// What an applied op is assumed to cost in the log queue, for the room's check that
/// the queue can take its tick's record (a bincode op is 10 to 50 bytes).
pub const LOGGED_BYTES_PER_OP: usize = 64;
