//! The connection driver against a scripted fake server, for what a correct server
//! never does on its own: a delta naming nodes the mirror lacks, an unreadable frame,
//! close code 4000, an error that answers nothing, and a request never answered. It
//! also checks what the client puts on the wire (format and token in the URL, frame
//! kinds, the resubscribe after a reconnect).

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use canopy_client::protocol::codec;
use canopy_client::protocol::{ClientMsg, ServerMsg, UpdateRow};
use canopy_client::{
    Backoff, ClientError, ConnectOptions, Connection, ErrorCode, Event, Format, Node, Scope,
    Transform,
};
use common::{wait_for, within};
use futures_util::{SinkExt, StreamExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::handshake::server::{Request, Response};
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

/// One accepted connection and the URL it asked for.
struct FakeConn {
    ws: WebSocketStream<TcpStream>,
    uri: String,
    format: Format,
}

impl FakeConn {
    async fn recv(&mut self) -> ClientMsg {
        loop {
            let frame = tokio::time::timeout(Duration::from_secs(10), self.ws.next())
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

    async fn send(&mut self, msg: &ServerMsg) {
        let bytes = codec::encode_server(msg, self.format);
        let frame = match self.format {
            Format::Json => Message::text(String::from_utf8(bytes).unwrap()),
            Format::Bincode => Message::binary(bytes),
        };
        self.ws.send(frame).await.unwrap();
    }

    /// Reads a `subscribe` and answers it with a snapshot of `nodes` at `tick`.
    async fn answer_subscribe(&mut self, tick: u64, nodes: Vec<Node>) {
        assert!(matches!(self.recv().await, ClientMsg::Subscribe { .. }));
        self.send(&ServerMsg::snapshot(tick, 0, nodes)).await;
    }
}

/// A listener that hands every accepted WebSocket to the test.
// The handshake callback's error type is tungstenite's, large or not.
#[allow(clippy::result_large_err)]
async fn fake_server() -> (SocketAddr, mpsc::UnboundedReceiver<FakeConn>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let mut uri = String::new();
            let ws = tokio_tungstenite::accept_hdr_async(tcp, |req: &Request, resp: Response| {
                uri = req.uri().to_string();
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

fn node(id: u32) -> Node {
    Node {
        id,
        parent: None,
        world: Transform::IDENTITY,
        extent: [1.0; 3],
        mask: u32::MAX,
    }
}

async fn accept(conns: &mut mpsc::UnboundedReceiver<FakeConn>) -> FakeConn {
    tokio::time::timeout(Duration::from_secs(10), conns.recv())
        .await
        .expect("a connection in time")
        .expect("the fake server runs")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frame_the_mirror_cannot_apply_triggers_a_resync() {
    within(Duration::from_secs(60), async {
        let (addr, mut conns) = fake_server().await;
        let url = format!("http://{addr}");
        let (client, server) = tokio::join!(
            Connection::connect(&url, "r", ConnectOptions::default().json()),
            accept(&mut conns)
        );
        let (conn, mut server) = (client.unwrap(), server);
        assert!(
            server.uri.starts_with("/rooms/r/ws?format=json"),
            "{}",
            server.uri
        );
        let mut events = conn.events();
        let (tick, ()) = tokio::join!(
            conn.subscribe(Scope::room()),
            server.answer_subscribe(1, vec![node(1)])
        );
        assert_eq!(tick.unwrap(), 1);

        // An update for a node the mirror never had: the client asks for a snapshot.
        server
            .send(&ServerMsg::delta(
                2,
                0,
                vec![],
                vec![UpdateRow {
                    id: 99,
                    world: Transform::IDENTITY,
                }],
                vec![],
            ))
            .await;
        server.answer_subscribe(3, vec![node(1), node(2)]).await;
        let (marker, before) = wait_for(&mut events, "the resync", |e| {
            matches!(e, Event::Resynced { .. })
        })
        .await;
        assert!(matches!(
            marker,
            Event::Resynced {
                tick: 3,
                len: 2,
                ..
            }
        ));
        assert!(before.contains(&Event::Entered(node(2))));
        assert_eq!(conn.mirror().inconsistencies(), 1);

        // A frame that cannot be decoded might have been a delta: resync as well.
        server
            .ws
            .send(Message::text("{\"type\":\"delta\""))
            .await
            .unwrap();
        server.answer_subscribe(4, vec![node(2)]).await;
        let (_, before) = wait_for(&mut events, "the second resync", |e| {
            matches!(e, Event::Resynced { .. })
        })
        .await;
        assert!(before.contains(&Event::Left(1)));
        assert_eq!(conn.mirror().to_sorted_vec(), vec![node(2)]);

        // An error that names no request is reported as an event.
        server
            .send(&ServerMsg::Error {
                seq: None,
                id: None,
                code: ErrorCode::BadRequest,
                message: "what?".into(),
                op: None,
            })
            .await;
        let (event, _) = wait_for(&mut events, "the server error", |e| {
            matches!(e, Event::ServerError { .. })
        })
        .await;
        assert_eq!(
            event,
            Event::ServerError {
                code: ErrorCode::BadRequest,
                message: "what?".into()
            }
        );
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn close_code_4000_reconnects_and_resubscribes_with_the_token() {
    within(Duration::from_secs(60), async {
        let (addr, mut conns) = fake_server().await;
        let url = format!("http://{addr}");
        let options = ConnectOptions::default().token("s3cret").backoff(Backoff {
            initial: Duration::from_millis(10),
            ..Backoff::default()
        });
        let (client, server) =
            tokio::join!(Connection::connect(&url, "r", options), accept(&mut conns));
        let (conn, mut server) = (client.unwrap(), server);
        assert_eq!(server.uri, "/rooms/r/ws?format=bincode&token=s3cret");
        let mut events = conn.events();
        let scope = Scope::region([0.0; 3], [1.0; 3]).with_mask(6);
        let (tick, ()) = tokio::join!(
            conn.subscribe(scope),
            server.answer_subscribe(5, vec![node(1)])
        );
        assert_eq!(tick.unwrap(), 5);

        server
            .send(&ServerMsg::Closed {
                reason: "too slow".into(),
            })
            .await;
        server
            .ws
            .close(Some(CloseFrame {
                code: CloseCode::from(4000),
                reason: "resubscribe".into(),
            }))
            .await
            .unwrap();

        // The new connection carries the same token and subscribes with the same scope.
        let mut again = accept(&mut conns).await;
        assert_eq!(again.uri, server.uri);
        match again.recv().await {
            ClientMsg::Subscribe { region, mask, .. } => {
                assert_eq!((region, mask), (scope.region, 6));
            }
            other => panic!("{other:?}"),
        }
        again.send(&ServerMsg::snapshot(9, 0, vec![node(3)])).await;
        let (marker, before) = wait_for(&mut events, "the resync", |e| {
            matches!(e, Event::Resynced { .. })
        })
        .await;
        assert!(matches!(marker, Event::Resynced { tick: 9, .. }));
        assert!(
            before
                .iter()
                .any(|e| matches!(e, Event::Disconnected { error } if error.contains("too slow"))),
            "{before:?}"
        );
        assert_eq!(conn.mirror().to_sorted_vec(), vec![node(3)]);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unanswered_request_times_out_and_a_late_answer_is_ignored() {
    within(Duration::from_secs(60), async {
        let (addr, mut conns) = fake_server().await;
        let url = format!("http://{addr}");
        let options = ConnectOptions::default().request_timeout(Duration::from_millis(200));
        let (client, server) =
            tokio::join!(Connection::connect(&url, "r", options), accept(&mut conns));
        let (conn, mut server) = (client.unwrap(), server);
        let started = tokio::time::Instant::now();
        let (result, msg) = tokio::join!(conn.ping(), server.recv());
        assert!(matches!(result, Err(ClientError::Timeout(_))), "{result:?}");
        assert!(started.elapsed() < Duration::from_secs(2));
        // The late pong matches nothing and harms nothing; the next ping works.
        let ClientMsg::Ping { nonce } = msg else {
            panic!("{msg:?}")
        };
        server.send(&ServerMsg::Pong { nonce, tick: 1 }).await;
        let (result, msg) = tokio::join!(conn.ping(), async {
            let msg = server.recv().await;
            if let ClientMsg::Ping { nonce } = msg {
                server.send(&ServerMsg::Pong { nonce, tick: 2 }).await;
            }
        });
        let () = msg;
        assert_eq!(result.unwrap().tick, 2);
    })
    .await;
}
