//! The server's rooms: creation (which starts the room's tick task), lookup and
//! deletion, and the state every HTTP and WebSocket handler shares.
//!
//! Invariant: a room is in the map exactly while its task runs; deleting it removes it
//! from the map first, so no new request reaches it, then tells its task to close.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use canopy_protocol::ErrorCode;
use dashmap::DashMap;
use dashmap::mapref::entry::Entry;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::config::ServerConfig;
use crate::metrics::Metrics;
use crate::room::{Room, RoomShared};

/// Why a room could not be created, found or deleted.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RegistryError {
    #[error("room id {0:?} is not 1 to 64 characters of [A-Za-z0-9_-]")]
    BadRoomId(String),
    #[error("tick_hz must be 1 to 240, got {0}")]
    BadTickHz(u32),
    #[error("room {0} already exists")]
    RoomExists(String),
    #[error("no room {0}")]
    UnknownRoom(String),
    #[error("the server has {0} rooms, the limit")]
    TooManyRooms(usize),
    #[error("the server is shutting down")]
    ShuttingDown,
}

impl RegistryError {
    pub fn code(&self) -> ErrorCode {
        match self {
            RegistryError::BadRoomId(_) => ErrorCode::BadRequest,
            RegistryError::BadTickHz(_) => ErrorCode::InvalidValue,
            RegistryError::RoomExists(_) => ErrorCode::RoomExists,
            RegistryError::UnknownRoom(_) => ErrorCode::UnknownRoom,
            RegistryError::TooManyRooms(_) | RegistryError::ShuttingDown => ErrorCode::Overloaded,
        }
    }
}

/// A room id is 1 to 64 characters of `[A-Za-z0-9_-]`.
pub fn valid_room_id(id: &str) -> bool {
    (1..=64).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Shared by every handler: the rooms, the configuration, metrics and shutdown.
#[derive(Debug)]
pub struct Inner {
    pub config: ServerConfig,
    pub rooms: DashMap<String, Arc<RoomShared>>,
    pub metrics: Arc<Metrics>,
    /// Cancelled when the server begins to shut down.
    pub shutdown: CancellationToken,
    /// Room tasks and WebSocket connections, awaited on shutdown.
    pub tasks: TaskTracker,
    pub ready: AtomicBool,
    /// Query rate limits per caller.
    pub query_limiter: crate::rate::QueryLimiter,
    /// The threads that tick the rooms.
    pub pool: crate::tick_pool::TickPool,
    /// Open connections in all and per address (taken at accept).
    pub connections: Arc<crate::admission::ConnectionLimits>,
    /// Which web origins may call the API and open WebSockets.
    pub origins: crate::origin::OriginPolicy,
    /// An open server on loopback refuses `Host` names other than localhost and IP
    /// addresses (DNS rebinding).
    pub guard_hosts: bool,
    /// Whole-room reads (`GET /nodes`) running at once.
    pub dumps: Arc<tokio::sync::Semaphore>,
    /// The keys JWTs are verified with, when configured.
    pub jwt: Option<crate::jwt::JwtVerifier>,
    /// Proxies trusted to name the caller.
    pub proxies: crate::proxy::TrustedProxies,
    /// Set on SIGTERM: readiness fails and new WebSocket upgrades are refused while the
    /// server drains, before the shutdown proper.
    pub draining: AtomicBool,
    next_conn: AtomicU64,
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
    pub fn try_new(config: ServerConfig) -> Result<Self, String> {
        let jwt = crate::jwt::JwtVerifier::new(
            config.jwt_hs256_secret.as_ref().map(|s| s.0.as_str()),
            config.jwt_jwks_file.as_deref(),
        )?;
        Ok(AppState(Arc::new(Inner {
            jwt,
            query_limiter: crate::rate::QueryLimiter::new(config.query_rate),
            pool: crate::tick_pool::TickPool::new(config.tick_threads()),
            connections: crate::admission::ConnectionLimits::new(
                config.max_connections,
                config.max_connections_per_ip,
            ),
            origins: crate::origin::OriginPolicy::new(&config.allowed_origins),
            guard_hosts: !config.has_access_control() && config.addr.ip().is_loopback(),
            dumps: Arc::new(tokio::sync::Semaphore::new(crate::http::DUMPS_AT_ONCE)),
            proxies: crate::proxy::TrustedProxies::new(config.trusted_proxies.clone()),
            draining: AtomicBool::new(false),
            config,
            rooms: DashMap::new(),
            metrics: Arc::new(Metrics::new()),
            shutdown: CancellationToken::new(),
            tasks: TaskTracker::new(),
            ready: AtomicBool::new(true),
            next_conn: AtomicU64::new(1),
            next_room: AtomicU64::new(1),
        })))
    }

    /// A fresh connection id.
    pub fn next_conn_id(&self) -> u64 {
        self.next_conn.fetch_add(1, Ordering::Relaxed)
    }

    /// Creates a room and starts its tick task. Must be called inside a Tokio runtime.
    pub fn create_room(
        &self,
        id: Option<String>,
        tick_hz: Option<u32>,
    ) -> Result<Arc<RoomShared>, RegistryError> {
        if self.shutdown.is_cancelled() {
            return Err(RegistryError::ShuttingDown);
        }
        let tick_hz = tick_hz.unwrap_or(self.config.tick_hz);
        if !(1..=240).contains(&tick_hz) {
            return Err(RegistryError::BadTickHz(tick_hz));
        }
        if let Some(id) = id.as_ref().filter(|id| !valid_room_id(id)) {
            return Err(RegistryError::BadRoomId(id.clone()));
        }
        if self.rooms.len() >= self.config.max_rooms {
            return Err(RegistryError::TooManyRooms(self.config.max_rooms));
        }
        let id = match id {
            Some(id) => id,
            None => loop {
                let candidate = format!("room-{}", self.next_room.fetch_add(1, Ordering::Relaxed));
                if !self.rooms.contains_key(&candidate) {
                    break candidate;
                }
            },
        };
        match self.rooms.entry(id.clone()) {
            Entry::Occupied(_) => Err(RegistryError::RoomExists(id)),
            Entry::Vacant(slot) => {
                let tokens = self
                    .config
                    .admin_token()
                    .map(|_| crate::access::RoomTokens::generate());
                let room = Room::new(
                    id,
                    tick_hz,
                    self.config.room_config(),
                    Arc::clone(&self.metrics),
                    tokens,
                );
                let shared = Arc::clone(room.shared());
                // Tick 0 "finished" when the room was made: snapshots taken before the
                // first tick carry a real time too.
                shared.scene.write().set_time_ms(crate::tick_pool::now_ms());
                slot.insert(Arc::clone(&shared));
                self.metrics.rooms.inc();
                self.pool.place(room);
                Ok(shared)
            }
        }
    }

    /// The room named `id`.
    pub fn room(&self, id: &str) -> Result<Arc<RoomShared>, RegistryError> {
        self.rooms
            .get(id)
            .map(|r| Arc::clone(r.value()))
            .ok_or_else(|| RegistryError::UnknownRoom(id.to_string()))
    }

    /// Deletes a room: its subscribers get `closed`, its waiting edits an error.
    pub fn delete_room(&self, id: &str) -> Result<(), RegistryError> {
        let (_, shared) = self
            .rooms
            .remove(id)
            .ok_or_else(|| RegistryError::UnknownRoom(id.to_string()))?;
        shared.mark_closed();
        self.metrics.rooms.dec();
        Ok(())
    }
}
