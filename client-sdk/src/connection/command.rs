//! The requests a [`Connection`](super::Connection) handle sends to its driver task, and
//! the reply channel each one carries.
//!
//! Invariant: every command carries exactly one reply sender, and the driver either
//! answers it or drops it; a dropped sender wakes the caller with an error, so no
//! request can wait forever.

use std::time::Duration;

use canopy_protocol::http::EditsResult;
use canopy_protocol::{Op, Query};
use tokio::sync::oneshot;

use crate::error::Result;
use crate::query::QueryAnswer;
use crate::scope::Scope;

/// The channel a request's answer comes back on.
pub(crate) type Reply<T> = oneshot::Sender<Result<T>>;

/// The answer to a ping.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pong {
    /// The room's tick when the server answered.
    pub tick: u64,
    /// The round-trip time seen by the client.
    pub rtt: Duration,
}

/// A request from a handle to the driver.
pub(crate) enum Command {
    /// Start or change the subscription; answered with the snapshot's tick once the
    /// snapshot is applied to the mirror.
    Subscribe { scope: Scope, reply: Reply<u64> },
    /// Stop the subscription and clear the mirror.
    Unsubscribe { reply: Reply<()> },
    /// An edit batch; answered by its `ack` or `error`.
    Edits {
        ops: Vec<Op>,
        reply: Reply<EditsResult>,
    },
    /// A query; answered by its `query_result` or `error`.
    Query {
        query: Query,
        reply: Reply<QueryAnswer>,
    },
    /// A ping; answered by its `pong`.
    Ping { reply: Reply<Pong> },
    /// Close the connection for good; `done` fires once it is closed.
    Close { done: oneshot::Sender<()> },
}
