//! One mode of S2, start to end: the players connect (whole-room or follow scopes),
//! the editor runs, a warm-up passes, the measured window (per-client traffic, the
//! server's CPU and RSS, edit-to-delta), the edits stop and every held change goes out,
//! the copies are checked (follow scopes), and the players leave.
//!
//! Invariant: both modes see the same room and the same edit stream (same seed, same
//! ticks), and each starts with the other's players gone, so the server's CPU in a
//! window is that mode's alone.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use canopy_client::{Client, ConnectOptions};

use super::layout::Layout;
use super::mirror_check::{self, MirrorCheck};
use super::{Mode, Shape, edits};
use crate::bench::server_rss::{self, ServerDelays};
use crate::load::editor::{EditStats, EditorContext};
use crate::load::fleet::{Connect, Fleet};
use crate::load::stamps::{Clock, Stamps};
use crate::load::subscriber::{Counters, SubContext, SubShared, SubSpec};
use crate::observe::errors::ErrorTally;
use crate::report::gather;
use crate::report::run_report::{EditReport, LatencyReport};
use crate::scenario::{EncodingArg, Scenario};
use crate::stop;

/// Edits before the measured window: the avatars' jump back to their first pose (the
/// second mode replays the walk) and its scope changes settle here.
const WARM_UP: Duration = Duration::from_secs(3);

/// How long the players may take to be counted gone after leaving.
const LEAVE_TIMEOUT: Duration = Duration::from_secs(30);

/// What every mode works with.
pub(super) struct Env<'a> {
    pub s: &'a Scenario,
    pub client: &'a Client,
    pub layout: &'a Arc<Layout>,
    pub rooms: &'a [String],
    pub shape: &'a Shape,
    pub clock: Clock,
    pub errors: &'a Arc<ErrorTally>,
}

/// What one mode measured.
pub(super) struct Measured {
    pub mode: Mode,
    pub connected: usize,
    pub connect_s: f64,
    pub window_s: f64,
    /// Delta payload bytes and frames per second per client: mean, min, max.
    pub bytes: (f64, f64, f64),
    pub frames: (f64, f64, f64),
    /// Server CPU cores over the window.
    pub cpu: Option<f64>,
    /// Server RSS over the window, median and max, bytes.
    pub rss: (f64, f64),
    pub delays: (ServerDelays, ServerDelays),
    pub latency: LatencyReport,
    pub edits: EditReport,
    /// The copies' check (follow scopes only; whole-room readers keep none).
    pub mirrors: Option<MirrorCheck>,
}

impl Env<'_> {
    /// Runs `mode` from connecting to leaving.
    pub(super) async fn measure(&self, mode: Mode) -> anyhow::Result<Measured> {
        let s = self.s;
        let conns_before = server_rss::connections(self.client).await?;
        let stamps = Arc::new(Stamps::new(self.layout.world.nodes.len()));
        let started = Instant::now();
        let fleet = self.connect(mode, &stamps).await?;
        let connect_s = started.elapsed().as_secs_f64();
        let stats = Arc::new(EditStats::default());
        let conn = self
            .client
            .connect(
                &self.rooms[0],
                ConnectOptions::default().format(s.format.format()),
            )
            .await?;
        let (stop_tx, stop_rx) = stop::channel();
        let ctx = EditorContext {
            rate: s.edit_rate,
            batch_size: s.batch_size,
            clock: self.clock,
            stats: Arc::clone(&stats),
            errors: Arc::clone(self.errors),
            invalid: None,
        };
        let editing = Instant::now();
        let editor = tokio::spawn(edits::run(
            conn.clone(),
            Arc::clone(self.layout),
            Arc::clone(&stamps),
            ctx,
            s.seed,
            stop_rx,
        ));
        tokio::time::sleep(WARM_UP).await;
        let window = self.window(&fleet.subs).await;
        stop_tx.raise();
        editor.await?;
        let edits = gather::edit_report(&stats, editing.elapsed().as_secs_f64());
        conn.close().await;
        let timeout = Duration::from_secs_f64(s.settle_timeout);
        crate::run::settle(&fleet.subs, self.clock, s.tick(), timeout).await;
        let mirrors = match mode {
            Mode::Follow => Some(self.check_mirrors(&fleet.subs).await?),
            Mode::WholeRoom => None,
        };
        let latency = gather::latency_report(&fleet.subs, s);
        let connected = fleet.subs.len();
        fleet.stop().await;
        server_rss::wait_connections(self.client, conns_before, LEAVE_TIMEOUT).await;
        Ok(Measured {
            mode,
            connected,
            connect_s,
            window_s: window.seconds,
            bytes: window.bytes,
            frames: window.frames,
            cpu: window.cpu,
            rss: window.rss,
            delays: window.delays,
            latency,
            edits,
            mirrors,
        })
    }

    /// Connects every player with `mode`'s scope and waits for every snapshot.
    async fn connect(&self, mode: Mode, stamps: &Arc<Stamps>) -> anyhow::Result<Fleet> {
        let s = self.s;
        let specs: Vec<SubSpec> = (0..s.subscribers)
            .map(|i| SubSpec {
                follow: match mode {
                    Mode::Follow => Some(self.shape.scope(self.layout.walks[i].id)),
                    Mode::WholeRoom => None,
                },
                ..SubSpec::whole_room(i, 0)
            })
            .collect();
        let ctx = match mode {
            // Whole-room frames are large: one reader in `--decode-every` decodes (and
            // samples latency), the rest only count what they read.
            Mode::WholeRoom => SubContext::streaming(
                s.format.format(),
                self.clock,
                self.errors,
                s.decode_every,
                s.encoding == EncodingArg::Compact,
            ),
            Mode::Follow => SubContext::mirroring(s.format.format(), self.clock, self.errors),
        };
        let connect = Connect {
            clients: std::slice::from_ref(self.client),
            rooms: self.rooms,
            stamps: std::slice::from_ref(stamps),
            ctx,
            slow_recv_buffer: s.slow_recv_buffer,
            concurrency: s.connect_concurrency,
            room_nodes: 0,
        };
        Fleet::connect(specs, connect).await
    }

    /// The measured window, the editor running: traffic per client from the readers'
    /// counters, the server's CPU from its own, RSS sampled every second. Latency samples
    /// of the warm-up are dropped at its start.
    async fn window(&self, subs: &[Arc<SubShared>]) -> Window {
        for sub in subs {
            sub.lock().latency.reset();
        }
        let before = Counters::of_all(subs);
        let cpu_before = server_rss::cpu_seconds(self.client).await.ok();
        let delays_before = ServerDelays::read(self.client).await;
        let started = Instant::now();
        let end = tokio::time::Instant::now() + self.s.load_duration();
        let mut samples = server_rss::sample_until(self.client, end).await;
        let after = Counters::of_all(subs);
        let seconds = started.elapsed().as_secs_f64();
        let cpu_after = server_rss::cpu_seconds(self.client).await.ok();
        let delays_after = ServerDelays::read(self.client).await;
        samples.sort_by(f64::total_cmp);
        let per_client = |read: fn(&Counters) -> u64| {
            spread(
                after
                    .iter()
                    .zip(&before)
                    .map(|(a, b)| read(&a.since(b)) as f64 / seconds.max(1e-9)),
            )
        };
        Window {
            seconds,
            bytes: per_client(|c| c.delta_bytes),
            frames: per_client(|c| c.delta_frames),
            cpu: match (cpu_before, cpu_after) {
                (Some(a), Some(b)) if b >= a => Some((b - a) / seconds.max(1e-9)),
                _ => None,
            },
            rss: (
                samples.get(samples.len() / 2).copied().unwrap_or(0.0),
                samples.last().copied().unwrap_or(0.0),
            ),
            delays: (delays_before, delays_after),
        }
    }

    /// Reads the room's state and checks every player's copy against it.
    async fn check_mirrors(&self, subs: &[Arc<SubShared>]) -> anyhow::Result<MirrorCheck> {
        let read_at = self.clock.now_us();
        let state = self.client.nodes(&self.rooms[0]).await?;
        let mut check = mirror_check::check(
            subs,
            &state.nodes,
            state.tick,
            self.shape.radius,
            self.shape.margin,
        );
        // The edits had stopped and traffic settled: a frame after the state was read
        // means a copy was still converging when it was checked.
        check.late_frames = subs
            .iter()
            .filter(|m| m.last_frame_us.load(Ordering::Relaxed) > read_at)
            .count();
        Ok(check)
    }
}

/// The measured window's figures.
struct Window {
    seconds: f64,
    bytes: (f64, f64, f64),
    frames: (f64, f64, f64),
    cpu: Option<f64>,
    rss: (f64, f64),
    delays: (ServerDelays, ServerDelays),
}

/// Mean, min and max of `values` (zeros when there are none).
fn spread(values: impl Iterator<Item = f64>) -> (f64, f64, f64) {
    let (mut sum, mut n, mut min, mut max) = (0.0, 0usize, f64::INFINITY, 0.0f64);
    for v in values {
        sum += v;
        n += 1;
        min = min.min(v);
        max = max.max(v);
    }
    if n == 0 {
        (0.0, 0.0, 0.0)
    } else {
        (sum / n as f64, min, max)
    }
}
