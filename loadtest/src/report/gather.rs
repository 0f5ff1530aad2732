//! Turning the run's live counters into the report's numbers: edits, latency, delta
//! traffic per group of subscribers, and queries.
//!
//! Invariant: every rate is per second of the load window, and every per-subscriber
//! figure is the difference of that subscriber's counters between the window's start
//! and end, so reconnects and the quiesce phase never count.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use hdrhistogram::Histogram;

use crate::load::editor::EditStats;
use crate::load::queries::{QueryKind, QueryStats};
use crate::load::subscriber::{Counters, SubShared, SubSpec};
use crate::observe::latency::{self, Summary};
use crate::report::run_report::{
    DeltaGroup, EditReport, KindReport, LatencyReport, QueryReport, Spread,
};
use crate::scenario::Scenario;

/// Edits sent and acknowledged over the window.
pub(crate) fn edit_report(stats: &EditStats, window: f64) -> EditReport {
    let batches_sent = stats.batches_sent.load(Ordering::Relaxed);
    let ops_sent = stats.ops_sent.load(Ordering::Relaxed);
    let acks = stats.acks.load(Ordering::Relaxed);
    EditReport {
        batches_sent,
        ops_sent,
        acks,
        batches_per_s: batches_sent as f64 / window,
        ops_per_s: ops_sent as f64 / window,
        acks_per_s: acks as f64 / window,
        ack_latency: Summary::of(&stats.ack_latency.lock().unwrap_or_else(|e| e.into_inner())),
    }
}

/// Edit-to-delta latency of the fast subscribers, and of the others apart.
pub(crate) fn latency_report(subs: &[Arc<SubShared>], s: &Scenario) -> LatencyReport {
    let mut fast = latency::histogram();
    let mut slow = latency::histogram();
    let mut fast_subscribers = 0;
    for sub in subs {
        let st = sub.lock();
        // Stalled readers read a backlog by design: like slow readers, not "fast".
        let into: &mut Histogram<u64> = if sub.spec.slow || sub.spec.stalled {
            &mut slow
        } else {
            fast_subscribers += 1;
            &mut fast
        };
        // Same bounds everywhere (see `latency`), so adding cannot fail.
        let _ = into.add(&st.latency);
    }
    let tick_ms = s.tick().as_secs_f64() * 1000.0;
    let fast = Summary::of(&fast);
    LatencyReport {
        tick_ms,
        fast_subscribers,
        p99_ticks: fast.p99_ms / tick_ms,
        fast,
        slow: Summary::of(&slow),
    }
}

/// The groups the delta traffic is reported by. Fast readers (neither slow nor
/// stalled) are split by scope; slow and stalled readers are reported apart, since
/// their pauses are the point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DeltaGroupKind {
    Room,
    Region,
    Slow,
    Stalled,
}

impl DeltaGroupKind {
    pub(crate) const ALL: [DeltaGroupKind; 4] = [
        DeltaGroupKind::Room,
        DeltaGroupKind::Region,
        DeltaGroupKind::Slow,
        DeltaGroupKind::Stalled,
    ];

    /// The group's name in the report.
    pub(crate) fn name(self) -> &'static str {
        match self {
            DeltaGroupKind::Room => "room",
            DeltaGroupKind::Region => "region",
            DeltaGroupKind::Slow => "slow",
            DeltaGroupKind::Stalled => "stalled",
        }
    }

    /// Whether `spec` is reported in this group.
    pub(crate) fn includes(self, spec: &SubSpec) -> bool {
        let fast = !spec.slow && !spec.stalled;
        match self {
            DeltaGroupKind::Room => fast && spec.region.is_none(),
            DeltaGroupKind::Region => fast && spec.region.is_some(),
            DeltaGroupKind::Slow => spec.slow,
            DeltaGroupKind::Stalled => spec.stalled,
        }
    }
}

/// Delta traffic per group over the window, from each subscriber's counters at its
/// start and its end (indexed like `subs`).
pub(crate) fn delta_groups(
    subs: &[Arc<SubShared>],
    start: &[Counters],
    end: &[Counters],
    window: f64,
) -> Vec<DeltaGroup> {
    DeltaGroupKind::ALL
        .iter()
        .filter_map(|kind| {
            let spent: Vec<Counters> = (0..subs.len())
                .filter(|&i| kind.includes(&subs[i].spec))
                .map(|i| end[i].since(&start[i]))
                .collect();
            let per = |f: fn(&Counters) -> u64, scale: f64| -> Vec<f64> {
                spent.iter().map(|c| f(c) as f64 * scale).collect()
            };
            (!spent.is_empty()).then(|| DeltaGroup {
                group: kind.name().to_string(),
                subscribers: spent.len(),
                frames_per_s: Spread::of(&per(|c| c.delta_frames, 1.0 / window)),
                bytes_per_s: Spread::of(&per(|c| c.delta_bytes, 1.0 / window)),
                paused_s: Spread::of(&per(|c| c.paused_us, 1e-6)),
            })
        })
        .collect()
}

/// Queries sent and answered over the window, by kind.
pub(crate) fn query_report(stats: &QueryStats, window: f64) -> QueryReport {
    let sent = stats.sent.load(Ordering::Relaxed);
    let kinds: Vec<KindReport> = QueryKind::ALL
        .iter()
        .map(|k| {
            let ks = &stats.kinds[k.index()];
            let answered = ks.answered.load(Ordering::Relaxed);
            KindReport {
                kind: k.name().to_string(),
                answered,
                per_s: answered as f64 / window,
                latency: Summary::of(&ks.latency.lock().unwrap_or_else(|e| e.into_inner())),
            }
        })
        .filter(|k| k.answered > 0)
        .collect();
    QueryReport {
        sent,
        answered: kinds.iter().map(|k| k.answered).sum(),
        per_s: sent as f64 / window,
        kinds,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(slow: bool, stalled: bool, region: bool) -> SubSpec {
        SubSpec {
            index: 0,
            room: 0,
            node: 0,
            region: region.then_some(canopy_protocol::message::Region {
                min: [0.0; 3],
                max: [1.0; 3],
            }),
            follow: None,
            slow,
            stalled,
        }
    }

    #[test]
    fn every_subscriber_is_in_exactly_one_group() {
        for (slow, stalled, region) in [
            (false, false, false),
            (false, false, true),
            (true, false, false),
            (true, false, true),
            (false, true, false),
            (false, true, true),
        ] {
            let s = spec(slow, stalled, region);
            let n = DeltaGroupKind::ALL
                .iter()
                .filter(|k| k.includes(&s))
                .count();
            assert_eq!(n, 1, "{s:?}");
        }
    }
}
