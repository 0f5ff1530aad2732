//! `--cluster-spawn N`: a cluster started by the harness, each server a process of its
//! own. A NATS server with JetStream (`--nats-bin`, on a free loopback port, its store
//! in a temporary directory, `max_payload` 32 MiB, `sync_interval: always`) and `N`
//! `canopy` processes started as `--server-bin` starts one (see `child_process`), each
//! with `--nats-url` and `--cluster-node node-I` added to the `--server-arg`s.
//!
//! Invariant: everything started here is stopped by its own pid (the nodes first, then
//! NATS) and the NATS store removed, also when the run fails; the nodes are only
//! handed out once each has joined (its `GET /cluster` lists all `N`).

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use rustix::process::{Pid, Signal, kill_process};

use crate::target::child_process::ChildServer;

/// How long NATS may take to listen, and the cluster to see all its nodes.
const START_TIMEOUT: Duration = Duration::from_secs(20);

/// The name of node `i` (from 0).
pub(crate) fn node_name(i: usize) -> String {
    format!("node-{}", i + 1)
}

/// The arguments node `i` gets besides `--server-arg`s.
pub(crate) fn node_args(args: &[String], nats_url: &str, i: usize) -> Vec<String> {
    let mut all = args.to_vec();
    all.push(format!("--nats-url={nats_url}"));
    all.push(format!("--cluster-node={}", node_name(i)));
    all
}

/// The NATS configuration for a store in `store` on `port`.
pub(crate) fn nats_config(port: u16, store: &Path) -> String {
    format!(
        "listen: 127.0.0.1:{port}\nmax_payload: 33554432\n\
         jetstream {{ store_dir: {:?}, sync_interval: always }}\n",
        store
    )
}

/// A started cluster.
pub(crate) struct SpawnedCluster {
    /// The nodes, in order (`node-1` first).
    pub nodes: Vec<ChildServer>,
    nats: Option<Child>,
    pub nats_addr: SocketAddr,
    dir: PathBuf,
}

impl SpawnedCluster {
    /// Starts NATS and `n` nodes and waits until every node sees all of them.
    pub(crate) fn start(
        nats_bin: &Path,
        server_bin: &Path,
        args: &[String],
        n: usize,
        tick_hz: u32,
        token: Option<&str>,
    ) -> anyhow::Result<SpawnedCluster> {
        let port = TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
        let nats_addr = SocketAddr::from(([127, 0, 0, 1], port));
        let dir = std::env::temp_dir().join(format!(
            "canopy-loadtest-{}-nats-{port}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        let conf = dir.join("nats.conf");
        std::fs::write(&conf, nats_config(port, &dir.join("js")))?;
        let log = std::fs::File::create(dir.join("nats.log"))?;
        let nats = Command::new(nats_bin)
            .arg("-c")
            .arg(&conf)
            .stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log)
            .spawn()
            .with_context(|| format!("starting {}", nats_bin.display()))?;
        let mut cluster = SpawnedCluster {
            nodes: Vec::with_capacity(n),
            nats: Some(nats),
            nats_addr,
            dir,
        };
        let started = Instant::now();
        while TcpStream::connect_timeout(&nats_addr, Duration::from_millis(200)).is_err() {
            if started.elapsed() > START_TIMEOUT {
                bail!("nats-server did not listen on {nats_addr} within 20 s");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let nats_url = format!("nats://{nats_addr}");
        for i in 0..n {
            cluster.nodes.push(ChildServer::start(
                server_bin,
                &node_args(args, &nats_url, i),
                tick_hz,
            )?);
        }
        cluster.wait_joined(token)?;
        Ok(cluster)
    }

    /// Waits until every node's `GET /cluster` lists every node.
    fn wait_joined(&self, token: Option<&str>) -> anyhow::Result<()> {
        let started = Instant::now();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        runtime.block_on(async {
            loop {
                let mut all = true;
                for node in &self.nodes {
                    let seen = crate::observe::cluster_view::fetch(&node.url(), token)
                        .await
                        .map(|v| v.nodes.len())
                        .unwrap_or(0);
                    all &= seen >= self.nodes.len();
                }
                if all {
                    return Ok(());
                }
                if started.elapsed() > START_TIMEOUT {
                    bail!(
                        "the {} nodes did not all see each other within 20 s (logs: {})",
                        self.nodes.len(),
                        self.logs()
                    );
                }
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        })
    }

    /// The node serving at `url`.
    pub(crate) fn node_at(&mut self, url: &str) -> Option<&mut ChildServer> {
        let url = url.trim_end_matches('/');
        self.nodes.iter_mut().find(|n| n.url() == url)
    }

    /// The nodes' URLs, comma-separated, as `--url` takes them.
    pub(crate) fn url_list(&self) -> String {
        self.nodes
            .iter()
            .map(ChildServer::url)
            .collect::<Vec<_>>()
            .join(",")
    }

    /// The nodes' pids and logs, for the report.
    pub(crate) fn logs(&self) -> String {
        self.nodes
            .iter()
            .map(|n| format!("pid {} {}", n.pid().unwrap_or(0), n.log.display()))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Stops the nodes, then NATS, and removes the store.
    pub(crate) fn stop(mut self) -> anyhow::Result<()> {
        self.shutdown()
    }

    fn shutdown(&mut self) -> anyhow::Result<()> {
        let mut first_error = None;
        for node in self.nodes.drain(..) {
            if let Err(e) = node.stop() {
                first_error.get_or_insert(e);
            }
        }
        if let Some(mut nats) = self.nats.take() {
            let _ = kill_process(Pid::from_child(&nats), Signal::TERM);
            let asked = Instant::now();
            while asked.elapsed() < Duration::from_secs(5) {
                if nats.try_wait()?.is_some() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            if nats.try_wait()?.is_none() {
                nats.kill()?;
                nats.wait()?;
            }
            let _ = std::fs::remove_dir_all(&self.dir);
        }
        first_error.map_or(Ok(()), Err)
    }
}

impl Drop for SpawnedCluster {
    fn drop(&mut self) {
        let _ = self.shutdown();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_get_the_cluster_flags_after_the_server_args() {
        let args = vec!["--max-connections-per-ip=8000".to_string()];
        let a = node_args(&args, "nats://127.0.0.1:4222", 2);
        assert_eq!(
            a,
            [
                "--max-connections-per-ip=8000",
                "--nats-url=nats://127.0.0.1:4222",
                "--cluster-node=node-3"
            ]
        );
        let conf = nats_config(4222, Path::new("/tmp/x/js"));
        assert!(conf.contains("listen: 127.0.0.1:4222"));
        assert!(conf.contains("sync_interval: always"));
        assert!(conf.contains("max_payload: 33554432"));
    }
}
