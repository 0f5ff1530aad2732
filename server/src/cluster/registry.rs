//! The registry in NATS JetStream key-value: bucket `canopy_rooms` (room id → owner
//! record, one revision kept, entries expire after the lease) and `canopy_nodes` (node
//! name → heartbeat), with this node's view of both kept current by watching them.
//!
//! Invariant: a lease is acquired only by `create` (which fails while a live key
//! exists) and renewed only by `update` against the revision this node last wrote, so
//! a renewal by an owner that lost the key always fails; the revision of the acquiring
//! `create` is the lease's epoch and grows with every new owner. An entry of the view
//! counts as live only while it is younger than one lease: an expired key leaves no
//! event behind, so age is how the view forgets it.

use std::time::Duration;

use async_nats::jetstream::{self, kv};
use canopy_protocol::http::{ClusterNode, ClusterRoom, ClusterView};
use dashmap::DashMap;
use serde::{Deserialize, Serialize};

mod watch;

use super::ClusterError;
use crate::registry_error::RegistryError;
use canopy_room::lease::monotonic_ms;

/// The bucket of room leases.
const ROOMS: &str = "canopy_rooms";
/// The bucket of node heartbeats.
const NODES: &str = "canopy_nodes";
/// A registry call that takes longer than this is taken as NATS being away.
const CALL_TIMEOUT: Duration = Duration::from_secs(3);
/// How many `room-N` names a claim without an id tries before giving up.
const NAME_TRIES: usize = 1_000;

/// A room's value in the registry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoomRecord {
    /// The owner's node name.
    pub node: String,
    /// The owner's base URL.
    pub url: String,
    /// The lease's epoch; 0 in the acquiring write (which cannot know its own
    /// revision), whose revision is then the epoch. Records read from the view or the
    /// registry always carry the real epoch.
    pub epoch: u64,
}

impl RoomRecord {
    fn of(node: &str, url: &str, epoch: u64) -> Self {
        RoomRecord {
            node: node.into(),
            url: url.into(),
            epoch,
        }
    }

    /// The key-value value (JSON, so that `nats kv get` shows it as it is).
    fn to_bytes(&self) -> bytes::Bytes {
        serde_json::to_vec(self).expect("a record").into()
    }
}

/// A node's heartbeat in the registry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct NodeRecord {
    url: String,
    subscribers: u64,
}

/// A registry value as this node last saw it.
#[derive(Debug, Clone)]
struct Seen<T> {
    value: T,
    revision: u64,
    at_ms: u64,
}

/// A new room's lease.
#[derive(Debug, Clone)]
pub struct Claim {
    /// The room's id (the one asked for, or the `room-N` picked).
    pub id: String,
    /// The lease's epoch.
    pub epoch: u64,
}

/// A renewal that worked.
#[derive(Debug, Clone, Copy)]
pub(super) struct Renewed {
    /// The lease's epoch: the same, or a new one if the key had expired and was taken
    /// again.
    pub(super) epoch: u64,
    /// The revision of this write.
    pub(super) revision: u64,
}

/// Why a renewal did not work.
#[derive(Debug)]
pub(super) enum RenewError {
    /// Another node holds the room now.
    Lost(String),
    /// The registry could not be reached.
    Unreachable(String),
}

/// A live node as the view has it.
#[derive(Debug, Clone)]
pub(super) struct LiveNode {
    /// Its name.
    pub(super) id: String,
    /// Its base URL.
    pub(super) url: String,
}

/// The registry's buckets and this node's view of them.
#[derive(Debug)]
pub(super) struct Registry {
    rooms: kv::Store,
    nodes: kv::Store,
    lease: Duration,
    room_view: DashMap<String, Seen<RoomRecord>>,
    node_view: DashMap<String, Seen<NodeRecord>>,
    /// Rooms the registry itself did not have, until when (monotonic ms): repeated
    /// requests for a missing room cost one registry read per [`MISS_MS`], not one each.
    misses: DashMap<String, u64>,
}

/// How long a registry miss is remembered.
const MISS_MS: u64 = 250;
/// At most this many misses are remembered (past it, the list starts again).
const MISSES_KEPT: usize = 65_536;

fn unreachable(e: impl std::fmt::Display) -> ClusterError {
    ClusterError::Registry(e.to_string())
}

async fn timed<T, E: std::fmt::Display>(
    call: impl std::future::Future<Output = Result<T, E>>,
) -> Result<Result<T, E>, ClusterError> {
    tokio::time::timeout(CALL_TIMEOUT, call)
        .await
        .map_err(|_| ClusterError::Registry(format!("no answer within {CALL_TIMEOUT:?}")))
}

impl Registry {
    /// Opens both buckets, creating them with `lease` as their age limit if missing;
    /// refuses a bucket made with another lease (every node must agree on it).
    pub(super) async fn open(
        client: async_nats::Client,
        lease: Duration,
    ) -> Result<Self, ClusterError> {
        let js = jetstream::new(client);
        let open = |name: &'static str| {
            let js = js.clone();
            async move {
                let bucket_err = |why: String| ClusterError::Bucket {
                    bucket: name.into(),
                    why,
                };
                let store = match js.get_key_value(name).await {
                    Ok(store) => store,
                    Err(_) => match js
                        .create_key_value(kv::Config {
                            bucket: name.into(),
                            description: "Canopy cluster registry".into(),
                            history: 1,
                            max_age: lease,
                            storage: jetstream::stream::StorageType::File,
                            ..Default::default()
                        })
                        .await
                    {
                        Ok(store) => store,
                        // Nodes of a new cluster start together: another may have made
                        // the bucket between this node's look and its create.
                        Err(create) => js
                            .get_key_value(name)
                            .await
                            .map_err(|_| bucket_err(create.to_string()))?,
                    },
                };
                let status = store
                    .status()
                    .await
                    .map_err(|e| bucket_err(e.to_string()))?;
                if status.max_age() != lease {
                    return Err(bucket_err(format!(
                        "it expires entries after {:?}, this node's --cluster-lease-secs is \
                         {:?}; every node of a cluster must use the same lease",
                        status.max_age(),
                        lease
                    )));
                }
                Ok(store)
            }
        };
        Ok(Registry {
            rooms: open(ROOMS).await?,
            nodes: open(NODES).await?,
            lease,
            room_view: DashMap::new(),
            node_view: DashMap::new(),
            misses: DashMap::new(),
        })
    }

    fn live<T>(&self, seen: &Seen<T>) -> bool {
        monotonic_ms().saturating_sub(seen.at_ms) < self.lease.as_millis() as u64
    }

    /// The live record of `room`.
    pub(super) fn room(&self, room: &str) -> Option<RoomRecord> {
        let seen = self.room_view.get(room)?;
        self.live(&seen).then(|| RoomRecord {
            epoch: epoch_of(&seen.value, seen.revision),
            ..seen.value.clone()
        })
    }

    /// The live record of `room`, read from the registry itself when the view has
    /// none (a room just created through another node may not have reached the view):
    /// a record older than one lease by its write time is taken as expired.
    /// A view record naming `me` is not trusted either: the caller does not hold the
    /// room, so the record is one this node has not yet seen replaced.
    pub(super) async fn look_up(
        &self,
        room: &str,
        me: &str,
    ) -> Result<Option<RoomRecord>, ClusterError> {
        if let Some(r) = self.room(room).filter(|r| r.node != me) {
            return Ok(Some(r));
        }
        let now = monotonic_ms();
        if self.misses.get(room).is_some_and(|until| *until > now) {
            return Ok(None);
        }
        let found = self.read_record(room).await?;
        if found.is_none() {
            if self.misses.len() >= MISSES_KEPT {
                self.misses.clear();
            }
            self.misses.insert(room.to_string(), now + MISS_MS);
        }
        Ok(found)
    }

    /// `room`'s live record as the registry itself has it.
    pub(super) async fn read_record(&self, room: &str) -> Result<Option<RoomRecord>, ClusterError> {
        let Some(entry) = timed(self.rooms.entry(room)).await?.map_err(unreachable)? else {
            return Ok(None);
        };
        if !matches!(entry.operation, kv::Operation::Put) {
            return Ok(None);
        }
        let written = std::time::SystemTime::from(entry.created);
        let age = std::time::SystemTime::now()
            .duration_since(written)
            .unwrap_or_default();
        if age >= self.lease {
            return Ok(None);
        }
        let Ok(mut record) = serde_json::from_slice::<RoomRecord>(&entry.value) else {
            return Ok(None);
        };
        record.epoch = epoch_of(&record, entry.revision);
        // Counted as seen when it was written, so the view forgets it on time.
        let seen_at = monotonic_ms().saturating_sub(age.as_millis() as u64);
        let mut slot = self.room_view.entry(room.to_string()).or_insert(Seen {
            value: record.clone(),
            revision: entry.revision,
            at_ms: seen_at,
        });
        if entry.revision > slot.revision {
            *slot = Seen {
                value: record.clone(),
                revision: entry.revision,
                at_ms: seen_at,
            };
        }
        Ok(Some(record))
    }

    /// Every live node, sorted by name.
    pub(super) fn nodes(&self) -> Vec<LiveNode> {
        let mut nodes: Vec<LiveNode> = self
            .node_view
            .iter()
            .filter(|n| self.live(n.value()))
            .map(|n| LiveNode {
                id: n.key().clone(),
                url: n.value.url.clone(),
            })
            .collect();
        nodes.sort_by(|a, b| a.id.cmp(&b.id));
        nodes
    }

    fn rooms_per_node(&self) -> std::collections::BTreeMap<String, u64> {
        let mut counts = std::collections::BTreeMap::new();
        for n in self.nodes() {
            counts.insert(n.id, 0);
        }
        for r in self.room_view.iter().filter(|r| self.live(r.value())) {
            *counts.entry(r.value.node.clone()).or_insert(0) += 1;
        }
        counts
    }

    /// What placement chooses from: the rooms of every node the view knows of, and the
    /// live nodes (see [`super::Cluster::place`]).
    pub(super) fn placement_view(
        &self,
    ) -> (
        std::collections::BTreeMap<String, u64>,
        std::collections::BTreeSet<String>,
    ) {
        let live = self.nodes().into_iter().map(|n| n.id).collect();
        (self.rooms_per_node(), live)
    }

    /// Which node takes `room` over if it has no owner: the placement choice among
    /// the nodes whose heartbeat arrived within `fresh_ms` (a dead node's lingers for
    /// up to a lease), salted by the room's name so that every node agrees.
    pub(super) fn successor(&self, room: &str, me: &str, fresh_ms: u64) -> String {
        let now = monotonic_ms();
        let fresh: std::collections::BTreeSet<String> = self
            .node_view
            .iter()
            .filter(|n| now.saturating_sub(n.at_ms) < fresh_ms)
            .map(|n| n.key().clone())
            .collect();
        let salt = super::placement::room_salt(room);
        super::placement::choose(self.rooms_per_node(), &fresh, me, salt)
    }

    /// `GET /cluster` without this node's own fields.
    pub(super) fn view(&self) -> ClusterView {
        let now = monotonic_ms();
        let counts = self.rooms_per_node();
        let mut nodes: Vec<ClusterNode> = self
            .node_view
            .iter()
            .filter(|n| self.live(n.value()))
            .map(|n| ClusterNode {
                id: n.key().clone(),
                url: n.value.url.clone(),
                rooms: counts.get(n.key()).copied().unwrap_or(0),
                subscribers: n.value.subscribers,
                seen_ms_ago: now.saturating_sub(n.at_ms),
            })
            .collect();
        nodes.sort_by(|a, b| a.id.cmp(&b.id));
        let mut rooms: Vec<ClusterRoom> = self
            .room_view
            .iter()
            .filter(|r| self.live(r.value()))
            .map(|r| ClusterRoom {
                id: r.key().clone(),
                owner: r.value.node.clone(),
                epoch: epoch_of(&r.value, r.revision),
            })
            .collect();
        rooms.sort_by(|a, b| a.id.cmp(&b.id));
        ClusterView {
            enabled: true,
            node: None,
            lease_secs: self.lease.as_secs(),
            nodes,
            rooms,
        }
    }

    /// Takes a new room's lease (see [`super::Cluster::claim`]).
    pub(super) async fn claim(
        &self,
        id: Option<String>,
        mut next: impl FnMut() -> String,
        node: &str,
        url: &str,
    ) -> Result<Claim, RegistryError> {
        let record = RoomRecord::of(node, url, 0);
        let value = record.to_bytes();
        let storage = |e: &dyn std::fmt::Display| {
            RegistryError::Storage(format!("the cluster registry did not take the room: {e}"))
        };
        let tries = if id.is_some() { 1 } else { NAME_TRIES };
        for _ in 0..tries {
            let candidate = id.clone().unwrap_or_else(&mut next);
            if id.is_none() && self.room(&candidate).is_some() {
                continue;
            }
            match timed(self.rooms.create(&candidate, value.clone()))
                .await
                .map_err(|e| storage(&e))?
            {
                Ok(epoch) => {
                    self.saw_room(&candidate, record.clone(), epoch);
                    return Ok(Claim {
                        id: candidate,
                        epoch,
                    });
                }
                Err(e) if e.kind() == kv::CreateErrorKind::AlreadyExists => {
                    if id.is_some() {
                        return Err(RegistryError::RoomExists(candidate));
                    }
                }
                Err(e) => return Err(storage(&e)),
            }
        }
        Err(RegistryError::Storage(format!(
            "no free room name found in {NAME_TRIES} tries"
        )))
    }

    /// Takes back the lease of a room this node owned before it restarted: its own
    /// live key (by an `update` on the key's revision) or a free one (by `create`).
    /// `Err(owner)` when another node holds it, or the registry cannot be reached.
    pub(super) async fn reclaim(&self, id: &str, node: &str, url: &str) -> Result<u64, String> {
        let record = RoomRecord::of(node, url, 0);
        let value = record.to_bytes();
        match timed(self.rooms.create(id, value.clone())).await {
            Err(e) => return Err(format!("(registry unreachable: {e})")),
            Ok(Ok(epoch)) => return Ok(epoch),
            Ok(Err(e)) if e.kind() == kv::CreateErrorKind::AlreadyExists => {}
            Ok(Err(e)) => return Err(format!("(registry refused: {e})")),
        }
        let entry = match timed(self.rooms.entry(id)).await {
            Ok(Ok(Some(entry))) => entry,
            other => return Err(format!("(registry read failed: {other:?})")),
        };
        let held: RoomRecord = serde_json::from_slice(&entry.value)
            .map_err(|e| format!("(unreadable record: {e})"))?;
        if held.node != node {
            return Err(held.node);
        }
        // Our own key from before the restart: a new epoch all the same, since this
        // process is not the one that wrote it.
        match timed(self.rooms.update(id, value, entry.revision)).await {
            Ok(Ok(epoch)) => {
                self.saw_room(id, record, epoch);
                Ok(epoch)
            }
            other => Err(format!("(taking back the key failed: {other:?})")),
        }
    }

    /// Renews a lease held since `epoch`, last written at `revision`.
    pub(super) async fn renew(
        &self,
        id: &str,
        epoch: u64,
        revision: u64,
        node: &str,
        url: &str,
    ) -> Result<Renewed, RenewError> {
        let record = RoomRecord::of(node, url, epoch);
        match timed(self.rooms.update(id, record.to_bytes(), revision)).await {
            Err(e) => Err(RenewError::Unreachable(e.to_string())),
            Ok(Ok(revision)) => {
                self.saw_room(id, record, revision);
                Ok(Renewed { epoch, revision })
            }
            Ok(Err(e)) if e.kind() == kv::UpdateErrorKind::WrongLastRevision => {
                // Expired (renewals failed for a whole lease) or taken. A free key is
                // taken again by `create`, with a new epoch; a taken one is lost.
                let fresh = RoomRecord { epoch: 0, ..record };
                match timed(self.rooms.create(id, fresh.to_bytes())).await {
                    Err(e) => Err(RenewError::Unreachable(e.to_string())),
                    Ok(Ok(epoch)) => {
                        self.saw_room(id, fresh, epoch);
                        Ok(Renewed {
                            epoch,
                            revision: epoch,
                        })
                    }
                    Ok(Err(e)) if e.kind() == kv::CreateErrorKind::AlreadyExists => Err(
                        RenewError::Lost("another node holds the room's lease".into()),
                    ),
                    Ok(Err(e)) => Err(RenewError::Unreachable(e.to_string())),
                }
            }
            Ok(Err(e)) => Err(RenewError::Unreachable(e.to_string())),
        }
    }

    /// Deletes a lease this node holds (only if it still holds it).
    pub(super) async fn release(&self, id: &str, revision: u64) -> Result<(), ClusterError> {
        timed(self.rooms.delete_expect_revision(id, Some(revision)))
            .await?
            .map_err(unreachable)?;
        self.room_view.remove(id);
        Ok(())
    }

    /// Writes this node's heartbeat.
    pub(super) async fn heartbeat(
        &self,
        node: &str,
        url: &str,
        subscribers: u64,
    ) -> Result<(), ClusterError> {
        let record = NodeRecord {
            url: url.into(),
            subscribers,
        };
        let value = serde_json::to_vec(&record).expect("a record").into();
        let revision = timed(self.nodes.put(node, value))
            .await?
            .map_err(unreachable)?;
        self.node_view.insert(
            node.to_string(),
            Seen {
                value: record,
                revision,
                at_ms: monotonic_ms(),
            },
        );
        Ok(())
    }

    fn saw_room(&self, id: &str, value: RoomRecord, revision: u64) {
        self.misses.remove(id);
        let mut slot = self.room_view.entry(id.to_string()).or_insert(Seen {
            value: value.clone(),
            revision,
            at_ms: monotonic_ms(),
        });
        // Watch events and this node's own writes arrive in either order; the higher
        // revision is the newer.
        if revision >= slot.revision {
            *slot = Seen {
                value,
                revision,
                at_ms: monotonic_ms(),
            };
        }
    }
}

/// The epoch of a record read at `revision`.
fn epoch_of(record: &RoomRecord, revision: u64) -> u64 {
    if record.epoch == 0 {
        revision
    } else {
        record.epoch
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_acquiring_record_takes_its_revision_as_epoch() {
        let r = RoomRecord {
            node: "a".into(),
            url: "http://a".into(),
            epoch: 0,
        };
        assert_eq!(epoch_of(&r, 17), 17);
        assert_eq!(epoch_of(&RoomRecord { epoch: 5, ..r }, 17), 5);
    }
}
