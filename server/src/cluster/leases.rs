//! This node's leases over its life in the cluster: joining it (taking back the rooms
//! restored here), holding a lease just taken, stepping down, and renewing every lease
//! with the heartbeat until shutdown.
//!
//! Invariant: a room is writable here only until the end of a lease this node holds
//! (its lease ends here no later than in the registry), and every path that unloads an
//! owned room because another node owns it now tells its clients `moving`.

use std::sync::Arc;
use std::time::Duration;

use dashmap::DashMap;

use canopy_room::lease::monotonic_ms;

use super::{
    Cluster, ClusterConfig, ClusterError, ClusterMetrics, FeedTask, Held, RENEWALS_AT_ONCE, feed,
    journal, redacted_url, registry,
};
use crate::state::AppState;

impl Cluster {
    /// Connects to NATS, opens (or creates) the registry buckets and takes the leases of
    /// the rooms this node already holds (restored from its data dir); a room another
    /// node owns by now is unloaded, its files kept.
    pub async fn join(
        state: &AppState,
        config: ClusterConfig,
    ) -> Result<Arc<Cluster>, ClusterError> {
        let client = async_nats::ConnectOptions::new()
            .name(format!("canopy {}", config.node))
            .retry_on_initial_connect()
            .connection_timeout(Duration::from_secs(5))
            .connect(config.nats_url.as_str());
        let client = tokio::time::timeout(Duration::from_secs(15), client)
            .await
            .map_err(|_| ClusterError::Connect {
                url: redacted_url(&config.nats_url),
                why: "no connection within 15 s".into(),
            })?
            .map_err(|e| ClusterError::Connect {
                url: redacted_url(&config.nats_url),
                why: e
                    .to_string()
                    .replace(&config.nats_url, &redacted_url(&config.nats_url)),
            })?;
        let registry = registry::Registry::open(client.clone(), config.lease).await?;
        let journal = journal::Journal::open(client.clone(), config.replicas).await?;
        let cluster = Arc::new(Cluster {
            journal,
            catalog: dashmap::DashSet::new(),
            me: std::sync::OnceLock::new(),
            placed: parking_lot::Mutex::default(),
            metrics: ClusterMetrics::new(&state.metrics),
            config,
            client,
            registry,
            held: DashMap::new(),
            let_go: DashMap::new(),
            replicas: DashMap::new(),
            rehoming: dashmap::DashSet::new(),
            relay_locks: DashMap::new(),
        });
        let _ = cluster.me.set(Arc::downgrade(&cluster));
        let restored: Vec<String> = state.rooms.iter().map(|r| r.key().clone()).collect();
        for id in restored {
            let Ok(room) = state.room(&id) else { continue };
            room.lease.revoke();
            match cluster.reclaim(&id).await {
                Ok(()) => {
                    if let Some(feed) = state.take_parked_feed(&id) {
                        cluster.hold_started(state, &room, feed);
                    }
                }
                Err(owner) => {
                    tracing::warn!(room = %id, %owner, "another node owns this room now: unloading this node's copy (its files are kept)");
                    state.unload_room(&id, canopy_room::CloseCause::Moving);
                }
            }
        }
        Ok(cluster)
    }

    /// Marks a room whose lease was just taken writable for one lease and starts its
    /// feed (journal and relays). For a new room, answers once its journal holds it.
    pub(crate) fn hold_started(
        &self,
        state: &AppState,
        room: &Arc<canopy_room::RoomShared>,
        feed: FeedTask,
    ) -> Option<tokio::sync::oneshot::Receiver<Result<(), feed::NotStored>>> {
        let until = monotonic_ms() + (self.config.lease - self.config.margin()).as_millis() as u64;
        room.lease.extend_to(until);
        self.feed(state, room, feed)
    }

    /// Stops owning `room` here: another node appended to its journal, or its journal
    /// failed. Its subscribers get `closed`; the lease, if still held, is let go.
    pub(crate) fn step_down(
        &self,
        state: &AppState,
        room: &Arc<canopy_room::RoomShared>,
        why: &str,
    ) {
        room.lease.revoke();
        if state
            .rooms
            .get(&room.id)
            .is_some_and(|r| Arc::ptr_eq(r.value(), room))
        {
            tracing::warn!(room = %room.id, why, "stepping down");
            self.remember_let_go(&room.id);
            self.metrics.leases_lost.inc();
            self.held.remove(&room.id);
            self.metrics.leases.set(self.held.len() as i64);
            state.unload_room(&room.id, canopy_room::CloseCause::Moving);
        }
    }

    /// Runs the renewals and the heartbeat until shutdown (spawned by the server).
    pub async fn maintain(self: Arc<Self>, state: AppState) {
        let mut every = tokio::time::interval(self.config.renew_every());
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let watch = tokio::spawn(Arc::clone(&self).registry_watch());
        let adopt = tokio::spawn(Arc::clone(&self).adopt_orphans(state.clone()));
        loop {
            tokio::select! {
                _ = state.lifecycle.stopping() => break,
                _ = every.tick() => {}
            }
            self.renew_all(&state).await;
            // A replica nobody used for about 30 s goes.
            let rounds = (30 / self.config.renew_every().as_secs().max(1)).max(2) as u32;
            self.prune_relays(&state, rounds);
            let subscribers = state.metrics.room.subscribers.get().max(0) as u64;
            if let Err(e) = self
                .registry
                .heartbeat(&self.config.node, &self.config.url, subscribers)
                .await
            {
                tracing::warn!(error = %e, "cluster heartbeat failed");
            }
        }
        watch.abort();
        adopt.abort();
        // Leases of rooms that stop with this node are given back at once, so that a
        // restart elsewhere need not wait out the lease.
        let held: Vec<String> = self.held.iter().map(|h| h.key().clone()).collect();
        for room in held {
            self.release(&room).await;
        }
    }

    async fn registry_watch(self: Arc<Self>) {
        self.registry.watch().await;
    }

    /// Renews every held lease once; steps down from those another node has taken.
    async fn renew_all(&self, state: &AppState) {
        let held: Vec<(String, Held)> = self
            .held
            .iter()
            .map(|h| (h.key().clone(), *h.value()))
            .collect();
        let keep = self.config.lease - self.config.margin();
        // Some at a time, so that a node with many rooms renews them all well within
        // one renewal period.
        let renewals = futures_util::stream::iter(held);
        futures_util::StreamExt::for_each_concurrent(renewals, RENEWALS_AT_ONCE, |(id, h)| async move {
            let Ok(room) = state.room(&id) else {
                // Deleted here meanwhile: its handler releases it.
                return;
            };
            // Counted from before the write is sent, which is never later than the
            // registry's own time of it: the lease here ends no later than there.
            let sent = monotonic_ms();
            match self
                .registry
                .renew(
                    &id,
                    h.epoch,
                    h.revision,
                    &self.config.node,
                    &self.config.url,
                )
                .await
            {
                Ok(registry::Renewed { epoch, revision }) => {
                    if epoch != h.epoch {
                        tracing::info!(room = %id, epoch, "lease had expired in the registry and was taken again");
                    }
                    if let Some(mut held) = self.held.get_mut(&id) {
                        held.epoch = epoch;
                        held.revision = revision;
                    }
                    room.lease.extend_to(sent + keep.as_millis() as u64);
                }
                Err(registry::RenewError::Lost(why)) => {
                    self.metrics.renew_failures.inc();
                    self.metrics.leases_lost.inc();
                    room.lease.revoke();
                    self.held.remove(&id);
                    self.metrics.leases.set(self.held.len() as i64);
                    tracing::warn!(room = %id, %why, "lease lost: stepping down");
                    // Before the room goes, so no request finds it neither here nor
                    // let go (`unknown_room` for a room that lives on elsewhere).
                    self.remember_let_go(&id);
                    state.unload_room(&id, canopy_room::CloseCause::Moving);
                }
                Err(registry::RenewError::Unreachable(why)) => {
                    // The lease runs out by itself here if this goes on; another node
                    // cannot take it before the registry has expired it.
                    self.metrics.renew_failures.inc();
                    tracing::warn!(room = %id, %why, "lease renewal failed; edits stop when it lapses");
                }
            }
        })
        .await;
    }
}
