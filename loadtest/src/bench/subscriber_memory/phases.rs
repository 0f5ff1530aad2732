//! The phases of one memory run, in order: the room warmed up alone, the subscribers
//! connected a step at a time (RSS read in between, so an unbounded server is caught
//! before it takes the machine), the loaded window, and everyone leaving.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use canopy_client::Client;

use super::{
    AFTER_LEAVE, CONNECT_STEP, Connected, LEAVE_TIMEOUT, Left, Loaded, SAMPLE_EVERY, SAMPLES,
    SETTLE, WARM_SEED_SALT,
};
use crate::bench::edit_window::EditWindow;
use crate::bench::server_rss::{self, ServerDelays};
use crate::bench::table::mib;
use crate::load::editor::EditStats;
use crate::load::fleet::{Connect, Fleet};
use crate::load::stamps::{Clock, Stamps};
use crate::load::subscriber::{SubContext, SubShared, SubSpec, decodes};
use crate::load::world::World;
use crate::observe::errors::ErrorTally;
use crate::report::gather;
use crate::scenario::{EncodingArg, Scenario};

/// What every phase works with.
pub(super) struct Env<'a> {
    pub s: &'a Scenario,
    pub client: &'a Client,
    pub world: &'a World,
    pub rooms: &'a [String],
    pub clock: Clock,
    pub errors: &'a Arc<ErrorTally>,
}

impl Env<'_> {
    fn window<'w>(
        &'w self,
        stamps: &'w [Arc<Stamps>],
        stats: &'w Arc<EditStats>,
        seed: u64,
    ) -> EditWindow<'w> {
        EditWindow {
            s: self.s,
            client: self.client,
            world: self.world,
            rooms: self.rooms,
            stamps,
            clock: self.clock,
            stats,
            errors: self.errors,
            seed,
        }
    }

    /// The room's own working size: the same edits for the same time with nobody
    /// subscribed, so that what the room keeps whoever listens (the change history for
    /// resumes, its per-tick buffers) is in the baseline and not counted as memory the
    /// subscribers failed to give back. Answers RSS afterwards.
    pub(super) async fn warm_up(&self) -> anyhow::Result<f64> {
        let stamps = vec![Arc::new(Stamps::new(self.world.nodes.len()))];
        let stats = Arc::new(EditStats::default());
        // Not the loaded window's seed: the same seed would send every node the value
        // the warm-up left it at, so the loaded window would change (and stream) almost
        // nothing.
        let warm = self.window(&stamps, &stats, self.s.seed ^ WARM_SEED_SALT);
        warm.run(self.s.load_duration()).await?;
        tokio::time::sleep(SETTLE).await;
        server_rss::median_rss(self.client, SAMPLES, SAMPLE_EVERY).await
    }

    /// Connects every whole-room subscriber, [`CONNECT_STEP`] at a time, and stops early
    /// when connecting fails or RSS passes `--rss-abort-mib`.
    pub(super) async fn connect_all(
        &self,
        stamps: &[Arc<Stamps>],
        alone: f64,
    ) -> anyhow::Result<(Vec<Fleet>, Connected)> {
        let s = self.s;
        let ctx = SubContext::streaming(
            s.format.format(),
            self.clock,
            self.errors,
            s.decode_every,
            s.encoding == EncodingArg::Compact,
        );
        let specs: Vec<SubSpec> = (0..s.subscribers)
            .map(|index| SubSpec::whole_room(index, 0))
            .collect();
        let connect = Connect {
            clients: std::slice::from_ref(self.client),
            rooms: self.rooms,
            stamps,
            ctx,
            slow_recv_buffer: s.slow_recv_buffer,
            concurrency: s.connect_concurrency,
            room_nodes: 0,
        };
        let started = Instant::now();
        let mut peak = alone;
        let (fleets, aborted) =
            Fleet::connect_in_steps(&specs, CONNECT_STEP, connect, async |_| {
                let now = server_rss::rss(self.client).await?;
                peak = peak.max(now);
                Ok((mib(now) > s.rss_abort_mib).then(|| {
                    format!(
                        "stopped connecting: server RSS {:.0} MiB passed --rss-abort-mib {:.0}",
                        mib(now),
                        s.rss_abort_mib
                    )
                }))
            })
            .await?;
        let connected = Connected {
            count: fleets.iter().map(|f| f.subs.len()).sum(),
            seconds: started.elapsed().as_secs_f64(),
            peak,
            aborted,
        };
        Ok((fleets, connected))
    }

    /// The loaded window: the editors run while RSS is sampled every second; answers
    /// what the subscribers were streamed meanwhile and what it cost the server.
    pub(super) async fn load_window(
        &self,
        stamps: &[Arc<Stamps>],
        subs: &[Arc<SubShared>],
        synced: f64,
    ) -> anyhow::Result<Loaded> {
        let s = self.s;
        let stats = Arc::new(EditStats::default());
        let window = self.window(stamps, &stats, s.seed);
        let cpu_before = server_rss::cpu_seconds(self.client).await.ok();
        let delay_before = ServerDelays::read(self.client).await;
        let rows_before = counters(subs, |m| m.delta_rows.load(Ordering::Relaxed));
        let bytes_before = counters(subs, |m| m.delta_bytes.load(Ordering::Relaxed));
        let (window_s, mut samples) = window.run(s.load_duration()).await?;
        let cpu_after = server_rss::cpu_seconds(self.client).await.ok();
        let delay_after = ServerDelays::read(self.client).await;
        tokio::time::sleep(Duration::from_millis(500)).await;
        // The fewest rows any decoding subscriber was streamed in the window (the
        // others, with `--decode-every`, count frames only).
        let rows_per_sub = subs
            .iter()
            .zip(&rows_before)
            .filter(|(m, _)| decodes(m.spec.index, s.decode_every))
            .map(|(m, before)| m.delta_rows.load(Ordering::Relaxed) - before)
            .min()
            .unwrap_or(0) as f64;
        let rate = |decoding| mean_rate(subs, &bytes_before, s.decode_every, decoding, window_s);
        samples.sort_by(f64::total_cmp);
        Ok(Loaded {
            window_s,
            median: samples.get(samples.len() / 2).copied().unwrap_or(synced),
            max: samples.last().copied().unwrap_or(synced).max(synced),
            cpu: (cpu_before, cpu_after),
            delays: (delay_before, delay_after),
            latency: gather::latency_report(subs, s),
            edits: gather::edit_report(&stats, window_s),
            rows_per_sub,
            decoding_rate: rate(true),
            counting_rate: rate(false),
            ops_sent: stats.ops_sent.load(Ordering::Relaxed) as f64,
        })
    }

    /// Every subscriber leaves; RSS is read once the server counted them gone (or gave
    /// up waiting) and had [`AFTER_LEAVE`] to give their memory back.
    pub(super) async fn leave(
        &self,
        fleets: Vec<Fleet>,
        conns_before: f64,
    ) -> anyhow::Result<Left> {
        for fleet in fleets {
            fleet.stop().await;
        }
        let gone = server_rss::wait_connections(self.client, conns_before, LEAVE_TIMEOUT).await;
        tokio::time::sleep(AFTER_LEAVE).await;
        Ok(Left {
            after: server_rss::median_rss(self.client, SAMPLES, SAMPLE_EVERY).await?,
            gone,
            connections: server_rss::connections(self.client)
                .await
                .unwrap_or(f64::NAN),
        })
    }
}

fn counters(subs: &[Arc<SubShared>], read: impl Fn(&SubShared) -> u64) -> Vec<u64> {
    subs.iter().map(|m| read(m)).collect()
}

/// Delta payload bytes per subscriber per second in the window, over the decoding
/// subscribers (always exact) or the counting ones (`--encoding`).
fn mean_rate(
    subs: &[Arc<SubShared>],
    before: &[u64],
    decode_every: usize,
    decoding: bool,
    window_s: f64,
) -> Option<f64> {
    let (sum, n) = subs
        .iter()
        .zip(before)
        .filter(|(m, _)| decodes(m.spec.index, decode_every) == decoding)
        .fold((0u64, 0u64), |(sum, n), (m, before)| {
            (
                sum + (m.delta_bytes.load(Ordering::Relaxed) - before),
                n + 1,
            )
        });
    (n > 0).then(|| sum as f64 / n as f64 / window_s.max(1e-9))
}
