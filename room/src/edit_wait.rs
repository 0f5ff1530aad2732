//! The edges' wait for an admitted edit batch: until its tick answers, withdrawn at the
//! request's deadline if no tick took it yet, then until its record is durable. Both the
//! HTTP edit route and the cluster's relayed batches answer through it.
//!
//! Invariant: an error answer means the batch was never applied, with one exception the
//! message names: storage that failed after the tick applied it (its outcome is unknown).

use std::time::Duration;

use canopy_protocol::http::EditsResult;
use tokio::sync::oneshot;
use tokio::time::Instant;

use crate::refusal::Refusal;
use crate::{EditAnswer, EditTicket, RoomShared};

/// Waits for the outcome of a batch `room` admitted with `ticket`, answering on `rx`.
/// At `until` a batch no tick has taken is withdrawn and refused (`overloaded`, after
/// `waited`); one a tick took is waited for, however long it takes.
pub async fn outcome(
    room: &RoomShared,
    mut rx: oneshot::Receiver<EditAnswer>,
    ticket: &EditTicket,
    until: Instant,
    waited: Duration,
) -> Result<EditsResult, Refusal> {
    let answer = match tokio::time::timeout_at(until, &mut rx).await {
        Ok(answer) => answer,
        Err(_) if ticket.cancel() => {
            return Err(Refusal::overloaded(format!(
                "the batch waited {} s for room {}'s tick; it was withdrawn and will never \
                 be applied",
                waited.as_secs(),
                room.id
            )));
        }
        // The tick took it: its outcome is on its way.
        Err(_) => rx.await,
    };
    let Ok(answer) = answer else {
        return Err(room.closed_refusal());
    };
    let result = answer.outcome?;
    // Acknowledged only once durable: the tick queued its record; the log thread's
    // fsync releases it. A failure in between leaves the outcome unknown to us too (the
    // bytes may have reached the disk).
    if let Err(why) = room.gate.durable(answer.durable_at).await {
        return Err(Refusal::overloaded(format!(
            "the storage failed before the batch was durable ({why}): its outcome is \
             unknown; a restart applies it only if it reached the disk"
        )));
    }
    Ok(result)
}
