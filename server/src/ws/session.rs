//! One WebSocket connection's session: it reads client messages and hands them to
//! `requests.rs`, sends pings, and ends the connection on the peer's close, a read error,
//! idleness, the writer's end, the room's deletion or the server's shutdown.
//!
//! Invariants: the session always ends (every wait in its loop also watches the writer,
//! the room and the shutdown, so a writer that died or a socket never read cannot hold
//! it); it stops reading while its replies are over their bounds, so a client that floods
//! requests without reading answers is slowed down, not buffered without bound; and when
//! it ends its subscription is dropped from the room and its outbox is closed.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use canopy_protocol::{ErrorCode, Format};
use futures_util::{Stream, StreamExt};
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::error::CapacityError;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::{Error as WsError, Message};

use super::close::SessionEnd;
use super::socket::{Socket, SocketOut};
use super::{flusher, writer};
use crate::access::Caller;
use crate::state::AppState;
use canopy_room::CloseCause;
use canopy_room::outbox::{ConnId, Outbox};
use canopy_room::refusal::Refusal;
use canopy_room::{RoomCommand, RoomShared};

/// Who the session serves.
#[derive(Debug)]
pub struct SessionParams {
    /// The server's shared state.
    pub app: AppState,
    /// The room the connection is bound to.
    pub room: Arc<RoomShared>,
    /// The connection's format (`?format=`): what the server's messages are encoded in.
    pub format: Format,
    /// The connection's id, unique within the server.
    pub conn: ConnId,
    /// Who connected, as the upgrade's access check found it.
    pub caller: Caller,
    /// False when the upgrade named another room instance than the room's: `since` is
    /// then ignored (answered with a snapshot).
    pub resume_allowed: bool,
}

/// The state the request handlers share.
pub(super) struct Session {
    pub app: AppState,
    pub room: Arc<RoomShared>,
    pub outbox: Arc<Outbox>,
    pub caller: Caller,
    /// Who the caller is to the fair shares (`canopy_room::budget`).
    pub caller_id: canopy_room::budget::CallerId,
    /// The connection's latest subscription change on its way to the room
    /// (`requests.rs`: coalesced, one command at a time).
    pub subscription: Arc<canopy_room::SubscriptionSlot>,
    /// See [`SessionParams::resume_allowed`].
    pub resume_allowed: bool,
}

/// Serves one connection until either side closes it. The room's connection count was
/// taken by the upgrade; it is given back here.
pub async fn serve(params: SessionParams, socket: Socket) {
    let Socket {
        reader: mut stream,
        out,
    } = socket;
    let expiry = token_expiry(params.caller.expires);
    let mut live = Live::open(params, out, &mut stream);
    let why = live.run(&mut stream, expiry).await;
    live.close(&mut stream, why).await;
}

/// When a JWT's session ends (docs/protocol.md §6): `exp` is the client's number, so a
/// far-future one (up to u64::MAX seconds) must not overflow the clock; it never fires.
fn token_expiry(exp: Option<u64>) -> Option<Instant> {
    let exp = exp?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    Instant::now().checked_add(Duration::from_secs(exp.saturating_sub(now)))
}

/// A connection while it is served: its session, its writer task and what its read
/// loop keeps.
struct Live {
    session: Session,
    conn: ConnId,
    partial: Arc<super::partial::Partial>,
    writer: tokio::task::JoinHandle<writer::WriterEnd>,
    writer_done: bool,
    last_heard: Instant,
    /// Reading is paused while the replies are over their bounds.
    throttled: bool,
}

impl Live {
    /// Sets the connection up: its outbox behind the room's gate, the partial-message
    /// accounting on its reads, the room's flushers (plain TCP) and its writer task.
    fn open(
        params: SessionParams,
        out: SocketOut,
        stream: &mut tokio_tungstenite::WebSocketStream<super::socket::ReadSide>,
    ) -> Live {
        let SessionParams {
            app,
            room,
            format,
            conn,
            caller,
            resume_allowed,
        } = params;
        app.metrics.connections.inc();
        tracing::info!(
            room = %room.id,
            conn,
            format = format.as_str(),
            caller = %caller.who,
            role = ?caller.role,
            "ws open"
        );
        let outbox = Outbox::new(conn, format, app.config.outbox_limits());
        outbox.set_gate(Arc::clone(&room.gate));
        let caller_id = canopy_room::budget::CallerId::of(&caller.rate_key);
        let partial = super::partial::Partial::new(
            Arc::clone(&app.partial_messages),
            caller_id,
            canopy_room::budget::RoomKey::of(&room.id),
        );
        stream.get_mut().watch(Arc::clone(&partial));
        if let SocketOut::Tcp(tcp) = &out {
            // Frames of this room's ticks are then written by its flushers while the
            // writer sleeps (`flusher.rs`).
            flusher::start(&room, &app.metrics);
            outbox.set_direct(Arc::clone(tcp) as Arc<dyn canopy_room::outbox::DirectWrite>);
        }
        let writer = tokio::spawn(tracing::Instrument::in_current_span(writer::run(
            out,
            Arc::clone(&outbox),
            Arc::clone(&app.metrics),
            app.config.ws_pace(),
        )));
        Live {
            session: Session {
                app,
                room,
                outbox,
                caller_id,
                caller,
                subscription: Arc::default(),
                resume_allowed,
            },
            conn,
            partial,
            writer,
            writer_done: false,
            last_heard: Instant::now(),
            throttled: false,
        }
    }

    /// The read loop: answers why the connection ends.
    async fn run<S>(&mut self, stream: &mut S, expiry: Option<Instant>) -> SessionEnd
    where
        S: Stream<Item = Result<Message, WsError>> + Unpin,
    {
        let (app, room) = (self.session.app.clone(), Arc::clone(&self.session.room));
        let outbox = Arc::clone(&self.session.outbox);
        let ping_every = app.config.ws_ping;
        let mut pings = tokio::time::interval_at(Instant::now() + ping_every, ping_every);
        let expired = async move {
            match expiry {
                Some(at) => tokio::time::sleep_until(at).await,
                None => std::future::pending().await,
            }
        };
        tokio::pin!(expired);
        loop {
            tokio::select! {
                biased;
                _ = &mut expired => return self.ended(CloseCause::TokenExpired),
                _ = app.lifecycle.stopping() => {
                    // Give the room its last tick, so accepted edits are answered, then close.
                    let _ = tokio::time::timeout(Duration::from_secs(2), room.closed()).await;
                    return self.ended(CloseCause::ShuttingDown);
                }
                _ = room.closed() => {
                    // Deleted, moving to another node, or a replica that lost its owner:
                    // the room says which, so a move never reads as a deletion.
                    let cause = if app.lifecycle.is_stopping() {
                        CloseCause::ShuttingDown
                    } else {
                        room.close_cause()
                    };
                    return self.ended(cause);
                }
                end = &mut self.writer => {
                    self.writer_done = true;
                    return match end {
                        Ok(writer::WriterEnd::Closed) => SessionEnd::WriterClosed,
                        _ => SessionEnd::SocketBroke,
                    };
                }
                _ = pings.tick() => {
                    if let Some(end) = self.on_ping() {
                        return end;
                    }
                }
                _ = outbox.wait_for_space(), if self.throttled => {
                    self.throttled = outbox.replies_full();
                }
                msg = stream.next(), if !self.throttled => {
                    if let Some(end) = self.on_read(msg).await {
                        return end;
                    }
                    self.throttled = outbox.replies_full();
                }
            }
        }
    }

    /// Closes the outbox with `cause` and answers the session's end for it.
    fn ended(&self, cause: CloseCause) -> SessionEnd {
        self.session.outbox.close(cause);
        SessionEnd::Closed(cause)
    }

    /// A ping's turn: ends an idle connection, or one that leaves a message unfinished
    /// past its deadline (pongs keep a connection alive, not a message it never ends).
    fn on_ping(&self) -> Option<SessionEnd> {
        let config = &self.session.app.config;
        if self.last_heard.elapsed() > config.ws_idle {
            return Some(self.ended(CloseCause::Idle));
        }
        let deadline = config.budgets.ws_message_deadline;
        if self
            .partial
            .since()
            .is_some_and(|at| at.elapsed() > deadline)
        {
            return Some(self.ended(CloseCause::Unfinished));
        }
        self.session.outbox.push_ping();
        None
    }

    /// What the client sent: a request for the session, a ping, its close, or an error.
    async fn on_read(&mut self, msg: Option<Result<Message, WsError>>) -> Option<SessionEnd> {
        // Anything that arrives, pongs included, proves the peer is alive.
        self.last_heard = Instant::now();
        let outbox = &self.session.outbox;
        match msg {
            None => Some(SessionEnd::ClientClosed),
            Some(Ok(Message::Close(frame))) => {
                // The socket library does not write (`socket.rs`): the echo goes through
                // the outbox, after what is queued.
                outbox.close_reply(echo_code(frame.as_ref()));
                Some(SessionEnd::ClientClosed)
            }
            Some(Ok(Message::Ping(payload))) => {
                outbox.push_pong(payload);
                None
            }
            Some(Err(e)) => Some(self.read_failed(e)),
            Some(Ok(Message::Text(t))) => {
                self.session.handle(t.into(), Format::Json).await;
                None
            }
            Some(Ok(Message::Binary(b))) => {
                self.session.handle(b, Format::Bincode).await;
                None
            }
            Some(Ok(_)) => None,
        }
    }

    /// A read error: a message over the size limit, or the caller over its share of
    /// unfinished-message bytes, is told so before the close.
    fn read_failed(&self, e: WsError) -> SessionEnd {
        let outbox = &self.session.outbox;
        if let WsError::Capacity(CapacityError::MessageTooLong { size, max_size }) = &e {
            let refusal = Refusal::too_large(format!(
                "a message of {size} bytes, over the limit of {max_size}"
            ));
            outbox.push_reply(&refusal.to_ws(None, None));
            return self.ended(CloseCause::TooLarge);
        }
        if self.partial.over_share() {
            outbox.push_reply(&Refusal::overloaded(e.to_string()).to_ws(None, None));
            return self.ended(CloseCause::Overloaded);
        }
        tracing::debug!(error = %e, "read failed");
        SessionEnd::ReadFailed
    }

    /// Ends the connection: its subscription dropped from the room, the writer given a
    /// moment to send what is queued, the client's last bytes read, the counts given
    /// back.
    async fn close<S>(mut self, stream: &mut S, why: SessionEnd)
    where
        S: Stream<Item = Result<Message, WsError>> + Unpin,
    {
        let (session, conn) = (&self.session, self.conn);
        if !session.change_subscription(canopy_room::Intent::Unsubscribe(conn)) {
            // The room has stopped or its channel is at its bound: told directly.
            session.room.send(RoomCommand::Unsubscribe { conn });
        }
        if !self.writer_done {
            // Let the writer send what is queued (a `closed`, say), within a bound.
            session.outbox.close(CloseCause::ConnectionClosed);
            if tokio::time::timeout(Duration::from_secs(2), &mut self.writer)
                .await
                .is_err()
            {
                self.writer.abort();
            }
        }
        if !why.by_client() {
            linger(stream).await;
        }
        let (app, room) = (&self.session.app, &self.session.room);
        room.connections.fetch_sub(1, Ordering::AcqRel);
        app.metrics.connections.dec();
        app.metrics
            .ws_closed
            .with_label_values(&[why.label()])
            .inc();
        tracing::info!(room = %room.id, conn, why = why.label(), "ws closed");
    }
}

/// The code a close reply echoes: the client's, unless it sent none or one that may
/// not go on the wire (RFC 6455 §7.4.1), then 1000.
fn echo_code(frame: Option<&CloseFrame>) -> u16 {
    match frame.map(|f| u16::from(f.code)) {
        Some(code) if !matches!(code, 1005 | 1006 | 1015) && code >= 1000 => code,
        _ => 1000,
    }
}

/// How long a connection the server ends keeps reading what the client still sends.
const CLOSE_LINGER: Duration = Duration::from_secs(1);

/// Reads and drops what the client still sends, until it closes too or for
/// [`CLOSE_LINGER`]. Closing a socket with unread bytes in its receive buffer (requests
/// the session stopped reading while the replies were full, pongs, the client's close
/// reply) makes Linux send RST instead of FIN, and the RST makes the client's kernel
/// discard what the client had not read yet: the `closed` and close frame the writer had
/// just queued (4000, resubscribe, for a reader that made no progress) were lost, and
/// the client saw "connection reset by peer" instead.
async fn linger<S>(stream: &mut S)
where
    S: Stream<Item = Result<Message, WsError>> + Unpin,
{
    let _ = tokio::time::timeout(CLOSE_LINGER, async {
        while let Some(Ok(msg)) = stream.next().await {
            if matches!(msg, Message::Close(_)) {
                break;
            }
        }
    })
    .await;
}

impl Session {
    /// Queues an `error` for a request that could not be served.
    pub(super) fn refuse(&self, seq: Option<u64>, id: Option<u64>, refusal: &Refusal) {
        self.outbox.push_reply(&refusal.to_ws(seq, id));
    }

    /// Refuses a request on a room that is gone.
    pub(super) fn room_closed(&self) -> Refusal {
        Refusal::new(
            ErrorCode::UnknownRoom,
            format!("room {} is closed", self.room.id),
        )
    }
}
