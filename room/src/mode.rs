//! A room's mode, fixed when the room is made: its durability (kept in memory, logged
//! to this server's data dir, or journaled in its cluster), which decides where each
//! tick's record goes and what the room's acks, frames and snapshots wait for (the
//! gate's watermark); and its role (the room itself, or a relay's replica of it).
//!
//! Invariant: a room's mode never changes after it is made (a room that must change
//! mode is made again: a takeover builds a new room from the journal), so the tick, the
//! gate and the edges never see a room between two modes.

use std::sync::Arc;

use crate::durable::RoomLog;
use crate::gate::{GateSource, JournalMark};
use crate::replica::{FeedLink, ReplayState};

/// How a room's ticks become durable, and where their records go.
#[derive(Debug)]
pub enum Durability {
    /// Kept in memory only: nothing waits for a disk (an `--in-memory` server, the demo
    /// room, a relay's replica). `relays`: a feed its records go to for relays'
    /// replicas, unjournaled (tests of replication; a cluster's rooms are journaled).
    Memory {
        /// The feed for relays, if any.
        relays: Option<FeedLink>,
    },
    /// Logged to this server's data dir. `relays`: in a cluster, the feed its records
    /// also go to for relays' replicas (not journaled: a room a node brought back from
    /// its own data dir).
    Log {
        /// The room's log bookkeeping.
        log: RoomLog,
        /// The feed for relays, in a cluster.
        relays: Option<FeedLink>,
    },
    /// Journaled in its cluster: each tick's record goes to the feed, which stores it in
    /// JetStream before relays see it; acks wait for `mark`.
    Journal {
        /// Where the records go.
        feed: FeedLink,
        /// How far the journal has stored them.
        mark: Arc<JournalMark>,
    },
}

impl Durability {
    /// In memory, feeding nothing.
    pub fn memory() -> Durability {
        Durability::Memory { relays: None }
    }

    /// Logged to the data dir, on a lone server.
    pub fn logged(log: RoomLog) -> Durability {
        Durability::Log { log, relays: None }
    }

    /// The feed this room's records go to, if it has one.
    pub fn feed(&self) -> Option<&FeedLink> {
        match self {
            Durability::Memory { relays } | Durability::Log { relays, .. } => relays.as_ref(),
            Durability::Journal { feed, .. } => Some(feed),
        }
    }

    /// The room's log, when it is logged locally.
    pub fn log(&self) -> Option<&RoomLog> {
        match self {
            Durability::Log { log, .. } => Some(log),
            _ => None,
        }
    }

    /// Whether the tick keeps its applied batches for a record.
    pub(crate) fn records(&self) -> bool {
        self.feed().is_some() || !matches!(self, Durability::Memory { .. })
    }

    /// The watermark the room's gate waits on.
    pub(crate) fn gate_source(&self) -> GateSource {
        match self {
            Durability::Memory { .. } => GateSource::None,
            Durability::Log { log, .. } => GateSource::Log(log.link().clone()),
            Durability::Journal { mark, .. } => GateSource::Journal(Arc::clone(mark)),
        }
    }
}

/// What a room is to its cluster, fixed when it is made.
#[derive(Debug)]
pub(crate) enum Role {
    /// The room itself: it takes edits (every room of a lone server, an owner in a
    /// cluster).
    Owner,
    /// A relay's read-only copy of a room another node owns, replaying its records.
    Replica(ReplayState),
}
