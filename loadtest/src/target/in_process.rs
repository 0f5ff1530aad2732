//! `--spawn`: the Canopy server started inside the harness's process, on its own Tokio
//! runtime and threads, listening on 127.0.0.1 on an ephemeral port; in memory unless a
//! `--server-arg` chooses the storage (see [`super`]).
//!
//! The server gets a runtime of its own (threads named `srv-*`) rather than sharing
//! the harness's, so that a busy harness cannot starve the tick task through the same
//! scheduler queue, and so that `cpu` can tell the two apart by thread name.
//! Invariant: [`SpawnedServer::stop`] returns only after the server has shut down
//! gracefully and its runtime's threads are gone.

use std::net::SocketAddr;
use std::thread::JoinHandle;

use anyhow::Context;
use canopy_server::config::ServerConfig;
use canopy_server::state::AppState;
use clap::Parser;
use tokio::sync::oneshot;

/// Worker threads of the server's runtime: the machine's cores, as the real binary
/// would use.
fn server_workers() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get())
}

/// A running in-process server.
#[derive(Debug)]
pub(crate) struct SpawnedServer {
    pub addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<anyhow::Result<()>>>,
}

impl SpawnedServer {
    /// Starts a server with the default configuration changed by `args` (flags as on
    /// `canopy`'s command line) and `tick_hz`, and waits until it listens.
    pub(crate) fn start(args: &[String], tick_hz: u32) -> anyhow::Result<Self> {
        // No drain before the shutdown: nothing balances load onto a harness's server.
        let mut argv = vec![
            "canopy".to_string(),
            format!("--tick-hz={tick_hz}"),
            "--drain-secs=0".to_string(),
        ];
        argv.extend(super::storage_args(args).map(String::from));
        argv.extend(args.iter().cloned());
        let mut config = ServerConfig::try_parse_from(&argv).context("parsing --server-arg")?;
        config.addr = SocketAddr::from(([127, 0, 0, 1], 0));
        let (ready_tx, ready_rx) = std::sync::mpsc::channel::<anyhow::Result<SocketAddr>>();
        let (stop_tx, stop_rx) = oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("srv-main".into())
            .spawn(move || -> anyhow::Result<()> {
                let runtime = tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(server_workers())
                    .thread_name("srv-worker")
                    .enable_all()
                    .build()
                    .context("building the server runtime")?;
                runtime.block_on(async move {
                    let listener = match tokio::net::TcpListener::bind(config.addr).await {
                        Ok(l) => l,
                        Err(e) => {
                            let _ = ready_tx.send(Err(e.into()));
                            return Ok(());
                        }
                    };
                    let _ = ready_tx.send(listener.local_addr().map_err(Into::into));
                    let state = AppState::new(config);
                    canopy_server::net::run(listener, state, async {
                        let _ = stop_rx.await;
                    })
                    .await
                    .context("serving")
                })
            })
            .context("starting the server thread")?;
        let addr = ready_rx
            .recv()
            .context("the server thread ended before listening")??;
        Ok(SpawnedServer {
            addr,
            stop: Some(stop_tx),
            thread: Some(thread),
        })
    }

    /// The base URL of the server.
    pub(crate) fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Shuts the server down gracefully and waits for its thread.
    pub(crate) fn stop(mut self) -> anyhow::Result<()> {
        self.shutdown()
    }

    fn shutdown(&mut self) -> anyhow::Result<()> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        match self.thread.take() {
            Some(thread) => thread
                .join()
                .map_err(|_| anyhow::anyhow!("the server thread panicked"))?,
            None => Ok(()),
        }
    }
}

impl Drop for SpawnedServer {
    fn drop(&mut self) {
        // A run that bails out early still stops its server instead of leaking the
        // thread; its error is the run's, not this one's.
        let _ = self.shutdown();
    }
}
