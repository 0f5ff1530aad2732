//! The state every HTTP and WebSocket handler shares ([`AppState`]), with the server's
//! registry of rooms: creation (which hands the room to a tick thread), lookup and
//! deletion.
//!
//! Invariant: a room is in the map exactly while a tick thread runs it; deleting it
//! removes it from the map first, so no new request reaches it, then tells it to close.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use dashmap::DashMap;
use dashmap::mapref::entry::Entry;
use tokio_util::task::TaskTracker;

use crate::config::ServerConfig;
use crate::metrics::Metrics;
use canopy_room::tokens::{IssuedTokens, RoomTokens};
use canopy_room::{Durability, Room, RoomShared};

pub use crate::registry_error::RegistryError;
pub use crate::start_error::StartError;

/// How a new room keeps its ticks.
#[derive(Debug)]
enum Made {
    /// Logged to the data dir when the server has one, else in memory.
    Logged,
    /// In memory, whatever the server's persistence.
    InMemory,
    /// As the caller made it (a cluster's journaled room).
    With(Durability),
}

/// Shared by every handler: the rooms, the configuration, metrics and shutdown.
#[derive(Debug)]
pub struct Inner {
    /// Every knob, fixed at start (flags, `CANOPY_*`, the config file).
    pub config: ServerConfig,
    /// The live rooms by id: the handlers' only way to a room. Each entry's
    /// [`RoomShared`] is the room's inbox and statistics; its scene is owned by its tick.
    pub rooms: DashMap<String, Arc<RoomShared>>,
    /// Counters and histograms for `/metrics`.
    pub metrics: Arc<Metrics>,
    /// Serving, draining or shutting down; its token ends every task on shutdown.
    pub lifecycle: crate::net::Lifecycle,
    /// WebSocket sessions and other spawned tasks, awaited on shutdown.
    pub tasks: TaskTracker,
    /// Query rate limits per caller.
    pub query_limiter: crate::access::rate::QueryLimiter,
    /// The threads that tick the rooms.
    pub pool: canopy_room::tick_pool::TickPool,
    /// Open connections in all and per address (taken at accept).
    pub connections: Arc<crate::net::admission::ConnectionLimits>,
    /// Which web origins may call the API and open WebSockets.
    pub origins: crate::net::origin::OriginPolicy,
    /// An open server on loopback (or on any address with `--allowed-hosts`) refuses
    /// `Host` names other than localhost, IP addresses and `--allowed-hosts` (DNS
    /// rebinding).
    pub guard_hosts: bool,
    /// Whole-room reads (`GET /nodes`, `/octree`) running at once, with each caller's
    /// and room's share of them.
    pub whole_room_reads: Arc<canopy_room::budget::SharedBudget>,
    /// Bytes of unfinished WebSocket messages, with each caller's and room's share.
    pub partial_messages: Arc<canopy_room::budget::SharedBudget>,
    /// The settings every room of this server shares, its unsent snapshot budget among
    /// them (one for the whole server).
    pub rooms_config: canopy_room::RoomConfig,
    /// The pending-edit quota of each HTTP caller with edits in flight.
    pub edit_quotas: canopy_room::CallerQuotas,
    /// TLS termination, when `--tls-cert` and `--tls-key` are set.
    pub tls: Option<crate::net::tls::Tls>,
    /// The keys JWTs are verified with, when configured.
    pub jwt: Option<crate::access::jwt::JwtVerifier>,
    /// Proxies trusted to name the caller.
    pub proxies: crate::net::proxy::TrustedProxies,
    /// The storage layer, unless the server runs `--in-memory`.
    pub persist: Option<canopy_room::LogLink>,
    /// Cluster mode's registry and bus, once joined (`--nats-url`); unset on a single
    /// server.
    pub cluster: std::sync::OnceLock<Arc<crate::cluster::Cluster>>,
    /// Cluster mode: the feed tasks of the rooms this node brought back from its data
    /// dir, made with them (a room's feed is part of it from the start) and started
    /// once the node has joined and reclaimed each room's lease.
    parked_feeds: parking_lot::Mutex<std::collections::HashMap<String, crate::cluster::FeedTask>>,
    /// The id of the next WebSocket connection (for logs and outboxes).
    next_conn: AtomicU64,
    /// The number in the next generated room id (`room-N`).
    next_room: AtomicU64,
}

/// The application state, cheap to clone.
#[derive(Debug, Clone)]
pub struct AppState(pub Arc<Inner>);

impl std::ops::Deref for AppState {
    type Target = Inner;
    fn deref(&self) -> &Inner {
        &self.0
    }
}

impl AppState {
    /// The state of a server with `config`. Panics if the JWKS file cannot be read; the
    /// binary uses [`AppState::try_new`].
    pub fn new(config: ServerConfig) -> Self {
        Self::try_new(config).expect("a valid configuration")
    }

    /// The state of a server with `config`, or why the configuration cannot serve.
    pub fn try_new(config: ServerConfig) -> Result<Self, StartError> {
        let jwt = crate::access::jwt::JwtVerifier::new(
            config.jwt_hs256_secret.as_ref().map(|s| s.0.as_str()),
            config.jwt_hs256_kid.as_deref(),
            config.jwt_jwks_file.as_deref(),
        )?
        .map(|v| v.expecting(config.jwt_audience.clone(), config.jwt_issuer.clone()));
        let tls = match (&config.tls_cert, &config.tls_key) {
            (Some(cert), Some(key)) => Some(crate::net::tls::Tls::new(cert, key)?),
            _ => None,
        };
        let metrics = Arc::new(Metrics::new());
        let max_connections = match crate::net::admission::open_files_limit() {
            Some(nofile) => {
                let fit = crate::net::admission::fit_to_descriptors(config.max_connections, nofile);
                if fit < config.max_connections {
                    tracing::warn!(
                        open_files = nofile,
                        max_connections = fit,
                        asked = config.max_connections,
                        "the open-files limit leaves room for fewer connections than \
                         --max-connections: capped (raise `ulimit -n`)"
                    );
                }
                fit
            }
            None => config.max_connections,
        };
        let opened = crate::durability::open(&config, &metrics)?;
        let (persist, recovered) = opened.map_or((None, None), |(p, r)| (Some(p), Some(r)));
        let state = AppState(Arc::new(Inner {
            persist,
            tls,
            jwt,
            query_limiter: crate::access::rate::QueryLimiter::new(config.query_rate),
            pool: canopy_room::tick_pool::TickPool::new(config.tick_threads(), config.tick_nice),
            connections: crate::net::admission::ConnectionLimits::new(
                max_connections,
                config.max_connections_per_ip,
            ),
            origins: crate::net::origin::OriginPolicy::new(&config.allowed_origins),
            guard_hosts: !config.has_access_control()
                && (config.addr.ip().is_loopback() || !config.allowed_hosts.is_empty()),
            whole_room_reads: config.budgets.whole_room_slots(),
            partial_messages: config.budgets.partial_messages(),
            rooms_config: config.room_config(),
            edit_quotas: canopy_room::CallerQuotas::default(),
            proxies: crate::net::proxy::TrustedProxies::new(config.trusted_proxies.clone()),
            config,
            rooms: DashMap::new(),
            metrics,
            lifecycle: crate::net::Lifecycle::default(),
            tasks: TaskTracker::new(),
            cluster: std::sync::OnceLock::new(),
            parked_feeds: parking_lot::Mutex::default(),
            next_conn: AtomicU64::new(1),
            next_room: AtomicU64::new(1),
        }));
        if let (Some(persist), Some(recovered)) = (&state.persist, recovered) {
            let clustered = state.config.nats_url.is_some();
            for room in &recovered.rooms {
                // In a cluster, a room brought back from the data dir feeds relays;
                // its feed starts once the node holds its lease again.
                let (relays, feed) = match clustered.then(crate::cluster::relays_feed) {
                    Some((link, task)) => (Some(link), Some(task)),
                    None => (None, None),
                };
                let restored = crate::durability::restore_room(
                    room,
                    state.room_config(),
                    Arc::clone(&state.metrics.room),
                    persist.clone(),
                    relays,
                )?;
                if let Some(task) = feed {
                    state.parked_feeds.lock().insert(room.meta.id.clone(), task);
                }
                state.insert_and_place(restored);
            }
        }
        Ok(state)
    }

    /// The feed task of a room brought back from the data dir (cluster mode), once.
    pub(crate) fn take_parked_feed(&self, id: &str) -> Option<crate::cluster::FeedTask> {
        self.parked_feeds.lock().remove(id)
    }

    /// Puts a room in the map and on a tick thread.
    pub(crate) fn insert_and_place(&self, room: Room) -> Arc<RoomShared> {
        let shared = Arc::clone(room.shared());
        self.rooms.insert(shared.id.clone(), Arc::clone(&shared));
        self.metrics.rooms.inc();
        self.pool.place(room);
        shared
    }

    /// Creates a room kept in memory only, whatever the server's persistence (the demo
    /// room: its animation is code, so a restart recreates it).
    pub fn create_room_in_memory(
        &self,
        id: Option<String>,
        tick_hz: Option<u32>,
    ) -> Result<Arc<RoomShared>, RegistryError> {
        let tokens = self
            .config
            .admin_token()
            .map(|_| canopy_room::tokens::RoomTokens::unseen());
        self.create(id, tick_hz, Made::InMemory, tokens)
    }

    /// Creates a room journaled in the cluster: `durability` carries the feed and mark
    /// its owner made for it.
    pub(crate) fn create_room_journaled(
        &self,
        id: String,
        tick_hz: Option<u32>,
        durability: Durability,
        tokens: Option<&IssuedTokens>,
    ) -> Result<Arc<RoomShared>, RegistryError> {
        let tokens = tokens.map(RoomTokens::of);
        self.create(Some(id), tick_hz, Made::With(durability), tokens)
    }

    /// The cluster this server has joined, if any.
    pub fn cluster(&self) -> Option<&Arc<crate::cluster::Cluster>> {
        self.cluster.get()
    }

    /// A `room-N` name no local room has (the registry decides whether the cluster
    /// has one).
    pub fn next_room_name(&self) -> String {
        loop {
            let candidate = format!("room-{}", self.next_room.fetch_add(1, Ordering::Relaxed));
            if !self.rooms.contains_key(&candidate) {
                return candidate;
            }
        }
    }

    /// Stops serving a room without deleting it from storage (cluster mode: another
    /// node owns it now, or a replica stops). Its subscribers get `closed` for `cause`
    /// (never "room deleted": the room lives on) and its waiting edits an error.
    pub fn unload_room(&self, id: &str, cause: canopy_room::CloseCause) {
        if let Some((_, shared)) = self.rooms.remove(id) {
            shared.lease.revoke();
            shared.mark_closed(cause);
            self.metrics.rooms.dec();
        }
    }

    /// A fresh connection id.
    pub fn next_conn_id(&self) -> u64 {
        self.next_conn.fetch_add(1, Ordering::Relaxed)
    }

    /// Creates a room and starts its tick task. With persistence its creation is
    /// logged first; the caller reports it once `room.gate.durable(room.gate.need())`
    /// resolves. `tokens` are the room's tokens (with access control on), of which the
    /// room keeps only the digests: the caller shows them once.
    pub fn create_room(
        &self,
        id: Option<String>,
        tick_hz: Option<u32>,
        tokens: Option<&IssuedTokens>,
    ) -> Result<Arc<RoomShared>, RegistryError> {
        self.create(id, tick_hz, Made::Logged, tokens.map(RoomTokens::of))
    }

    /// Fresh tokens for a room about to be created, when access control is on.
    pub fn issue_tokens(&self) -> Option<IssuedTokens> {
        self.config.admin_token().map(|_| IssuedTokens::generate())
    }

    fn create(
        &self,
        id: Option<String>,
        tick_hz: Option<u32>,
        made: Made,
        tokens: Option<RoomTokens>,
    ) -> Result<Arc<RoomShared>, RegistryError> {
        self.check_new_room(id.as_deref(), tick_hz)?;
        let tick_hz = tick_hz.unwrap_or(self.config.tick_hz);
        let id = match id {
            Some(id) => id,
            None => self.next_room_name(),
        };
        match self.rooms.entry(id.clone()) {
            Entry::Occupied(_) => Err(RegistryError::RoomExists(id)),
            Entry::Vacant(slot) => {
                let now = canopy_room::tick_pool::now_ms();
                let durability = match (made, self.persist.as_ref()) {
                    (Made::With(durability), _) => durability,
                    (Made::Logged, Some(p)) => {
                        let meta =
                            canopy_room::recovered::room_meta(&id, tick_hz, tokens.as_ref(), now);
                        let seq = p
                            .create_room(&meta)
                            .map_err(|e| RegistryError::Storage(e.to_string()))?;
                        Durability::logged(canopy_room::RoomLog::new(p.clone(), seq, seq, 0))
                    }
                    (Made::Logged | Made::InMemory, _) => Durability::memory(),
                };
                let config = self.room_config();
                let mut scene = canopy_room::SceneState::new(config.hierarchy, config.octree);
                // Tick 0 "finished" when the room was made: snapshots taken before the
                // first tick carry a real time too.
                scene.set_time_ms(now);
                let spec = canopy_room::RoomSpec {
                    id,
                    tick_hz,
                    config,
                    metrics: Arc::clone(&self.metrics.room),
                    tokens,
                };
                let room = Room::owner(spec, scene, durability);
                let shared = Arc::clone(room.shared());
                slot.insert(Arc::clone(&shared));
                self.metrics.rooms.inc();
                self.pool.place(room);
                Ok(shared)
            }
        }
    }

    /// Whether a room with this id and tick rate could be created now (the id's
    /// uniqueness aside).
    pub fn check_new_room(
        &self,
        id: Option<&str>,
        tick_hz: Option<u32>,
    ) -> Result<(), RegistryError> {
        if self.lifecycle.is_stopping() {
            return Err(RegistryError::ShuttingDown);
        }
        let tick_hz = tick_hz.unwrap_or(self.config.tick_hz);
        if !(1..=240).contains(&tick_hz) {
            return Err(RegistryError::BadTickHz(tick_hz));
        }
        if let Some(id) = id.filter(|id| !canopy_room::valid_room_id(id)) {
            return Err(RegistryError::BadRoomId(id.to_string()));
        }
        if self.rooms.len() >= self.config.max_rooms {
            return Err(RegistryError::TooManyRooms(self.config.max_rooms));
        }
        Ok(())
    }

    /// The settings of a new room: the server's, sharing its budgets.
    pub fn room_config(&self) -> canopy_room::RoomConfig {
        self.rooms_config.clone()
    }

    /// The room named `id`.
    pub fn room(&self, id: &str) -> Result<Arc<RoomShared>, RegistryError> {
        match self.rooms.get(id).map(|r| Arc::clone(r.value())) {
            // A relay's replica that stopped itself (out of step with its owner) serves
            // nothing, not even in the moment before it is unloaded.
            Some(r) if r.is_replica() && r.is_closed() => {
                Err(RegistryError::Moving(id.to_string()))
            }
            Some(r) => Ok(r),
            None => Err(match self.cluster.get() {
                Some(c) if c.just_let_go(id) => RegistryError::Moving(id.to_string()),
                _ => RegistryError::UnknownRoom(id.to_string()),
            }),
        }
    }

    /// Deletes a room: its subscribers get `closed`, its waiting edits an error. With
    /// persistence the deletion is logged; returns the record to wait for before
    /// reporting it (0: none).
    pub fn delete_room(&self, id: &str) -> Result<u64, RegistryError> {
        let (_, shared) = self
            .rooms
            .remove(id)
            .ok_or_else(|| RegistryError::UnknownRoom(id.to_string()))?;
        // Closed before its deletion is logged: a tick record the room's thread is
        // about to append is then refused as the record of a closed room, not taken
        // for a storage failure.
        shared.mark_closed(canopy_room::CloseCause::RoomDeleted);
        self.metrics.rooms.dec();
        match self.persist.as_ref().filter(|_| shared.gate.is_logged()) {
            Some(p) => p
                .delete_room(id)
                .map_err(|e| RegistryError::Storage(e.to_string())),
            None => Ok(0),
        }
    }
}
