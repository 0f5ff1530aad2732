//! How a connection ends, on the wire and in the metrics: the close code of each
//! [`CloseCause`] the room or the session names, and [`SessionEnd`], why a session's
//! loop stopped, with the label `canopy_ws_closed_total{reason}` counts it under.
//!
//! Invariant: the codes here are the only WebSocket close codes the server sends (but
//! for the echo of a client's own), and they are the ones docs/protocol.md lists.

use canopy_room::CloseCause;

/// The code of a connection whose socket accepted nothing for the write deadline, sent
/// with the close frame alone ([`NO_PROGRESS_REASON`]): reconnect and resubscribe.
pub const CLOSE_NO_PROGRESS: u16 = 4000;

/// The close frame's reason for [`CLOSE_NO_PROGRESS`].
pub const NO_PROGRESS_REASON: &str = "no progress: reconnect and resubscribe";

/// The close code that goes with a cause's `closed` message.
pub fn code(cause: CloseCause) -> u16 {
    match cause {
        CloseCause::RoomDeleted | CloseCause::ConnectionClosed => 1000,
        CloseCause::ShuttingDown => 1001,
        CloseCause::TooLarge => 1009,
        CloseCause::Unfinished => 1008,
        CloseCause::Overloaded => 1013,
        CloseCause::StorageFailed => 1011,
        CloseCause::Idle | CloseCause::ReplicaLost => 4000,
        CloseCause::TokenExpired => 4001,
        CloseCause::Moving => 4002,
    }
}

/// Why a session stopped serving its connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SessionEnd {
    /// The server closed it, for this cause.
    Closed(CloseCause),
    /// The client sent a close frame, or its stream ended.
    ClientClosed,
    /// Reading from the client failed.
    ReadFailed,
    /// The writer finished a close the room queued.
    WriterClosed,
    /// The socket broke or stalled under the writer.
    SocketBroke,
}

impl SessionEnd {
    /// The `reason` label of `canopy_ws_closed_total` (a fixed set: no client strings).
    pub fn label(self) -> &'static str {
        match self {
            SessionEnd::Closed(CloseCause::TokenExpired) => "token expired",
            SessionEnd::Closed(CloseCause::ShuttingDown) => "server shutting down",
            SessionEnd::Closed(CloseCause::RoomDeleted) => "room deleted",
            SessionEnd::Closed(CloseCause::Idle) => "idle",
            SessionEnd::Closed(CloseCause::TooLarge) => "message too large",
            SessionEnd::Closed(CloseCause::Unfinished) => "message not completed in time",
            SessionEnd::Closed(CloseCause::Overloaded) => "overloaded",
            SessionEnd::Closed(CloseCause::Moving) => "moving",
            SessionEnd::Closed(CloseCause::ReplicaLost) => "replica lost",
            SessionEnd::Closed(CloseCause::StorageFailed) => "storage failed",
            SessionEnd::Closed(CloseCause::ConnectionClosed) => "connection closed",
            SessionEnd::ClientClosed => "closed by the client",
            SessionEnd::ReadFailed => "read failed",
            SessionEnd::WriterClosed => "closed by the server",
            SessionEnd::SocketBroke => "the socket broke or stalled",
        }
    }

    /// Whether the client ended it (then there is nothing left to read from it).
    pub fn by_client(self) -> bool {
        matches!(self, SessionEnd::ClientClosed | SessionEnd::ReadFailed)
    }
}
