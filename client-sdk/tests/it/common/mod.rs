//! Test fixtures shared by the integration tests: an in-process Canopy server on
//! `127.0.0.1:0`, a TCP proxy that a test can freeze, cut and re-point to force
//! disconnects, a scripted fake server (`fake`), and helpers to wait for events and for
//! a mirror to match the server.
//!
//! Each test binary uses a different subset of these helpers, hence the `dead_code`
//! allowance below; everything here is used by at least one test.

pub(crate) mod fake;
pub(crate) mod random_edits;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use canopy_client::protocol::Node;
use canopy_client::{Client, Connection, Event, Events, Op, Transform};
use canopy_server::config::ServerConfig;
use canopy_server::net::run;
use canopy_server::state::AppState;
use parking_lot::Mutex;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{oneshot, watch};
use tokio::task::JoinHandle;

/// The longest any single wait in a test may take; a test that needs longer is broken.
pub(crate) const PATIENCE: Duration = Duration::from_secs(20);

/// A server running in this process.
pub(crate) struct TestServer {
    pub addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<std::io::Result<()>>>,
}

impl TestServer {
    /// Starts a server with the default configuration on a free port.
    pub(crate) async fn start() -> Self {
        Self::start_with(ServerConfig::default()).await
    }

    /// Starts a server with `config` on a free port.
    pub(crate) async fn start_with(config: ServerConfig) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("local addr");
        let (stop, stopped) = oneshot::channel::<()>();
        let shutdown = async move {
            let _ = stopped.await;
        };
        let task = tokio::spawn(run(listener, AppState::new(config), shutdown));
        TestServer {
            addr,
            stop: Some(stop),
            task: Some(task),
        }
    }

    pub(crate) fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub(crate) fn client(&self) -> Client {
        Client::new(&self.url()).expect("client")
    }

    /// Shuts the server down gracefully (subscribers get `closed`, reason
    /// `server shutting down`) and waits for it to stop.
    pub(crate) async fn shutdown(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            let _ = tokio::time::timeout(PATIENCE, task).await;
        }
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// A TCP proxy between the client and a server. It can stop forwarding the server's
/// bytes (`freeze`, to hold answers back), drop every live connection (`cut`) and
/// forward new connections elsewhere (`set_upstream`).
pub(crate) struct Proxy {
    pub addr: SocketAddr,
    upstream: Arc<Mutex<SocketAddr>>,
    live: Arc<Mutex<Vec<JoinHandle<()>>>>,
    frozen: watch::Sender<bool>,
    accept: JoinHandle<()>,
}

impl Proxy {
    pub(crate) async fn start(upstream: SocketAddr) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("local addr");
        let upstream = Arc::new(Mutex::new(upstream));
        let live: Arc<Mutex<Vec<JoinHandle<()>>>> = Arc::default();
        let (frozen, _) = watch::channel(false);
        let accept = {
            let upstream = Arc::clone(&upstream);
            let live = Arc::clone(&live);
            let frozen = frozen.clone();
            tokio::spawn(async move {
                while let Ok((client, _)) = listener.accept().await {
                    let target = *upstream.lock();
                    let frozen = frozen.subscribe();
                    let task = tokio::spawn(forward(client, target, frozen));
                    let mut live = live.lock();
                    live.retain(|t| !t.is_finished());
                    live.push(task);
                }
            })
        };
        Proxy {
            addr,
            upstream,
            live,
            frozen,
            accept,
        }
    }

    pub(crate) fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Drops every live connection; new ones are still accepted.
    pub(crate) fn cut(&self) {
        for task in self.live.lock().drain(..) {
            task.abort();
        }
    }

    /// Stops (or resumes) forwarding bytes from servers to clients.
    pub(crate) fn freeze(&self, frozen: bool) {
        self.frozen.send_replace(frozen);
    }

    /// Forwards connections made from now on to `addr`.
    pub(crate) fn set_upstream(&self, addr: SocketAddr) {
        *self.upstream.lock() = addr;
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.accept.abort();
        self.cut();
    }
}

async fn forward(mut client: TcpStream, target: SocketAddr, mut frozen: watch::Receiver<bool>) {
    // A small receive buffer on the proxy's side of the server connection, so that a
    // freeze fills the server's socket quickly and the server treats the client as a
    // slow reader, as a congested network would make it.
    let Ok(socket) = tokio::net::TcpSocket::new_v4() else {
        return;
    };
    let _ = socket.set_recv_buffer_size(32 * 1024);
    let Ok(mut server) = socket.connect(target).await else {
        return;
    };
    let (mut client_read, mut client_write) = client.split();
    let (mut server_read, mut server_write) = server.split();
    let up = tokio::io::copy(&mut client_read, &mut server_write);
    let down = async {
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let n = match server_read.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => n,
            };
            // While frozen, hold the server's bytes back (a read already under way when
            // the freeze began is held here too).
            while *frozen.borrow_and_update() {
                if frozen.changed().await.is_err() {
                    return;
                }
            }
            if client_write.write_all(&buf[..n]).await.is_err() {
                return;
            }
        }
    };
    tokio::select! {
        _ = up => {},
        _ = down => {},
    }
}

/// Runs a test body with an overall time limit, so a hang fails instead of blocking CI.
pub(crate) async fn within<F: Future>(limit: Duration, body: F) -> F::Output {
    tokio::time::timeout(limit, body)
        .await
        .expect("the test took too long")
}

/// Reads events until one satisfies `want`, returning it and every event before it.
pub(crate) async fn wait_for(
    events: &mut Events,
    what: &str,
    mut want: impl FnMut(&Event) -> bool,
) -> (Event, Vec<Event>) {
    let mut seen = Vec::new();
    let found = tokio::time::timeout(PATIENCE, async {
        loop {
            match events.next().await {
                Some(event) if want(&event) => return Some(event),
                Some(event) => seen.push(event),
                None => return None,
            }
        }
    })
    .await;
    match found {
        Ok(Some(event)) => (event, seen),
        Ok(None) => panic!("events ended while waiting for {what}; saw {seen:?}"),
        Err(_) => panic!("timed out waiting for {what}; saw {seen:?}"),
    }
}

/// Reads events until the mirror is right again after a reconnect: a `Resynced` (a
/// fresh snapshot) or, when the server resumed from the mirror's tick, the `Tick` that
/// ends the resumed delta after `Reconnected`. Returns the marker and the events before.
pub(crate) async fn wait_for_catch_up(events: &mut Events) -> (Event, Vec<Event>) {
    let mut reconnected = false;
    wait_for(events, "the resync or resumed delta", |e| {
        reconnected |= matches!(e, Event::Reconnected);
        matches!(e, Event::Resynced { .. }) || (reconnected && matches!(e, Event::Tick { .. }))
    })
    .await
}

/// Reads events until those read so far satisfy `done`, and returns them all.
pub(crate) async fn collect_until(
    events: &mut Events,
    what: &str,
    mut done: impl FnMut(&[Event]) -> bool,
) -> Vec<Event> {
    let mut seen = Vec::new();
    let finished = tokio::time::timeout(PATIENCE, async {
        while !done(&seen) {
            match events.next().await {
                Some(event) => seen.push(event),
                None => return false,
            }
        }
        true
    })
    .await;
    assert!(finished == Ok(true), "never saw {what}; saw {seen:?}");
    seen
}

/// Polls until the mirror of `conn` equals `expected()` (fetched anew each round).
pub(crate) async fn converge<F, Fut>(conn: &Connection, mut expected: F) -> Vec<Node>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Vec<Node>>,
{
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let want = expected().await;
        let have = conn.mirror().to_sorted_vec();
        if have == want {
            return have;
        }
        if tokio::time::Instant::now() >= deadline {
            let diff: Vec<_> = want.iter().filter(|n| !have.contains(n)).take(5).collect();
            panic!(
                "mirror never matched: {} nodes vs {} expected; first differences {diff:?}",
                have.len(),
                want.len()
            );
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The server's whole room, sorted by id.
pub(crate) async fn server_nodes(client: &Client, room: &str) -> Vec<Node> {
    let mut nodes = client.nodes(room).await.expect("GET nodes").nodes;
    nodes.sort_unstable_by_key(|n| n.id);
    nodes
}

/// An `add` of a root or child at translation `t` with a half-extent and mask.
pub(crate) fn add(id: u32, parent: Option<u32>, t: [f32; 3], extent: f32, mask: u32) -> Op {
    Op::Add {
        id: Some(id),
        parent,
        local: Transform {
            t,
            ..Transform::IDENTITY
        },
        extent: [extent; 3],
        mask,
    }
}

/// A `set_local` that moves a node to `t`.
pub(crate) fn move_to(node: u32, t: [f32; 3]) -> Op {
    Op::SetLocal {
        node,
        t: Some(t),
        r: None,
        s: None,
    }
}
