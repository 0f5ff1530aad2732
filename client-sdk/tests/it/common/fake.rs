//! A scripted fake server: a listener that hands every accepted WebSocket to the test,
//! which then reads the client's messages and sends whatever frames it likes, including
//! ones a correct server never sends. A test may also queue refusals ([`Refusals`]): the
//! next upgrades are answered with that HTTP error (a `503` with `Retry-After` for a room
//! between owners, say) instead of being accepted.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use canopy_client::protocol::codec;
use canopy_client::protocol::{ClientMsg, ROOM_INSTANCE_HEADER, ServerMsg};
use canopy_client::{Format, Node, Transform};
use futures_util::{SinkExt, StreamExt};
use parking_lot::Mutex;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::handshake::server::{ErrorResponse, Request, Response};
use tokio_tungstenite::tungstenite::http;

use super::PATIENCE;

/// One accepted connection and the URL it asked for.
pub(crate) struct FakeConn {
    pub ws: WebSocketStream<TcpStream>,
    pub uri: String,
    pub format: Format,
    /// When the upgrade was accepted (tokio's clock, so paused time counts).
    pub at: Instant,
}

/// An HTTP answer the fake server gives an upgrade instead of accepting it.
#[derive(Clone, Debug)]
pub(crate) struct Refusal {
    pub status: u16,
    /// The `Retry-After` header's value, when it has one.
    pub retry_after: Option<String>,
    /// The body (a contract error body, or anything).
    pub body: String,
}

impl Refusal {
    /// `503 overloaded` for a room between owners, with `Retry-After: secs`.
    pub(crate) fn moving(secs: u64) -> Self {
        Refusal {
            status: 503,
            retry_after: Some(secs.to_string()),
            body: r#"{"error":{"code":"overloaded","message":"room r is moving between nodes: try again"}}"#
                .into(),
        }
    }

    fn response(&self) -> ErrorResponse {
        let mut builder = http::Response::builder()
            .status(self.status)
            .header("content-type", "application/json");
        if let Some(secs) = &self.retry_after {
            builder = builder.header("retry-after", secs.as_str());
        }
        builder.body(Some(self.body.clone())).unwrap()
    }
}

/// The refusals a test queued for the next upgrades, and when each was given.
pub(crate) struct Refusals {
    queue: Arc<Mutex<VecDeque<Refusal>>>,
    given: mpsc::UnboundedReceiver<Instant>,
}

impl Refusals {
    /// Answers the next upgrade with `refusal` (after those queued before it).
    pub(crate) fn push(&self, refusal: Refusal) {
        self.queue.lock().push_back(refusal);
    }

    /// Waits until the next queued refusal has been given; returns when.
    pub(crate) async fn given(&mut self) -> Instant {
        tokio::time::timeout(PATIENCE, self.given.recv())
            .await
            .expect("a refused upgrade in time")
            .expect("the fake server runs")
    }
}

impl FakeConn {
    /// The next client message (pings and pongs skipped).
    pub(crate) async fn recv(&mut self) -> ClientMsg {
        loop {
            let frame = tokio::time::timeout(PATIENCE, self.ws.next())
                .await
                .expect("a client message in time")
                .expect("the connection is open")
                .expect("a readable frame");
            match (&frame, self.format) {
                (Message::Text(t), Format::Json) => {
                    return codec::decode_client(t.as_bytes(), Format::Json).unwrap();
                }
                (Message::Binary(b), Format::Bincode) => {
                    return codec::decode_client(b, Format::Bincode).unwrap();
                }
                (Message::Ping(_) | Message::Pong(_), _) => {}
                other => panic!("unexpected frame {other:?}"),
            }
        }
    }

    pub(crate) async fn send(&mut self, msg: &ServerMsg) {
        let bytes = codec::encode_server(msg, self.format);
        let frame = match self.format {
            Format::Json => Message::text(String::from_utf8(bytes).unwrap()),
            Format::Bincode => Message::binary(bytes),
        };
        self.ws.send(frame).await.unwrap();
    }

    /// Reads a `subscribe` and answers it with a snapshot of `nodes` at `tick`.
    pub(crate) async fn answer_subscribe(&mut self, tick: u64, nodes: Vec<Node>) {
        assert!(matches!(self.recv().await, ClientMsg::Subscribe { .. }));
        self.send(&ServerMsg::snapshot(tick, 0, nodes)).await;
    }
}

/// A listener that hands every accepted WebSocket to the test.
pub(crate) async fn fake_server() -> (SocketAddr, mpsc::UnboundedReceiver<FakeConn>) {
    let (addr, conns, _) = scripted_server().await;
    (addr, conns)
}

/// [`fake_server`], with refusals the test can queue for the next upgrades.
// The handshake callback's error type is tungstenite's, large or not.
#[allow(clippy::result_large_err)]
pub(crate) async fn scripted_server() -> (SocketAddr, mpsc::UnboundedReceiver<FakeConn>, Refusals) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = mpsc::unbounded_channel();
    let queue: Arc<Mutex<VecDeque<Refusal>>> = Arc::default();
    let (given_tx, given) = mpsc::unbounded_channel();
    let refusals = Refusals {
        queue: Arc::clone(&queue),
        given,
    };
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let mut uri = String::new();
            let mut refused = false;
            let ws =
                tokio_tungstenite::accept_hdr_async(tcp, |req: &Request, mut resp: Response| {
                    uri = req.uri().to_string();
                    if let Some(refusal) = queue.lock().pop_front() {
                        refused = true;
                        return Err(refusal.response());
                    }
                    // One room instance for the whole fake server, so a reconnect may resume.
                    let instance = "00000000000fa4e0".parse().unwrap();
                    resp.headers_mut().insert(ROOM_INSTANCE_HEADER, instance);
                    Ok(resp)
                })
                .await;
            if refused {
                let _ = given_tx.send(Instant::now());
                continue;
            }
            let ws = ws.unwrap();
            let format = if uri.contains("format=json") {
                Format::Json
            } else {
                Format::Bincode
            };
            let conn = FakeConn {
                ws,
                uri,
                format,
                at: Instant::now(),
            };
            if tx.send(conn).is_err() {
                return;
            }
        }
    });
    (addr, rx, refusals)
}

/// The next connection the client opens.
pub(crate) async fn accept(conns: &mut mpsc::UnboundedReceiver<FakeConn>) -> FakeConn {
    tokio::time::timeout(Duration::from_secs(10), conns.recv())
        .await
        .expect("a connection in time")
        .expect("the fake server runs")
}

/// A root node at the identity with a unit box.
pub(crate) fn node(id: u32) -> Node {
    Node {
        id,
        parent: None,
        world: Transform::IDENTITY,
        extent: [1.0; 3],
        mask: u32::MAX,
    }
}
