//! Where a room is, as this node sees it when a request or an upgrade comes in: one
//! [`Location`], worked out on every request from what is loaded here, the registry's
//! lease and the journal itself, never from the periodic orphan scan (which lags by up
//! to a second and is empty on a node that just started).
//!
//! Invariant: [`Location::Unknown`] (and so `404 unknown_room`) only when no live lease
//! names the room and JetStream holds nothing of it; every state in between owners is
//! [`Location::Moving`], answered `503 overloaded` with `Retry-After`, so a client
//! never takes a room that moves for a room that is gone.

use std::sync::Arc;

use canopy_room::RoomShared;

use super::{Cluster, RoomRecord};
use crate::state::AppState;

/// Seconds a client is asked to wait (`Retry-After`) while a room is between owners:
/// a takeover, once the lease has lapsed, takes about a second.
pub const MOVING_RETRY_SECS: u64 = 1;

/// Where a room is, from this node.
#[derive(Debug, Clone)]
pub enum Location {
    /// This node owns the room and serves it.
    Owned(Arc<RoomShared>),
    /// This node serves reads and subscriptions from a replica following `owner`;
    /// writes go to the owner.
    Relayed {
        /// The replica.
        replica: Arc<RoomShared>,
        /// The node the replica follows.
        owner: String,
    },
    /// Another node owns the room; this node has no replica of it.
    OwnedBy(RoomRecord),
    /// The room exists, but no node serves it just now: try again shortly.
    Moving(Between),
    /// No live lease names the room and the journal holds nothing of it.
    Unknown,
}

/// Why a room that exists has no node serving it at the moment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Between {
    /// Its owner's lease lapsed (the owner died or was cut off) and no node has taken
    /// it over from the journal yet.
    LeaseLapsed,
    /// A live lease names this node, which does not serve the room yet: it restarted in
    /// place and is taking its rooms back, or it is rebuilding the room in a takeover.
    NotYetServedHere,
    /// This node stepped down from the room moments ago; another holds it or is taking
    /// it over.
    JustLetGo,
    /// The registry or the journal could not be asked, so this node cannot say.
    Unsure(String),
}

impl Between {
    /// The message of the `503 overloaded` answer, for people.
    pub fn message(&self, room: &str) -> String {
        match self {
            Between::LeaseLapsed => format!(
                "room {room} is moving: between owners (its owner's lease expired); a node \
                 takes it over from its journal within a few seconds: try again"
            ),
            Between::NotYetServedHere => format!(
                "room {room} is moving: this node holds its lease and is still taking it \
                 over (or back, after a restart): try again"
            ),
            Between::JustLetGo => format!(
                "room {room} is moving between nodes (this node's lease on it ended moments \
                 ago): try again"
            ),
            Between::Unsure(why) => format!(
                "room {room} is not on this node, and the cluster could not say where it is \
                 ({why}): try again"
            ),
        }
    }
}

/// What becomes of a replica asked to serve.
enum Standing {
    /// It follows the owner (or a takeover it may follow).
    Serves,
    /// It cannot follow the room's owner: dropped, its clients subscribe again.
    OwnerChanged,
    /// No lease and no journal: the room was deleted.
    Deleted,
}

impl Location {
    /// Whether this node answers the request itself: it owns the room, or it is a read
    /// (`read`) and a replica here follows the owner.
    pub fn served_here(&self, read: bool) -> bool {
        match self {
            Location::Owned(_) => true,
            Location::Relayed { .. } => read,
            _ => false,
        }
    }
}

impl Cluster {
    /// Where `room` is now (see the module docs). A replica that may no longer be
    /// served (its owner changed and it cannot follow) is dropped here, at once.
    pub async fn locate(self: &Arc<Self>, state: &AppState, room: &str) -> Location {
        if let Some(local) = state.room(room).ok().filter(|r| !r.is_closed()) {
            if !local.is_replica() {
                return Location::Owned(local);
            }
            match self.replica_standing(state, room).await {
                Standing::Serves => {
                    if let Some(owner) = self.replicas.get(room).map(|h| h.0.clone()) {
                        return Location::Relayed {
                            replica: local,
                            owner,
                        };
                    }
                }
                Standing::OwnerChanged => self.drop_replica(state, room, "its owner changed"),
                Standing::Deleted => self.drop_replica_for(
                    state,
                    room,
                    "the room is gone",
                    canopy_room::CloseCause::RoomDeleted,
                ),
            }
        }
        self.locate_elsewhere(room).await
    }

    /// Whether this node's replica of `room` may go on serving: it follows the
    /// registry's owner, or it may follow a takeover (a new owner is being asked, or
    /// the room is between owners and the journal, asked now, still holds it).
    async fn replica_standing(self: &Arc<Self>, state: &AppState, room: &str) -> Standing {
        if self.replica_is_current(room) || self.rehoming.contains(room) {
            return Standing::Serves;
        }
        if let Some(to) = self.owner_of(room) {
            self.rehome(state, room.to_string(), to);
            return Standing::Serves;
        }
        match self.journal.holds(room).await {
            Ok(true) => Standing::Serves,
            Ok(false) => Standing::Deleted,
            // NATS away: the copy goes on serving what it has, as an owner does, while
            // the last scan saw the room (nothing can feed it a gap meanwhile).
            Err(_) if self.in_journal(room) => Standing::Serves,
            Err(_) => Standing::OwnerChanged,
        }
    }

    /// Where `room` is when this node serves it from nothing loaded here.
    async fn locate_elsewhere(&self, room: &str) -> Location {
        match self.look_up(room).await {
            Err(e) => Location::Moving(Between::Unsure(e.to_string())),
            Ok(Some(owner)) if owner.node != self.node() => Location::OwnedBy(owner),
            // The lease names this node; a room loaded and open here was found above.
            Ok(Some(_)) => Location::Moving(Between::NotYetServedHere),
            Ok(None) if self.just_let_go(room) => Location::Moving(Between::JustLetGo),
            Ok(None) => match self.journal.holds(room).await {
                // The look-up may have come from a miss remembered for a moment: a room
                // created since then is in the registry by now.
                Ok(true) => match self.registry.read_record(room).await {
                    Ok(Some(owner)) if owner.node != self.node() => Location::OwnedBy(owner),
                    Ok(Some(_)) => Location::Moving(Between::NotYetServedHere),
                    Ok(None) => Location::Moving(Between::LeaseLapsed),
                    Err(e) => Location::Moving(Between::Unsure(e.to_string())),
                },
                Ok(false) => Location::Unknown,
                Err(e) => Location::Moving(Between::Unsure(e.to_string())),
            },
        }
    }

    /// Whether `room` exists in the cluster, for a request that found no room here
    /// (`unknown_room` from a handler): the state it is in between owners, or `None`
    /// when it is truly unknown. Never passes anything on.
    pub async fn between_owners(self: &Arc<Self>, state: &AppState, room: &str) -> Option<Between> {
        match self.locate(state, room).await {
            Location::Unknown => None,
            Location::Moving(between) => Some(between),
            // Another node, or a copy here, has it: this request just came at the wrong
            // moment (a move under way), so the client tries again.
            Location::OwnedBy(_) | Location::Owned(_) | Location::Relayed { .. } => {
                Some(Between::JustLetGo)
            }
        }
    }
}
