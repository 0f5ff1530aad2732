//! Edits sent on a relay's connections: forwarded to the room's owner in the order they
//! came (one request in flight, carrying every batch that queued meanwhile), and, at the
//! owner, queued in the room like its own editors' batches and answered one outcome per
//! batch.
//!
//! Invariant: a relayed batch is answered exactly once, with the owner's outcome or, when
//! the owner cannot be reached, with `overloaded` naming whether it may have been applied.

use std::sync::Arc;
use std::time::Duration;

use bincode::{Decode, Encode};
use canopy_protocol::http::EditsResult;
use canopy_protocol::{ErrorCode, Op};
use tokio::sync::{mpsc, oneshot};

use super::{Cluster, ClusterError, bus};
use crate::state::AppState;
use canopy_room::edit::check_batch_size;
use canopy_room::refusal::Refusal;
use canopy_room::{EditReply, EditTicket, PendingEdit, RoomCommand, RoomShared};

/// The subject a node takes relays' edits on.
pub(super) fn edits_subject(node: &str) -> String {
    format!("canopy.node.{node}.edits")
}

/// Batches a relay's connections sent, in their order, for the owner to queue in it.
#[derive(Debug, Encode, Decode)]
pub(super) struct RelayedEdits {
    pub(super) room: String,
    pub(super) batches: Vec<Vec<Op>>,
}

/// The owner's answer to each batch of a [`RelayedEdits`], in order.
#[derive(Debug, Encode, Decode)]
pub(super) enum RelayedOutcome {
    Applied(EditsResult),
    Refused {
        code: ErrorCode,
        message: String,
        op: Option<u32>,
    },
}

impl From<Result<EditsResult, Refusal>> for RelayedOutcome {
    fn from(r: Result<EditsResult, Refusal>) -> Self {
        match r {
            Ok(a) => RelayedOutcome::Applied(a),
            Err(e) => RelayedOutcome::Refused {
                code: e.code,
                message: e.message,
                op: e.op,
            },
        }
    }
}

impl From<RelayedOutcome> for Result<EditsResult, Refusal> {
    fn from(o: RelayedOutcome) -> Self {
        match o {
            RelayedOutcome::Applied(a) => Ok(a),
            RelayedOutcome::Refused { code, message, op } => Err(Refusal { code, message, op }),
        }
    }
}

/// HTTP edit would be answered (after its tick, once durable).
pub(super) async fn queue_relayed(
    state: &AppState,
    room: &str,
    batches: Vec<Vec<Op>>,
) -> Vec<Result<EditsResult, Refusal>> {
    let room = match state.room(room) {
        Ok(r) if !r.is_replica() => r,
        Ok(_) | Err(_) => {
            // The relay took this node for the owner: the room is moving (this node
            // restarted and is taking it back, or let it go); never `unknown_room`.
            let why = Refusal::overloaded(format!(
                "room {room} is moving: it is not served by this node just now; nothing \
                 was applied: try again"
            ));
            return batches.iter().map(|_| Err(why.clone())).collect();
        }
    };
    let mut waiting = Vec::with_capacity(batches.len());
    for ops in batches {
        let queued = check_batch_size(ops.len(), state.config.max_ops_per_batch).and_then(|()| {
            let (tx, rx) = oneshot::channel();
            let ticket = Arc::new(EditTicket::default());
            room.submit_edits(ops, EditReply::Oneshot(tx), Arc::clone(&ticket), None)
                .map(|()| (rx, ticket))
        });
        waiting.push(queued);
    }
    // One deadline for the request, as for an HTTP edit; a batch still waiting then is
    // withdrawn, so that its error answer means what it says: never applied.
    let deadline = state.config.request_timeout;
    let until = tokio::time::Instant::now() + deadline;
    let mut answers = Vec::with_capacity(waiting.len());
    for w in waiting {
        answers.push(match w {
            Err(refused) => Err(refused),
            Ok((rx, ticket)) => {
                canopy_room::edit_wait::outcome(&room, rx, &ticket, until, deadline).await
            }
        });
    }
    answers
}

/// Passes a replica's edits to the owner in the order they came: one request in flight,
/// carrying every batch that queued while the last one was out (so relayed editors are
/// not held to one batch per owner tick).
pub(super) async fn forward_edits(
    cluster: Arc<Cluster>,
    replica: Arc<RoomShared>,
    request_timeout: Duration,
    mut edits: mpsc::Receiver<PendingEdit>,
) {
    let timeout = request_timeout + Duration::from_secs(5);
    let budget = cluster.max_payload() / 2;
    let mut next: Option<PendingEdit> = None;
    loop {
        let first = match next.take() {
            Some(e) => e,
            None => match tokio::select! {
                _ = replica.closed() => None,
                e = edits.recv() => e,
            } {
                Some(e) => e,
                None => break,
            },
        };
        let taken = take_within(first, &mut edits, budget, &mut next);
        let mut replies = Vec::with_capacity(taken.len());
        let mut batches = Vec::with_capacity(taken.len());
        for edit in taken {
            replica.release(&edit);
            let PendingEdit { ops, reply, .. } = edit;
            replies.push(reply);
            batches.push(ops.to_vec());
        }
        cluster.metrics.forwarded.inc();
        match ask_owner(&cluster, &replica.id, batches, timeout).await {
            Ok(answers) => {
                for (reply, outcome) in replies.into_iter().zip(answers) {
                    replica.send(RoomCommand::Answer(reply, outcome.into()));
                }
            }
            Err(e) => {
                cluster.metrics.forward_failures.inc();
                for reply in replies {
                    let refusal =
                        Refusal::overloaded(format!("the room's owner could not be reached ({e})"));
                    replica.send(RoomCommand::Answer(reply, Err(refusal)));
                }
            }
        }
        replica.wake_early();
    }
}

/// `first` and what else waits in `edits`, up to `budget` bytes of envelope; the first
/// batch over it is kept in `next` for the following request.
fn take_within(
    first: PendingEdit,
    edits: &mut mpsc::Receiver<PendingEdit>,
    budget: usize,
    next: &mut Option<PendingEdit>,
) -> Vec<PendingEdit> {
    // Ops cost about 40 bytes in an envelope; stay well under max_payload.
    let mut bytes = first.ops.len() * 48;
    let mut taken = vec![first];
    while let Ok(e) = edits.try_recv() {
        let cost = e.ops.len() * 48;
        if bytes + cost > budget {
            *next = Some(e);
            break;
        }
        bytes += cost;
        taken.push(e);
    }
    taken
}

/// Sends `batches` to the owner the replica of `room` follows now (it may have followed
/// a takeover) and answers one outcome per batch.
async fn ask_owner(
    cluster: &Cluster,
    room: &str,
    batches: Vec<Vec<Op>>,
    timeout: Duration,
) -> Result<Vec<RelayedOutcome>, ClusterError> {
    let n = batches.len();
    let request = bus::encode(&RelayedEdits {
        room: room.to_owned(),
        batches,
    });
    let owner = cluster
        .replicas
        .get(room)
        .map(|h| h.0.clone())
        .unwrap_or_default();
    let failed = |why: String| ClusterError::Forward {
        node: owner.clone(),
        why: format!("{why}; the batches' outcome is unknown"),
        unsent: false,
    };
    let ask = cluster
        .client()
        .request(edits_subject(&owner), request.into());
    let m = match tokio::time::timeout(timeout, ask).await {
        Err(_) => return Err(failed("no answer in time".into())),
        Ok(Err(e)) => return Err(failed(e.to_string())),
        Ok(Ok(m)) => m,
    };
    let answers = bus::decode::<Vec<RelayedOutcome>>(&m.payload)?;
    if answers.len() == n {
        Ok(answers)
    } else {
        Err(failed("a short answer".into()))
    }
}
