//! The WebSocket endpoint `GET /rooms/{room}/ws?format=bincode|json`: the upgrade
//! (`handshake.rs`), the connection split into a read and a write side (`socket.rs`),
//! the session that reads client messages and watches the connection's deadlines
//! (`session.rs`, with the messages' handling in `requests.rs` and unfinished messages
//! watched in `partial.rs`), the writer task that
//! drains the connection's outbox into the socket (`writer.rs`, framing in `frame.rs`),
//! and the room's flushers that write a tick's frames for idle writers (`flusher.rs`).
//!
//! Invariant: everything written to the socket comes through the outbox, written by its
//! writer task or (plain TCP only, while the writer is idle) by a flusher, one at a time,
//! so acks, snapshots and deltas keep the order the room gave them. The session takes
//! any byte stream (`Socket::from_io`), so it is tested over in-memory pipes as well as
//! sockets.

pub mod close;
mod flusher;
mod frame;
mod handshake;
mod partial;
pub(crate) mod passthrough;
mod requests;
mod session;
mod socket;
mod writer;

pub use frame::FRAGMENT_BYTES;
pub use handshake::{read_config, upgrade};
pub use session::{SessionParams, serve};
pub use socket::{ReadSide, Socket};
