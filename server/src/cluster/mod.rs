//! Cluster mode (`--nats-url`): several Canopy processes share one NATS server, which
//! keeps the room registry (JetStream key-value) and carries requests between them.
//!
//! Each room has exactly one owner, the node holding its lease in the `canopy_rooms`
//! bucket. Every node answers every route: a request for a room owned elsewhere is
//! passed to its owner over NATS (`http/cluster.rs`) and a WebSocket is passed on to the
//! owner's HTTP (`ws/passthrough.rs`). Invariant: a node takes edits for a room only
//! while its lease is valid by its own monotonic clock ([`canopy_room::lease`]), and a
//! lease is taken with a key-value `create` and renewed with an `update` against the
//! revision it last wrote, so two nodes can never both hold one (see docs/cluster.md).

mod bus;
mod feed;
mod journal;
mod leases;
mod location;
mod metrics;
mod placement;
mod registry;
mod relay;
mod relayed_edits;
mod takeover;

pub use bus::{
    FORWARDED_HEADER, ForwardedRequest, ForwardedResponse, decode, encode, subject as bus_subject,
};
pub(crate) use feed::{FeedTask, JournalFrom, NotStored, relays_feed};
pub use location::{Between, Location, MOVING_RETRY_SECS};
pub use metrics::ClusterMetrics;
pub use registry::{Claim, RoomRecord};

use std::sync::Arc;
use std::time::Duration;

use dashmap::DashMap;

use crate::config::ServerConfig;
use canopy_room::lease::monotonic_ms;

/// Lease renewals in flight at once.
const RENEWALS_AT_ONCE: usize = 32;

/// Why cluster mode could not start or a registry call failed.
#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    /// The NATS server could not be reached.
    #[error("cannot connect to NATS at {url}: {why}")]
    Connect {
        /// The `--nats-url` given, its credentials replaced by `***` ([`redacted_url`]).
        url: String,
        /// The client's error.
        why: String,
    },
    /// A key-value bucket could not be opened or created, or has other settings.
    #[error("the registry bucket {bucket}: {why}")]
    Bucket {
        /// The bucket's name.
        bucket: String,
        /// What went wrong.
        why: String,
    },
    /// A registry read or write failed (NATS away, a timeout).
    #[error("the cluster registry: {0}")]
    Registry(String),
    /// Passing a request to another node failed.
    #[error("node {node} did not answer: {why}")]
    Forward {
        /// The node asked.
        node: String,
        /// What went wrong.
        why: String,
        /// True when the request certainly never reached that node (no responder), so
        /// an edit in it was not applied.
        unsent: bool,
    },
    /// A message between nodes that does not decode.
    #[error("an undecodable cluster message: {0}")]
    Envelope(String),
    /// A room's journal cannot be read, written or taken over.
    #[error("room {room}'s journal: {why}")]
    Journal {
        /// The room.
        room: String,
        /// What went wrong.
        why: String,
    },
    /// A room's state for a replica could not be had (captured here, or asked of its
    /// owner).
    #[error("room {room}'s state: {why}")]
    State {
        /// The room.
        room: String,
        /// What went wrong.
        why: String,
    },
    /// Another node holds the room's lease.
    #[error("node {0} holds the room")]
    HeldBy(String),
}

impl ClusterError {
    fn journal(room: &str, why: impl std::fmt::Display) -> Self {
        ClusterError::Journal {
            room: room.to_owned(),
            why: why.to_string(),
        }
    }

    fn state(room: &str, why: impl std::fmt::Display) -> Self {
        ClusterError::State {
            room: room.to_owned(),
            why: why.to_string(),
        }
    }
}

/// How this node takes part in the cluster, from the server's flags.
#[derive(Debug, Clone)]
pub struct ClusterConfig {
    /// `--nats-url`.
    pub nats_url: String,
    /// This node's name.
    pub node: String,
    /// The base URL other nodes reach this node's HTTP at.
    pub url: String,
    /// How long a lease lasts unrenewed.
    pub lease: Duration,
    /// Copies JetStream keeps of the journal (`--cluster-replicas`).
    pub replicas: usize,
}

impl ClusterConfig {
    /// The cluster settings of `config`, or `None` outside cluster mode. `bound` is the
    /// address the listener really has (`--addr` may name port 0).
    pub fn from_server(config: &ServerConfig, bound: std::net::SocketAddr) -> Option<Self> {
        let nats_url = config.nats_url.clone()?;
        let host = || {
            std::fs::read_to_string("/etc/hostname")
                .ok()
                .map(|h| h.trim().to_string())
                .filter(|h| !h.is_empty())
                .unwrap_or_else(|| "canopy".into())
        };
        let node = config.cluster_node.clone().unwrap_or_else(|| {
            let name: String = format!("{}-{}", host(), bound.port())
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '-' {
                        c
                    } else {
                        '_'
                    }
                })
                .take(64)
                .collect();
            name
        });
        let url = config.cluster_url.clone().unwrap_or_else(|| {
            if bound.ip().is_unspecified() {
                format!("http://{}:{}", host(), bound.port())
            } else {
                format!("http://{bound}")
            }
        });
        Some(ClusterConfig {
            nats_url,
            node,
            url: url.trim_end_matches('/').to_string(),
            lease: config.cluster_lease,
            replicas: config.cluster_replicas as usize,
        })
    }

    /// How often an owner renews its leases and a node sends its heartbeat.
    pub fn renew_every(&self) -> Duration {
        self.lease / 3
    }

    /// How long before a lease's expiry in the registry its owner stops taking edits:
    /// a third of the lease, at most 2 s (slack for clocks and a slow registry).
    pub fn margin(&self) -> Duration {
        (self.lease / 3).min(Duration::from_secs(2))
    }
}

/// A lease this node holds.
#[derive(Debug, Clone, Copy)]
struct Held {
    /// The registry revision of the acquiring `create` (the room's epoch).
    epoch: u64,
    /// The revision of this node's last write of the key, for the next `update`.
    revision: u64,
}

/// One node's view of, and part in, the cluster.
#[derive(Debug)]
pub struct Cluster {
    /// Its settings.
    pub config: ClusterConfig,
    /// Its counters.
    pub metrics: ClusterMetrics,
    client: async_nats::Client,
    registry: registry::Registry,
    /// The leases this node holds, by room.
    held: DashMap<String, Held>,
    /// Rooms this node stepped down from, and until when a request for one is told
    /// "moving, try again" rather than `unknown_room`: this node's view of the registry
    /// may still name itself, or nobody, for a moment. At most one entry per room it
    /// held; expired ones go at the next step-down.
    let_go: DashMap<String, std::time::Instant>,
    /// The replicas this node relays: room, its owner and epoch, and renewal rounds
    /// without a connection.
    replicas: DashMap<String, (String, u64, u32)>,
    /// Replicas whose new owner is being asked whether they can follow it.
    rehoming: dashmap::DashSet<String>,
    /// One replica made at a time per room.
    relay_locks: DashMap<String, Arc<tokio::sync::Mutex<()>>>,
    /// The rooms' journal (failover).
    journal: journal::Journal,
    /// Every room in the journal, as the last scan found it.
    catalog: dashmap::DashSet<String>,
    /// This cluster's own handle, for the tasks it starts.
    me: std::sync::OnceLock<std::sync::Weak<Cluster>>,
    /// The rooms this node placed lately (placement counts them before the view does).
    placed: parking_lot::Mutex<placement::RecentPlacements>,
}

/// `urls` (one or several, comma-separated) with the user and password of each replaced
/// by `***`, for logs and errors: a NATS URL may carry credentials
/// (`nats://user:password@host`, `nats://token@host`).
pub fn redacted_url(urls: &str) -> String {
    urls.split(',')
        .map(|url| {
            let (scheme, rest) = match url.split_once("://") {
                Some((scheme, rest)) => (Some(scheme), rest),
                None => (None, url),
            };
            let authority_end = rest.find('/').unwrap_or(rest.len());
            let rest = match rest[..authority_end].rfind('@') {
                Some(at) => format!("***{}", &rest[at..]),
                None => rest.to_string(),
            };
            match scheme {
                Some(scheme) => format!("{scheme}://{rest}"),
                None => rest,
            }
        })
        .collect::<Vec<_>>()
        .join(",")
}

impl Cluster {
    /// The NATS client (for the request service and the passing of requests).
    pub fn client(&self) -> &async_nats::Client {
        &self.client
    }

    /// This node's name.
    pub fn node(&self) -> &str {
        &self.config.node
    }

    /// The registry's record of `room`, if a live lease names an owner.
    pub fn owner_of(&self, room: &str) -> Option<RoomRecord> {
        self.registry.room(room)
    }

    /// As [`Cluster::owner_of`], asking the registry itself when the view has no
    /// record (see the registry's `look_up`).
    pub async fn look_up(&self, room: &str) -> Result<Option<RoomRecord>, ClusterError> {
        self.registry.look_up(room, &self.config.node).await
    }

    /// Takes the lease of a new room: `id` itself, or the first free `room-N` from
    /// `next` when none is given. `Err(RoomExists)` when `id` is held already.
    pub async fn claim(
        &self,
        id: Option<String>,
        next: impl FnMut() -> String,
    ) -> Result<Claim, crate::registry_error::RegistryError> {
        let claim = self
            .registry
            .claim(id, next, &self.config.node, &self.config.url)
            .await?;
        self.held.insert(
            claim.id.clone(),
            Held {
                epoch: claim.epoch,
                revision: claim.epoch,
            },
        );
        self.metrics.leases.set(self.held.len() as i64);
        Ok(claim)
    }

    /// Takes back the lease of a room this node held before a restart.
    async fn reclaim(&self, id: &str) -> Result<(), ClusterError> {
        match self
            .registry
            .reclaim(id, &self.config.node, &self.config.url)
            .await
        {
            Ok(epoch) => {
                self.held.insert(
                    id.to_string(),
                    Held {
                        epoch,
                        revision: epoch,
                    },
                );
                self.metrics.leases.set(self.held.len() as i64);
                Ok(())
            }
            Err(why) => Err(why),
        }
    }

    /// Notes that this node let `room` go, for [`Cluster::just_let_go`]; every path that
    /// unloads an owned room because another node owns it now goes through here.
    fn remember_let_go(&self, room: &str) {
        let now = std::time::Instant::now();
        self.let_go.retain(|_, until| *until > now);
        self.let_go.insert(room.to_owned(), now + self.config.lease);
    }

    /// Whether this node stepped down from `room` less than a lease ago: a request for it
    /// that finds no room here is then told to try again (`overloaded`), never
    /// `unknown_room`, since the room lives on at another node.
    pub fn just_let_go(&self, room: &str) -> bool {
        self.let_go
            .get(room)
            .is_some_and(|until| *until > std::time::Instant::now())
    }

    /// Gives up the lease of `room` (deleted here, or never started).
    pub async fn release(&self, room: &str) {
        if let Some((_, held)) = self.held.remove(room) {
            self.metrics.leases.set(self.held.len() as i64);
            if let Err(e) = self.registry.release(room, held.revision).await {
                tracing::warn!(%room, error = %e, "could not release the lease; it expires by itself");
            }
        }
    }

    /// Whether the journal held `room` at the last scan (it exists, with or without a
    /// live owner).
    pub fn in_journal(&self, room: &str) -> bool {
        self.catalog.contains(room)
    }

    /// The epoch of a lease this node holds.
    pub fn epoch_of(&self, room: &str) -> Option<u64> {
        self.held.get(room).map(|h| h.epoch)
    }

    /// Where a new room goes: the live node with the fewest rooms; among several, the
    /// one `salt` hashes highest with (so that nodes placing rooms at the same moment,
    /// on the same counts, spread them).
    /// Counts this node's own placements of the last lease as well as the view's, so a
    /// burst of creations spreads.
    pub fn place(&self, salt: u64) -> String {
        let me = &self.config.node;
        let (mut counts, live) = self.registry.placement_view();
        for id in live.iter().chain(std::iter::once(me)) {
            counts.entry(id.clone()).or_insert(0);
        }
        let now = monotonic_ms();
        let mut recent = self.placed.lock();
        recent.raise(&mut counts, now);
        let node = placement::choose(counts.clone(), &live, me, salt);
        let counted = counts.get(&node).copied().unwrap_or(0);
        recent.placed(&node, counted, now, self.config.lease.as_millis() as u64);
        node
    }

    /// The live nodes other than this one, with their URLs.
    pub fn peers(&self) -> Vec<(String, String)> {
        self.registry
            .nodes()
            .into_iter()
            .filter(|n| n.id != self.config.node)
            .map(|n| (n.id, n.url))
            .collect()
    }

    /// `GET /cluster`.
    pub fn view(&self) -> canopy_protocol::http::ClusterView {
        let mut view = self.registry.view();
        view.node = Some(self.config.node.clone());
        view.lease_secs = self.config.lease.as_secs();
        view
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_in_a_nats_url_are_never_shown() {
        assert_eq!(redacted_url("nats://n:4222"), "nats://n:4222");
        assert_eq!(
            redacted_url("nats://alice:s3cret@n1:4222,tls://tok@n2/x"),
            "nats://***@n1:4222,tls://***@n2/x"
        );
        assert_eq!(redacted_url("user:pw@host:4222"), "***@host:4222");
    }

    #[test]
    fn defaults_follow_the_listener_and_the_margin_is_bounded() {
        let config = crate::config::ServerConfig {
            nats_url: Some("nats://n:4222".into()),
            ..Default::default()
        };
        let bound: std::net::SocketAddr = "127.0.0.1:9001".parse().unwrap();
        let c = ClusterConfig::from_server(&config, bound).unwrap();
        assert_eq!(c.url, "http://127.0.0.1:9001");
        assert!(c.node.ends_with("-9001"), "{}", c.node);
        assert!(canopy_room::valid_room_id(&c.node), "{}", c.node);
        assert_eq!(c.renew_every(), Duration::from_secs(10) / 3);
        assert_eq!(c.margin(), Duration::from_secs(2));
        let short = ClusterConfig {
            lease: Duration::from_secs(3),
            ..c
        };
        assert_eq!(short.margin(), Duration::from_secs(1));
        assert!(ClusterConfig::from_server(&Default::default(), bound).is_none());
    }
}
