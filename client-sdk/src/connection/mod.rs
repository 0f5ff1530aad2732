//! [`Connection`]: a live WebSocket connection to one room, with its mirror of the
//! in-scope nodes, its event stream, and its request/answer calls (subscribe, edits,
//! queries, ping).
//!
//! A connection is a cheap, cloneable handle to a driver task that owns the socket (see
//! `driver`). The behaviour a caller can rely on:
//!
//! * **Requests** (`edit`, `query`, `ping`, `subscribe`) wait for their own answer,
//!   matched by `seq`, `id`, `nonce` or order, up to `request_timeout`
//!   ([`ClientError::Timeout`]). An error the server sends for a request is
//!   [`ClientError::Api`] with its code (and `op` for edits).
//! * **Dropped connection**: every request in flight fails with
//!   [`ClientError::Disconnected`] (for an edit batch: outcome unknown), an
//!   [`Event::Disconnected`] is published, and the driver reconnects with
//!   exponential backoff and jitter ([`Backoff`](crate::Backoff)). Requests made while
//!   it is reconnecting fail at once with `Disconnected` rather than queue; a
//!   `subscribe` made then still sets the scope used on reconnect.
//! * **Resynchronisation**: on the new connection the driver resubscribes with the last
//!   scope. When the mirror held a consistent copy of that same scope at tick `N`, the
//!   subscribe carries `since: N`: a server that can resume answers with a delta marked
//!   `resumed`, applied on top of the kept mirror (no wipe; its events are a delta's,
//!   ending with [`Event::Tick`]). Otherwise (or from a server that ignores `since`)
//!   the fresh snapshot replaces the mirror and is published as the difference from the
//!   old copy followed by [`Event::Resynced`]. Until then the mirror keeps its last
//!   state. A snapshot, never a resume, is asked for if a frame ever cannot be applied
//!   (a delta naming a node the mirror lacks, an unreadable frame or compact block).
//! * **Encoding**: with [`ConnectOptions::compact`] a bincode connection subscribes with
//!   `encoding: compact` and the mirror applies compact rows (see
//!   [`Mirror`](crate::Mirror)); a server that ignores it sends exact rows, which work
//!   as before.
//! * **Server `closed`**: `room deleted` stops the connection
//!   ([`StopReason::RoomDeleted`], published as [`Event::Stopped`]); any other reason,
//!   such as `server shutting down` (close code 1001), `moving` (close code 4002: the
//!   room changes cluster node; the reconnect resumes with `since`) or close code 4000,
//!   reconnects. A reconnect refused with `Retry-After` (`503 overloaded` while a room
//!   is between owners) waits at least that long and keeps trying; only `room deleted`,
//!   a 4xx refusal (`401`, `403`, `404 unknown_room`) or `max_attempts` failed attempts
//!   stop it. The full policy is in `lifecycle`.
//! * **Stopping**: [`Connection::close`], dropping every handle, or the policy stops
//!   the driver; later requests fail with [`ClientError::Stopped`] and
//!   [`Events::next`] returns `None` once the last events are read.

mod command;
mod driver;
mod lifecycle;
mod options;
mod pending;
mod reconnect;
mod socket;

use std::sync::Arc;

use canopy_protocol::http::EditsResult;
use canopy_protocol::query::{
    NearestQuery, NearestResult, NodesResult, RayQuery, RayResult, RegionQuery, SphereQuery,
};
use canopy_protocol::{Batch, Format, Op, Query};
use parking_lot::{Mutex, RwLock, RwLockReadGuard};
use tokio::sync::{broadcast, mpsc, oneshot, watch};

pub use command::Pong;
pub use lifecycle::{
    CLOSE_GOING_AWAY, CLOSE_MOVING, CLOSE_RECONNECT, ConnState, REASON_MOVING, REASON_ROOM_DELETED,
    REASON_SHUTTING_DOWN, StopReason,
};
pub use options::ConnectOptions;

use command::{Command, Reply};
use driver::Driver;
use pending::Pending;

use crate::endpoint::Endpoint;
use crate::error::{ClientError, Result};
use crate::events::{Events, Frame};
use crate::mirror::Mirror;
use crate::query::QueryAnswer;
use crate::scope::Scope;

/// What the handles and the driver share.
pub(crate) struct Shared {
    /// Written only by the driver, one frame at a time.
    pub(crate) mirror: RwLock<Mirror>,
    /// The scope the caller asked for last, as the driver recorded it.
    pub(crate) scope: Mutex<Option<Scope>>,
}

struct Inner {
    room: String,
    format: Format,
    request_timeout: std::time::Duration,
    commands: mpsc::UnboundedSender<Command>,
    shared: Arc<Shared>,
    /// Weak, so that the channel closes (and `Events::next` ends) when the driver stops.
    events: broadcast::WeakSender<Frame>,
    state: watch::Receiver<ConnState>,
}

/// A live connection to one room. Clones share the connection; it closes when
/// [`Connection::close`] is called or the last clone is dropped.
#[derive(Clone)]
pub struct Connection {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("room", &self.inner.room)
            .field("format", &self.inner.format)
            .field("state", &*self.inner.state.borrow())
            .finish_non_exhaustive()
    }
}

impl Connection {
    /// Connects to `room` on the server at `base_url` (`http://host:port`). The first
    /// connection is not retried: an unreachable server or unknown room is an error
    /// here, so mistakes show at once; only later drops reconnect.
    pub async fn connect(base_url: &str, room: &str, options: ConnectOptions) -> Result<Self> {
        Self::open(Endpoint::parse(base_url)?, room.to_string(), options).await
    }

    pub(crate) async fn open(
        endpoint: Endpoint,
        room: String,
        options: ConnectOptions,
    ) -> Result<Self> {
        let url = endpoint.ws(&room, options.format, options.token.as_deref());
        let opened = tokio::time::timeout(
            options.connect_timeout,
            socket::open(&url, options.max_message_bytes, &options.roots),
        )
        .await
        .map_err(|_| ClientError::Timeout(options.connect_timeout))??;
        let (commands, command_rx) = mpsc::unbounded_channel();
        let (events, _) = broadcast::channel(options.event_capacity.max(1));
        let (state_tx, state) = watch::channel(ConnState::Connected);
        let shared = Arc::new(Shared {
            mirror: RwLock::new(Mirror::new()),
            scope: Mutex::new(None),
        });
        let inner = Inner {
            room: room.clone(),
            format: options.format,
            request_timeout: options.request_timeout,
            commands,
            shared: Arc::clone(&shared),
            events: events.downgrade(),
            state,
        };
        let driver = Driver {
            endpoint,
            room,
            options,
            commands: command_rx,
            shared,
            events,
            state: state_tx,
            pending: Pending::default(),
            scope: None,
            synced: false,
            held: None,
            instance: None,
            held_instance: None,
        };
        tokio::spawn(driver.run(opened));
        Ok(Connection {
            inner: Arc::new(inner),
        })
    }

    /// The room this connection follows.
    pub fn room(&self) -> &str {
        &self.inner.room
    }

    /// The wire format in use.
    pub fn format(&self) -> Format {
        self.inner.format
    }

    /// A new receiver of this connection's events, from now on. Take it before
    /// [`Connection::subscribe`] to see the snapshot's events.
    pub fn events(&self) -> Events {
        match self.inner.events.upgrade() {
            Some(sender) => Events::new(sender.subscribe()),
            None => {
                // The driver has stopped: hand out a receiver that is already closed.
                let (sender, receiver) = broadcast::channel(1);
                drop(sender);
                Events::new(receiver)
            }
        }
    }

    /// Read access to the mirror. The driver cannot apply frames while the guard lives,
    /// so keep it briefly (copy what you need, or `clone()` the mirror).
    pub fn mirror(&self) -> RwLockReadGuard<'_, Mirror> {
        self.inner.shared.mirror.read()
    }

    /// The scope the connection is subscribed with (or will resubscribe with), `None`
    /// when unsubscribed.
    pub fn scope(&self) -> Option<Scope> {
        self.inner.shared.scope.lock().clone()
    }

    /// Where the connection is in its life.
    pub fn state(&self) -> ConnState {
        self.inner.state.borrow().clone()
    }

    /// A watch of the connection's state, to await changes.
    pub fn state_watch(&self) -> watch::Receiver<ConnState> {
        self.inner.state.clone()
    }

    /// Subscribes to `scope`, or changes the subscription to it, and waits until the
    /// answering snapshot has replaced the mirror; returns its tick. The scope is kept
    /// for reconnects even if this call fails with `Disconnected`.
    ///
    /// A scope [`Scope::validate`] refuses fails at once with
    /// [`ClientError::InvalidArgument`]. One the server refuses (a follow scope of a
    /// node that does not exist, or any v1.2 field on a server that does not serve
    /// v1.2: `bad_request`) fails with [`ClientError::Api`]; the server then goes on
    /// with the subscription it had, and so does the connection: [`Connection::scope`]
    /// is the previous scope again and reconnects subscribe with that one.
    pub async fn subscribe(&self, scope: Scope) -> Result<u64> {
        scope.validate()?;
        self.request(|reply| Command::Subscribe { scope, reply })
            .await
    }

    /// Ends the subscription: the server stops sending frames, the mirror is emptied
    /// (a `Left` event per node, then
    /// [`Event::Unsubscribed`](crate::Event::Unsubscribed)) and reconnects no longer
    /// subscribe.
    pub async fn unsubscribe(&self) -> Result<()> {
        self.request(|reply| Command::Unsubscribe { reply }).await
    }

    /// Sends an edit batch and waits for its `ack` (the applying tick and the id of
    /// every `add`, in order) or its typed error (`op`: the first bad op's index).
    pub async fn edit(&self, ops: Vec<Op>) -> Result<EditsResult> {
        self.request(|reply| Command::Edits { ops, reply }).await
    }

    /// [`Connection::edit`] with a [`Batch`].
    pub async fn edit_batch(&self, batch: Batch) -> Result<EditsResult> {
        self.edit(batch.ops).await
    }

    /// Runs a query over the WebSocket. A sphere or nearest query naming neither a
    /// point nor a node to measure from (or both) fails at once with
    /// [`ClientError::InvalidArgument`].
    pub async fn query(&self, query: Query) -> Result<QueryAnswer> {
        crate::query::check(&query)?;
        self.request(|reply| Command::Query { query, reply }).await
    }

    /// A region query: ids of nodes whose world AABB meets the box.
    pub async fn query_region(&self, q: RegionQuery) -> Result<NodesResult> {
        self.query(Query::Region(q)).await?.into_nodes()
    }

    /// A sphere query: ids of nodes whose world AABB is within the radius of a point
    /// ([`SphereQuery::at`]) or of a node's world position
    /// ([`sphere_around`](crate::sphere_around), v1.2).
    pub async fn query_sphere(&self, q: SphereQuery) -> Result<NodesResult> {
        self.query(Query::Sphere(q)).await?.into_nodes()
    }

    /// A ray query: the nearest hit, or every hit with `all`.
    pub async fn query_ray(&self, q: RayQuery) -> Result<RayResult> {
        self.query(Query::Ray(q)).await?.into_ray()
    }

    /// A nearest query: the `k` nodes nearest to a point ([`NearestQuery::at`]) or to a
    /// node's world position ([`nearest_around`](crate::nearest_around), v1.2).
    pub async fn query_nearest(&self, q: NearestQuery) -> Result<NearestResult> {
        self.query(Query::Nearest(q)).await?.into_nearest()
    }

    /// Pings the server: the room's tick and the round-trip time.
    pub async fn ping(&self) -> Result<Pong> {
        self.request(|reply| Command::Ping { reply }).await
    }

    /// Closes the connection for good and waits until the socket is closed. Requests
    /// still in flight fail with `Disconnected`; other clones see the connection
    /// stopped with [`StopReason::ClosedByClient`].
    pub async fn close(&self) {
        let (done, closed) = oneshot::channel();
        if self.inner.commands.send(Command::Close { done }).is_ok() {
            let _ = closed.await;
        }
    }

    /// Sends a command and waits for its answer within the request timeout.
    async fn request<T>(&self, command: impl FnOnce(Reply<T>) -> Command) -> Result<T> {
        let (reply, answer) = oneshot::channel();
        if self.inner.commands.send(command(reply)).is_err() {
            return Err(self.stopped_error());
        }
        match tokio::time::timeout(self.inner.request_timeout, answer).await {
            Err(_) => Err(ClientError::Timeout(self.inner.request_timeout)),
            Ok(Ok(result)) => result,
            // The driver dropped the request without answering: it stopped meanwhile.
            Ok(Err(_)) => Err(self.stopped_error()),
        }
    }

    fn stopped_error(&self) -> ClientError {
        match self.state() {
            ConnState::Stopped(reason) => ClientError::Stopped(reason),
            _ => ClientError::Disconnected,
        }
    }
}
