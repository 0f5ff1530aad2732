//! Queries: random region, sphere, ray and nearest queries inside the world's bounds,
//! sent at a fixed total rate over WebSocket (SDK connections) or HTTP (SDK client),
//! with latency per kind.
//!
//! Invariant: every query the generator makes is valid by the contract (finite numbers,
//! `min <= max`, a non-zero ray direction, `k >= 1`), so any error answer is a server
//! error and counts against the run.

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use canopy_client::{Client, Connection};
use canopy_protocol::Query;
use canopy_protocol::query::{NearestQuery, RayQuery, RegionQuery, SphereQuery};
use hdrhistogram::Histogram;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde::Serialize;
use tokio::task::JoinSet;
use tokio::time::MissedTickBehavior;

use crate::load::query_mix::QueryMix;
use crate::load::stamps::Clock;
use crate::observe::errors::ErrorTally;
use crate::observe::latency;
use crate::stop::Stop;

/// The four spatial query kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum QueryKind {
    Region,
    Sphere,
    Ray,
    Nearest,
}

impl QueryKind {
    pub(crate) const ALL: [QueryKind; 4] = [
        QueryKind::Region,
        QueryKind::Sphere,
        QueryKind::Ray,
        QueryKind::Nearest,
    ];

    pub(crate) fn index(self) -> usize {
        self as usize
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            QueryKind::Region => "region",
            QueryKind::Sphere => "sphere",
            QueryKind::Ray => "ray",
            QueryKind::Nearest => "nearest",
        }
    }
}

/// Answers and latency (microseconds) of one kind.
#[derive(Debug)]
pub(crate) struct KindStats {
    pub answered: AtomicU64,
    pub latency: Mutex<Histogram<u64>>,
}

/// Per-kind statistics, indexed by [`QueryKind::index`].
#[derive(Debug)]
pub(crate) struct QueryStats {
    pub sent: AtomicU64,
    pub kinds: [KindStats; 4],
}

impl Default for QueryStats {
    fn default() -> Self {
        QueryStats {
            sent: AtomicU64::new(0),
            kinds: std::array::from_fn(|_| KindStats {
                answered: AtomicU64::new(0),
                latency: Mutex::new(latency::histogram()),
            }),
        }
    }
}

/// Where queries go: per room, WebSocket connections (used round robin) or the HTTP
/// client and the room ids.
#[derive(Debug)]
pub(crate) enum QueryTarget {
    Ws(Vec<Vec<Connection>>),
    Http(Client, Vec<String>),
}

/// A random, valid query of `kind` within `[min, max]`.
pub(crate) fn make_query(
    kind: QueryKind,
    rng: &mut SmallRng,
    min: [f32; 3],
    max: [f32; 3],
) -> Query {
    let mut point = || -> [f32; 3] { std::array::from_fn(|a| rng.random_range(min[a]..=max[a])) };
    let p = point();
    match kind {
        QueryKind::Region => Query::Region(RegionQuery {
            min: [p[0] - 10.0, min[1], p[2] - 10.0],
            max: [p[0] + 10.0, max[1], p[2] + 10.0],
            mask: u32::MAX,
        }),
        QueryKind::Sphere => Query::Sphere(SphereQuery {
            center: Some(p),
            around: None,
            radius: 5.0 + (p[1] - min[1]).abs().min(10.0),
            mask: u32::MAX,
        }),
        QueryKind::Ray => {
            let q = point();
            // From above the world, steeply down with some slant.
            let dir = [(q[0] - p[0]) * 0.01, -1.0, (q[2] - p[2]) * 0.01];
            Query::Ray(RayQuery {
                origin: [p[0], max[1] + 5.0, p[2]],
                dir,
                max_t: None,
                mask: u32::MAX,
                all: false,
            })
        }
        QueryKind::Nearest => Query::Nearest(NearestQuery {
            point: Some(p),
            around: None,
            k: 8,
            max_dist: None,
            mask: u32::MAX,
        }),
    }
}

/// Everything the query runner needs.
#[derive(Debug)]
pub(crate) struct QueryPlan {
    pub rate: f64,
    pub mix: QueryMix,
    pub seed: u64,
    pub min: [f32; 3],
    pub max: [f32; 3],
    pub clock: Clock,
    pub stats: Arc<QueryStats>,
    pub errors: Arc<ErrorTally>,
}

/// Sends queries at `plan.rate` until `stop` turns true, then waits for the answers in
/// flight.
pub(crate) async fn run(target: QueryTarget, plan: QueryPlan, mut stop: Stop) {
    let rooms = match &target {
        QueryTarget::Ws(conns) => conns.len(),
        QueryTarget::Http(_, rooms) => rooms.len(),
    };
    if plan.rate <= 0.0 || plan.mix.total() == 0 || rooms == 0 {
        return;
    }
    let target = Arc::new(target);
    let mut rng = SmallRng::seed_from_u64(plan.seed);
    let mut interval = tokio::time::interval(Duration::from_secs_f64(1.0 / plan.rate));
    // Open-loop, like the editors: late ticks are caught up, not skipped.
    interval.set_missed_tick_behavior(MissedTickBehavior::Burst);
    let mut in_flight = JoinSet::new();
    let mut n = 0usize;
    loop {
        tokio::select! {
            biased;
            _ = stop.raised() => break,
            _ = interval.tick() => {}
        }
        let kind = plan.mix.pick(rng.random_range(0..plan.mix.total()));
        let query = make_query(kind, &mut rng, plan.min, plan.max);
        let room = n % rooms;
        let slot = n / rooms;
        n += 1;
        plan.stats.sent.fetch_add(1, Ordering::Relaxed);
        let target = Arc::clone(&target);
        let stats = Arc::clone(&plan.stats);
        let errors = Arc::clone(&plan.errors);
        let clock = plan.clock;
        in_flight.spawn(async move {
            let start = clock.now_us();
            let result = match &*target {
                QueryTarget::Ws(conns) => {
                    let conns = &conns[room];
                    conns[slot % conns.len()].query(query).await
                }
                QueryTarget::Http(client, ids) => client.query(&ids[room], &query).await,
            };
            match result {
                Ok(_) => {
                    let k = &stats.kinds[kind.index()];
                    k.answered.fetch_add(1, Ordering::Relaxed);
                    let took = clock.now_us().saturating_sub(start);
                    latency::record(
                        &mut k.latency.lock().unwrap_or_else(|e| e.into_inner()),
                        took,
                    );
                }
                Err(e) => errors.record_client(kind.name(), &e),
            }
        });
        while in_flight.try_join_next().is_some() {}
    }
    while in_flight.join_next().await.is_some() {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_queries_are_valid() {
        let mut rng = SmallRng::seed_from_u64(3);
        let (min, max) = ([-5.0, 0.0, -5.0], [50.0, 4.0, 50.0]);
        for i in 0..400 {
            match make_query(QueryKind::ALL[i % 4], &mut rng, min, max) {
                Query::Region(q) => assert!((0..3).all(|a| q.min[a] <= q.max[a])),
                Query::Sphere(q) => assert!(q.radius >= 0.0 && q.radius.is_finite()),
                Query::Ray(q) => assert!(q.dir.iter().any(|v| *v != 0.0)),
                Query::Nearest(q) => assert!(q.k >= 1),
            }
        }
    }
}
