//! The requests of one WebSocket connection that wait for their answer: edit batches by
//! `seq`, queries by `id`, pings by `nonce`, and subscribes in the order they were sent
//! (the server answers them in that order, each with a snapshot or, for a subscribe
//! with `since`, possibly a resumed delta).
//!
//! Invariant: a request is in exactly one table from the moment its message is about to
//! be sent until its answer arrives or the connection drops; [`Pending::fail_all`]
//! answers every one of them with [`ClientError::Disconnected`], so none outlives its
//! connection.

use std::collections::{HashMap, VecDeque};
use std::time::Instant;

use canopy_protocol::http::EditsResult;
use canopy_protocol::{ErrorCode, Hits, NodeId};

use super::command::{Pong, Reply};
use crate::error::ClientError;
use crate::query::{AnswerKind, QueryAnswer};
use crate::scope::Scope;

/// Who is waiting for a snapshot: the caller of `subscribe`, or the driver itself when
/// it resubscribed to resynchronise.
pub(crate) enum SnapshotWaiter {
    Caller(Reply<u64>),
    Resync,
}

/// A `subscribe` sent and not answered yet.
pub(crate) struct Subscribe {
    pub(crate) waiter: SnapshotWaiter,
    /// The scope it subscribed to: what the mirror holds once it is answered.
    pub(crate) scope: Scope,
    /// The `since` it carried: only then may a resumed delta answer it.
    pub(crate) since: Option<u64>,
    /// For the caller's subscribe: the scope the caller had asked for before it, which
    /// the server goes on serving if it refuses this one.
    pub(crate) previous: Option<Scope>,
}

/// Which request a server `error` answered.
pub(crate) enum Taken {
    /// None: nothing waits for it.
    Nothing,
    /// An edit batch or a query, now answered with the error.
    Request,
    /// The caller's subscribe, refused (boxed: two scopes are large).
    Subscribe(Box<Refused>),
}

/// A caller's subscribe the server refused: the driver answers `reply` with `error`
/// once it has put the scope asked for before (`previous`) back.
pub(crate) struct Refused {
    pub(crate) scope: Scope,
    pub(crate) previous: Option<Scope>,
    pub(crate) reply: Reply<u64>,
    pub(crate) error: ClientError,
}

/// The waiting requests of one connection.
#[derive(Default)]
pub(crate) struct Pending {
    /// One counter for `seq`, `id` and `nonce`: a number is never reused within a
    /// connection's life, so a late answer can never be taken for another request's.
    next: u64,
    edits: HashMap<u64, Reply<EditsResult>>,
    queries: HashMap<u64, (AnswerKind, Reply<QueryAnswer>)>,
    pings: HashMap<u64, (Instant, Reply<Pong>)>,
    snapshots: VecDeque<Subscribe>,
}

impl Pending {
    fn next_number(&mut self) -> u64 {
        self.next += 1;
        self.next
    }

    /// Registers an edit batch; returns its `seq`.
    pub(crate) fn add_edits(&mut self, reply: Reply<EditsResult>) -> u64 {
        let seq = self.next_number();
        self.edits.insert(seq, reply);
        seq
    }

    /// Registers a query; returns its `id`.
    pub(crate) fn add_query(&mut self, kind: AnswerKind, reply: Reply<QueryAnswer>) -> u64 {
        let id = self.next_number();
        self.queries.insert(id, (kind, reply));
        id
    }

    /// Registers a ping; returns its `nonce`.
    pub(crate) fn add_ping(&mut self, reply: Reply<Pong>) -> u64 {
        let nonce = self.next_number();
        self.pings.insert(nonce, (Instant::now(), reply));
        nonce
    }

    /// Registers a subscribe just sent.
    pub(crate) fn add_subscribe(
        &mut self,
        waiter: SnapshotWaiter,
        scope: Scope,
        since: Option<u64>,
        previous: Option<Scope>,
    ) {
        self.snapshots.push_back(Subscribe {
            waiter,
            scope,
            since,
            previous,
        });
    }

    /// Whether any subscribe still waits for its answer.
    pub(crate) fn subscribe_pending(&self) -> bool {
        !self.snapshots.is_empty()
    }

    /// The subscribe a snapshot (or resumed delta) answers: the oldest one. `None` means
    /// a snapshot no subscribe asked for, which the driver treats as a
    /// resynchronisation.
    pub(crate) fn take_snapshot_waiter(&mut self) -> Option<Subscribe> {
        self.snapshots.pop_front()
    }

    /// Whether the oldest subscribe carried `since`, so that a resumed delta may answer
    /// it.
    pub(crate) fn next_resumes(&self) -> bool {
        self.snapshots.front().is_some_and(|s| s.since.is_some())
    }

    /// Whether a resubscribe sent by the driver still waits for its snapshot.
    pub(crate) fn resync_pending(&self) -> bool {
        self.snapshots
            .iter()
            .any(|s| matches!(s.waiter, SnapshotWaiter::Resync))
    }

    /// Answers an edit batch with its `ack`.
    pub(crate) fn ack(&mut self, seq: u64, tick: u64, ids: Vec<NodeId>) {
        if let Some(reply) = self.edits.remove(&seq) {
            let _ = reply.send(Ok(EditsResult { tick, ids }));
        }
    }

    /// Answers a query with its `query_result`, checking its shape.
    pub(crate) fn query_result(
        &mut self,
        id: u64,
        tick: u64,
        nodes: Option<Vec<NodeId>>,
        hits: Option<Hits>,
    ) {
        if let Some((kind, reply)) = self.queries.remove(&id) {
            let _ = reply.send(QueryAnswer::from_ws(kind, tick, nodes, hits));
        }
    }

    /// Answers a ping with its `pong`.
    pub(crate) fn pong(&mut self, nonce: u64, tick: u64) {
        if let Some((sent, reply)) = self.pings.remove(&nonce) {
            let _ = reply.send(Ok(Pong {
                tick,
                rtt: sent.elapsed(),
            }));
        }
    }

    /// Answers the request an `error` names. An error naming neither an edit batch nor a
    /// query is taken as the refusal of the oldest subscribe made by the caller (the only
    /// other message the server refuses), if there is one. Returns which request took
    /// the error.
    pub(crate) fn error(
        &mut self,
        seq: Option<u64>,
        id: Option<u64>,
        code: ErrorCode,
        message: String,
        op: Option<u32>,
    ) -> Taken {
        let err = ClientError::Api {
            code,
            message,
            op,
            status: None,
            retry_after: None,
        };
        if let Some(seq) = seq {
            return match self.edits.remove(&seq) {
                Some(reply) => {
                    let _ = reply.send(Err(err));
                    Taken::Request
                }
                None => Taken::Nothing,
            };
        }
        if let Some(id) = id {
            return match self.queries.remove(&id) {
                Some((_, reply)) => {
                    let _ = reply.send(Err(err));
                    Taken::Request
                }
                None => Taken::Nothing,
            };
        }
        if !matches!(
            self.snapshots.front().map(|s| &s.waiter),
            Some(SnapshotWaiter::Caller(_))
        ) {
            return Taken::Nothing;
        }
        match self.snapshots.pop_front() {
            Some(Subscribe {
                waiter: SnapshotWaiter::Caller(reply),
                scope,
                previous,
                ..
            }) => Taken::Subscribe(Box::new(Refused {
                scope,
                previous,
                reply,
                error: err,
            })),
            _ => Taken::Nothing,
        }
    }

    /// Fails every waiting request with [`ClientError::Disconnected`].
    pub(crate) fn fail_all(&mut self) {
        for (_, reply) in self.edits.drain() {
            let _ = reply.send(Err(ClientError::Disconnected));
        }
        for (_, (_, reply)) in self.queries.drain() {
            let _ = reply.send(Err(ClientError::Disconnected));
        }
        for (_, (_, reply)) in self.pings.drain() {
            let _ = reply.send(Err(ClientError::Disconnected));
        }
        for subscribe in self.snapshots.drain(..) {
            if let SnapshotWaiter::Caller(reply) = subscribe.waiter {
                let _ = reply.send(Err(ClientError::Disconnected));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::sync::oneshot;

    #[test]
    fn answers_go_to_the_request_they_name() {
        let mut p = Pending::default();
        let (tx1, mut rx1) = oneshot::channel();
        let (tx2, mut rx2) = oneshot::channel();
        let s1 = p.add_edits(tx1);
        let s2 = p.add_edits(tx2);
        assert_ne!(s1, s2);
        p.error(Some(s2), None, ErrorCode::Cycle, "loop".into(), Some(3));
        p.ack(s1, 7, vec![5]);
        assert_eq!(
            rx1.try_recv().unwrap().unwrap(),
            EditsResult {
                tick: 7,
                ids: vec![5]
            }
        );
        match rx2.try_recv().unwrap() {
            Err(ClientError::Api { code, op, .. }) => {
                assert_eq!((code, op), (ErrorCode::Cycle, Some(3)));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn fail_all_leaves_nothing_waiting() {
        let mut p = Pending::default();
        let (tx, mut rx) = oneshot::channel();
        p.add_ping(tx);
        let (tx, mut sub) = oneshot::channel();
        p.add_subscribe(SnapshotWaiter::Caller(tx), Scope::room(), None, None);
        p.add_subscribe(SnapshotWaiter::Resync, Scope::room(), None, None);
        assert!(p.resync_pending());
        p.fail_all();
        assert!(matches!(
            rx.try_recv().unwrap(),
            Err(ClientError::Disconnected)
        ));
        assert!(matches!(
            sub.try_recv().unwrap(),
            Err(ClientError::Disconnected)
        ));
        assert!(!p.resync_pending());
        assert!(p.take_snapshot_waiter().is_none());
    }

    #[test]
    fn an_error_without_ids_refuses_the_oldest_caller_subscribe() {
        let mut p = Pending::default();
        let (tx, mut rx) = oneshot::channel();
        let follow = Scope::follow(3, 10.0);
        p.add_subscribe(
            SnapshotWaiter::Caller(tx),
            follow.clone(),
            None,
            Some(Scope::room()),
        );
        match p.error(None, None, ErrorCode::BadRequest, "v1.2".into(), None) {
            Taken::Subscribe(refused) => {
                assert_eq!(
                    (refused.scope, refused.previous),
                    (follow, Some(Scope::room()))
                );
                assert!(refused.reply.send(Err(refused.error)).is_ok());
            }
            _ => panic!("the subscribe should take the error"),
        }
        assert!(rx.try_recv().unwrap().is_err());
        assert!(!p.subscribe_pending());
        assert!(matches!(
            p.error(None, None, ErrorCode::BadRequest, "?".into(), None),
            Taken::Nothing
        ));
    }

    #[test]
    fn only_a_subscribe_with_since_may_be_answered_by_a_resumed_delta() {
        let mut p = Pending::default();
        assert!(!p.next_resumes());
        p.add_subscribe(SnapshotWaiter::Resync, Scope::room(), Some(41), None);
        p.add_subscribe(
            SnapshotWaiter::Resync,
            Scope::room().with_mask(2),
            None,
            None,
        );
        assert!(p.next_resumes());
        let first = p.take_snapshot_waiter().unwrap();
        assert_eq!((first.since, first.scope), (Some(41), Scope::room()));
        assert!(!p.next_resumes());
    }
}
