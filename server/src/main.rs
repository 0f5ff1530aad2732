//! The `canopy` binary: parses flags, sets up logging, optionally seeds the demo room,
//! and serves until SIGINT or SIGTERM.

use anyhow::Context;
use canopy_server::config::ServerConfig;
use canopy_server::registry::AppState;
use clap::Parser;

/// mimalloc returns freed memory to the system far more readily than glibc's allocator,
/// whose per-thread arenas kept snapshot and frame buffers resident across reconnect
/// storms in the soak runs, so RSS tracks what the server really holds.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("CANOPY_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .init();
    let config = ServerConfig::parse();
    if config.admin_token.is_none() {
        if !config.addr.ip().is_loopback() && !config.insecure_open {
            anyhow::bail!(
                "refusing to listen on {} without an admin token: set --admin-token \
                 (CANOPY_ADMIN_TOKEN), listen on a loopback address, or pass --insecure-open",
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
    let state = AppState::new(config.clone());
    if config.demo {
        let nodes = canopy_server::demo::create(&state).context("creating the demo room")?;
        tracing::info!(nodes, "demo room `demo` is running");
    }
    tracing::info!(%addr, open = config.admin_token.is_none(), "canopy listening");
    canopy_server::server::run(listener, state, canopy_server::server::shutdown_signal()).await?;
    Ok(())
}
