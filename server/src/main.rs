//! The `canopy` binary: reads its configuration (flags, `CANOPY_*` variables, an optional
//! file), sets up logging, optionally seeds the demo room, and serves until SIGINT or
//! SIGTERM; or runs one of its tools (`canopy config defaults`).

use std::io::IsTerminal;

use anyhow::Context;
use canopy_server::config::{Cli, ConfigAction, LogFormat, ServerConfig, Tool};
use canopy_server::state::AppState;

/// mimalloc returns freed memory to the system far more readily than glibc's allocator,
/// whose per-thread arenas kept snapshot and frame buffers resident across reconnect
/// storms in the soak runs, so RSS tracks what the server really holds.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn init_logging(format: LogFormat) {
    let filter = tracing_subscriber::EnvFilter::try_from_env("CANOPY_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    match format {
        LogFormat::Json => builder.json().flatten_event(true).init(),
        // Colour codes only where a person reads them, never into files or `docker logs`.
        LogFormat::Text => builder.with_ansi(std::io::stderr().is_terminal()).init(),
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let cli = Cli::load()?;
    match cli.command {
        Some(Tool::Config {
            action: ConfigAction::Defaults,
        }) => {
            print!("{}", canopy_server::config::defaults_file());
            Ok(())
        }
        Some(Tool::Verify { data_dir }) => {
            let report =
                canopy_server::durability::verify(&data_dir).map_err(anyhow::Error::msg)?;
            println!("{report}");
            println!("ok: a server can start on {}", data_dir.display());
            Ok(())
        }
        Some(Tool::Snapshot { data_dir }) => {
            init_logging(cli.serve.log_format);
            let done =
                canopy_server::durability::snapshot_all(&data_dir).map_err(anyhow::Error::msg)?;
            println!("{done}");
            Ok(())
        }
        None => serve(cli.serve).await,
    }
}

async fn serve(config: ServerConfig) -> anyhow::Result<()> {
    init_logging(config.log_format);
    if !config.has_access_control() {
        if !config.addr.ip().is_loopback() && !config.insecure_open {
            anyhow::bail!(
                "refusing to listen on {} without an admin token: set --admin-token \
                 (CANOPY_ADMIN_TOKEN) or JWT keys, listen on a loopback address, or pass \
                 --insecure-open",
                config.addr
            );
        }
        tracing::warn!(
            "NO ADMIN TOKEN: the server runs OPEN; anyone who can reach {} may create, \
             edit and delete rooms",
            config.addr
        );
    }
    let listener = tokio::net::TcpListener::bind(config.addr)
        .await
        .with_context(|| format!("binding {}", config.addr))?;
    let addr = listener.local_addr()?;
    let state = AppState::try_new(config.clone()).map_err(anyhow::Error::msg)?;
    if config.demo {
        let nodes = canopy_server::demo::create(&state).context("creating the demo room")?;
        tracing::info!(nodes, "demo room `demo` is running");
    }
    tracing::info!(
        %addr,
        open = !config.has_access_control(),
        version = env!("CARGO_PKG_VERSION"),
        protocol = canopy_protocol::PROTOCOL_VERSION,
        tick_threads = state.pool.threads(),
        "canopy listening"
    );
    canopy_server::server::run(listener, state, canopy_server::server::shutdown_signal()).await?;
    Ok(())
}
