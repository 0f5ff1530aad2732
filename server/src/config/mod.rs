//! Every knob of the server, as command-line flags with `CANOPY_*` environment
//! equivalents (`--max-pending-ops` is `CANOPY_MAX_PENDING_OPS`). Each default is a
//! constant defined once, next to the type it configures, and used by the flag, the
//! `Default` impls and docs/configuration.md; value ranges are enforced when the flags are
//! parsed, so no use site needs to clamp.
//!
//! The defaults follow the contract's limits (at least 65,536 ops and 8 MiB per batch
//! accepted; nothing over 16 MiB).

mod budgets;
mod file;
mod values;

use std::ffi::OsString;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

pub use budgets::{
    BudgetFlags, DEFAULT_MIN_READ_RATE, DEFAULT_PARTIAL_MESSAGE_BYTES, DEFAULT_WHOLE_ROOM_READS,
};
pub use file::{ConfigError, defaults_file};
pub use values::Secret;
use values::{any_seconds, at_least_one, lease_seconds, looseness, positive_seconds};

use canopy_room::outbox::OutboxLimits;
use canopy_room::{EditLimits, FramePassage, RoomConfig};
use canopy_scene::HierarchyLimits;
use canopy_scene::octree::OctreeConfig;

/// The default HTTP body and WebSocket message limit: 16 MiB, the contract's hard limit.
pub const DEFAULT_MESSAGE_BYTES: usize = 16 * 1024 * 1024;
/// The default op limit of one batch.
pub const DEFAULT_MAX_OPS_PER_BATCH: usize = 262_144;
/// The default largest answer (ids or hits) of a query.
pub const DEFAULT_MAX_ANSWER_ITEMS: usize = 1_000_000;

/// The `canopy` command line: serve (the default), or one of the tools.
#[derive(Debug, clap::Parser)]
#[command(
    name = "canopy",
    version,
    about = "Canopy scene-state server",
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    /// The tool to run; `None` serves with the flags of `serve`.
    #[command(subcommand)]
    pub command: Option<Tool>,
    /// The server's flags (used only when no tool is named).
    #[command(flatten)]
    pub serve: ServerConfig,
}

/// The tools of the `canopy` binary.
#[derive(Debug, clap::Subcommand)]
pub enum Tool {
    /// Configuration files.
    Config {
        /// What to do with configuration.
        #[command(subcommand)]
        action: ConfigAction,
    },
    /// Read a stopped server's data dir and report what it holds, changing nothing;
    /// exits non-zero, naming the file and offset, if it cannot be read back exactly.
    Verify {
        /// The data dir to read.
        #[arg(long, default_value = "canopy-data")]
        data_dir: PathBuf,
    },
    /// Recover a stopped server's data dir and write a fresh snapshot of every room,
    /// so that the log segments they cover are deleted (compaction; also a quick start
    /// next time).
    Snapshot {
        /// The data dir to compact.
        #[arg(long, default_value = "canopy-data")]
        data_dir: PathBuf,
    },
}

/// What `canopy config` does.
#[derive(Debug, clap::Subcommand)]
pub enum ConfigAction {
    /// Print a complete configuration file: every key, its help and its default.
    Defaults,
}

impl Cli {
    /// Parses the process's arguments, with the file of `--config` (or `CANOPY_CONFIG`)
    /// as defaults; exits with clap's message on a bad flag.
    pub fn load() -> Result<Cli, ConfigError> {
        Self::load_from(std::env::args_os().collect())
    }

    /// As [`Cli::load`], from the given arguments (the first is the program's name).
    pub fn load_from(args: Vec<OsString>) -> Result<Cli, ConfigError> {
        file::parse_with_file(args)
    }
}

/// The server's configuration.
#[derive(Debug, Clone, clap::Parser)]
#[command(name = "canopy", version, about = "Canopy scene-state server")]
pub struct ServerConfig {
    /// A TOML file of settings (keys are the flags' names, see `canopy config
    /// defaults`); flags and `CANOPY_*` variables override it.
    #[arg(long, env = "CANOPY_CONFIG")]
    pub config: Option<PathBuf>,

    /// Log lines as `text` (coloured only on a terminal) or `json` (one object per
    /// line). The filter is `CANOPY_LOG` (tracing's env-filter syntax, default `info`).
    #[arg(long, env = "CANOPY_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,

    /// Address to listen on.
    #[arg(long, env = "CANOPY_ADDR", default_value = "127.0.0.1:7878")]
    pub addr: SocketAddr,

    /// Default tick rate of new rooms (1 to 240).
    #[arg(long, env = "CANOPY_TICK_HZ", default_value_t = 30, value_parser = clap::value_parser!(u32).range(1..=240))]
    pub tick_hz: u32,

    /// Where rooms are kept across restarts (created if missing; locked by one server).
    /// An edit is acknowledged only once it is durable there. See docs/persistence.md.
    #[arg(long, env = "CANOPY_DATA_DIR", default_value = "canopy-data")]
    pub data_dir: PathBuf,

    /// Keep nothing on disk: every room is gone when the server stops.
    #[arg(long, env = "CANOPY_IN_MEMORY", value_parser = clap::builder::BoolishValueParser::new())]
    pub in_memory: bool,

    /// Send delta frames and snapshots as soon as their tick ran, before its log record
    /// is durable (acks still wait for it): subscribers' latency no longer includes the
    /// disk's fsync, and after a crash they may have seen up to one fsync of changes the
    /// restarted server does not have (its new room instance makes the SDKs resync).
    /// See docs/persistence.md.
    #[arg(long, env = "CANOPY_LIVE_DELTAS", value_parser = clap::builder::BoolishValueParser::new())]
    pub live_deltas: bool,

    /// Start a room `demo` with a few thousand animated nodes.
    #[arg(long, env = "CANOPY_DEMO", value_parser = clap::builder::BoolishValueParser::new())]
    pub demo: bool,

    /// Threads that tick rooms (many rooms per thread); 0: one per CPU.
    #[arg(long, env = "CANOPY_TICK_THREADS", default_value_t = 0)]
    pub tick_threads: usize,

    /// Niceness the tick threads take (0-19; Linux): when rooms saturate the CPUs, the
    /// threads answering HTTP and WebSocket run first, so a health check or a read is
    /// not queued behind ticks. 0 leaves them equal.
    #[arg(long, env = "CANOPY_TICK_NICE", default_value_t = 5, value_parser = clap::value_parser!(i32).range(0..=19))]
    pub tick_nice: i32,

    /// Ops one tick applies; later batches wait, in order, for the next tick (the first
    /// batch of a tick is applied whatever its size).
    #[arg(long, env = "CANOPY_TICK_OP_BUDGET", default_value_t = RoomConfig::DEFAULT_TICK_OP_BUDGET, value_parser = at_least_one)]
    pub tick_op_budget: usize,

    /// Nodes one tick puts into new snapshots; later subscriptions wait for the next
    /// tick (a snapshot shared by subscribers of one scope counts once).
    #[arg(long, env = "CANOPY_TICK_SNAPSHOT_BUDGET", default_value_t = RoomConfig::DEFAULT_TICK_SNAPSHOT_BUDGET, value_parser = at_least_one)]
    pub tick_snapshot_budget: usize,

    /// Bytes of encoded snapshots not yet written to their subscribers, server-wide,
    /// past which no room takes a new snapshot and subscriptions wait (slow readers
    /// each hold theirs until it is written or the write deadline drops them).
    #[arg(long, env = "CANOPY_MAX_UNSENT_SNAPSHOT_BYTES", default_value_t = RoomConfig::DEFAULT_MAX_UNSENT_SNAPSHOT_BYTES, value_parser = at_least_one)]
    pub max_unsent_snapshot_bytes: usize,

    /// The fair shares of the server-wide budgets and the pace readers must keep.
    #[command(flatten)]
    pub budgets: BudgetFlags,

    /// Largest HTTP request body, in bytes; larger bodies answer `413 too_large`.
    #[arg(long, env = "CANOPY_MAX_BODY_BYTES", default_value_t = DEFAULT_MESSAGE_BYTES, value_parser = at_least_one)]
    pub max_body_bytes: usize,

    /// Largest WebSocket message, in bytes; a larger one closes the socket with 1009.
    #[arg(long, env = "CANOPY_MAX_WS_MESSAGE_BYTES", default_value_t = DEFAULT_MESSAGE_BYTES, value_parser = at_least_one)]
    pub max_ws_message_bytes: usize,

    /// Most ops in one edit batch; larger batches answer `too_large`.
    #[arg(long, env = "CANOPY_MAX_OPS_PER_BATCH", default_value_t = DEFAULT_MAX_OPS_PER_BATCH, value_parser = at_least_one)]
    pub max_ops_per_batch: usize,

    /// Most ancestors one batch may walk (cycle and depth checks of `set_parent` and of
    /// `add` under deep parents); a batch needing more answers `too_large`.
    #[arg(long, env = "CANOPY_MAX_BATCH_WALK", default_value_t = HierarchyLimits::DEFAULT.max_batch_walk, value_parser = at_least_one)]
    pub max_batch_walk: usize,

    /// Most live nodes in one room; a batch that would exceed it answers `too_large`.
    #[arg(long, env = "CANOPY_MAX_NODES_PER_ROOM", default_value_t = HierarchyLimits::DEFAULT.max_nodes, value_parser = at_least_one)]
    pub max_nodes_per_room: usize,

    /// Deepest hierarchy (a root has depth 1); deeper answers `too_large`.
    #[arg(long, env = "CANOPY_MAX_DEPTH", default_value_t = HierarchyLimits::DEFAULT.max_depth, value_parser = at_least_one)]
    pub max_depth: usize,

    /// Most rooms on the server; more answer `overloaded`.
    #[arg(long, env = "CANOPY_MAX_ROOMS", default_value_t = 1024, value_parser = at_least_one)]
    pub max_rooms: usize,

    /// Most subscribers of one room; more answer `overloaded`.
    #[arg(long, env = "CANOPY_MAX_SUBSCRIBERS_PER_ROOM", default_value_t = RoomConfig::DEFAULT_MAX_SUBSCRIBERS, value_parser = at_least_one)]
    pub max_subscribers_per_room: usize,

    /// Most WebSocket connections (subscribed or not) to one room; more are refused
    /// with `503 overloaded` before the upgrade.
    #[arg(long, env = "CANOPY_MAX_WS_PER_ROOM", default_value_t = 10_000, value_parser = at_least_one)]
    pub max_ws_per_room: usize,

    /// Edit batches that may wait for a room's tick; more answer `overloaded` at once.
    #[arg(long, env = "CANOPY_MAX_PENDING_BATCHES", default_value_t = EditLimits::DEFAULT.max_pending_batches, value_parser = at_least_one)]
    pub max_pending_batches: usize,

    /// Ops that may wait for a room's tick, over all its batches; more answer
    /// `overloaded` at once (a batch alone in the queue is always accepted).
    #[arg(long, env = "CANOPY_MAX_PENDING_OPS", default_value_t = EditLimits::DEFAULT.max_pending_ops, value_parser = at_least_one)]
    pub max_pending_ops: usize,

    /// Ops one caller may have waiting for ticks, over all its WebSocket connections and
    /// HTTP requests (the caller: its JWT `sub` or token, else its address), so one
    /// editor cannot take the whole room's share by opening more connections.
    #[arg(long, env = "CANOPY_MAX_PENDING_OPS_PER_CONN", default_value_t = EditLimits::DEFAULT.max_pending_ops_per_conn, value_parser = at_least_one)]
    pub max_pending_ops_per_conn: usize,

    /// Ticks of changes each room keeps so that a reconnecting client can resume
    /// (`subscribe` with `since`) instead of taking a snapshot.
    #[arg(long, env = "CANOPY_RESUME_TICKS", default_value_t = canopy_room::resume::HistoryLimits::DEFAULT.ticks)]
    pub resume_ticks: usize,

    /// Bytes of change history each room keeps for resuming (8 bytes per changed
    /// node per tick); the oldest ticks go first.
    #[arg(long, env = "CANOPY_RESUME_BYTES", default_value_t = canopy_room::resume::HistoryLimits::DEFAULT.bytes)]
    pub resume_bytes: usize,

    /// Delta frames that may wait for a slow WebSocket reader before the server merges
    /// its changes (latest value per node) into one frame.
    #[arg(long, env = "CANOPY_WS_QUEUE_FRAMES", default_value_t = OutboxLimits::DEFAULT.frames, value_parser = at_least_one)]
    pub ws_queue_frames: usize,

    /// Bytes of delta frames that may wait for a slow reader before merging starts.
    #[arg(long, env = "CANOPY_WS_QUEUE_FRAME_BYTES", default_value_t = OutboxLimits::DEFAULT.frame_bytes, value_parser = at_least_one)]
    pub ws_queue_frame_bytes: usize,

    /// Replies (acks, errors, query answers, pongs) that may wait for a reader before
    /// the server stops reading its requests until it catches up.
    #[arg(long, env = "CANOPY_WS_QUEUE_REPLIES", default_value_t = OutboxLimits::DEFAULT.replies, value_parser = at_least_one)]
    pub ws_queue_replies: usize,

    /// Bytes of replies that may wait for a reader (see `--ws-queue-replies`).
    #[arg(long, env = "CANOPY_WS_QUEUE_REPLY_BYTES", default_value_t = OutboxLimits::DEFAULT.reply_bytes, value_parser = at_least_one)]
    pub ws_queue_reply_bytes: usize,

    /// The kernel send buffer of each accepted connection, in bytes (0: the system's
    /// default). A small buffer makes a slow WebSocket reader visible to the server
    /// within a few frames, so its changes are merged (bounded memory, latest values)
    /// instead of queueing megabytes of stale frames in the kernel.
    #[arg(long, env = "CANOPY_SEND_BUFFER_BYTES", default_value_t = 256 * 1024)]
    pub send_buffer_bytes: usize,

    /// A WebSocket client whose socket accepts nothing for this many seconds is
    /// disconnected (close code 4000: resubscribe).
    #[arg(long = "ws-write-deadline-secs", env = "CANOPY_WS_WRITE_DEADLINE_SECS", default_value = "30", value_parser = positive_seconds)]
    pub ws_write_deadline: Duration,

    /// Seconds between SIGTERM and the shutdown proper: meanwhile `/readyz` answers 503,
    /// new WebSocket upgrades are refused and everything else is served, so a load
    /// balancer sees the node leave before its connections are refused.
    #[arg(long = "drain-secs", env = "CANOPY_DRAIN_SECS", default_value = "5", value_parser = any_seconds)]
    pub drain: Duration,

    /// Reverse proxies (CIDRs or addresses, comma-separated) whose `Forwarded` or
    /// `X-Forwarded-For` header names the caller, for rate limits and logs.
    #[arg(long, env = "CANOPY_TRUSTED_PROXIES", value_delimiter = ',', value_parser = values::net)]
    pub trusted_proxies: Vec<ipnet::IpNet>,

    /// Seconds the server waits for connections and rooms to finish on shutdown.
    #[arg(long = "shutdown-grace-secs", env = "CANOPY_SHUTDOWN_GRACE_SECS", default_value = "5", value_parser = positive_seconds)]
    pub shutdown_grace: Duration,

    /// The admin token. With it, every request but `GET /healthz`, `/readyz` and
    /// `/openapi.json` needs a token, and new rooms get editor and viewer tokens. Without
    /// it the server runs open (and refuses a non-loopback address unless
    /// `--insecure-open`). Prefer the environment variable: flags show in `ps`.
    #[arg(long, env = "CANOPY_ADMIN_TOKEN", hide_env_values = true)]
    pub admin_token: Option<Secret>,

    /// Serve TLS with this certificate chain (PEM); needs `--tls-key`. Both files are
    /// read again on SIGHUP and when they change.
    #[arg(long, env = "CANOPY_TLS_CERT", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,

    /// The private key of `--tls-cert` (PEM).
    #[arg(long, env = "CANOPY_TLS_KEY", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,

    /// Accept JWTs signed with this HS256 secret wherever a token goes (docs/protocol.md §6).
    #[arg(long, env = "CANOPY_JWT_HS256_SECRET", hide_env_values = true)]
    pub jwt_hs256_secret: Option<Secret>,

    /// The `kid` HS256 tokens may name. A token naming another `kid` is refused (unknown
    /// `kid`, docs/protocol.md §6), and without this setting any `kid` is; a token
    /// without one is accepted either way.
    #[arg(long, env = "CANOPY_JWT_HS256_KID", requires = "jwt_hs256_secret")]
    pub jwt_hs256_kid: Option<String>,

    /// Accept JWTs signed (RS256 or ES256, matched by `kid`) with a key of this JWKS
    /// file; the file is read again when it changes.
    #[arg(long, env = "CANOPY_JWT_JWKS_FILE")]
    pub jwt_jwks_file: Option<PathBuf>,

    /// Accept only JWTs whose `aud` claim names this audience (a string, or one of an
    /// array). Unset: `aud` is not checked.
    #[arg(long, env = "CANOPY_JWT_AUDIENCE")]
    pub jwt_audience: Option<String>,

    /// Accept only JWTs whose `iss` claim is this issuer. Unset: `iss` is not checked.
    #[arg(long, env = "CANOPY_JWT_ISSUER")]
    pub jwt_issuer: Option<String>,

    /// Allow running without an admin token on a non-loopback address.
    #[arg(long, env = "CANOPY_INSECURE_OPEN", value_parser = clap::builder::BoolishValueParser::new())]
    pub insecure_open: bool,

    /// Web origins (`scheme://host[:port]`, comma-separated, or `*` for any) allowed to
    /// call the HTTP API from a browser (CORS) and to open WebSocket connections.
    /// Without it, only same-origin pages may.
    #[arg(long, env = "CANOPY_ALLOWED_ORIGINS", value_delimiter = ',')]
    pub allowed_origins: Vec<String>,

    /// Host names (comma-separated) an open server answers to besides `localhost` and IP
    /// addresses. An open server on loopback refuses other `Host` names (DNS
    /// rebinding); given, the check also applies on any other address, such as the
    /// `0.0.0.0` of a container whose port is published on the host's loopback.
    #[arg(long, env = "CANOPY_ALLOWED_HOSTS", value_delimiter = ',')]
    pub allowed_hosts: Vec<String>,

    /// Queries per second per caller (its token, else its address), with bursts of twice
    /// that; a query answering more than 1,000 items costs one more per 1,000. More
    /// answer `429 rate_limited`. 0 turns the limit off.
    #[arg(long, env = "CANOPY_QUERY_RATE", default_value_t = 2000)]
    pub query_rate: u32,

    /// The most ids or hits one query (or `GET /nodes`) may answer; larger answers are
    /// refused with `too_large`.
    #[arg(long, env = "CANOPY_MAX_ANSWER_ITEMS", default_value_t = DEFAULT_MAX_ANSWER_ITEMS, value_parser = at_least_one)]
    pub max_answer_items: usize,

    /// Longest time an HTTP request may take (an edit waits for its tick), in seconds;
    /// longer answers `503 overloaded`, and an edit answered so is never applied.
    #[arg(long = "request-timeout-secs", env = "CANOPY_REQUEST_TIMEOUT_SECS", default_value = "30", value_parser = positive_seconds)]
    pub request_timeout: Duration,

    /// Seconds a client has to send a request's headers, and the longest an idle
    /// keep-alive connection stays open.
    #[arg(long = "http-header-timeout-secs", env = "CANOPY_HTTP_HEADER_TIMEOUT_SECS", default_value = "10", value_parser = positive_seconds)]
    pub http_header_timeout: Duration,

    /// Most open connections (HTTP and WebSocket) in all; more are closed at accept.
    #[arg(long, env = "CANOPY_MAX_CONNECTIONS", default_value_t = 16_384, value_parser = at_least_one)]
    pub max_connections: usize,

    /// Most open connections from one address (after `--trusted-proxies`, the
    /// connecting address).
    #[arg(long, env = "CANOPY_MAX_CONNECTIONS_PER_IP", default_value_t = 1024, value_parser = at_least_one)]
    pub max_connections_per_ip: usize,

    /// Seconds between WebSocket pings the server sends.
    #[arg(long = "ws-ping-secs", env = "CANOPY_WS_PING_SECS", default_value = "15", value_parser = positive_seconds)]
    pub ws_ping: Duration,

    /// A WebSocket connection from which nothing (not even a pong) arrives for this many
    /// seconds is closed as idle or half-open.
    #[arg(long = "ws-idle-secs", env = "CANOPY_WS_IDLE_SECS", default_value = "60", value_parser = positive_seconds)]
    pub ws_idle: Duration,

    /// Octree leaf capacity (objects per cell before it splits).
    #[arg(long, env = "CANOPY_OCTREE_LEAF_CAPACITY", default_value_t = OctreeConfig::DEFAULT.leaf_capacity, value_parser = at_least_one)]
    pub octree_leaf_capacity: usize,

    /// Octree looseness (cell bounds are this many times the cell size, 1 to 16).
    #[arg(long, env = "CANOPY_OCTREE_LOOSENESS", default_value_t = OctreeConfig::DEFAULT.looseness, value_parser = looseness)]
    pub octree_looseness: f32,

    /// Octree maximum depth (at most 64).
    #[arg(long, env = "CANOPY_OCTREE_MAX_DEPTH", default_value_t = OctreeConfig::DEFAULT.max_depth, value_parser = clap::value_parser!(u32).range(0..=64))]
    pub octree_max_depth: u32,

    /// Cluster mode: the NATS server(s) to join, comma-separated (`nats://host:4222`;
    /// credentials in the URL). Absent: one process serving its own rooms. See
    /// docs/cluster.md.
    #[arg(long, env = "CANOPY_NATS_URL")]
    pub nats_url: Option<String>,

    /// This node's name in the cluster (1 to 64 of `[A-Za-z0-9_-]`), stable across its
    /// restarts so that it takes its own rooms back; default `<hostname>-<port>`.
    #[arg(long, env = "CANOPY_CLUSTER_NODE", value_parser = values::node_name)]
    pub cluster_node: Option<String>,

    /// The base URL other nodes reach this one's HTTP at, for the WebSockets they pass
    /// on to a room's owner; default `http://<--addr>` (with the hostname if `--addr` is
    /// unspecified, such as 0.0.0.0).
    #[arg(long, env = "CANOPY_CLUSTER_URL")]
    pub cluster_url: Option<String>,

    /// Seconds (fractions allowed) a room's lease lasts unrenewed (1 to 300): an owner renews every third
    /// of it and stops taking edits once a renewal is this long overdue minus a margin
    /// (a third, at most 2 s). Every node of a cluster must use the same value.
    #[arg(long = "cluster-lease-secs", env = "CANOPY_CLUSTER_LEASE_SECS", default_value = "10", value_parser = lease_seconds)]
    pub cluster_lease: Duration,

    /// Copies the NATS cluster keeps of the rooms' journal (1 to 5; at most the number
    /// of NATS servers). It is set when the journal stream is first made; later nodes
    /// use the stream as it is.
    #[arg(long, env = "CANOPY_CLUSTER_REPLICAS", default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=5))]
    pub cluster_replicas: u64,
}

/// How log lines are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines, coloured only on a terminal.
    Text,
    /// One JSON object per line, event fields flattened into it.
    Json,
}

impl Default for ServerConfig {
    /// The defaults of the flags, but in memory: what embedding and tests want (the
    /// binary's own default keeps rooms in `canopy-data`). Plain values: the flags'
    /// `CANOPY_*` variables are left out, so no environment changes them and nothing
    /// here can exit the process.
    fn default() -> Self {
        use clap::{CommandFactory, FromArgMatches};
        let command = <Self as CommandFactory>::command().mut_args(|arg| arg.env(None));
        let matches = command
            .try_get_matches_from(["canopy", "--in-memory"])
            .expect("the built-in defaults parse");
        <Self as FromArgMatches>::from_arg_matches(&matches).expect("the built-in defaults parse")
    }
}

impl ServerConfig {
    /// The per-room settings derived from the server's flags, with a new unsent
    /// snapshot budget: a server makes them once (`AppState::room_config`) so that
    /// every room shares it.
    pub fn room_config(&self) -> RoomConfig {
        RoomConfig {
            edits: EditLimits {
                max_pending_batches: self.max_pending_batches,
                max_pending_ops: self.max_pending_ops,
                max_pending_ops_per_conn: self.max_pending_ops_per_conn,
            },
            tick_op_budget: self.tick_op_budget,
            tick_snapshot_budget: self.tick_snapshot_budget,
            snapshot_bytes: self.budgets.snapshot_budget(self.max_unsent_snapshot_bytes),
            max_subscribers: self.max_subscribers_per_room,
            max_in_scope_entries: self.budgets.max_in_scope_entries_per_room,
            in_scope_caller_divisor: self.budgets.caller_share_divisor as u64,
            frames: if self.live_deltas {
                FramePassage::Live
            } else {
                FramePassage::Durable
            },
            history: canopy_room::resume::HistoryLimits {
                ticks: self.resume_ticks,
                bytes: self.resume_bytes,
            },
            hierarchy: HierarchyLimits {
                max_nodes: self.max_nodes_per_room,
                max_depth: self.max_depth,
                max_batch_walk: self.max_batch_walk,
            },
            octree: OctreeConfig {
                looseness: self.octree_looseness,
                leaf_capacity: self.octree_leaf_capacity,
                max_depth: self.octree_max_depth,
                ..OctreeConfig::DEFAULT
            },
        }
    }

    /// The bounds of each WebSocket connection's outbox.
    pub fn outbox_limits(&self) -> OutboxLimits {
        OutboxLimits {
            frames: self.ws_queue_frames,
            frame_bytes: self.ws_queue_frame_bytes,
            replies: self.ws_queue_replies,
            reply_bytes: self.ws_queue_reply_bytes,
        }
    }

    /// The number of tick threads: the flag, or one per CPU.
    pub fn tick_threads(&self) -> usize {
        match self.tick_threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        }
    }

    /// The admin token, if the server has one.
    pub fn admin_token(&self) -> Option<&str> {
        self.admin_token.as_ref().map(|s| s.0.as_str())
    }

    /// True when requests need a token (an admin token or JWT keys are configured);
    /// otherwise the server runs open.
    pub fn has_access_control(&self) -> bool {
        self.admin_token.is_some()
            || self.jwt_hs256_secret.is_some()
            || self.jwt_jwks_file.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(args: &[&str]) -> ServerConfig {
        <ServerConfig as clap::Parser>::try_parse_from(args).expect("valid flags")
    }

    #[test]
    fn seconds_flags_take_fractions_and_refuse_nonsense() {
        let c = parsed(&[
            "canopy",
            "--request-timeout-secs",
            "0.25",
            "--drain-secs",
            "0",
        ]);
        assert_eq!(c.request_timeout, Duration::from_millis(250));
        assert_eq!(c.drain, Duration::ZERO);
        for bad in ["0", "-1", "NaN", "inf", "1e9", "soon"] {
            let flag = format!("--request-timeout-secs={bad}");
            let e = <ServerConfig as clap::Parser>::try_parse_from(["canopy", flag.as_str()])
                .unwrap_err();
            assert!(e.to_string().contains("request-timeout-secs"), "{bad}: {e}");
        }
        assert!(
            <ServerConfig as clap::Parser>::try_parse_from([
                "canopy",
                "--cluster-lease-secs",
                "0.5"
            ])
            .is_err()
        );
    }

    #[test]
    fn the_default_config_is_the_flags_defaults_in_memory() {
        let d = ServerConfig::default();
        assert!(d.in_memory);
        assert_eq!(d.request_timeout, Duration::from_secs(30));
        assert_eq!(d.cluster_lease, Duration::from_secs(10));
        assert_eq!(d.tick_hz, 30);
    }

    /// Run again as a child process with bad `CANOPY_*` variables set: the library's
    /// default must neither take them nor exit.
    #[test]
    fn the_default_config_ignores_canopy_variables() {
        const NAME: &str = "config::tests::the_default_config_ignores_canopy_variables";
        if std::env::var_os("CANOPY_TEST_DEFAULT_PROBE").is_some() {
            let d = ServerConfig::default();
            assert_eq!((d.tick_hz, d.in_memory, d.max_rooms), (30, true, 1024));
            return;
        }
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", NAME, "--test-threads=1"])
            .env("CANOPY_TEST_DEFAULT_PROBE", "1")
            .env("CANOPY_TICK_HZ", "nonsense")
            .env("CANOPY_IN_MEMORY", "false")
            .env("CANOPY_MAX_ROOMS", "3")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(stdout.contains("1 passed"), "the probe ran: {stdout}");
    }

    #[test]
    fn frames_wait_for_durability_unless_live_deltas() {
        assert_eq!(
            ServerConfig::default().room_config().frames,
            FramePassage::Durable
        );
        let live = parsed(&["canopy", "--live-deltas"]);
        assert_eq!(live.room_config().frames, FramePassage::Live);
    }
}
