//! The record phase of an owner's tick: the one place a tick's applied batches go, as
//! the room's [`Durability`] says (nowhere, the local log, the cluster's feed and
//! journal), and the one answer to what the tick's acks wait for.
//!
//! Invariant: a tick that applied batches makes one record per destination of its mode,
//! numbered in order, and its acks wait for the record that makes them durable (the
//! log's or the journal's), never for the best-effort feed to relays of a logged room.

use canopy_protocol::Op;

use crate::applied::Applied;
use crate::mode::Durability;
use crate::replica::{self, ReplicaRecord};
use crate::scene_state::SceneState;
use crate::shared::RoomShared;
use crate::{Room, durable};

/// A record of the tick `scene` shows, numbered `seq`.
fn record_of(
    shared: &RoomShared,
    seq: u64,
    scene: &SceneState,
    batches: Vec<Vec<Op>>,
) -> ReplicaRecord {
    ReplicaRecord {
        instance: shared.instance.to_header(),
        seq,
        tick: scene.tick(),
        time_ms: scene.time_ms(),
        batches,
    }
}

impl Room {
    /// Hands this tick's applied batches to where the room's mode sends them; returns
    /// the record number the tick's acks (and, unless live, its frames) wait for (0:
    /// nothing).
    pub(crate) fn record_tick(&mut self, scene: &SceneState, applied: &mut Applied) -> u64 {
        let shared = &self.shared;
        let mut batches = std::mem::take(&mut self.tick_batches);
        let durable_at = match &mut self.durability {
            Durability::Memory { relays } => {
                if let Some(link) = relays.as_ref().filter(|_| !batches.is_empty()) {
                    self.record_seq += 1;
                    let batches = std::mem::take(&mut batches);
                    let record = record_of(shared, self.record_seq, scene, batches);
                    replica::feed(link, None, shared, record, applied);
                }
                0
            }
            Durability::Log { log, relays } => {
                let at = durable::persist(log, shared, scene, &batches, applied);
                if let Some(link) = relays.as_ref().filter(|_| !batches.is_empty()) {
                    self.record_seq += 1;
                    let record = record_of(shared, self.record_seq, scene, batches.clone());
                    replica::feed(link, None, shared, record, applied);
                }
                at
            }
            Durability::Journal { feed, mark } => {
                if batches.is_empty() || mark.failure().is_some() {
                    0
                } else {
                    self.record_seq += 1;
                    let batches = std::mem::take(&mut batches);
                    let record = record_of(shared, self.record_seq, scene, batches);
                    replica::feed(feed, Some(mark), shared, record, applied)
                }
            }
        };
        batches.clear();
        self.tick_batches = batches;
        durable_at
    }
}
