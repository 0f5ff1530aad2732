//! The change events of a [`Connection`](crate::Connection) and [`Events`], the receiver
//! a game loop reads them from.
//!
//! Events are published a frame at a time (one `Arc<[Event]>` per applied snapshot or
//! delta) on a bounded broadcast channel, so any number of receivers can follow a
//! connection and a receiver that stops reading costs bounded memory.
//!
//! Invariant: a receiver sees the events of the frames it received in the order the
//! mirror applied them, each frame's events contiguous; if it falls so far behind that
//! frames were dropped, it gets one [`Event::Lagged`] in their place and must re-read the
//! mirror, which is always complete and at least as new as the last event received.

use std::collections::VecDeque;
use std::sync::Arc;

use canopy_protocol::{ErrorCode, Node, NodeId, Transform};
use tokio::sync::broadcast;
use tokio::sync::broadcast::error::{RecvError, TryRecvError};

use crate::connection::StopReason;

/// One change seen by a connection.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Event {
    /// A node came into the mirror: it entered scope, or a snapshot holds it and the
    /// previous copy did not.
    Entered(Node),
    /// A node already in the mirror was sent in full again: its parent, extent or mask
    /// changed (an `upsert` of a known node), or a snapshot holds different values.
    Changed(Node),
    /// An in-scope node's world transform changed.
    Updated {
        /// The node that moved.
        id: NodeId,
        /// Its new world transform.
        world: Transform,
    },
    /// A node left the mirror: removed from the room, moved out of the region, or absent
    /// from a new snapshot.
    Left(NodeId),
    /// A delta frame was applied; the events before it since the previous marker are its
    /// changes. `time` is the server's clock in milliseconds since the Unix epoch.
    Tick {
        /// The delta's tick: the mirror is now the room's state at this tick.
        tick: u64,
        /// Milliseconds since the Unix epoch when that tick finished, by the server's clock.
        time: u64,
    },
    /// A snapshot answering the caller's `subscribe` replaced the mirror; the events
    /// before it are the difference between the old copy and the new one.
    Snapshot {
        /// The snapshot's tick: the mirror is now the room's state at this tick.
        tick: u64,
        /// Milliseconds since the Unix epoch when that tick finished, by the server's clock.
        time: u64,
        /// Nodes in the mirror after the snapshot was applied.
        len: usize,
    },
    /// A snapshot the connection asked for by itself (after a reconnect, or after it
    /// saw a frame it could not apply) replaced the mirror; the events before it are the
    /// difference, so a caller that applies every event is right again.
    Resynced {
        /// The snapshot's tick: the mirror is now the room's state at this tick.
        tick: u64,
        /// Milliseconds since the Unix epoch when that tick finished, by the server's clock.
        time: u64,
        /// Nodes in the mirror after the snapshot was applied.
        len: usize,
    },
    /// `unsubscribe` cleared the mirror; a `Left` for every node came before it.
    Unsubscribed,
    /// The connection dropped; it reconnects by itself. The mirror keeps its last
    /// state until the resynchronising snapshot replaces it or a resumed delta brings it
    /// up to date.
    Disconnected {
        /// Why the connection ended, as text.
        error: String,
    },
    /// A new connection is open. When subscribed, either a `Resynced` follows (a fresh
    /// snapshot), or, when the server resumed from the mirror's tick, the resumed
    /// delta's events as for any delta, ending with `Tick`.
    Reconnected,
    /// The connection stopped for good (the last event of a connection).
    Stopped(StopReason),
    /// This receiver fell behind and `missed_frames` frames of events were dropped for
    /// it. The mirror itself is complete: re-read it.
    Lagged {
        /// How many frames of events this receiver lost.
        missed_frames: u64,
    },
    /// The server sent an `error` that answers no pending request (for example a
    /// refused `subscribe`).
    ServerError {
        /// The contract's error code.
        code: ErrorCode,
        /// The server's description, for people; its wording may change.
        message: String,
    },
}

impl Event {
    /// Whether the event changes a node (`Entered`, `Changed`, `Updated`, `Left`), as
    /// opposed to a marker or a connection event.
    pub fn is_node_change(&self) -> bool {
        matches!(
            self,
            Event::Entered(_) | Event::Changed(_) | Event::Updated { .. } | Event::Left(_)
        )
    }
}

/// One frame's events, shared by every receiver.
pub(crate) type Frame = Arc<[Event]>;

/// A receiver of a connection's [`Event`]s. Get one with
/// [`Connection::events`](crate::Connection::events) before subscribing, so that the
/// snapshot's events are not missed.
#[derive(Debug)]
pub struct Events {
    rx: broadcast::Receiver<Frame>,
    current: VecDeque<Event>,
}

impl Events {
    pub(crate) fn new(rx: broadcast::Receiver<Frame>) -> Self {
        Events {
            rx,
            current: VecDeque::new(),
        }
    }

    /// The next event, waiting for one; `None` once the connection has stopped and
    /// every event was read.
    pub async fn next(&mut self) -> Option<Event> {
        loop {
            if let Some(e) = self.current.pop_front() {
                return Some(e);
            }
            match self.rx.recv().await {
                Ok(frame) => self.current.extend(frame.iter().cloned()),
                Err(RecvError::Lagged(n)) => return Some(Event::Lagged { missed_frames: n }),
                Err(RecvError::Closed) => return None,
            }
        }
    }

    /// The next event if one is ready, without waiting: the call for a game loop that
    /// drains events once per rendered frame.
    pub fn try_next(&mut self) -> Option<Event> {
        loop {
            if let Some(e) = self.current.pop_front() {
                return Some(e);
            }
            match self.rx.try_recv() {
                Ok(frame) => self.current.extend(frame.iter().cloned()),
                Err(TryRecvError::Lagged(n)) => return Some(Event::Lagged { missed_frames: n }),
                Err(TryRecvError::Empty | TryRecvError::Closed) => return None,
            }
        }
    }

    /// Every event ready now, without waiting.
    pub fn drain(&mut self) -> Vec<Event> {
        std::iter::from_fn(|| self.try_next()).collect()
    }
}
