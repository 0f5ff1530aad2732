//! Every knob of the server, as command-line flags with `CANOPY_*` environment
//! equivalents. The defaults follow the contract's limits (at least 65,536 ops and
//! 8 MiB per batch accepted; nothing over 16 MiB).

use std::net::SocketAddr;
use std::time::Duration;

use crate::octree::OctreeConfig;
use crate::room::RoomConfig;
use crate::scene::HierarchyLimits;

/// The server's configuration.
#[derive(Debug, Clone, clap::Parser)]
#[command(name = "canopy", version, about = "Canopy scene-state server")]
pub struct ServerConfig {
    /// Address to listen on.
    #[arg(long, env = "CANOPY_ADDR", default_value = "127.0.0.1:7878")]
    pub addr: SocketAddr,

    /// Default tick rate of new rooms (1 to 240).
    #[arg(long, env = "CANOPY_TICK_HZ", default_value_t = 30, value_parser = clap::value_parser!(u32).range(1..=240))]
    pub tick_hz: u32,

    /// Start a room `demo` with a few thousand animated nodes.
    #[arg(long, env = "CANOPY_DEMO", value_parser = clap::builder::BoolishValueParser::new())]
    pub demo: bool,

    /// Largest HTTP request body, in bytes; larger bodies answer `413 too_large`.
    #[arg(long, env = "CANOPY_MAX_BODY_BYTES", default_value_t = 16 * 1024 * 1024)]
    pub max_body_bytes: usize,

    /// Largest WebSocket message, in bytes; a larger one closes the socket with 1009.
    #[arg(long, env = "CANOPY_MAX_WS_MESSAGE_BYTES", default_value_t = 16 * 1024 * 1024)]
    pub max_ws_message_bytes: usize,

    /// Most ops in one edit batch; larger batches answer `too_large`.
    #[arg(long, env = "CANOPY_MAX_OPS_PER_BATCH", default_value_t = 262_144)]
    pub max_ops_per_batch: usize,

    /// Most live nodes in one room; a batch that would exceed it answers `too_large`.
    #[arg(long, env = "CANOPY_MAX_NODES_PER_ROOM", default_value_t = 4_000_000)]
    pub max_nodes_per_room: usize,

    /// Deepest hierarchy (a root has depth 1); deeper answers `too_large`.
    #[arg(long, env = "CANOPY_MAX_DEPTH", default_value_t = 1024)]
    pub max_depth: usize,

    /// Most rooms on the server; more answer `overloaded`.
    #[arg(long, env = "CANOPY_MAX_ROOMS", default_value_t = 1024)]
    pub max_rooms: usize,

    /// Most subscribers of one room; more answer `overloaded`.
    #[arg(long, env = "CANOPY_MAX_SUBSCRIBERS", default_value_t = 10_000)]
    pub max_subscribers_per_room: usize,

    /// Edit batches that may wait for a room's next tick; more answer `503 overloaded`
    /// at once.
    #[arg(long, env = "CANOPY_MAX_PENDING_BATCHES", default_value_t = 4096)]
    pub max_pending_batches: usize,

    /// Delta frames that may wait for a slow WebSocket reader before the server merges
    /// its changes (latest value per node) into one frame.
    #[arg(long, env = "CANOPY_WS_QUEUE_FRAMES", default_value_t = 8)]
    pub ws_queue_frames: usize,

    /// The kernel send buffer of each accepted connection, in bytes (0: the system's
    /// default). A small buffer makes a slow WebSocket reader visible to the server
    /// within a few frames, so its changes are merged (bounded memory, latest values)
    /// instead of queueing megabytes of stale frames in the kernel.
    #[arg(long, env = "CANOPY_SEND_BUFFER_BYTES", default_value_t = 256 * 1024)]
    pub send_buffer_bytes: usize,

    /// A WebSocket client whose socket accepts nothing for this many seconds is
    /// disconnected (close code 4000: resubscribe).
    #[arg(long, env = "CANOPY_WS_WRITE_DEADLINE_SECS", default_value_t = 30)]
    pub ws_write_deadline_secs: u64,

    /// Seconds the server waits for connections and rooms to finish on shutdown.
    #[arg(long, env = "CANOPY_SHUTDOWN_GRACE_SECS", default_value_t = 5)]
    pub shutdown_grace_secs: u64,

    /// The admin token. With it, every request but `GET /healthz`, `/readyz` and
    /// `/openapi.json` needs a token, and new rooms get editor and viewer tokens. Without
    /// it the server runs open (and refuses a non-loopback address unless
    /// `--insecure-open`).
    #[arg(long, env = "CANOPY_ADMIN_TOKEN", hide_env_values = true)]
    pub admin_token: Option<Secret>,

    /// Allow running without an admin token on a non-loopback address.
    #[arg(long, env = "CANOPY_INSECURE_OPEN", value_parser = clap::builder::BoolishValueParser::new())]
    pub insecure_open: bool,

    /// WebSocket `Origin`s allowed to connect (comma-separated). Empty: any origin.
    /// Requests without an `Origin` header (non-browser clients) are always allowed.
    #[arg(long, env = "CANOPY_ALLOWED_ORIGINS", value_delimiter = ',')]
    pub allowed_origins: Vec<String>,

    /// Queries per second per caller (its token, else its address), with bursts of twice
    /// that; more answer `429 rate_limited`. 0 turns the limit off.
    #[arg(long, env = "CANOPY_QUERY_RATE", default_value_t = 2000)]
    pub query_rate: u32,

    /// Longest time an HTTP request may take (an edit waits for its tick), in seconds;
    /// longer answers `503 overloaded`.
    #[arg(long, env = "CANOPY_REQUEST_TIMEOUT_SECS", default_value_t = 30)]
    pub request_timeout_secs: u64,

    /// Seconds between WebSocket pings the server sends.
    #[arg(long, env = "CANOPY_WS_PING_SECS", default_value_t = 15)]
    pub ws_ping_secs: u64,

    /// A WebSocket connection from which nothing (not even a pong) arrives for this many
    /// seconds is closed as idle or half-open.
    #[arg(long, env = "CANOPY_WS_IDLE_SECS", default_value_t = 60)]
    pub ws_idle_secs: u64,

    /// Octree leaf capacity (objects per cell before it splits).
    #[arg(long, env = "CANOPY_OCTREE_LEAF_CAPACITY", default_value_t = 16)]
    pub octree_leaf_capacity: usize,

    /// Octree looseness (cell bounds are this many times the cell size).
    #[arg(long, env = "CANOPY_OCTREE_LOOSENESS", default_value_t = 2.0)]
    pub octree_looseness: f32,

    /// Octree maximum depth.
    #[arg(long, env = "CANOPY_OCTREE_MAX_DEPTH", default_value_t = 12)]
    pub octree_max_depth: u32,
}

/// A secret string (the admin token): never printed by `Debug`.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(pub String);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(..)")
    }
}

impl std::str::FromStr for Secret {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        if s.is_empty() {
            return Err("the token must not be empty".into());
        }
        Ok(Secret(s.to_string()))
    }
}

impl Default for ServerConfig {
    fn default() -> Self {
        <Self as clap::Parser>::parse_from(["canopy"])
    }
}

impl ServerConfig {
    /// The per-room settings derived from the server's flags.
    pub fn room_config(&self) -> RoomConfig {
        RoomConfig {
            max_pending_batches: self.max_pending_batches,
            max_subscribers: self.max_subscribers_per_room,
            outbox_frames: self.ws_queue_frames,
            hierarchy: HierarchyLimits {
                max_nodes: self.max_nodes_per_room,
                max_depth: self.max_depth,
            },
            octree: OctreeConfig {
                looseness: self.octree_looseness,
                leaf_capacity: self.octree_leaf_capacity,
                max_depth: self.octree_max_depth,
                ..OctreeConfig::default()
            },
        }
    }

    /// The admin token, if the server has one.
    pub fn admin_token(&self) -> Option<&str> {
        self.admin_token.as_ref().map(|s| s.0.as_str())
    }

    pub fn ws_write_deadline(&self) -> Duration {
        Duration::from_secs(self.ws_write_deadline_secs.max(1))
    }
}
