//! The scenario: every command-line flag of the harness, parsed with clap, and the
//! checks that make a scenario runnable.
//!
//! Invariant: the defaults are the target scenario (one room of 20,000 nodes, 500
//! whole-room and 50 region subscribers, 10 editors at 30 batches/s of 20 edits, 200
//! queries/s, 60 s), so `canopy-loadtest --spawn` alone reproduces it; a `Scenario` that
//! passed [`Scenario::validate`] never makes the harness divide by zero or build an
//! empty world.

use std::time::Duration;

use clap::Parser;
use serde::Serialize;

use crate::bench::BenchName;
use crate::load::query_mix::QueryMix;
use crate::soak::hostile::Kind;
use crate::soak::hostile::runner::Sizes;
pub(crate) use crate::wire_options::{EncodingArg, FormatArg, QueryVia};

/// The load-test scenario.
#[derive(Clone, Debug, Parser, Serialize)]
#[command(
    name = "canopy-loadtest",
    version,
    about = "Load-test harness for the Canopy server: measures edit-to-delta latency, \
             delta throughput, query latency and server tick time, then checks that every \
             subscriber's mirror converged to the server's state."
)]
pub(crate) struct Scenario {
    /// Start a server inside this process on 127.0.0.1 (an ephemeral port).
    #[arg(long, conflicts_with_all = ["url", "server_bin"], required_unless_present_any = ["url", "server_bin"])]
    pub spawn: bool,

    /// Target a running server instead (`http://host:port`), or the nodes of a cluster
    /// as a comma-separated list: rooms are created through the first, subscribers
    /// spread over all of them round robin, editors kept on each room's owner (see
    /// `--editors-anywhere`), and latency reported per node as well.
    #[arg(long, conflicts_with = "server_bin")]
    pub url: Option<String>,

    /// With several URLs: spread the editors over the nodes round robin too, instead of
    /// connecting each to the node that owns its room (from `GET /cluster`).
    #[arg(long)]
    pub editors_anywhere: bool,

    /// Start a cluster of this many `canopy` processes (`--server-bin`, `--server-arg`s
    /// passed on to each) around a NATS server (`--nats-bin`), all on free loopback
    /// ports, and target them as with a list of `--url`s; all are stopped at the end.
    #[arg(long, value_name = "N", requires_all = ["server_bin", "nats_bin"])]
    pub cluster_spawn: Option<usize>,

    /// The `nats-server` binary for `--cluster-spawn` (`bash scripts/nats-server.sh`
    /// prints its path on its last line).
    #[arg(long, value_name = "PATH", env = "CANOPY_NATS_SERVER")]
    pub nats_bin: Option<std::path::PathBuf>,

    /// Start this `canopy` binary as a process of its own on 127.0.0.1 (a free port,
    /// `--server-arg`s passed on) and target it as with `--url`; it is stopped at the
    /// end. Its RSS in `/metrics` is then the server's alone.
    #[arg(long, value_name = "PATH")]
    pub server_bin: Option<std::path::PathBuf>,

    /// Run a benchmark instead of the load test (see `bench`); needs `--url` or
    /// `--server-bin`, so that the server's RSS is its own.
    #[arg(long, value_enum, value_name = "NAME")]
    pub bench: Option<BenchName>,

    /// Benchmarks: stop connecting subscribers once the server's RSS passes this many
    /// MiB, so that an unbounded server cannot exhaust a shared machine.
    #[arg(long, default_value_t = 4096.0)]
    pub rss_abort_mib: f64,

    /// Benchmark `healthz`: heavy batches in flight per room at once.
    #[arg(long, default_value_t = 2)]
    pub heavy_in_flight: usize,

    /// Bearer token (admin) for a server that runs with one.
    #[arg(long, env = "CANOPY_TOKEN", hide_env_values = true)]
    #[serde(skip)]
    pub token: Option<String>,

    /// Extra flag for the spawned server, as on `canopy`'s command line; repeatable
    /// (`--server-arg=--ws-queue-frames=4`). The server keeps nothing on disk
    /// (`--in-memory`) unless one of these is `--data-dir` or `--in-memory`.
    #[arg(long = "server-arg", allow_hyphen_values = true)]
    pub server_args: Vec<String>,

    /// Rooms to create; subscribers, editors and queries are spread over them.
    #[arg(long, default_value_t = 1)]
    pub rooms: usize,

    /// Nodes per room.
    #[arg(long, default_value_t = 20_000)]
    pub nodes: usize,

    /// Children per interior node.
    #[arg(long, default_value_t = 8)]
    pub fanout: usize,

    /// Levels per tree (1: every node is a root). A room holds as many trees as its node
    /// count needs.
    #[arg(long, default_value_t = 4)]
    pub depth: usize,

    /// Whole-room subscribers (in total, over all rooms).
    #[arg(long, default_value_t = 500)]
    pub subscribers: usize,

    /// Region subscribers (in total, over all rooms).
    #[arg(long, default_value_t = 50)]
    pub region_subscribers: usize,

    /// Side length of a region subscriber's box on the ground plane (the box spans the
    /// world's full height).
    #[arg(long, default_value_t = 60.0)]
    pub region_size: f32,

    /// Editors (one WebSocket each, in total over all rooms).
    #[arg(long, default_value_t = 10)]
    pub editors: usize,

    /// Edit batches per second per editor.
    #[arg(long, default_value_t = 30.0)]
    pub edit_rate: f64,

    /// `set_local` ops per batch.
    #[arg(long, default_value_t = 20)]
    pub batch_size: usize,

    /// Queries per second (in total).
    #[arg(long, default_value_t = 200.0)]
    pub queries: f64,

    /// Relative weights of the query kinds.
    #[arg(long, default_value = "region=1,sphere=1,ray=1,nearest=1")]
    #[serde(serialize_with = "crate::load::query_mix::serialize_display")]
    pub query_mix: QueryMix,

    /// Whether queries go over WebSocket or HTTP.
    #[arg(long, value_enum, default_value_t = QueryVia::Ws)]
    pub query_via: QueryVia,

    /// Fraction (0 to 1) of subscribers of each kind that read with pauses.
    #[arg(long, default_value_t = 0.05)]
    pub slow_readers: f64,

    /// How long a slow reader stops reading, once per `--slow-period-ms`. It must
    /// outlast the kernel's socket buffers before the server's outbox fills and starts
    /// merging: on loopback the server's send buffer grows to `tcp_wmem` max (4 MiB
    /// here), about 20 s of the target run's deltas. Keep it under the server's write
    /// deadline (30 s), or the server drops the reader.
    #[arg(long, default_value_t = 25_000)]
    pub slow_pause_ms: u64,

    /// The cycle of a slow reader's pauses.
    #[arg(long, default_value_t = 30_000)]
    pub slow_period_ms: u64,

    /// Socket receive buffer of a slow reader, in bytes: small, so that its pauses back
    /// up into the server instead of into the kernel.
    #[arg(long, default_value_t = 16 * 1024)]
    pub slow_recv_buffer: u32,

    /// Seconds of load.
    #[arg(long, default_value_t = 60.0)]
    pub duration: f64,

    /// Tick rate of the rooms the harness creates.
    #[arg(long, default_value_t = 30)]
    pub tick_hz: u32,

    /// Wire format of every WebSocket.
    #[arg(long, value_enum, default_value_t = FormatArg::Bincode)]
    pub format: FormatArg,

    /// Print the report as JSON on stdout instead of a table.
    #[arg(long)]
    pub json: bool,

    /// `--bench cluster-failover`: how many times the room's owner is killed.
    #[arg(long, default_value_t = 20)]
    pub kills: usize,

    /// Seed of every random choice (tree jitter, edit values, queries, regions).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,

    /// Fail when the p99 edit-to-delta latency reaches this many ticks.
    #[arg(long, default_value_t = 3.0)]
    pub max_p99_ticks: f64,

    /// Seconds the final check waits for every mirror to converge after the load stops.
    #[arg(long, default_value_t = 30.0)]
    pub settle_timeout: f64,

    /// Subscribers connecting at the same time while the run starts.
    #[arg(long, default_value_t = 16)]
    pub connect_concurrency: usize,

    /// Benchmarks `many-subscribers` and `rss-per-subscriber`: only one subscriber in
    /// this many decodes its deltas (and measures latency and counts rows from them);
    /// the others read every frame as promptly but only count it, so that a harness on
    /// the server's machine can keep up with thousands of subscribers of large frames.
    /// 1: every subscriber decodes.
    #[arg(long, default_value_t = 1)]
    pub decode_every: usize,

    /// Benchmarks `many-subscribers` and `rss-per-subscriber`: the transform encoding of
    /// the subscribers that only count their frames (`--decode-every`). `compact` (bincode
    /// only) measures the server's fan-out with compact frames; the decoding subscribers
    /// stay `exact`, since the latency probes read each edit's scale bit for bit.
    #[arg(long, value_enum, default_value_t = EncodingArg::Exact)]
    pub encoding: EncodingArg,

    /// Keep the rooms on the server after the run (they are deleted by default).
    #[arg(long)]
    pub keep_rooms: bool,

    /// Soak mode (see `soak`): besides the load, reconnect storms, stalled readers,
    /// invalid batches, queries over quota and an RSS watch. Changes the defaults of
    /// `--duration` (600 s) and `--slow-readers` (0.1) unless they are given.
    #[arg(long)]
    pub soak: bool,

    /// Soak: seconds between reconnect storms.
    #[arg(long, default_value_t = 30.0)]
    pub storm_every: f64,

    /// Soak: fraction of the subscribers that disconnect and reconnect in each storm.
    #[arg(long, default_value_t = 0.2)]
    pub storm_fraction: f64,

    /// Soak: fraction of the subscribers that stall (stop reading) until the server
    /// drops them, then reconnect.
    #[arg(long, default_value_t = 0.01)]
    pub stalled_readers: f64,

    /// Soak: the server's write deadline in seconds. With `--spawn` it is passed to the
    /// server as `--ws-write-deadline-secs`; with `--url` it must match the server's.
    #[arg(long, default_value_t = 30)]
    pub write_deadline: u64,

    /// Soak: how long a stalled reader stops reading, in seconds (default: the write
    /// deadline plus 40 s, which also covers the kernel's socket buffers filling up).
    #[arg(long)]
    pub stall_secs: Option<f64>,

    /// Soak: seconds from the start of one stall of a reader to the next.
    #[arg(long, default_value_t = 150.0)]
    pub stall_every: f64,

    /// Soak: per editor tick, the chance that the editor also sends an invalid batch.
    #[arg(long, default_value_t = 0.1)]
    pub invalid_batches: f64,

    /// Soak: the server's per-caller query rate. With `--spawn` it is passed to the
    /// server as `--query-rate`.
    #[arg(long, default_value_t = 300)]
    pub query_quota: u32,

    /// Soak: queries per second of the over-quota client (0 turns it off). It connects
    /// from 127.0.0.2, so with a loopback server it is a caller of its own.
    #[arg(long, default_value_t = 500.0)]
    pub overquota_rate: f64,

    /// Soak: seconds of warm-up before the RSS baseline (default: 10% of the run, at
    /// least 60 s, at most half the run).
    #[arg(long)]
    pub warmup: Option<f64>,

    /// Soak: the largest RSS growth allowed after warm-up, as a fraction.
    #[arg(long, default_value_t = 0.10)]
    pub max_rss_growth: f64,

    /// Soak: the hostile clients to run, comma-separated (default: every kind; see
    /// `soak::hostile`).
    #[arg(long, value_enum, value_delimiter = ',', default_values_t = Kind::ALL)]
    pub hostile: Vec<Kind>,

    /// Soak: run no hostile client.
    #[arg(long)]
    pub no_hostile: bool,

    /// Soak: seconds within which a bounded server closes (or releases) what a hostile
    /// client holds; the default is the server's 60 s WebSocket idle limit plus 30 s.
    #[arg(long, default_value_t = 90.0)]
    pub hostile_close_within: f64,

    /// Soak: `subscribe` messages of one subscribe flood.
    #[arg(long, default_value_t = 400)]
    pub flood_subscribes: usize,

    /// Soak: `ping` messages of one ping flood (and of one unread-queries attempt).
    #[arg(long, default_value_t = 5000)]
    pub flood_pings: usize,

    /// Soak: whole-room queries of one unread-queries attempt.
    #[arg(long, default_value_t = 20)]
    pub unread_queries: usize,

    /// Soak: sockets of one idle-TCP and of one idle-WebSocket attempt.
    #[arg(long, default_value_t = 200)]
    pub idle_sockets: usize,

    /// Soak: `set_parent` ops of one no-op batch.
    #[arg(long, default_value_t = 262_143)]
    pub noop_ops: usize,

    /// Soak: depth of the node the no-op batches re-parent (the server's limit is 1024).
    #[arg(long, default_value_t = 1000)]
    pub noop_depth: u32,

    /// Soak: no-op batches in flight at once in one attempt.
    #[arg(long, default_value_t = 4)]
    pub noop_batches: usize,

    /// Soak: sockets of one snapshot-hogs attempt (each subscribes with a mask of its own).
    #[arg(long, default_value_t = 110)]
    pub snapshot_hogs: usize,

    /// Soak: connections of one resume-flood attempt.
    #[arg(long, default_value_t = 100)]
    pub resume_flooders: usize,
}

impl Scenario {
    /// Parses the command line, then applies soak mode's and the benchmarks' defaults to
    /// the flags that were not given, so every such default stays overridable.
    pub(crate) fn parse_with_mode_defaults() -> Self {
        use clap::{CommandFactory, FromArgMatches};
        let matches = Scenario::command().get_matches();
        let mut s = match Scenario::from_arg_matches(&matches) {
            Ok(s) => s,
            Err(e) => e.exit(),
        };
        let given =
            |id: &str| matches.value_source(id) == Some(clap::parser::ValueSource::CommandLine);
        s.apply_soak_defaults(given("duration"), given("slow_readers"));
        crate::bench::apply_defaults(&mut s, &given);
        s
    }

    fn apply_soak_defaults(&mut self, duration_given: bool, slow_given: bool) {
        if !self.soak {
            return;
        }
        if !duration_given {
            self.duration = 600.0;
        }
        if !slow_given {
            self.slow_readers = 0.1;
        }
    }

    /// How many server URLs the run targets: `--cluster-spawn`'s nodes, the entries of
    /// `--url`, else one.
    pub(crate) fn node_count(&self) -> usize {
        match (self.cluster_spawn, &self.url) {
            (Some(n), _) => n,
            (None, Some(url)) => crate::target::urls::parse(url).map_or(1, |u| u.len()),
            (None, None) => 1,
        }
    }

    /// The hostile kinds this run starts: none outside a soak or with `--no-hostile`.
    pub(crate) fn hostile_kinds(&self) -> Vec<Kind> {
        if !self.soak || self.no_hostile {
            return Vec::new();
        }
        let mut kinds = self.hostile.clone();
        kinds.sort();
        kinds.dedup();
        kinds
    }

    /// The sizes of the hostile attacks.
    pub(crate) fn hostile_sizes(&self) -> Sizes {
        Sizes {
            flood_subscribes: self.flood_subscribes,
            flood_pings: self.flood_pings,
            unread_queries: self.unread_queries,
            idle_sockets: self.idle_sockets,
            noop_ops: self.noop_ops,
            noop_depth: self.noop_depth,
            noop_batches: self.noop_batches,
            snapshot_hogs: self.snapshot_hogs,
            resume_flooders: self.resume_flooders,
        }
    }

    /// How long a stalled reader stops reading.
    pub(crate) fn stall_secs(&self) -> f64 {
        self.stall_secs.unwrap_or(self.write_deadline as f64 + 40.0)
    }

    /// The soak's warm-up, before the RSS baseline.
    pub(crate) fn warmup_secs(&self) -> f64 {
        self.warmup
            .unwrap_or_else(|| (self.duration * 0.1).max(60.0).min(self.duration / 2.0))
    }

    /// Whether subscriber `index` stalls in soak mode (spread like slow readers, but
    /// never on a slow reader, so the two kinds stay apart).
    pub(crate) fn is_stalled(&self, index: usize) -> bool {
        let f = self.stalled_readers;
        self.soak
            && !self.is_slow(index)
            && ((index + 3) as f64 * f).floor() > ((index + 2) as f64 * f).floor()
    }

    /// One tick of the rooms the harness creates.
    pub(crate) fn tick(&self) -> Duration {
        Duration::from_secs_f64(1.0 / f64::from(self.tick_hz))
    }

    /// The load phase's length.
    pub(crate) fn load_duration(&self) -> Duration {
        Duration::from_secs_f64(self.duration)
    }

    /// Whether subscriber `index` of a kind with `count` members reads slowly. The slow
    /// ones are spread evenly over the indices, so each room gets its share.
    pub(crate) fn is_slow(&self, index: usize) -> bool {
        let f = self.slow_readers;
        ((index + 1) as f64 * f).floor() > (index as f64 * f).floor()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_s1_target_and_valid() {
        let s = Scenario::parse_from(["canopy-loadtest", "--spawn"]);
        s.validate().unwrap();
        assert_eq!(
            (s.nodes, s.subscribers, s.region_subscribers, s.editors),
            (20_000, 500, 50, 10)
        );
        assert_eq!((s.edit_rate, s.batch_size, s.queries), (30.0, 20, 200.0));
    }

    #[test]
    fn slow_readers_are_spread_evenly() {
        let mut s = Scenario::parse_from(["canopy-loadtest", "--spawn"]);
        s.slow_readers = 0.1;
        let slow: Vec<usize> = (0..30).filter(|&i| s.is_slow(i)).collect();
        assert_eq!(slow, vec![9, 19, 29]);
        s.slow_readers = 0.0;
        assert!((0..100).all(|i| !s.is_slow(i)));
    }

    #[test]
    fn soak_defaults_apply_only_to_flags_not_given() {
        let mut s = Scenario::parse_from(["canopy-loadtest", "--spawn", "--soak"]);
        s.apply_soak_defaults(false, false);
        assert_eq!((s.duration, s.slow_readers), (600.0, 0.1));
        s.validate().unwrap();
        let mut s = Scenario::parse_from(["canopy-loadtest", "--spawn", "--soak", "--duration=90"]);
        s.apply_soak_defaults(true, false);
        assert_eq!(s.duration, 90.0);
        assert_eq!(s.warmup_secs(), 45.0);
        let stalled = (0..500).filter(|&i| s.is_stalled(i)).count();
        assert_eq!(stalled, 5);
    }
}
