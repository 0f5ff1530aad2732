//! `--server-bin`: the server under test started by the harness as a process of its own
//! (the `canopy` binary), on 127.0.0.1 on a free port, so that its `/metrics` RSS is the
//! server's alone; the run then goes on as with `--url`. In memory unless a `--server-arg`
//! chooses the storage (see [`super`]).
//!
//! Invariant: the child is stopped by the harness, by its own pid, before the harness
//! exits (SIGTERM, then SIGKILL after the server's shutdown grace), even when the run
//! fails; its log goes to a file whose path the report names.

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use rustix::process::{Pid, Signal, kill_process};

/// How long the server may take to listen.
const START_TIMEOUT: Duration = Duration::from_secs(20);

/// How long the server may take to shut down after SIGTERM before it is killed (its
/// default shutdown grace is 5 s).
const STOP_TIMEOUT: Duration = Duration::from_secs(15);

/// A server process the harness started.
#[derive(Debug)]
pub(crate) struct ChildServer {
    pub addr: SocketAddr,
    pub log: PathBuf,
    child: Option<Child>,
    bin: PathBuf,
    args: Vec<String>,
    tick_hz: u32,
}

impl ChildServer {
    /// Starts `bin --addr 127.0.0.1:PORT --tick-hz TICK_HZ [--in-memory] ARGS..` and
    /// waits until it accepts connections.
    pub(crate) fn start(bin: &Path, args: &[String], tick_hz: u32) -> anyhow::Result<ChildServer> {
        // A port the kernel just handed out and took back: free unless another process
        // races for it within the next milliseconds.
        let port = TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
        let addr = SocketAddr::from(([127, 0, 0, 1], port));
        let log = std::env::temp_dir().join(format!(
            "canopy-loadtest-{}-server-{port}.log",
            std::process::id()
        ));
        let mut server = ChildServer {
            addr,
            log,
            child: None,
            bin: bin.to_path_buf(),
            args: args.to_vec(),
            tick_hz,
        };
        server.spawn(false)?;
        Ok(server)
    }

    /// `kill -9`, then the same server (address, flags) started again; its log goes on.
    pub(crate) fn kill_and_restart(&mut self) -> anyhow::Result<()> {
        self.kill()?;
        self.spawn(true)
    }

    /// `kill -9`, without a restart.
    pub(crate) fn kill(&mut self) -> anyhow::Result<()> {
        if let Some(mut child) = self.child.take() {
            child.kill()?;
            child.wait()?;
        }
        Ok(())
    }

    fn spawn(&mut self, append: bool) -> anyhow::Result<()> {
        let (bin, addr) = (self.bin.clone(), self.addr);
        let log_file = std::fs::OpenOptions::new()
            .create(true)
            .append(append)
            .write(true)
            .truncate(!append)
            .open(&self.log)
            .with_context(|| format!("creating {}", self.log.display()))?;
        let child = Command::new(&bin)
            .arg(format!("--addr={addr}"))
            .arg(format!("--tick-hz={}", self.tick_hz))
            .arg("--drain-secs=0")
            .args(super::storage_args(&self.args))
            .args(&self.args)
            .stdin(Stdio::null())
            .stdout(log_file.try_clone()?)
            .stderr(log_file)
            .spawn()
            .with_context(|| format!("starting {}", bin.display()))?;
        self.child = Some(child);
        let server = self;
        let started = Instant::now();
        loop {
            if TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok() {
                return Ok(());
            }
            if let Some(child) = server.child.as_mut()
                && let Some(status) = child.try_wait()?
            {
                bail!(
                    "{} exited with {status} before listening; its log: {}",
                    bin.display(),
                    server.log.display()
                );
            }
            if started.elapsed() > START_TIMEOUT {
                bail!(
                    "{} did not listen on {addr} within {} s",
                    bin.display(),
                    START_TIMEOUT.as_secs()
                );
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The base URL of the server.
    pub(crate) fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The server's process id.
    pub(crate) fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// Stops the server: SIGTERM, then SIGKILL if it has not exited in time.
    pub(crate) fn stop(mut self) -> anyhow::Result<()> {
        self.shutdown()
    }

    fn shutdown(&mut self) -> anyhow::Result<()> {
        let Some(mut child) = self.child.take() else {
            return Ok(());
        };
        if child.try_wait()?.is_some() {
            return Ok(());
        }
        let _ = kill_process(Pid::from_child(&child), Signal::TERM);
        let asked = Instant::now();
        while asked.elapsed() < STOP_TIMEOUT {
            if child.try_wait()?.is_some() {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        child.kill()?;
        child.wait()?;
        bail!(
            "the server did not stop within {} s of SIGTERM and was killed; its log: {}",
            STOP_TIMEOUT.as_secs(),
            self.log.display()
        )
    }
}

impl Drop for ChildServer {
    fn drop(&mut self) {
        // A run that bails out early still stops its server.
        let _ = self.shutdown();
    }
}
