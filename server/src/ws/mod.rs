//! The WebSocket endpoint `GET /rooms/{room}/ws?format=bincode|json`: the upgrade
//! (`handshake.rs`), the session that reads client messages and watches the connection's
//! deadlines (`session.rs`, with the messages' handling in `requests.rs`), and the writer
//! task that drains the connection's outbox into the socket (`writer.rs`).
//!
//! Invariant: only the writer task writes to the socket, and everything it writes comes
//! through the outbox, so acks, snapshots and deltas keep the order the room gave them.
//! The session loop and the writer are generic over the socket (a `Stream` and a `Sink`
//! of WebSocket messages), so they are tested with channels as well as sockets.

mod handshake;
pub(crate) mod passthrough;
mod requests;
mod session;
mod writer;

pub use handshake::upgrade;
pub use session::{SessionParams, serve};
pub use writer::FRAGMENT_BYTES;

/// The close code that tells a client to reconnect and subscribe again: used for a
/// client that made no progress for the write deadline, and for idle connections.
pub const CLOSE_RESUBSCRIBE: u16 = 4000;

/// The close code after `closed` "token expired": reconnect with a new token.
pub const CLOSE_TOKEN_EXPIRED: u16 = 4001;

/// The close code of a message over the size limit.
pub const CLOSE_TOO_LARGE: u16 = 1009;
