//! Relays: a node serving subscribers of a room it does not own keeps a read-only
//! replica of it (`room/replica.rs`), fed by the owner's records on NATS.
//!
//! Subjects: the owner publishes each record of room `R` once on `canopy.room.R.log`
//! and answers `canopy.node.<owner>.capture` with the state a replica starts from; a
//! relay subscribes to the log *before* it asks for the state, so no record falls
//! between them (the replica skips those the state already includes). Edits sent on a
//! relay's connections go to the owner on `canopy.node.<owner>.edits`, in order, with
//! one request in flight carrying every batch queued meanwhile; the owner queues them
//! in that order and answers each as an HTTP edit; each answer goes back through the
//! replica, which sends it once it shows the answer's tick (read-your-writes). Invariant: a replica exists only
//! while its owner's record names the same node and instance; otherwise it is unloaded
//! and its clients subscribe again.

use std::sync::Arc;
use std::time::Duration;

use bincode::{Decode, Encode};
use futures_util::StreamExt;
use tokio::sync::mpsc;

use super::bus;
use super::relayed_edits::{
    RelayedEdits, RelayedOutcome, edits_subject, forward_edits, queue_relayed,
};
use super::{Cluster, ClusterError, RoomRecord};
use crate::state::AppState;
use canopy_room::replica::{ReplicaRecord, ReplicaStart};
use canopy_room::{CloseCause, Room, RoomCommand, RoomShared};

/// Edits a relay's connections may have waiting for the owner per room.
const UPSTREAM_QUEUE: usize = 1024;
/// How long a relay waits for the owner's state.
const CAPTURE_TIMEOUT: Duration = Duration::from_secs(10);
/// How often a replica asks a room's new owner for its state before it gives up on
/// following the takeover, and how long it waits between asks (see `rehome`).
const REHOME_ASKS: u32 = 10;
const REHOME_RETRY: Duration = Duration::from_millis(200);

/// The subject of a room's records.
pub(super) fn log_subject(room: &str) -> String {
    format!("canopy.room.{room}.log")
}

/// The subject a node answers state requests on.
fn capture_subject(node: &str) -> String {
    format!("canopy.node.{node}.capture")
}

/// The answer to a state request.
#[derive(Debug, Encode, Decode)]
enum CaptureAnswer {
    Start(ReplicaStart),
    Refused(String),
}

impl Cluster {
    /// Answers relays' state requests and relayed edits for the rooms this node owns,
    /// until shutdown.
    pub async fn serve_relays(self: Arc<Self>, state: AppState) -> Result<(), super::ClusterError> {
        self.answer_on(
            &state,
            capture_subject(self.node()),
            |state, cluster, payload| async move {
                let room = String::from_utf8_lossy(&payload).into_owned();
                let answer = match capture(&state, &room).await {
                    // A relay shows nothing its owner's journal has not stored, so
                    // that a takeover can lose nothing a client saw.
                    Ok(start) => match state.room(&room) {
                        Ok(r) => match r.gate.durable(start.seq).await {
                            Ok(()) => CaptureAnswer::Start(start),
                            Err(why) => CaptureAnswer::Refused(why.to_string()),
                        },
                        Err(e) => CaptureAnswer::Refused(e.to_string()),
                    },
                    Err(why) => CaptureAnswer::Refused(why.to_string()),
                };
                let bytes = bus::encode(&answer);
                if bytes.len() <= cluster.max_payload() {
                    return Some(bytes);
                }
                Some(bus::encode(&CaptureAnswer::Refused(format!(
                    "room {room}'s state is {} bytes, over NATS's max_payload ({})",
                    bytes.len(),
                    cluster.max_payload()
                ))))
            },
        )
        .await?;
        self.answer_on(
            &state,
            edits_subject(self.node()),
            |state, _, payload| async move {
                let edits = bus::decode::<RelayedEdits>(&payload)
                    .inspect_err(|e| tracing::warn!(error = %e, "unreadable relayed edits"))
                    .ok()?;
                let answers: Vec<RelayedOutcome> =
                    queue_relayed(&state, &edits.room, edits.batches)
                        .await
                        .into_iter()
                        .map(RelayedOutcome::from)
                        .collect();
                Some(bus::encode(&answers))
            },
        )
        .await
    }

    /// Answers every request on `subject` with what `answer` makes of its payload
    /// (nothing: no reply), each in a task of its own, until shutdown.
    async fn answer_on<F, Fut>(
        self: &Arc<Self>,
        state: &AppState,
        subject: String,
        answer: F,
    ) -> Result<(), super::ClusterError>
    where
        F: Fn(AppState, Arc<Cluster>, bytes::Bytes) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Option<Vec<u8>>> + Send + 'static,
    {
        let mut requests = self
            .client()
            .subscribe(subject)
            .await
            .map_err(|e| super::ClusterError::Registry(e.to_string()))?;
        let stop = state.lifecycle.token();
        let cluster = Arc::clone(self);
        let state = state.clone();
        let answer = Arc::new(answer);
        state.tasks.clone().spawn(async move {
            loop {
                let msg = tokio::select! {
                    _ = stop.cancelled() => break,
                    m = requests.next() => match m { Some(m) => m, None => break },
                };
                let Some(reply) = msg.reply.clone() else {
                    continue;
                };
                let (state, cluster, answer) =
                    (state.clone(), Arc::clone(&cluster), Arc::clone(&answer));
                tokio::spawn(async move {
                    if let Some(bytes) = answer(state, Arc::clone(&cluster), msg.payload).await {
                        let _ = cluster.client().publish(reply, bytes.into()).await;
                    }
                });
            }
            let _ = requests.unsubscribe().await;
        });
        Ok(())
    }

    /// The replica of `room` on this node, made now from `owner` if there is none.
    pub async fn relay(
        self: &Arc<Self>,
        state: &AppState,
        room: &str,
        owner: &RoomRecord,
    ) -> Result<Arc<RoomShared>, ClusterError> {
        let lock = Arc::clone(
            self.relay_locks
                .entry(room.to_string())
                .or_insert_with(|| Arc::new(tokio::sync::Mutex::new(())))
                .value(),
        );
        let _held = lock.lock().await;
        if state
            .rooms
            .get(room)
            .is_some_and(|r| r.is_replica() && r.is_closed())
        {
            self.drop_replica(state, room, "it stopped");
        }
        if let Ok(r) = state.room(room) {
            return Ok(r);
        }
        let mut log = self
            .client()
            .subscribe(log_subject(room))
            .await
            .map_err(|e| ClusterError::state(room, format!("cannot follow its records: {e}")))?;
        let start = self.ask_start(&owner.node, room).await?;
        let (up_tx, up_rx) = mpsc::channel(UPSTREAM_QUEUE);
        let replica = Room::replica(
            room.to_string(),
            state.room_config(),
            Arc::clone(&state.metrics.room),
            &start,
            up_tx,
        )
        .map_err(|e| ClusterError::state(room, e))?;
        let shared = state.insert_and_place(replica);
        self.replicas
            .insert(room.to_string(), (owner.node.clone(), owner.epoch, 0));
        self.metrics.replicas.set(self.replicas.len() as i64);
        tracing::info!(%room, owner = %owner.node, tick = start.tick, nodes = start.nodes.len(), "relaying");
        // The owner's records, into the replica.
        let feed = Arc::clone(&shared);
        let first = start.seq;
        let (cluster, held_by) = (Arc::clone(self), state.clone());
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    _ = feed.closed() => break,
                    m = log.next() => match m {
                        None => break,
                        Some(m) => match bus::decode::<ReplicaRecord>(&m.payload) {
                            Ok(r) if r.seq <= first => {}
                            Ok(r) => {
                                feed.send(RoomCommand::Replicate(Box::new(r)));
                                feed.wake_early();
                            }
                            Err(e) => tracing::warn!(room = %feed.id, error = %e, "unreadable record"),
                        },
                    },
                }
            }
            let _ = log.unsubscribe().await;
            // However the feed ended (the replica stopped itself out of step with its
            // owner, or its stream ended), the replica goes now: never a read served
            // from a copy nothing feeds, and the next subscriber gets a fresh one.
            cluster.forget_replica(&held_by, &feed);
        });
        // The replica's edits, to the owner.
        tokio::spawn(forward_edits(
            Arc::clone(self),
            Arc::clone(&shared),
            state.config.request_timeout,
            up_rx,
        ));
        Ok(shared)
    }

    /// `node`'s state of `room`, as a replica starts from.
    async fn ask_start(&self, node: &str, room: &str) -> Result<ReplicaStart, ClusterError> {
        let ask = self
            .client()
            .request(capture_subject(node), room.to_string().into());
        let answer = tokio::time::timeout(CAPTURE_TIMEOUT, ask)
            .await
            .map_err(|_| {
                ClusterError::state(
                    room,
                    format!("node {node} sent none within {CAPTURE_TIMEOUT:?}"),
                )
            })?
            .map_err(|e| ClusterError::state(room, format!("node {node} sent none: {e}")))?;
        match bus::decode::<CaptureAnswer>(&answer.payload)? {
            CaptureAnswer::Start(s) => Ok(s),
            CaptureAnswer::Refused(why) => Err(ClusterError::state(room, why)),
        }
    }

    /// A replica's owner changed to `to`: if the new owner goes on with the same room
    /// instance (a takeover from the journal), the replica follows it (its records come
    /// on the same subject, numbered on, and a gap still ends it); otherwise it goes.
    pub(super) fn rehome(self: &Arc<Self>, state: &AppState, room: String, to: RoomRecord) {
        if !self.rehoming.insert(room.clone()) {
            return;
        }
        let (cluster, state) = (Arc::clone(self), state.clone());
        tokio::spawn(async move {
            let instance = state
                .room(&room)
                .ok()
                .filter(|r| r.is_replica())
                .map(|r| r.instance.to_header());
            let follows = match instance {
                Some(mine) => cluster.new_owner_goes_on(&room, &to, &mine).await,
                None => false,
            };
            if follows && let Some(mut held) = cluster.replicas.get_mut(&room) {
                tracing::info!(%room, owner = %to.node, epoch = to.epoch, "replica follows the room's new owner");
                held.0 = to.node.clone();
                held.1 = to.epoch;
            } else {
                cluster.drop_replica(&state, &room, "its owner changed");
            }
            cluster.rehoming.remove(&room);
        });
    }

    /// Whether `to`, the registry's new owner of `room`, goes on with the replica's
    /// instance `mine`. Its answer is asked again a few times while it keeps the lease
    /// and refuses: a node that just took the room over names itself in the registry
    /// before its rebuild from the journal is serving ("not owned by this node"), and
    /// a replica dropped for that would close subscribers that could have followed.
    async fn new_owner_goes_on(&self, room: &str, to: &RoomRecord, mine: &str) -> bool {
        let mut asks = 1;
        loop {
            let why = match self.ask_start(&to.node, room).await {
                Ok(start) => return start.instance == mine,
                Err(why) => why,
            };
            let still = self
                .owner_of(room)
                .is_some_and(|r| r.node == to.node && r.epoch == to.epoch);
            if !still || asks == REHOME_ASKS {
                tracing::info!(%room, owner = %to.node, %why, "the new owner sent no state");
                return false;
            }
            asks += 1;
            tokio::time::sleep(REHOME_RETRY).await;
        }
    }

    /// Unloads replicas whose owner changed or whose room is gone, and replicas that
    /// had no connection for `idle` (called on every renewal round).
    pub(super) fn prune_relays(self: &Arc<Self>, state: &AppState, idle_rounds: u32) {
        let mut gone = Vec::new();
        let mut moved = Vec::new();
        for mut entry in self.replicas.iter_mut() {
            let room = entry.key().clone();
            let (owner, epoch, idle) = entry.value_mut();
            let Ok(shared) = state.room(&room) else {
                gone.push((room, "stopped", CloseCause::ReplicaLost));
                continue;
            };
            match self.owner_of(&room) {
                Some(r) if r.node == *owner && r.epoch == *epoch => {}
                Some(r) => {
                    moved.push((room, r));
                    continue;
                }
                // Between owners: kept while the journal has it, to follow a takeover.
                None if self.in_journal(&room) => continue,
                None => {
                    // No lease and not in the journal: deleted.
                    gone.push((room, "the room was deleted", CloseCause::RoomDeleted));
                    continue;
                }
            }
            if shared
                .connections
                .load(std::sync::atomic::Ordering::Acquire)
                == 0
            {
                *idle += 1;
                if *idle >= idle_rounds {
                    gone.push((room, "no connection for a while", CloseCause::ReplicaLost));
                }
            } else {
                *idle = 0;
            }
        }
        for (room, why, cause) in gone {
            self.drop_replica_for(state, &room, why, cause);
        }
        for (room, to) in moved {
            self.rehome(state, room, to);
        }
    }

    /// Whether this node's replica of `room` follows the registry's current owner.
    pub fn replica_is_current(&self, room: &str) -> bool {
        let Some(held) = self.replicas.get(room) else {
            return false;
        };
        self.owner_of(room)
            .is_some_and(|r| r.node == held.0 && r.epoch == held.1)
    }

    /// Unloads `replica` if it is still this node's copy of its room (and not a later
    /// one); its clients get `closed` with the resubscribe code.
    fn forget_replica(&self, state: &AppState, replica: &Arc<RoomShared>) {
        let room = &replica.id;
        let current = state
            .rooms
            .get(room)
            .is_some_and(|r| Arc::ptr_eq(r.value(), replica));
        if current {
            self.drop_replica(state, room, "its feed ended");
        } else {
            replica.mark_closed(CloseCause::ReplicaLost);
        }
    }

    /// Unloads this node's replica of `room`; its clients get `closed` with the
    /// resubscribe code (4000).
    pub fn drop_replica(&self, state: &AppState, room: &str, why: &str) {
        self.drop_replica_for(state, room, why, CloseCause::ReplicaLost);
    }

    /// As [`Cluster::drop_replica`], its clients closed for `cause`.
    pub(super) fn drop_replica_for(
        &self,
        state: &AppState,
        room: &str,
        why: &str,
        cause: canopy_room::CloseCause,
    ) {
        self.replicas.remove(room);
        self.metrics.replicas.set(self.replicas.len() as i64);
        // Looked up in the map itself: a replica that stopped is no longer `state.room`.
        if state.rooms.get(room).is_some_and(|r| r.is_replica()) {
            tracing::info!(%room, why, "replica unloaded");
            state.unload_room(room, cause);
        }
    }
}

/// The owner's state of `room` now, taken by its tick thread.
pub(super) async fn capture(state: &AppState, room: &str) -> Result<ReplicaStart, ClusterError> {
    let shared = state.room(room).map_err(|e| ClusterError::state(room, e))?;
    if shared.is_replica() || !shared.feeds {
        return Err(ClusterError::state(
            room,
            "the room is not owned by this node",
        ));
    }
    let (tx, rx) = tokio::sync::oneshot::channel();
    if !shared.send(RoomCommand::Capture(tx)) {
        return Err(ClusterError::state(room, "the room stopped"));
    }
    shared.wake();
    tokio::time::timeout(CAPTURE_TIMEOUT, rx)
        .await
        .map_err(|_| ClusterError::state(room, "its tick took no state in time"))?
        .map_err(|_| ClusterError::state(room, "the room stopped"))?
        .map_err(|e| ClusterError::state(room, e))
}

/// Queues relayed batches in the owned room `room`, in order, and answers each as an
#[cfg(test)]
#[path = "relay_tests.rs"]
mod tests;
