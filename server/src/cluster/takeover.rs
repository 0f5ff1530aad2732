//! Failover: every node looks, once a second, for rooms the journal holds that no live
//! lease names (their owner died or was cut off for a whole lease), and takes them
//! over: it takes the lease with `create`, reads the room's journal back, appends a
//! takeover marker right after the last message it read (so an old owner still
//! appending is refused, and a message it missed makes the marker fail), rebuilds the
//! room and starts ticking it. Invariant: a room is rebuilt only from what its journal
//! stored, and every acknowledged batch was stored before its ack was sent.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{Cluster, ClusterError, Held, JournalFrom};
use crate::state::AppState;
use canopy_room::Room;
use canopy_room::lease::monotonic_ms;

/// How often a node looks for rooms without an owner.
const ORPHAN_SCAN: Duration = Duration::from_secs(1);

impl Cluster {
    /// Looks for rooms without an owner and takes over those this node is the
    /// successor of (or any, once one has been without an owner for a while), until
    /// aborted.
    pub(super) async fn adopt_orphans(self: Arc<Self>, state: AppState) {
        let mut every = tokio::time::interval(ORPHAN_SCAN);
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        // When each orphan was first seen.
        let mut seen: HashMap<String, u64> = HashMap::new();
        // Past this, any live node takes an orphan, whoever its successor is (the
        // successor may have died too).
        let patience = 2 * self.config.renew_every().as_millis() as u64 + 1_000;
        loop {
            every.tick().await;
            if state.lifecycle.is_stopping() {
                return;
            }
            let rooms: HashSet<String> = match self.journal.rooms().await {
                Ok(rooms) => rooms.into_iter().collect(),
                Err(e) => {
                    tracing::debug!(error = %e, "no catalog of rooms this round");
                    continue;
                }
            };
            let now = monotonic_ms();
            self.catalog.retain(|id| rooms.contains(id));
            for id in &rooms {
                self.catalog.insert(id.clone());
            }
            let mut orphans = HashSet::new();
            for id in rooms {
                if self.held.contains_key(&id) || state.room(&id).is_ok_and(|r| !r.is_replica()) {
                    continue;
                }
                // A live lease naming this node that this process does not hold: its
                // own, from before a restart.
                let own = match self.registry.room(&id) {
                    Some(r) if r.node == self.config.node => true,
                    Some(_) => continue,
                    None => false,
                };
                let first = *seen.entry(id.clone()).or_insert(now);
                orphans.insert(id.clone());
                let successor = self.registry.successor(&id, &self.config.node, patience);
                let mine = own || successor == self.config.node;
                if (mine || now.saturating_sub(first) >= patience)
                    && state.rooms.len() < state.config.max_rooms
                {
                    self.take_over(&state, &id, own).await;
                }
            }
            seen.retain(|id, _| orphans.contains(id));
        }
    }

    /// Takes `room`'s lease and, with it, the room.
    async fn take_over(&self, state: &AppState, room: &str, own: bool) {
        let (node, url) = (&self.config.node, &self.config.url);
        let epoch = if own {
            self.registry.reclaim(room, node, url).await.ok()
        } else {
            self.registry
                .claim(Some(room.to_string()), String::new, node, url)
                .await
                .ok()
                .map(|c| c.epoch)
        };
        // Someone else was quicker, or the registry is away: the next round sees.
        let Some(epoch) = epoch else { return };
        self.held.insert(
            room.to_string(),
            Held {
                epoch,
                revision: epoch,
            },
        );
        self.metrics.leases.set(self.held.len() as i64);
        let began = Instant::now();
        match self.adopt(state, room, epoch).await {
            Ok((nodes, records)) => {
                self.metrics.takeovers.inc();
                tracing::warn!(%room, epoch, nodes, records, took_ms = began.elapsed().as_millis() as u64, "took the room over from its journal");
            }
            Err(why) => {
                tracing::warn!(%room, %why, "could not take the room over; letting the lease go");
                self.release(room).await;
            }
        }
    }

    /// Rebuilds `room` from its journal and starts it here under `epoch`; answers
    /// its node count and the records replayed.
    async fn adopt(
        &self,
        state: &AppState,
        room: &str,
        epoch: u64,
    ) -> Result<(usize, usize), ClusterError> {
        let back = self
            .journal
            .read(room)
            .await?
            .ok_or_else(|| ClusterError::journal(room, "it is empty: the room was deleted"))?;
        let mut appender = self.journal.appender(room, back.last, self.max_payload());
        appender
            .takeover(&self.config.node, epoch)
            .await
            .map_err(|e| {
                ClusterError::journal(room, format!("the takeover marker was refused: {e:?}"))
            })?;
        let records = back.records.len();
        let acked = back
            .records
            .last()
            .map_or(back.start.seq, |r| r.seq.max(back.start.seq));
        let from = JournalFrom::Continue {
            appender: Box::new(appender),
            acked,
        };
        let (durability, feed) = self.journal_feed(room, from);
        let rebuilt = Room::taken_over(
            (
                room.to_string(),
                state.room_config(),
                Arc::clone(&state.metrics.room),
            ),
            &back.start,
            &back.records,
            canopy_room::tick_pool::now_ms(),
            durability,
        )
        .map_err(|e| ClusterError::journal(room, e))?;
        if state.rooms.get(room).is_some_and(|r| r.is_replica()) {
            self.drop_replica(state, room, "this node takes the room over");
        }
        if state.rooms.contains_key(room) {
            return Err(ClusterError::state(
                room,
                "a room of that id is loaded here",
            ));
        }
        let nodes = rebuilt.shared().scene.read().hierarchy().len();
        let shared = state.insert_and_place(rebuilt);
        self.hold_started(state, &shared, feed);
        Ok((nodes, records))
    }
}
