//! Reading the server's own numbers over HTTP, so the same code works in-process and
//! remote: `GET /metrics` (Prometheus text: the tick-duration histogram, merged frames,
//! delta frames and bytes, resident memory) and `GET /rooms/{room}` (slowest tick, slow
//! ticks, merged frames, merge-state peak).
//!
//! Invariant: the run reports the server's tick time over the load window only: two
//! scrapes, and the difference of their cumulative counters and buckets.

use anyhow::Context;
use canopy_client::Client;
use serde::Serialize;

/// One sample line of the Prometheus text format.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Sample {
    pub name: String,
    pub labels: Vec<(String, String)>,
    pub value: f64,
}

impl Sample {
    fn label(&self, key: &str) -> Option<&str> {
        self.labels
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// Parses the Prometheus text exposition format (comments and malformed lines are
/// skipped; label values may hold escaped quotes).
pub(crate) fn parse(text: &str) -> Vec<Sample> {
    text.lines().filter_map(parse_line).collect()
}

fn parse_line(line: &str) -> Option<Sample> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return None;
    }
    let (name, labels, rest) = match line.find('{') {
        Some(open) => {
            let close = open + line[open..].rfind('}')?;
            (
                &line[..open],
                parse_labels(&line[open + 1..close])?,
                &line[close + 1..],
            )
        }
        None => {
            let space = line.find(char::is_whitespace)?;
            (&line[..space], Vec::new(), &line[space..])
        }
    };
    // A timestamp may follow the value.
    let value = rest.split_whitespace().next()?;
    let value = match value {
        "+Inf" => f64::INFINITY,
        "-Inf" => f64::NEG_INFINITY,
        v => v.parse().ok()?,
    };
    Some(Sample {
        name: name.trim().to_string(),
        labels,
        value,
    })
}

fn parse_labels(s: &str) -> Option<Vec<(String, String)>> {
    let mut labels = Vec::new();
    let mut chars = s.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| *c == ',' || c.is_whitespace()) {
            chars.next();
        }
        if chars.peek().is_none() {
            return Some(labels);
        }
        let key: String = chars.by_ref().take_while(|c| *c != '=').collect();
        if chars.next()? != '"' {
            return None;
        }
        let mut value = String::new();
        loop {
            match chars.next()? {
                '\\' => match chars.next()? {
                    'n' => value.push('\n'),
                    other => value.push(other),
                },
                '"' => break,
                c => value.push(c),
            }
        }
        labels.push((key.trim().to_string(), value));
    }
}

/// A Prometheus histogram: cumulative `(le, count)` buckets, sum and count.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct PromHistogram {
    pub buckets: Vec<(f64, f64)>,
    pub sum: f64,
    pub count: f64,
}

impl PromHistogram {
    /// The histogram `name` (its `_bucket`, `_sum` and `_count` series).
    pub(crate) fn find(samples: &[Sample], name: &str) -> Option<Self> {
        let bucket = format!("{name}_bucket");
        let mut buckets: Vec<(f64, f64)> = samples
            .iter()
            .filter(|s| s.name == bucket)
            .filter_map(|s| {
                let le = match s.label("le")? {
                    "+Inf" => f64::INFINITY,
                    v => v.parse().ok()?,
                };
                Some((le, s.value))
            })
            .collect();
        if buckets.is_empty() {
            return None;
        }
        buckets.sort_by(|a, b| a.0.total_cmp(&b.0));
        Some(PromHistogram {
            buckets,
            sum: value(samples, &format!("{name}_sum")).unwrap_or(0.0),
            count: value(samples, &format!("{name}_count")).unwrap_or(0.0),
        })
    }

    /// What was observed between `earlier` and `self`.
    pub(crate) fn since(&self, earlier: &PromHistogram) -> PromHistogram {
        let buckets = self
            .buckets
            .iter()
            .map(|&(le, n)| {
                let before = earlier
                    .buckets
                    .iter()
                    .find(|b| b.0 == le)
                    .map_or(0.0, |b| b.1);
                (le, n - before)
            })
            .collect();
        PromHistogram {
            buckets,
            sum: self.sum - earlier.sum,
            count: self.count - earlier.count,
        }
    }

    /// The mean observation, or 0 without observations.
    pub(crate) fn mean(&self) -> f64 {
        if self.count > 0.0 {
            self.sum / self.count
        } else {
            0.0
        }
    }

    /// Observations above `le` (a bucket bound of the server's; 0 if it has no such
    /// bucket).
    pub(crate) fn count_above(&self, le: f64) -> f64 {
        self.buckets
            .iter()
            .find(|b| b.0 == le)
            .map_or(0.0, |b| self.count - b.1)
    }

    /// The upper bound of the bucket that holds quantile `q` (an upper estimate, as
    /// precise as the server's buckets), or 0 without observations.
    pub(crate) fn quantile_upper(&self, q: f64) -> f64 {
        let total = self.buckets.last().map_or(0.0, |b| b.1);
        if total <= 0.0 {
            return 0.0;
        }
        let rank = q * total;
        self.buckets
            .iter()
            .find(|b| b.1 >= rank)
            .map_or(f64::INFINITY, |b| b.0)
    }
}

/// The value of the first series called `name`.
pub(crate) fn value(samples: &[Sample], name: &str) -> Option<f64> {
    samples.iter().find(|s| s.name == name).map(|s| s.value)
}

/// The server-wide numbers of one scrape.
#[derive(Clone, Debug, Default)]
pub(crate) struct ServerScrape {
    pub tick_seconds: PromHistogram,
    /// The log's fdatasync durations (empty for a server that keeps nothing on disk).
    pub fsync_seconds: PromHistogram,
    pub merged_frames: f64,
    pub delta_frames: f64,
    pub delta_bytes: f64,
    pub slow_ticks: f64,
    pub rss_bytes: f64,
}

/// Scrapes `GET /metrics`.
pub(crate) async fn scrape(client: &Client) -> anyhow::Result<ServerScrape> {
    let text = client.metrics().await.context("GET /metrics")?;
    let samples = parse(&text);
    let get = |name: &str| value(&samples, name).unwrap_or(0.0);
    Ok(ServerScrape {
        tick_seconds: PromHistogram::find(&samples, "canopy_tick_duration_seconds")
            .unwrap_or_default(),
        fsync_seconds: PromHistogram::find(&samples, "canopy_storage_fsync_seconds")
            .unwrap_or_default(),
        merged_frames: get("canopy_merged_frames_total"),
        delta_frames: get("canopy_delta_frames_sent_total"),
        delta_bytes: get("canopy_delta_bytes_sent_total"),
        slow_ticks: get("canopy_slow_ticks_total"),
        rss_bytes: get("canopy_process_resident_memory_bytes"),
    })
}

/// The server's numbers over the load window, for the report.
#[derive(Clone, Debug, Default, Serialize)]
pub(crate) struct ServerWindow {
    pub ticks: u64,
    pub tick_mean_ms: f64,
    /// Upper bound of the bucket holding the 99th percentile.
    pub tick_p99_ms_upper: f64,
    /// The slowest tick of the rooms' lives (from `GET /rooms/{room}`).
    pub tick_max_ms: f64,
    pub slow_ticks: u64,
    /// The log's fsyncs in the window (0 in memory): acks wait for them, and delta
    /// frames too unless the server runs with `--live-deltas`.
    pub fsyncs: u64,
    pub fsync_mean_ms: f64,
    /// Upper bound of the bucket holding the 99th percentile.
    pub fsync_p99_ms_upper: f64,
    pub fsyncs_over_100ms: u64,
    pub merged_frames: u64,
    pub pending_merge_entries_peak: u64,
    pub delta_frames_sent: u64,
    pub delta_bytes_sent: u64,
    /// Resident memory of the server's process: with `--spawn` that process is the
    /// harness too, mirrors included.
    pub rss_mb: f64,
}

impl ServerWindow {
    /// The window between two scrapes, with a scrape after the final check and the
    /// rooms' own statistics.
    pub(crate) fn between(
        start: &ServerScrape,
        end: &ServerScrape,
        after_check: &ServerScrape,
        rooms: &[canopy_protocol::http::RoomDetail],
    ) -> Self {
        let ticks = end.tick_seconds.since(&start.tick_seconds);
        let fsyncs = end.fsync_seconds.since(&start.fsync_seconds);
        ServerWindow {
            ticks: ticks.count as u64,
            tick_mean_ms: ticks.mean() * 1000.0,
            tick_p99_ms_upper: ticks.quantile_upper(0.99) * 1000.0,
            tick_max_ms: rooms.iter().map(|r| r.tick_ms_max).fold(0.0, f64::max),
            slow_ticks: (end.slow_ticks - start.slow_ticks) as u64,
            fsyncs: fsyncs.count as u64,
            fsync_mean_ms: fsyncs.mean() * 1000.0,
            fsync_p99_ms_upper: fsyncs.quantile_upper(0.99) * 1000.0,
            fsyncs_over_100ms: fsyncs.count_above(0.1) as u64,
            merged_frames: (after_check.merged_frames - start.merged_frames) as u64,
            pending_merge_entries_peak: rooms
                .iter()
                .map(|r| r.pending_merge_entries_peak)
                .max()
                .unwrap_or(0),
            delta_frames_sent: (end.delta_frames - start.delta_frames) as u64,
            delta_bytes_sent: (end.delta_bytes - start.delta_bytes) as u64,
            rss_mb: end.rss_bytes / (1024.0 * 1024.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = r#"# HELP canopy_tick_duration_seconds Duration of one room tick
# TYPE canopy_tick_duration_seconds histogram
canopy_tick_duration_seconds_bucket{le="0.001"} 10
canopy_tick_duration_seconds_bucket{le="0.005"} 90
canopy_tick_duration_seconds_bucket{le="0.01"} 99
canopy_tick_duration_seconds_bucket{le="+Inf"} 100
canopy_tick_duration_seconds_sum 0.3
canopy_tick_duration_seconds_count 100
canopy_batches_rejected_total{code="bad_request",note="a \"quoted\" value"} 2
canopy_merged_frames_total 7
canopy_process_resident_memory_bytes 1.048576e6 1700000000000
"#;

    #[test]
    fn parses_samples_labels_and_exponents() {
        let samples = parse(TEXT);
        assert_eq!(samples.len(), 9);
        let rejected = samples
            .iter()
            .find(|s| s.name == "canopy_batches_rejected_total")
            .unwrap();
        assert_eq!(rejected.label("code"), Some("bad_request"));
        assert_eq!(rejected.label("note"), Some("a \"quoted\" value"));
        assert_eq!(value(&samples, "canopy_merged_frames_total"), Some(7.0));
        assert_eq!(
            value(&samples, "canopy_process_resident_memory_bytes"),
            Some(1_048_576.0)
        );
    }

    #[test]
    fn histogram_quantiles_and_differences() {
        let samples = parse(TEXT);
        let h = PromHistogram::find(&samples, "canopy_tick_duration_seconds").unwrap();
        assert_eq!(h.buckets.len(), 4);
        assert!((h.mean() - 0.003).abs() < 1e-12);
        assert_eq!(h.quantile_upper(0.5), 0.005);
        assert_eq!(h.quantile_upper(0.99), 0.01);
        assert_eq!(h.quantile_upper(1.0), f64::INFINITY);
        let earlier = PromHistogram {
            buckets: vec![
                (0.001, 10.0),
                (0.005, 10.0),
                (0.01, 10.0),
                (f64::INFINITY, 10.0),
            ],
            sum: 0.005,
            count: 10.0,
        };
        let d = h.since(&earlier);
        assert_eq!(d.count, 90.0);
        assert_eq!(d.quantile_upper(0.5), 0.005);
        assert_eq!(PromHistogram::default().quantile_upper(0.99), 0.0);
        // 100 observed, 90 of them at most 5 ms: 10 above; no such bucket: 0.
        assert_eq!(h.count_above(0.005), 10.0);
        assert_eq!(h.count_above(0.1), 0.0);
        assert_eq!(d.count_above(0.001), 90.0);
    }
}
