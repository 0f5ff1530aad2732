//! `canopy-loadtest`: the bundled load-test harness of Canopy (issue 5).
//!
//! It starts a server in this process (`--spawn`) or targets one (`--url`), builds
//! rooms of a chosen tree shape, connects whole-room and region subscribers (some of
//! them slow readers), editors and a query runner, measures edit-to-delta latency,
//! delta traffic, query latency, acks, errors and the server's tick time, then checks
//! that every subscriber's mirror converged to the server's state.
//!
//! Exit status (CI relies on it): 0 when every check passed, 1 when a check failed, 2
//! when the run could not be carried out at all. The module map, by role: `scenario`
//! (flags) and `run` (the phases); `target` (the server the harness starts itself);
//! `load` (the rooms and the clients that load them); `observe` (the server's numbers,
//! latency, errors and the final check of every mirror); `soak` (what `--soak` adds);
//! `report` (the report, its checks and the live view); `stop` (the signal that ends a
//! phase).

/// mimalloc returns freed memory to the system far more readily than glibc's allocator,
/// whose arenas kept freed snapshot buffers resident after reconnect storms; with it the
/// process's RSS in `--spawn` soaks reflects what the server and harness really hold.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod load;
mod observe;
mod report;
mod run;
mod scenario;
mod soak;
mod stop;
mod target;

use std::process::ExitCode;

use anyhow::Context;

use crate::scenario::Scenario;
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
    let scenario = Scenario::parse_with_soak_defaults();
    match run(scenario) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("canopy-loadtest: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// Runs the scenario and prints its report; returns whether every check passed.
fn run(mut scenario: Scenario) -> anyhow::Result<bool> {
    scenario.validate()?;
    if scenario.soak && scenario.spawn {
        // The soak's write deadline and query quota are the spawned server's, unless
        // `--server-arg` sets them explicitly.
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
    let server = if scenario.spawn {
        Some(SpawnedServer::start(
            &scenario.server_args,
            scenario.tick_hz,
        )?)
    } else {
        None
    };
    let target = match (&server, &scenario.url) {
        (Some(server), _) => run::Target {
            url: server.url(),
            label: format!("in-process server on {}", server.addr),
            in_process: true,
        },
        (None, Some(url)) => run::Target {
            url: url.clone(),
            label: url.clone(),
            in_process: false,
        },
        (None, None) => anyhow::bail!("give --spawn or --url"),
    };
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .thread_name("lt-worker")
        .enable_all()
        .build()
        .context("building the harness runtime")?;
    let json = scenario.json;
    let report = runtime.block_on(run::run(scenario, target));
    // Dropping the runtime closes the harness's sockets before the server shuts down.
    drop(runtime);
    if let Some(server) = server {
        server.stop()?;
    }
    let report = report?;
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", report::run_report::render_table(&report));
    }
    Ok(report.passed)
}
