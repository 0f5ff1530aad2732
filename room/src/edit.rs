//! Edit batches on their way from an edge to the tick: the [`EditTicket`] that makes "a
//! batch answered with an error is never applied" hold when a caller gives up, the
//! [`EditReply`] that carries the outcome back, the [`EditQuota`] of one caller over all
//! its connections ([`CallerQuotas`]), and the room's [`EditQueue`] that the tick takes
//! batches from within its op budget.
//!
//! Invariants: a batch is applied only if the tick took its ticket before anybody
//! cancelled it, so a caller that cancelled can answer an error knowing the batch will
//! never be applied; the queue keeps the accepted order; and every pending batch is
//! counted against its room and its connection until it is answered, so neither can hold
//! more than its limits whatever the tick's pace.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};

use canopy_protocol::http::EditsResult;
use tokio::sync::oneshot;

use super::outbox::Outbox;
use super::packed_ops::PackedOps;
use crate::refusal::Refusal;

const QUEUED: u8 = 0;
const TAKEN: u8 = 1;
const CANCELLED: u8 = 2;

/// Who decides a batch's fate first: the tick (taking it to apply) or its caller
/// (cancelling it, after a timeout or a disconnect). Exactly one of them wins.
#[derive(Debug, Default)]
pub struct EditTicket(AtomicU8);

impl EditTicket {
    /// The tick claims the batch; false when the caller cancelled it first.
    pub fn take(&self) -> bool {
        self.0
            .compare_exchange(QUEUED, TAKEN, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }

    /// The caller withdraws the batch; false when the tick already took it (its outcome
    /// will be sent, and the caller must wait for it rather than answer an error).
    pub fn cancel(&self) -> bool {
        self.0
            .compare_exchange(QUEUED, CANCELLED, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }
}

/// What the tick answers an HTTP batch with.
#[derive(Debug)]
pub struct EditAnswer {
    /// The applying tick and the ids of the batch's `add`s, or why it was refused.
    pub outcome: Result<EditsResult, Refusal>,
    /// The log record that must be durable before a success may be reported (0: none,
    /// the room is not logged). The tick never blocks on it; the caller waits.
    pub durable_at: u64,
}

/// Where the outcome of an edit batch goes.
#[derive(Debug)]
pub enum EditReply {
    /// A oneshot channel the caller waits on (HTTP).
    Oneshot(oneshot::Sender<EditAnswer>),
    /// A connection's outbox: the `ack` or `error` with this `seq` is queued ahead of
    /// the delta of the same tick (WebSocket).
    Outbox {
        /// The connection's outbox.
        outbox: Arc<Outbox>,
        /// The `seq` of the `edits` message, echoed in the answer.
        seq: u64,
        /// At a relay: the answer's place in the outbox, held from the moment the
        /// batch was taken, since the replica may show its tick before the owner's
        /// answer arrives.
        held: Option<super::outbox::HeldReply>,
    },
}

impl EditReply {
    /// Sends an outcome that waits for nothing (a refusal, or a room not logged). A
    /// caller that went away is not an error.
    pub fn send(self, outcome: Result<EditsResult, Refusal>) {
        self.send_durable(outcome, 0);
    }

    /// Sends the outcome of a batch whose tick is record `durable_at` of the log. On a
    /// WebSocket the outbox holds it back until then (by the room's gate, which already
    /// names that record); over HTTP the caller waits for it.
    pub fn send_durable(self, outcome: Result<EditsResult, Refusal>, durable_at: u64) {
        match self {
            EditReply::Oneshot(tx) => {
                let _ = tx.send(EditAnswer {
                    outcome,
                    durable_at,
                });
            }
            EditReply::Outbox { outbox, seq, held } => {
                let (msg, tick) = match outcome {
                    Ok(r) => (
                        canopy_protocol::ServerMsg::Ack {
                            seq,
                            tick: r.tick,
                            ids: r.ids,
                        },
                        Some(r.tick),
                    ),
                    Err(e) => (e.to_ws(Some(seq), None), None),
                };
                match held {
                    Some(place) => place.fill(&msg, tick),
                    None => outbox.push_reply(&msg),
                }
            }
        }
    }
}

/// What one caller has waiting for its rooms' ticks, over all its WebSocket connections
/// and HTTP requests, so that a single editor can hold only part of a room's pending
/// budget.
#[derive(Debug, Default)]
pub struct EditQuota {
    /// Batches of this connection waiting for the tick.
    pub batches: AtomicUsize,
    /// Ops of those batches (at least one per batch), against `--max-pending-ops-per-conn`.
    pub ops: AtomicUsize,
}

/// The [`EditQuota`] of each caller (its JWT `sub` or token, else its address) while it
/// has edits in flight: a quota per connection would let one editor with a few parallel
/// connections (HTTP or WebSocket) take the whole room's pending budget and get every
/// other editor refused.
///
/// Invariant: a caller with a batch in flight has exactly one live quota here, shared by
/// all its requests; an entry whose quota was dropped is stale and is swept once stale
/// entries could outnumber the live ones.
#[derive(Debug, Default)]
pub struct CallerQuotas(dashmap::DashMap<String, std::sync::Weak<EditQuota>>);

impl CallerQuotas {
    /// Entries kept before a sweep of the stale ones is considered.
    const SWEEP_ABOVE: usize = 1024;

    /// The quota `caller`'s requests share; it lives as long as one of them holds it.
    pub fn of(&self, caller: &str) -> Arc<EditQuota> {
        if let Some(q) = self.0.get(caller).and_then(|w| w.upgrade()) {
            return q;
        }
        let mut entry = self.0.entry(caller.to_owned()).or_default();
        // Another request of this caller may have set one in between.
        if let Some(q) = entry.upgrade() {
            return q;
        }
        let q = Arc::new(EditQuota::default());
        *entry = Arc::downgrade(&q);
        drop(entry);
        let len = self.0.len();
        if len > Self::SWEEP_ABOVE && len.is_power_of_two() {
            self.0.retain(|_, w| w.strong_count() > 0);
        }
        q
    }

    /// Ops `caller` has waiting for ticks, in all rooms.
    pub fn waiting_ops(&self, caller: &str) -> usize {
        self.0
            .get(caller)
            .and_then(|w| w.upgrade())
            .map_or(0, |q| q.ops.load(Ordering::Acquire))
    }

    /// Callers with an entry (live or stale).
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True when no caller has an entry.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// An accepted batch waiting for the tick.
#[derive(Debug)]
pub struct PendingEdit {
    /// The batch's ops, in order, packed while they wait (see `packed_ops.rs`).
    pub ops: PackedOps,
    /// Where its outcome goes.
    pub reply: EditReply,
    /// Shared with the caller: the tick applies the batch only if it takes this first.
    pub ticket: Arc<EditTicket>,
    /// The connection's quota the batch is counted against, if it has one.
    pub quota: Option<Arc<EditQuota>>,
}

impl PendingEdit {
    /// The batch's cost against the budgets: its ops, at least one.
    pub fn cost(&self) -> usize {
        self.ops.len().max(1)
    }
}

/// The room's pending batches in accepted order.
#[derive(Debug, Default)]
pub struct EditQueue {
    queue: VecDeque<PendingEdit>,
}

impl EditQueue {
    /// Queues an accepted batch behind the others.
    pub fn push(&mut self, edit: PendingEdit) {
        self.queue.push_back(edit);
    }

    /// Batches waiting.
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    /// True when no batch is waiting.
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// The batch next in line, if any.
    pub fn peek(&self) -> Option<&PendingEdit> {
        self.queue.front()
    }

    /// The next batch if it fits in what is left of the tick's op budget. The first
    /// batch of a tick always fits (`spent == 0`), so a batch larger than the budget
    /// still gets a tick of its own instead of waiting forever.
    pub fn take_within(&mut self, spent: usize, budget: usize) -> Option<PendingEdit> {
        let next = self.queue.front()?;
        if spent > 0 && spent + next.cost() > budget {
            return None;
        }
        self.queue.pop_front()
    }

    /// Every waiting batch, in order (when the room stops).
    pub fn drain(&mut self) -> impl Iterator<Item = PendingEdit> + '_ {
        self.queue.drain(..)
    }
}

/// Refuses a batch with more ops than the server's limit (both edges call this).
pub fn check_batch_size(ops: usize, limit: usize) -> Result<(), Refusal> {
    if ops > limit {
        return Err(Refusal::too_large(format!(
            "the batch has {ops} ops, the limit is {limit}"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_callers_requests_share_one_quota_while_any_holds_it() {
        let quotas = CallerQuotas::default();
        let a = quotas.of("addr:10.0.0.1");
        a.ops.fetch_add(6, Ordering::AcqRel);
        let again = quotas.of("addr:10.0.0.1");
        assert!(Arc::ptr_eq(&a, &again));
        assert_eq!(quotas.waiting_ops("addr:10.0.0.1"), 6);
        assert_eq!(quotas.waiting_ops("addr:10.0.0.2"), 0);
        drop((a, again));
        assert_eq!(
            quotas.waiting_ops("addr:10.0.0.1"),
            0,
            "a fresh quota after"
        );
        assert_eq!(quotas.of("addr:10.0.0.1").ops.load(Ordering::Acquire), 0);
    }

    #[test]
    fn stale_entries_are_swept() {
        let quotas = CallerQuotas::default();
        let live: Vec<_> = (0..10).map(|i| quotas.of(&format!("live{i}"))).collect();
        for i in 0..10_000 {
            drop(quotas.of(&format!("gone{i}")));
            assert!(
                quotas.len() <= 2 * CallerQuotas::SWEEP_ABOVE,
                "{}",
                quotas.len()
            );
        }
        for (i, q) in live.iter().enumerate() {
            assert!(
                Arc::ptr_eq(q, &quotas.of(&format!("live{i}"))),
                "live ones kept"
            );
        }
    }
}
