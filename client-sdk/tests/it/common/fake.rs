//! A scripted fake server: a listener that hands every accepted WebSocket to the test,
//! which then reads the client's messages and sends whatever frames it likes, including
//! ones a correct server never sends.

use std::net::SocketAddr;
use std::time::Duration;

use canopy_client::protocol::codec;
use canopy_client::protocol::{ClientMsg, ROOM_INSTANCE_HEADER, ServerMsg};
use canopy_client::{Format, Node, Transform};
use futures_util::{SinkExt, StreamExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::handshake::server::{Request, Response};

use super::PATIENCE;

/// One accepted connection and the URL it asked for.
pub(crate) struct FakeConn {
    pub ws: WebSocketStream<TcpStream>,
    pub uri: String,
    pub format: Format,
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
// The handshake callback's error type is tungstenite's, large or not.
#[allow(clippy::result_large_err)]
pub(crate) async fn fake_server() -> (SocketAddr, mpsc::UnboundedReceiver<FakeConn>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let mut uri = String::new();
            let ws =
                tokio_tungstenite::accept_hdr_async(tcp, |req: &Request, mut resp: Response| {
                    uri = req.uri().to_string();
                    // One room instance for the whole fake server, so a reconnect may resume.
                    let instance = "00000000000fa4e0".parse().unwrap();
                    resp.headers_mut().insert(ROOM_INSTANCE_HEADER, instance);
                    Ok(resp)
                })
                .await
                .unwrap();
            let format = if uri.contains("format=json") {
                Format::Json
            } else {
                Format::Bincode
            };
            if tx.send(FakeConn { ws, uri, format }).is_err() {
                return;
            }
        }
    });
    (addr, rx)
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
