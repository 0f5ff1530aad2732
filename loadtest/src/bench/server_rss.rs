//! The server's resident memory, CPU time, connection count and delay histograms as a
//! benchmark reads them, from `GET /metrics`: several samples and their median, so that
//! one sample taken between an allocation and its release does not make the figure.
//!
//! Invariant: a failed scrape is skipped, never read as 0; no sample at all is an
//! error of the benchmark, not a figure.

use std::time::Duration;

use anyhow::{Context, bail};
use canopy_client::Client;

use crate::bench::table::BenchReport;
use crate::observe::metrics_scrape;

/// The open WebSocket connections in `/metrics`.
const CONNECTIONS_METRIC: &str = "canopy_ws_connections";

/// The server process's CPU time (user and system) in `/metrics`, to the hundredth of a second.
const CPU_METRIC: &str = "canopy_process_cpu_seconds";

/// The standard metric, in whole seconds: the fallback for servers without the above.
const CPU_METRIC_COARSE: &str = "process_cpu_seconds_total";

/// The median of `n` RSS samples `every` apart, in bytes.
pub(crate) async fn median_rss(client: &Client, n: usize, every: Duration) -> anyhow::Result<f64> {
    let mut samples = Vec::with_capacity(n);
    for i in 0..n {
        if i > 0 {
            tokio::time::sleep(every).await;
        }
        if let Ok(s) = metrics_scrape::scrape(client).await
            && s.rss_bytes > 0.0
        {
            samples.push(s.rss_bytes);
        }
    }
    if samples.is_empty() {
        bail!("no RSS sample from /metrics (canopy_process_resident_memory_bytes)");
    }
    samples.sort_by(f64::total_cmp);
    Ok(samples[samples.len() / 2])
}

/// One RSS sample, in bytes.
pub(crate) async fn rss(client: &Client) -> anyhow::Result<f64> {
    let s = metrics_scrape::scrape(client).await?;
    if s.rss_bytes <= 0.0 {
        bail!("/metrics has no canopy_process_resident_memory_bytes");
    }
    Ok(s.rss_bytes)
}

/// The server's open WebSocket connections.
pub(crate) async fn connections(client: &Client) -> anyhow::Result<f64> {
    let text = client.metrics().await.context("GET /metrics")?;
    metrics_scrape::value(&metrics_scrape::parse(&text), CONNECTIONS_METRIC)
        .with_context(|| format!("/metrics has no {CONNECTIONS_METRIC}"))
}

/// The server's RSS once a second until `end`, in bytes: a server too busy to answer
/// `/metrics` in time misses a sample rather than stretching the window.
pub(crate) async fn sample_until(client: &Client, end: tokio::time::Instant) -> Vec<f64> {
    let mut samples = Vec::new();
    while tokio::time::Instant::now() < end {
        tokio::time::sleep(Duration::from_secs(1)).await;
        let left = end.saturating_duration_since(tokio::time::Instant::now());
        if let Ok(Ok(r)) = tokio::time::timeout(left, rss(client)).await {
            samples.push(r);
        }
    }
    samples
}

/// The server process's CPU seconds so far (user and system, all threads; the kernel's
/// work on the process's sockets included, as the kernel charges it).
pub(crate) async fn cpu_seconds(client: &Client) -> anyhow::Result<f64> {
    let text = client.metrics().await.context("GET /metrics")?;
    let parsed = metrics_scrape::parse(&text);
    metrics_scrape::value(&parsed, CPU_METRIC)
        .or_else(|| metrics_scrape::value(&parsed, CPU_METRIC_COARSE))
        .with_context(|| format!("/metrics has neither {CPU_METRIC} nor {CPU_METRIC_COARSE}"))
}

/// The server's two delay histograms and its tick durations, read before and after a
/// loaded window: the fan-out's (`canopy_fanout_delay_seconds`: from a tick handing a
/// frame to the flushers until it was written) and the ticks' start
/// (`canopy_tick_start_delay_seconds`: how late each tick started after its slot on the
/// grid). Against edit-to-delta they tell the server's own waits apart from the
/// harness's reading.
pub(crate) struct ServerDelays {
    fanout: Option<metrics_scrape::PromHistogram>,
    tick_start: Option<metrics_scrape::PromHistogram>,
    /// How long each tick took (`canopy_tick_duration_seconds`): the room's own work,
    /// scopes included, against the fan-out's writes after it.
    tick: Option<metrics_scrape::PromHistogram>,
    /// Delta frames written in all, by the flushers, and merged (see [`FrameCounts`]).
    frames: Option<FrameCounts>,
}

/// The server's delta-frame counters at one moment.
#[derive(Clone, Copy, Debug, PartialEq)]
struct FrameCounts {
    /// `canopy_delta_frames_sent_total`.
    sent: f64,
    /// `canopy_flushed_delta_frames_total`: those a flusher wrote.
    flushed: f64,
    /// `canopy_merged_frames_total`.
    merged: f64,
}

impl FrameCounts {
    /// The row that tells where a window's frames went: each flush entry is one write
    /// turn for one outbox (one observation of the fan-out histogram), so flushed frames
    /// beyond the entries waited for a flusher past their own tick.
    fn row(before: FrameCounts, after: FrameCounts, entries: f64) -> String {
        let sent = after.sent - before.sent;
        let flushed = after.flushed - before.flushed;
        let merged = after.merged - before.merged;
        let late = (flushed - entries).max(0.0);
        let share = |n: f64| if sent > 0.0 { 100.0 * n / sent } else { 0.0 };
        format!(
            "{sent:.0} delta frames: {flushed:.0} by the flushers in {entries:.0} turns ({late:.0}, \
             {:.1}%, waited past their tick and went with a later one), {:.0} ({:.1}%) by \
             writer tasks after a full socket, {merged:.0} merged",
            share(late),
            sent - flushed,
            share(sent - flushed),
        )
    }
}

impl ServerDelays {
    /// Both histograms as the server has them now (either may be missing: an older server).
    pub(crate) async fn read(client: &Client) -> ServerDelays {
        let parsed = client
            .metrics()
            .await
            .ok()
            .map(|text| metrics_scrape::parse(&text));
        let find = |name| {
            parsed
                .as_ref()
                .and_then(|p| metrics_scrape::PromHistogram::find(p, name))
        };
        let counter = |name| parsed.as_ref().and_then(|p| metrics_scrape::value(p, name));
        let frames = match (
            counter(FRAMES_SENT_METRIC),
            counter(FRAMES_FLUSHED_METRIC),
            counter(FRAMES_MERGED_METRIC),
        ) {
            (Some(sent), Some(flushed), Some(merged)) => Some(FrameCounts {
                sent,
                flushed,
                merged,
            }),
            _ => None,
        };
        ServerDelays {
            fanout: find(FANOUT_DELAY_METRIC),
            tick_start: find(TICK_START_DELAY_METRIC),
            tick: find(TICK_DURATION_METRIC),
            frames,
        }
    }

    /// One row per histogram the server had at both reads: what the window added.
    pub(crate) fn report_since(&self, before: &ServerDelays, report: &mut BenchReport) {
        let rows = [
            (
                "server fan-out delay",
                &before.fanout,
                &self.fanout,
                "tick to socket write",
            ),
            (
                "server tick start delay",
                &before.tick_start,
                &self.tick_start,
                "tick grid slot to tick start",
            ),
            (
                "server tick duration",
                &before.tick,
                &self.tick,
                "each tick's own work",
            ),
        ];
        if let (Some(a), Some(b), Some(fa), Some(fb)) =
            (&before.fanout, &self.fanout, before.frames, self.frames)
        {
            report.row("server frames", FrameCounts::row(fa, fb, b.since(a).count));
        }
        for (name, a, b, what) in rows {
            let (Some(a), Some(b)) = (a, b) else { continue };
            let d = b.since(a);
            report.row(
                name,
                format!(
                    "p50 <= {:.1} / p99 <= {:.1} ms, mean {:.2} ms over {} ({what}; bucket bounds)",
                    d.quantile_upper(0.5) * 1e3,
                    d.quantile_upper(0.99) * 1e3,
                    d.mean() * 1e3,
                    d.count
                ),
            );
        }
    }
}

/// See [`ServerDelays`].
const FANOUT_DELAY_METRIC: &str = "canopy_fanout_delay_seconds";
/// See [`ServerDelays`].
const TICK_START_DELAY_METRIC: &str = "canopy_tick_start_delay_seconds";
/// See [`ServerDelays`].
const TICK_DURATION_METRIC: &str = "canopy_tick_duration_seconds";
/// See [`FrameCounts`].
const FRAMES_SENT_METRIC: &str = "canopy_delta_frames_sent_total";
/// See [`FrameCounts`].
const FRAMES_FLUSHED_METRIC: &str = "canopy_flushed_delta_frames_total";
/// See [`FrameCounts`].
const FRAMES_MERGED_METRIC: &str = "canopy_merged_frames_total";

/// Waits until the server counts at most `target` WebSocket connections, for at most
/// `within`; returns whether it did.
pub(crate) async fn wait_connections(client: &Client, target: f64, within: Duration) -> bool {
    let started = tokio::time::Instant::now();
    while started.elapsed() < within {
        if connections(client).await.is_ok_and(|n| n <= target) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_counts_say_how_many_waited_past_their_tick() {
        let before = FrameCounts {
            sent: 100.0,
            flushed: 90.0,
            merged: 1.0,
        };
        let after = FrameCounts {
            sent: 1_100.0,
            flushed: 990.0,
            merged: 3.0,
        };
        assert_eq!(
            FrameCounts::row(before, after, 700.0),
            "1000 delta frames: 900 by the flushers in 700 turns (200, 20.0%, waited past \
             their tick and went with a later one), 100 (10.0%) by writer tasks after a \
             full socket, 2 merged"
        );
    }
}
