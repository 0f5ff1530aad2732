//! The load window of a run: editors, queries and (when soaking) the hostile clients run
//! for the scenario's duration while the subscribers stream; the server is scraped and
//! the harness's CPU read at both ends, so every figure of the report is a difference
//! over exactly the time load was sent.

use std::sync::Arc;
use std::time::Instant;

use anyhow::Context;
use canopy_client::Client;
use canopy_protocol::http::RoomDetail;

use super::{Nodes, RunContext, Target};
use crate::load::editor::{self, EditStats, Editor, EditorContext};
use crate::load::queries::{self, QueryPlan, QueryStats, QueryTarget};
use crate::load::subscriber::{Counters, SubContext, SubShared};
use crate::load::world::World;
use crate::observe::cpu::CpuTimes;
use crate::observe::metrics_scrape::{self, ServerScrape, ServerWindow};
use crate::observe::verify::VerifyOutcome;
use crate::report::run_report::{CpuReport, Report};
use crate::report::{checks, gather, progress};
use crate::scenario::{FormatArg, Scenario};
use crate::soak::invalid::{InvalidEdits, InvalidPlan};
use crate::soak::session::{Soak, SoakReport};
use crate::soak::verdict;
use crate::stop;

/// What the window runs against.
pub(super) struct Load<'a> {
    pub s: &'a Scenario,
    pub client: &'a Client,
    pub world: &'a World,
    pub rooms: &'a [String],
    pub run: &'a RunContext,
    pub sub_ctx: &'a Arc<SubContext>,
    pub subs: &'a [Arc<SubShared>],
}

/// What the window measured.
pub(super) struct Measured {
    window_s: f64,
    edit_stats: Arc<EditStats>,
    query_stats: Arc<QueryStats>,
    counters: (Vec<Counters>, Vec<Counters>),
    scrapes: (ServerScrape, ServerScrape),
    cpu: CpuTimes,
    soak: Option<SoakReport>,
}

/// What the run learned after the window: its setup time, the server once settled, the
/// rooms' details and the mirrors' verdict.
pub(super) struct After {
    pub setup_s: f64,
    pub scrape_after: ServerScrape,
    pub details: Vec<RoomDetail>,
    pub verify: VerifyOutcome,
}

impl Load<'_> {
    /// Runs the window: starts every load task, waits the scenario's duration, stops
    /// them and waits for them to end.
    pub(super) async fn run(
        &self,
        editors: Vec<Editor>,
        query_target: QueryTarget,
    ) -> anyhow::Result<Measured> {
        let (s, run) = (self.s, self.run);
        let edit_stats = Arc::new(EditStats::default());
        let query_stats = Arc::new(QueryStats::default());
        let (stop_tx, stop_rx) = stop::channel();
        let scrape_start = metrics_scrape::scrape(self.client).await?;
        let cpu_start = CpuTimes::now();
        let counters_start = Counters::of_all(self.subs);
        self.sub_ctx.start_pauses();
        let window_started = Instant::now();
        let soak = if s.soak {
            Some(Soak::start(
                s,
                self.client,
                self.rooms,
                self.world,
                self.subs,
                &run.errors,
                &stop_rx,
            )?)
        } else {
            None
        };
        let mut load = self.spawn_editors(editors, &edit_stats, &stop_rx);
        load.push(tokio::spawn(queries::run(
            query_target,
            self.query_plan(&query_stats),
            stop_rx.clone(),
        )));
        let shown = tokio::spawn(progress::run(
            progress::Sources {
                edits: Arc::clone(&edit_stats),
                queries: Arc::clone(&query_stats),
                errors: Arc::clone(&run.errors),
                subs: self.subs.to_vec(),
            },
            s.load_duration(),
            stop_rx.clone(),
        ));
        tokio::time::sleep(s.load_duration()).await;
        stop_tx.raise();
        let window_s = window_started.elapsed().as_secs_f64();
        let counters_end = Counters::of_all(self.subs);
        for task in load {
            task.await.context("a load task panicked")?;
        }
        let _ = shown.await;
        let soak = match soak {
            Some(soak) => Some(soak.finish(s, self.subs, &run.expected).await),
            None => None,
        };
        let cpu = CpuTimes::now().since(&cpu_start);
        let scrape_end = metrics_scrape::scrape(self.client).await?;
        Ok(Measured {
            window_s,
            edit_stats,
            query_stats,
            counters: (counters_start, counters_end),
            scrapes: (scrape_start, scrape_end),
            cpu,
            soak,
        })
    }

    fn spawn_editors(
        &self,
        editors: Vec<Editor>,
        stats: &Arc<EditStats>,
        stop_rx: &stop::Stop,
    ) -> Vec<tokio::task::JoinHandle<()>> {
        let (s, run) = (self.s, self.run);
        let edit_ctx = EditorContext {
            rate: s.edit_rate,
            batch_size: s.batch_size,
            clock: run.clock,
            stats: Arc::clone(stats),
            errors: Arc::clone(&run.errors),
            invalid: s.soak.then(|| InvalidEdits {
                share: s.invalid_batches,
                plan: InvalidPlan {
                    cycle: self.world.cycle_pair(),
                    nan_on_wire: s.format == FormatArg::Bincode,
                },
                expected: Arc::clone(&run.expected),
            }),
        };
        editors
            .into_iter()
            .enumerate()
            .map(|(i, ed)| {
                let seed = s.seed.wrapping_mul(1_000_003).wrapping_add(i as u64);
                tokio::spawn(editor::run(ed, edit_ctx.clone(), seed, stop_rx.clone()))
            })
            .collect()
    }

    fn query_plan(&self, stats: &Arc<QueryStats>) -> QueryPlan {
        QueryPlan {
            rate: self.s.queries,
            mix: self.s.query_mix,
            seed: self.s.seed ^ 0x9e37_79b9,
            min: self.world.min,
            max: self.world.max,
            clock: self.run.clock,
            stats: Arc::clone(stats),
            errors: Arc::clone(&self.run.errors),
        }
    }
}

impl Measured {
    /// The run's report, its checks evaluated.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn report(
        self,
        s: &Scenario,
        target: &Target,
        nodes: &Nodes,
        rooms: &[String],
        run: &RunContext,
        subs: &[Arc<SubShared>],
        after: After,
    ) -> Report {
        let window = self.window_s;
        let tick_ms = s.tick().as_secs_f64() * 1e3;
        let mut report = Report {
            scenario: s.clone(),
            target: target.label.clone(),
            setup_s: after.setup_s,
            window_s: window,
            edits: gather::edit_report(&self.edit_stats, window),
            latency: gather::latency_report(subs, s),
            per_node: nodes
                .map
                .as_ref()
                .map(|m| crate::report::per_node::cluster_latency(subs, m, rooms, tick_ms)),
            deltas: gather::delta_groups(subs, &self.counters.0, &self.counters.1, window),
            queries: gather::query_report(&self.query_stats, window),
            errors: run.errors.snapshot(),
            server: ServerWindow::between(
                &self.scrapes.0,
                &self.scrapes.1,
                &after.scrape_after,
                &after.details,
            ),
            cpu: CpuReport::new(
                self.cpu,
                window,
                std::thread::available_parallelism().map_or(1, |n| n.get()),
                target.in_process,
            ),
            verify: after.verify,
            soak: self.soak,
            checks: Vec::new(),
            passed: false,
        };
        report.checks = checks::evaluate(&report);
        if let Some(soak) = &report.soak {
            report.checks.extend(verdict::checks(s, soak));
        }
        report.passed = report.checks.iter().all(|c| c.passed);
        report
    }
}
