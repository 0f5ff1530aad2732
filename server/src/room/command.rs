//! What the outside world asks of a room, carried to its tick through one channel so
//! that the tick stays the only writer of the room's state.

use std::sync::Arc;

use canopy_protocol::http::EditsResult;
use canopy_protocol::{ErrorCode, Op};
use tokio::sync::oneshot;

use super::outbox::{ConnId, Outbox};
use super::scope::Scope;

/// Why an edit batch was not applied.
#[derive(Debug, Clone, PartialEq)]
pub struct EditFailure {
    pub code: ErrorCode,
    pub message: String,
    pub op: Option<u32>,
}

/// Where the answer to an edit batch goes.
#[derive(Debug)]
pub enum EditReply {
    /// An HTTP request waiting for its response.
    Http(oneshot::Sender<Result<EditsResult, EditFailure>>),
    /// A WebSocket `edits` message: the `ack` or `error` goes into the connection's
    /// outbox, ahead of the delta of the same tick.
    Ws { outbox: Arc<Outbox>, seq: u64 },
}

impl EditReply {
    /// Sends the outcome. A caller that went away is not an error.
    pub fn send(self, outcome: Result<EditsResult, EditFailure>) {
        match self {
            EditReply::Http(tx) => {
                let _ = tx.send(outcome);
            }
            EditReply::Ws { outbox, seq } => {
                use canopy_protocol::ServerMsg;
                let msg = match outcome {
                    Ok(r) => ServerMsg::Ack {
                        seq,
                        tick: r.tick,
                        ids: r.ids,
                    },
                    Err(e) => ServerMsg::Error {
                        seq: Some(seq),
                        id: None,
                        code: e.code,
                        message: e.message,
                        op: e.op,
                    },
                };
                outbox.push_msg(msg);
            }
        }
    }
}

/// A request to the room's task.
#[derive(Debug)]
pub enum RoomCommand {
    /// An edit batch to apply at the next tick, in arrival order.
    Edits { ops: Vec<Op>, reply: EditReply },
    /// Start or replace a connection's subscription.
    Subscribe { outbox: Arc<Outbox>, scope: Scope },
    /// End a connection's subscription.
    Unsubscribe { conn: ConnId },
    /// The room is being deleted: close every subscriber and stop.
    Delete,
}
