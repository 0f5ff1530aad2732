//! `canopy-loadtest`: the bundled load-test harness of Canopy.
//!
//! It starts a server in this process (`--spawn`), as a process of its own
//! (`--server-bin`) or a cluster of such processes (`--cluster-spawn`), or targets one
//! or several (`--url`), builds
//! rooms of a chosen tree shape, connects whole-room and region subscribers (some of
//! them slow readers), editors and a query runner, measures edit-to-delta latency,
//! delta traffic, query latency, acks, errors and the server's tick time, then checks
//! that every subscriber's mirror converged to the server's state.
//!
//! Exit status (CI relies on it): 0 when every check passed, 1 when a check failed, 2
//! when the run could not be carried out at all. The module map, by role: `scenario`
//! (flags) and `run` (the phases); `bench` (`--bench NAME`, the resource benchmarks);
//! `target` (the server the harness starts itself, and the open-files limit);
//! `load` (the rooms and the clients that load them); `observe` (the server's numbers,
//! latency, errors and the final check of every mirror); `soak` (what `--soak` adds);
//! `report` (the report, its checks and the live view); `stop` (the signal that ends a
//! phase).

/// mimalloc returns freed memory to the system far more readily than glibc's allocator,
/// whose arenas kept freed snapshot buffers resident after reconnect storms; with it the
/// process's RSS in `--spawn` soaks reflects what the server and harness really hold.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod bench;
mod load;
mod observe;
mod rawws;
mod report;
mod run;
mod scenario;
mod scenario_check;
mod soak;
mod stop;
mod target;
mod wire_options;

use std::process::ExitCode;

use anyhow::Context;

use crate::scenario::Scenario;
use crate::target::child_process::ChildServer;
use crate::target::cluster::SpawnedCluster;
use crate::target::fd_limit;
use crate::target::in_process::SpawnedServer;

fn main() -> ExitCode {
    // The spawned server logs through the same subscriber; by default only errors, so
    // its per-tick warnings under overload do not bury the report (RUST_LOG overrides).
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("error")),
        )
        .init();
    let scenario = Scenario::parse_with_mode_defaults();
    match run(scenario) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("canopy-loadtest: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// The server the harness started, if it did.
enum Started {
    InProcess(SpawnedServer),
    Child(ChildServer),
    Cluster(SpawnedCluster),
}

/// Runs the scenario (or the benchmark) and prints its report; returns whether every
/// check passed.
fn run(mut scenario: Scenario) -> anyhow::Result<bool> {
    scenario.validate()?;
    // Before any socket, and before a child server inherits the limit.
    let fd = fd_limit::raise_to_hard();
    soak_server_args(&mut scenario);
    let mut started = start_servers(&scenario)?;
    let target = target_of(&started, &scenario)?;
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .thread_name("lt-worker")
        .enable_all()
        .build()
        .context("building the harness runtime")?;
    let json = scenario.json;
    let output = match scenario.bench {
        Some(_) => runtime
            .block_on(bench::run(
                &scenario,
                &target.urls,
                &target.label,
                fd,
                match started.as_mut() {
                    Some(Started::Cluster(c)) => Some(c),
                    _ => None,
                },
            ))
            .map(Output::Bench),
        None => runtime
            .block_on(run::run(scenario, target))
            .map(|r| Output::Run(Box::new(r))),
    };
    // Dropping the runtime closes the harness's sockets before the server shuts down.
    drop(runtime);
    match started {
        Some(Started::InProcess(server)) => server.stop()?,
        Some(Started::Child(server)) => server.stop()?,
        Some(Started::Cluster(cluster)) => cluster.stop()?,
        None => {}
    }
    let (text, passed) = render(output?, json)?;
    print!("{text}");
    Ok(passed)
}

/// A soak's write deadline and query quota are the started server's, unless
/// `--server-arg` sets them explicitly.
fn soak_server_args(scenario: &mut Scenario) {
    if !(scenario.soak && (scenario.spawn || scenario.server_bin.is_some())) {
        return;
    }
    let given = |flag: &str| scenario.server_args.iter().any(|a| a.starts_with(flag));
    let mut extra = Vec::new();
    if !given("--ws-write-deadline-secs") {
        extra.push(format!(
            "--ws-write-deadline-secs={}",
            scenario.write_deadline
        ));
    }
    if !given("--query-rate") {
        extra.push(format!("--query-rate={}", scenario.query_quota));
    }
    scenario.server_args.extend(extra);
}

/// The server (or cluster) the harness starts itself, if it starts one.
fn start_servers(scenario: &Scenario) -> anyhow::Result<Option<Started>> {
    Ok(match (&scenario.server_bin, scenario.spawn) {
        (Some(bin), _) if scenario.cluster_spawn.is_some() => {
            Some(Started::Cluster(SpawnedCluster::start(
                scenario
                    .nats_bin
                    .as_deref()
                    .context("--cluster-spawn needs --nats-bin")?,
                bin,
                &scenario.server_args,
                scenario.cluster_spawn.unwrap_or(1),
                scenario.tick_hz,
                scenario.token.as_deref(),
            )?))
        }
        (Some(bin), _) => Some(Started::Child(ChildServer::start(
            bin,
            &scenario.server_args,
            scenario.tick_hz,
        )?)),
        (None, true) => Some(Started::InProcess(SpawnedServer::start(
            &scenario.server_args,
            scenario.tick_hz,
        )?)),
        (None, false) => None,
    })
}

/// Where the run points: the started server or cluster, or `--url`.
fn target_of(started: &Option<Started>, scenario: &Scenario) -> anyhow::Result<run::Target> {
    Ok(match (started, &scenario.url) {
        (Some(Started::InProcess(server)), _) => run::Target {
            urls: vec![server.url()],
            label: format!("in-process server on {}", server.addr),
            in_process: true,
        },
        (Some(Started::Cluster(cluster)), _) => run::Target {
            urls: cluster.nodes.iter().map(ChildServer::url).collect(),
            label: format!(
                "cluster of {} nodes {} around nats://{} ({})",
                cluster.nodes.len(),
                cluster.url_list(),
                cluster.nats_addr,
                cluster.logs()
            ),
            in_process: false,
        },
        (Some(Started::Child(server)), _) => run::Target {
            urls: vec![server.url()],
            label: format!(
                "{} (pid {}, log {})",
                server.url(),
                server.pid().unwrap_or(0),
                server.log.display()
            ),
            in_process: false,
        },
        (None, Some(url)) => run::Target {
            urls: target::urls::parse(url)?,
            label: url.clone(),
            in_process: false,
        },
        (None, None) => anyhow::bail!("give --spawn, --url or --server-bin"),
    })
}

/// The report as text (a table, or JSON with `--json`) and whether it passed.
fn render(output: Output, json: bool) -> anyhow::Result<(String, bool)> {
    Ok(match output {
        Output::Run(report) if json => {
            (serde_json::to_string_pretty(&report)? + "\n", report.passed)
        }
        Output::Run(report) => (report::run_report::render_table(&report), report.passed),
        Output::Bench(report) if json => {
            (serde_json::to_string_pretty(&report)? + "\n", report.passed)
        }
        Output::Bench(report) => (report.render(), report.passed),
    })
}

/// What a run printed its verdict from.
enum Output {
    Run(Box<report::run_report::Report>),
    Bench(bench::table::BenchReport),
}
