//! Why the server ends a connection on purpose. The room and the edges name the cause;
//! the WebSocket edge turns it into the `closed` message and the close frame (its code
//! is the edge's business, see `server/src/ws/close.rs`).
//!
//! Invariant: every cause has one reason text, the one `closed` carries and
//! docs/protocol.md lists, so clients can tell what happened from it alone.

/// Why a connection is closed by the server.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CloseCause {
    /// The room was deleted: stop (a new connection could only be refused).
    RoomDeleted,
    /// The server is shutting down after each room's last tick: reconnect elsewhere.
    ShuttingDown,
    /// The data dir failed while acks or frames of a tick not yet durable waited.
    StorageFailed,
    /// The room is moving to another node of the cluster: reconnect (anywhere) and
    /// resume with `since`.
    Moving,
    /// A relay's copy of the room could not follow its owner: subscribe again.
    ReplicaLost,
    /// The connection's JWT reached its `exp`: reconnect with a fresh token.
    TokenExpired,
    /// Nothing, not even a pong, arrived within the idle deadline.
    Idle,
    /// A client message over the size limit.
    TooLarge,
    /// A client message begun and not completed within the deadline
    /// (`--ws-message-deadline-secs`).
    Unfinished,
    /// The connection's caller went over its share of a server-wide budget (the bytes
    /// of unfinished messages): try again later.
    Overloaded,
    /// The session ended otherwise (a read failed).
    ConnectionClosed,
}

impl CloseCause {
    /// The `closed` message's reason, also the close frame's.
    pub fn reason(self) -> &'static str {
        match self {
            CloseCause::RoomDeleted => "room deleted",
            CloseCause::ShuttingDown => "server shutting down",
            CloseCause::StorageFailed => "storage failed: unacknowledged edits may be lost",
            CloseCause::Moving => "moving",
            CloseCause::ReplicaLost => {
                "the relay lost its place in the owner's stream; subscribe again"
            }
            CloseCause::TokenExpired => "token expired",
            CloseCause::Idle => "idle: nothing heard within the deadline",
            CloseCause::TooLarge => "message too large",
            CloseCause::Unfinished => "message not completed in time",
            CloseCause::Overloaded => "overloaded: over this caller's share of a server budget",
            CloseCause::ConnectionClosed => "connection closed",
        }
    }
}
