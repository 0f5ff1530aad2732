//! The `canopy` process under test: started on a data dir with the environment cleared
//! of `CANOPY_*`, its log kept (the tail goes into every failure message), killed with
//! SIGKILL when asked and when dropped.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;

use crate::common::{bearer_request, json_request};
use crate::persist_kill::{ADMIN, BIN, ROOM, SERVER_HZ, Ws};

pub(crate) struct Server {
    pub(crate) child: Child,
    pub(crate) base: String,
    pub(crate) ws_base: String,
    pub(crate) log: Arc<Mutex<VecDeque<String>>>,
    pub(crate) http: reqwest::Client,
}

/// Starts `canopy` with `args` (after the test's own flags) and the environment cleared
/// of `CANOPY_*`; answers the child, the tail of its log, and the address it logs in its
/// `canopy listening` line (None if it exits first or takes longer than `wait`).
pub(crate) async fn spawn(
    args: &[&str],
    wait: Duration,
) -> (Child, Arc<Mutex<VecDeque<String>>>, Option<String>) {
    let mut cmd = Command::new(BIN);
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("CANOPY_") {
            cmd.env_remove(k);
        }
    }
    cmd.args([
        "--addr",
        "127.0.0.1:0",
        "--tick-hz",
        SERVER_HZ,
        "--drain-secs",
        "0",
    ])
    .args(args)
    .env("CANOPY_ADMIN_TOKEN", ADMIN)
    .env("CANOPY_LOG", "info")
    // A refusal's error line, not a backtrace, is what the log tail must show.
    .env("RUST_BACKTRACE", "0")
    .env("RUST_LIB_BACKTRACE", "0")
    .stdin(Stdio::null())
    .stdout(Stdio::null())
    .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("starting the canopy binary");
    let stderr = child.stderr.take().unwrap();
    let log = Arc::new(Mutex::new(VecDeque::new()));
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<String>();
    let tail = Arc::clone(&log);
    // Drains the log (a full pipe would stall the server) and keeps its last lines.
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if line.contains("canopy listening")
                && let Some(addr) = line
                    .split_whitespace()
                    .find_map(|w| w.strip_prefix("addr="))
            {
                let _ = tx.send(addr.trim_matches('"').to_string());
            }
            let mut tail = tail.lock().unwrap();
            tail.push_back(line);
            if tail.len() > 60 {
                tail.pop_front();
            }
        }
    });
    let addr = tokio::time::timeout(wait, rx.recv()).await.ok().flatten();
    (child, log, addr)
}

pub(crate) fn log_tail(log: &Mutex<VecDeque<String>>) -> String {
    let tail = log.lock().unwrap();
    tail.iter().cloned().collect::<Vec<_>>().join("\n")
}

impl Server {
    pub(crate) async fn start(dir: &Path, ctx: &str) -> Server {
        let dir = dir.to_str().unwrap();
        let (mut child, log, addr) = spawn(&["--data-dir", dir], Duration::from_secs(60)).await;
        let Some(addr) = addr else {
            let _ = child.kill();
            let status = child.wait();
            // Let the reader thread take the last lines.
            std::thread::sleep(Duration::from_millis(100));
            panic!(
                "{ctx}: canopy did not log `canopy listening addr=...` within 60 s \
                 (exit: {status:?}); its log:\n{}",
                log_tail(&log)
            );
        };
        Server {
            child,
            base: format!("http://{addr}"),
            ws_base: format!("ws://{addr}"),
            log,
            http: reqwest::Client::new(),
        }
    }

    /// SIGKILL (std's `Child::kill` on unix), and the exit reaped.
    pub(crate) fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    pub(crate) fn log(&self) -> String {
        log_tail(&self.log)
    }

    pub(crate) async fn req(
        &self,
        method: &str,
        path: &str,
        token: &str,
        body: Option<Value>,
    ) -> (u16, Value) {
        let url = format!("{}{}", self.base, path);
        let r = bearer_request(&self.http, method, url, token, Duration::from_secs(30));
        match json_request(r, body.as_ref()).await {
            Ok(answer) => answer,
            Err(e) => panic!("{method} {path}: {e}; server log:\n{}", log_tail(&self.log)),
        }
    }

    pub(crate) async fn ws(&self, token: &str, ctx: &str) -> Ws {
        let url = format!("{}/rooms/{ROOM}/ws?format=json&token={token}", self.ws_base);
        match tokio_tungstenite::connect_async(url).await {
            Ok((ws, _)) => ws,
            Err(e) => panic!(
                "{ctx}: WebSocket to room {ROOM} with its editor token refused ({e}): \
                 were the room or its tokens lost?; server log:\n{}",
                self.log()
            ),
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
    }
}
