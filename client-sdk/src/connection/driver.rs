//! The driver task of a [`Connection`](super::Connection): the only owner of the
//! WebSocket. It sends the handles' requests, matches answers to them, applies
//! snapshots and deltas to the shared mirror, publishes events, keeps the connection
//! alive, and reconnects and resynchronises after a drop.
//!
//! Invariants:
//! * Frames are applied to the mirror in the order they arrive, and deltas only on top
//!   of a snapshot of the same connection, or of the copy a resumed delta answered for:
//!   after a reconnect nothing is applied until the fresh snapshot has replaced the copy
//!   or the resumed delta (the answer to a `subscribe` with `since`) has brought it up
//!   to date.
//! * A reconnect asks to resume (`since: N`, N the mirror's tick) only when the mirror
//!   holds a consistent copy of exactly the scope it resubscribes to: `held` is that
//!   scope, set when a snapshot or resumed delta for it applied cleanly and cleared by
//!   anything that makes the copy doubtful (an inconsistency, an unreadable frame,
//!   `unsubscribe`).
//! * When a connection ends, every request waiting on it fails with
//!   [`ClientError::Disconnected`] before anything else happens; while there is no
//!   connection, new requests fail at once instead of queueing.
//! * The desired scope (the last `subscribe` or `unsubscribe` the caller asked for) is
//!   what every new connection subscribes with.

use std::sync::Arc;
use std::time::Duration;

use canopy_protocol::{ClientMsg, Encoding, ServerMsg};
use futures_util::StreamExt;
use futures_util::stream::SplitStream;
use tokio::sync::{broadcast, mpsc, oneshot, watch};
use tokio::time::{Instant, MissedTickBehavior};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

use super::Shared;
use super::command::Command;
use super::lifecycle::{self, ConnState, Decision, StopReason};
use super::options::ConnectOptions;
use super::pending::{Pending, Refused, SnapshotWaiter, Subscribe, Taken};
use super::reconnect::Reconnect;
use super::socket::{self, Opened, Socket, Writer};
use crate::backoff::BackoffState;
use crate::endpoint::Endpoint;
use crate::error::ClientError;
use crate::events::{Event, Frame};
use crate::query::AnswerKind;
use crate::scope::Scope;

type Stream = SplitStream<Socket>;

/// How long a closing handshake may take before the socket is simply dropped.
const CLOSE_GRACE: Duration = Duration::from_secs(1);

/// How a connection ended.
enum End {
    /// The caller closed it (or dropped every handle); `done` is told when closed.
    ByClient(Option<oneshot::Sender<()>>),
    /// It dropped or the server closed it. `closed` is the reason of the server's
    /// `closed` message and `code` the close frame's code, when they came.
    Lost {
        error: String,
        closed: Option<String>,
        code: Option<u16>,
    },
}

impl End {
    fn lost(error: impl ToString) -> Self {
        End::Lost {
            error: error.to_string(),
            closed: None,
            code: None,
        }
    }
}

/// The state of the driver task.
pub(super) struct Driver {
    pub(super) endpoint: Endpoint,
    pub(super) room: String,
    pub(super) options: ConnectOptions,
    pub(super) commands: mpsc::UnboundedReceiver<Command>,
    pub(super) shared: Arc<Shared>,
    pub(super) events: broadcast::Sender<Frame>,
    pub(super) state: watch::Sender<ConnState>,
    pub(super) pending: Pending,
    /// The scope the caller asked for last; `None` when unsubscribed.
    pub(super) scope: Option<Scope>,
    /// Whether a snapshot (or resumed delta) was applied on the current connection since
    /// the last `unsubscribe`: only then do deltas have a base to apply to.
    pub(super) synced: bool,
    /// The scope the mirror holds a consistent copy of, across connections; a reconnect
    /// to the same scope asks to resume from the mirror's tick.
    pub(super) held: Option<Scope>,
    /// The room instance the current connection's upgrade named.
    pub(super) instance: Option<String>,
    /// The room instance `held` was received from: a reconnect resumes only to the same
    /// one, since ticks of another instance (the room created again, another server)
    /// belong to another timeline.
    pub(super) held_instance: Option<String>,
}

impl Driver {
    /// Serves connections until the caller closes or the lifecycle policy stops it.
    pub(super) async fn run(mut self, first: Opened) {
        let mut backoff = self.options.backoff.start();
        let mut socket = first;
        let mut resumed = false;
        loop {
            let end = self.serve(socket, resumed, &mut backoff).await;
            self.pending.fail_all();
            self.synced = false;
            let (error, closed, code) = match end {
                End::ByClient(done) => return self.stop(StopReason::ClosedByClient, done),
                End::Lost {
                    error,
                    closed,
                    code,
                } => (error, closed, code),
            };
            tracing::debug!(room = %self.room, %error, ?closed, ?code, "connection ended");
            if let Decision::Stop(reason) = lifecycle::after_connection(closed.as_deref(), code) {
                return self.stop(reason, None);
            }
            if !self.options.reconnect {
                return self.stop(StopReason::Dropped { error }, None);
            }
            self.publish(vec![Event::Disconnected { error }]);
            match self.reconnect(&mut backoff).await {
                Reconnect::Open(next) => socket = *next,
                Reconnect::Stop(reason, done) => return self.stop(reason, done),
            }
            resumed = true;
        }
    }

    /// Publishes the final state and event. The handles see `Stopped` from now on.
    fn stop(&mut self, reason: StopReason, done: Option<oneshot::Sender<()>>) {
        tracing::debug!(room = %self.room, %reason, "connection stopped");
        self.pending.fail_all();
        self.state.send_replace(ConnState::Stopped(reason.clone()));
        self.publish(vec![Event::Stopped(reason)]);
        if let Some(done) = done {
            let _ = done.send(());
        }
    }

    fn publish(&self, events: Vec<Event>) {
        if !events.is_empty() {
            // No receiver is not an error: the mirror is the source of truth.
            let _ = self.events.send(events.into());
        }
    }

    fn wants_events(&self) -> bool {
        self.events.receiver_count() > 0
    }

    pub(super) fn set_scope(&mut self, scope: Option<Scope>) {
        self.scope.clone_from(&scope);
        *self.shared.scope.lock() = scope;
    }

    /// Serves one open socket until it ends.
    async fn serve(&mut self, opened: Opened, resumed: bool, backoff: &mut BackoffState) -> End {
        self.instance = opened.instance;
        let (sink, mut stream) = opened.socket.split();
        let mut writer = Writer::spawn(sink);
        let opened = Instant::now();
        self.state.send_replace(ConnState::Connected);
        if resumed {
            self.publish(vec![Event::Reconnected]);
        }
        if let Some(scope) = self.scope.clone() {
            let same_instance = self.instance.is_some() && self.instance == self.held_instance;
            let since = (resumed && same_instance && self.held.as_ref() == Some(&scope))
                .then(|| self.shared.mirror.read().tick());
            let msg = scope.message(since, self.encoding());
            self.pending
                .add_subscribe(SnapshotWaiter::Resync, scope, since, None);
            if let Err(e) = self.send(&writer, &msg) {
                return End::lost(e);
            }
        }
        let period = self.options.keepalive.max(Duration::from_millis(10));
        let mut keepalive = tokio::time::interval_at(Instant::now() + period, period);
        keepalive.set_missed_tick_behavior(MissedTickBehavior::Delay);
        let mut last_heard = Instant::now();
        let mut closed_reason: Option<String> = None;
        loop {
            tokio::select! {
                command = self.commands.recv() => match command {
                    None => return close(writer, stream, None).await,
                    Some(Command::Close { done }) => return close(writer, stream, Some(done)).await,
                    Some(command) => {
                        if let Err(e) = self.command(command, &writer) {
                            return End::lost(e);
                        }
                    }
                },
                error = writer.stopped() => return End::Lost {
                    error,
                    closed: closed_reason,
                    code: None,
                },
                frame = stream.next() => {
                    last_heard = Instant::now();
                    let frame = match frame {
                        None => return End::Lost {
                            error: "the server closed the connection".into(),
                            closed: closed_reason,
                            code: None,
                        },
                        Some(Err(e)) => return End::Lost {
                            error: e.to_string(),
                            closed: closed_reason,
                            code: None,
                        },
                        Some(Ok(frame)) => frame,
                    };
                    if let Message::Close(close_frame) = &frame {
                        // Let the writer send tungstenite's reply to the close.
                        writer.finish(CLOSE_GRACE).await;
                        let code = close_frame.as_ref().map(|f| u16::from(f.code));
                        return End::Lost {
                            error: format!(
                                "the server closed the connection ({})",
                                closed_reason.as_deref().unwrap_or("no reason given")
                            ),
                            closed: closed_reason,
                            code,
                        };
                    }
                    let outcome = match socket::decode(&frame) {
                        None => Ok(()),
                        Some(Ok(ServerMsg::Closed { reason })) => {
                            closed_reason = Some(reason);
                            Ok(())
                        }
                        Some(Ok(msg)) => self.message(msg, &writer, backoff),
                        Some(Err(e)) => {
                            // A frame that cannot be read may have been a delta, so the
                            // copy can no longer be trusted: ask for a fresh snapshot.
                            tracing::warn!(room = %self.room, error = %e, "undecodable frame");
                            self.resync(&writer)
                        }
                    };
                    if let Err(e) = outcome {
                        return End::lost(e);
                    }
                },
                _ = keepalive.tick() => {
                    if last_heard.elapsed() >= period * 3 {
                        return End::lost(format!("nothing heard from the server for {:?}", period * 3));
                    }
                    if let Err(e) = writer.send(Message::Ping(Default::default())) {
                        return End::lost(e);
                    }
                },
            }
            if opened.elapsed() >= backoff.stable_after() {
                backoff.reset();
            }
        }
    }

    fn send(&self, writer: &Writer, msg: &ClientMsg) -> Result<(), ClientError> {
        writer.send(socket::encode(msg, self.options.format))
    }

    fn encoding(&self) -> Encoding {
        self.options.wire_encoding()
    }

    /// Sends a caller's request. The request is registered before it is sent, so a send
    /// that fails leaves it for `fail_all` to answer.
    fn command(&mut self, command: Command, writer: &Writer) -> Result<(), ClientError> {
        match command {
            Command::Subscribe { scope, reply } => {
                let msg = scope.message(None, self.encoding());
                let previous = self.scope.clone();
                self.set_scope(Some(scope.clone()));
                self.pending
                    .add_subscribe(SnapshotWaiter::Caller(reply), scope, None, previous);
                self.send(writer, &msg)
            }
            Command::Unsubscribe { reply } => {
                self.unsubscribe_locally();
                let _ = reply.send(Ok(()));
                self.send(writer, &ClientMsg::Unsubscribe)
            }
            Command::Edits { ops, reply } => {
                let seq = self.pending.add_edits(reply);
                self.send(writer, &ClientMsg::Edits { seq, ops })
            }
            Command::Query { query, reply } => {
                let id = self.pending.add_query(AnswerKind::of(&query), reply);
                self.send(writer, &ClientMsg::Query { id, query })
            }
            Command::Ping { reply } => {
                let nonce = self.pending.add_ping(reply);
                self.send(writer, &ClientMsg::Ping { nonce })
            }
            Command::Close { done } => {
                // The serve loop takes Close before calling here; answering keeps the
                // "every command is answered" invariant even so.
                let _ = done.send(());
                Ok(())
            }
        }
    }

    /// Forgets the scope and empties the mirror, reporting every node as left.
    pub(super) fn unsubscribe_locally(&mut self) {
        self.set_scope(None);
        self.synced = false;
        self.held = None;
        let mut events = Vec::new();
        let wants = self.wants_events();
        self.shared
            .mirror
            .write()
            .clear(wants.then_some(&mut events));
        events.push(Event::Unsubscribed);
        self.publish(events);
    }

    /// Resubscribes with the current scope to get a fresh snapshot, unless one is
    /// already on its way. The copy is doubtful from now on, so it is never resumed from.
    fn resync(&mut self, writer: &Writer) -> Result<(), ClientError> {
        self.held = None;
        let Some(scope) = self.scope.clone() else {
            return Ok(());
        };
        if self.pending.resync_pending() {
            return Ok(());
        }
        let msg = scope.message(None, self.encoding());
        self.pending
            .add_subscribe(SnapshotWaiter::Resync, scope, None, None);
        self.send(writer, &msg)
    }

    /// The server refused the caller's subscribe to `scope` and kept serving what it
    /// served before: unless the caller has asked for another scope since, the desired
    /// scope goes back to the one before (`previous`), so that a reconnect does not
    /// subscribe with a scope the server refuses (a v1.2 scope on a v1.1 server, say).
    fn subscribe_refused(&mut self, scope: Scope, previous: Option<Scope>) {
        if self.scope.as_ref() == Some(&scope) && !self.pending.subscribe_pending() {
            tracing::debug!(room = %self.room, ?scope, ?previous, "subscribe refused; scope restored");
            self.set_scope(previous);
        }
    }

    /// Handles one server message other than `closed`.
    fn message(
        &mut self,
        msg: ServerMsg,
        writer: &Writer,
        backoff: &mut BackoffState,
    ) -> Result<(), ClientError> {
        match msg {
            // Only the Copy fields are bound, so `msg` itself is still whole.
            ServerMsg::Snapshot { tick, time, .. } => {
                return self.snapshot(tick, time, msg, writer, backoff);
            }
            ServerMsg::Delta { tick, resumed, .. } => {
                return self.delta(tick, resumed, msg, writer, backoff);
            }
            ServerMsg::Ack { seq, tick, ids } => self.pending.ack(seq, tick, ids),
            ServerMsg::Error {
                seq,
                id,
                code,
                message,
                op,
            } => {
                match self.pending.error(seq, id, code, message.clone(), op) {
                    Taken::Nothing => {
                        tracing::debug!(room = %self.room, %code, %message, "unmatched server error");
                    }
                    Taken::Request => {}
                    Taken::Subscribe(refused) => {
                        let Refused {
                            scope,
                            previous,
                            reply,
                            error,
                        } = *refused;
                        // The scope first, so that the caller woken by the answer sees it.
                        self.subscribe_refused(scope, previous);
                        let _ = reply.send(Err(error));
                    }
                }
                if seq.is_none() && id.is_none() {
                    self.publish(vec![Event::ServerError { code, message }]);
                }
            }
            ServerMsg::QueryResult {
                id,
                tick,
                nodes,
                hits,
            } => self.pending.query_result(id, tick, nodes, hits),
            ServerMsg::Pong { nonce, tick } => self.pending.pong(nonce, tick),
            ServerMsg::Closed { .. } => {}
        }
        Ok(())
    }

    /// Applies a snapshot, which answers the oldest subscribe (or, unasked, resyncs).
    fn snapshot(
        &mut self,
        tick: u64,
        time: u64,
        msg: ServerMsg,
        writer: &Writer,
        backoff: &mut BackoffState,
    ) -> Result<(), ClientError> {
        let answered = self.pending.take_snapshot_waiter();
        // A snapshot that arrives after an `unsubscribe` answers a subscribe the caller
        // has since withdrawn: it completes the call but is not applied.
        if let Some(scope) = self.scope.clone() {
            let wants = self.wants_events();
            let mut events = Vec::new();
            let (consistent, len) = {
                let mut mirror = self.shared.mirror.write();
                let applied = mirror.apply_frame(msg, wants.then_some(&mut events));
                (applied != Some(false), mirror.len())
            };
            self.synced = true;
            self.held = Some(answered.as_ref().map_or(scope, |a| a.scope.clone()));
            self.held_instance.clone_from(&self.instance);
            events.push(match answered.as_ref().map(|a| &a.waiter) {
                Some(SnapshotWaiter::Caller(_)) => Event::Snapshot { tick, time, len },
                _ => Event::Resynced { tick, time, len },
            });
            self.publish(events);
            backoff.reset();
            if !consistent {
                tracing::warn!(room = %self.room, tick, "snapshot with an unreadable compact block; resynchronising");
                self.resync(writer)?;
            }
        }
        if let Some(Subscribe {
            waiter: SnapshotWaiter::Caller(reply),
            ..
        }) = answered
        {
            let _ = reply.send(Ok(tick));
        }
        Ok(())
    }

    /// Applies a delta: on top of the copy when the connection is synced, or, when it
    /// is a resumed delta answering our `subscribe` with `since`, on top of the copy
    /// kept from the previous connection (no wipe; its events are a delta's).
    fn delta(
        &mut self,
        tick: u64,
        resumed: bool,
        msg: ServerMsg,
        writer: &Writer,
        backoff: &mut BackoffState,
    ) -> Result<(), ClientError> {
        if self.scope.is_none() {
            return Ok(());
        }
        let mut answered = None;
        if resumed {
            if !self.pending.next_resumes() {
                tracing::warn!(room = %self.room, tick, "resumed delta that no subscribe asked for; ignored");
                return Ok(());
            }
            answered = self.pending.take_snapshot_waiter();
            self.synced = true;
            backoff.reset();
        } else if !self.synced {
            return Ok(());
        }
        let wants = self.wants_events();
        let mut events = Vec::new();
        let consistent = self
            .shared
            .mirror
            .write()
            .apply_frame(msg, wants.then_some(&mut events))
            != Some(false);
        if let Some(answered) = answered {
            self.held = Some(answered.scope);
            self.held_instance.clone_from(&self.instance);
        }
        self.publish(events);
        if !consistent {
            tracing::warn!(room = %self.room, tick, "delta the mirror cannot apply; resynchronising");
            self.resync(writer)?;
        }
        Ok(())
    }
}

/// Closes the socket on the caller's behalf: a close frame, then the server's reply,
/// within a bound.
async fn close(writer: Writer, mut stream: Stream, done: Option<oneshot::Sender<()>>) -> End {
    let frame = CloseFrame {
        code: CloseCode::Normal,
        reason: "client closed".into(),
    };
    if writer.send(Message::Close(Some(frame))).is_ok() {
        writer.finish(CLOSE_GRACE).await;
        let _ = tokio::time::timeout(CLOSE_GRACE, async {
            while let Some(Ok(_)) = stream.next().await {}
        })
        .await;
    }
    End::ByClient(done)
}
