//! The WebSocket session driven over an in-memory pipe instead of a socket (the way
//! axum's testing-websockets example tests its handler), with a real WebSocket client on
//! the other end: what it answers, and that it always ends, whether the peer closes, the
//! writer's side breaks, or the room is deleted.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use canopy_protocol::{ClientMsg, Format, ServerMsg, codec};
use canopy_server::access::Caller;
use canopy_server::config::ServerConfig;
use canopy_server::state::AppState;
use canopy_server::ws::{SessionParams, Socket, read_config, serve};
use futures_util::{SinkExt, StreamExt};
use tokio::io::{AsyncRead, AsyncWrite, DuplexStream, ReadBuf};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::Role;

/// One end of the pipe. `broken` makes every write fail, as a dead socket does; `mute`
/// drops what is written (a peer that answers nothing, not even pings).
struct End {
    io: DuplexStream,
    broken: bool,
    mute: Arc<AtomicBool>,
}

impl AsyncRead for End {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl AsyncWrite for End {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        if self.broken {
            return Poll::Ready(Err(std::io::ErrorKind::BrokenPipe.into()));
        }
        if self.mute.load(Ordering::Relaxed) {
            return Poll::Ready(Ok(buf.len()));
        }
        Pin::new(&mut self.io).poll_write(cx, buf)
    }
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

struct Peer {
    ws: WebSocketStream<End>,
    mute: Arc<AtomicBool>,
}

impl Peer {
    async fn send(&mut self, msg: &ClientMsg) {
        let text = String::from_utf8(codec::encode_client(msg, Format::Json)).unwrap();
        self.ws.send(Message::text(text)).await.unwrap();
    }

    /// Writes a client text frame straight into the pipe, past the client library
    /// (which refuses to send once it has seen the server's close).
    async fn send_raw(&mut self, msg: &ClientMsg) {
        use tokio::io::AsyncWriteExt;
        let payload = codec::encode_client(msg, Format::Json);
        assert!(payload.len() < 126);
        // FIN + text, masked with the all-zero key (which leaves the payload as it is).
        let mut frame = vec![0x81, 0x80 | payload.len() as u8, 0, 0, 0, 0];
        frame.extend_from_slice(&payload);
        self.ws.get_mut().write_all(&frame).await.unwrap();
    }

    async fn close(&mut self) {
        let _ = self.ws.close(None).await;
    }

    /// The next whole server message, or None once closed.
    async fn recv(&mut self) -> Option<ServerMsg> {
        loop {
            let m = tokio::time::timeout(Duration::from_secs(10), self.ws.next())
                .await
                .expect("the session answers")?;
            match m {
                Ok(Message::Text(t)) => {
                    return Some(codec::decode_server(t.as_bytes(), Format::Json).unwrap());
                }
                Ok(Message::Close(_)) | Err(_) => return None,
                Ok(_) => {}
            }
        }
    }
}

async fn session(app: &AppState, room: &str, broken: bool) -> (Peer, tokio::task::JoinHandle<()>) {
    // Roomy enough that the client's sends never wait for the session to read.
    let (server_io, client_io) = tokio::io::duplex(8 << 20);
    let room = app.room(room).unwrap();
    room.connections.fetch_add(1, Ordering::AcqRel);
    let params = SessionParams {
        app: app.clone(),
        room,
        format: Format::Json,
        conn: app.next_conn_id(),
        caller: Caller::open("test"),
        resume_allowed: true,
    };
    let server_end = End {
        io: server_io,
        broken,
        mute: Arc::default(),
    };
    let socket = Socket::from_io(server_end, read_config(1 << 20)).await;
    let task = tokio::spawn(serve(params, socket));
    let mute = Arc::new(AtomicBool::new(false));
    let client_end = End {
        io: client_io,
        broken: false,
        mute: Arc::clone(&mute),
    };
    let ws = WebSocketStream::from_raw_socket(client_end, Role::Client, None).await;
    (Peer { ws, mute }, task)
}

#[tokio::test]
async fn the_session_answers_and_ends_when_the_peer_closes() {
    let app = AppState::new(ServerConfig::default());
    app.create_room(Some("s".into()), Some(60), None).unwrap();
    let (mut peer, task) = session(&app, "s", false).await;
    peer.send(&ClientMsg::subscribe(None, u32::MAX)).await;
    assert!(matches!(
        peer.recv().await,
        Some(ServerMsg::Snapshot { .. })
    ));
    peer.send(&ClientMsg::Ping { nonce: 7 }).await;
    assert!(matches!(
        peer.recv().await,
        Some(ServerMsg::Pong { nonce: 7, .. })
    ));
    peer.close().await;
    tokio::time::timeout(Duration::from_secs(10), task)
        .await
        .expect("the session ends")
        .unwrap();
    assert_eq!(
        app.room("s").unwrap().connections.load(Ordering::Acquire),
        0
    );
}

#[tokio::test]
async fn a_broken_socket_ends_the_session_without_the_peer() {
    let app = AppState::new(ServerConfig::default());
    app.create_room(Some("b".into()), Some(60), None).unwrap();
    let (mut peer, task) = session(&app, "b", true).await;
    for n in 0..5000 {
        peer.send(&ClientMsg::Ping { nonce: n }).await;
    }
    // The peer never closes: the writer's failure alone must end the session.
    tokio::time::timeout(Duration::from_secs(10), task)
        .await
        .expect("the session ends")
        .unwrap();
    drop(peer);
}

#[tokio::test]
async fn deleting_the_room_closes_an_unsubscribed_session() {
    let app = AppState::new(ServerConfig::default());
    app.create_room(Some("d".into()), Some(60), None).unwrap();
    let (mut peer, task) = session(&app, "d", false).await;
    app.delete_room("d").unwrap();
    let m = peer.recv().await;
    assert!(
        matches!(&m, Some(ServerMsg::Closed { reason }) if reason == "room deleted"),
        "{m:?}"
    );
    assert!(peer.recv().await.is_none());
    tokio::time::timeout(Duration::from_secs(10), task)
        .await
        .expect("the session ends")
        .unwrap();
}

/// A session the server ends keeps reading until the peer's close reply (for a bound):
/// a socket closed with unread bytes sends RST, which makes the client's kernel discard
/// the close frame it had not read yet.
#[tokio::test(start_paused = true)]
async fn a_session_the_server_ends_reads_on_until_the_peer_closes() {
    let app = AppState::new(ServerConfig::default());
    app.create_room(Some("l".into()), Some(60), None).unwrap();
    let (mut peer, mut task) = session(&app, "l", false).await;
    app.delete_room("l").unwrap();
    let m = peer.recv().await;
    assert!(matches!(&m, Some(ServerMsg::Closed { .. })), "{m:?}");
    assert!(peer.recv().await.is_none());
    // The client still sends (a pong, a late request) before its close reply.
    peer.send_raw(&ClientMsg::Ping { nonce: 1 }).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        !task.is_finished(),
        "the session dropped the socket before the peer closed"
    );
    // The client's library answered the server's close when it read it; its socket
    // end closing is what the session waits for.
    drop(peer);
    tokio::time::timeout(Duration::from_millis(100), &mut task)
        .await
        .expect("the session ends on the peer's close")
        .unwrap();

    // A peer that never answers is not waited for long.
    app.create_room(Some("m".into()), Some(60), None).unwrap();
    let (mut silent, task) = session(&app, "m", false).await;
    silent.mute.store(true, Ordering::Relaxed);
    app.delete_room("m").unwrap();
    assert!(silent.recv().await.is_some());
    tokio::time::timeout(Duration::from_secs(2), task)
        .await
        .expect("the session ends without the peer's close")
        .unwrap();
}

/// Reads what the session writes for `virtual_secs` of (paused) time (the client's
/// library answers pings unless the peer is mute); answers the messages read and
/// whether the socket closed.
async fn listen(peer: &mut Peer, virtual_secs: u64) -> (Vec<ServerMsg>, bool) {
    let end = tokio::time::Instant::now() + Duration::from_secs(virtual_secs);
    let mut got = Vec::new();
    loop {
        let next = tokio::time::timeout_at(end, peer.ws.next()).await;
        match next {
            Err(_) => return (got, false),
            Ok(None) | Ok(Some(Ok(Message::Close(_)))) | Ok(Some(Err(_))) => return (got, true),
            Ok(Some(Ok(Message::Text(t)))) => {
                got.push(codec::decode_server(t.as_bytes(), Format::Json).unwrap());
            }
            Ok(Some(Ok(_))) => {}
        }
    }
}

/// The idle deadline on tokio's paused clock: a peer that answers nothing is closed
/// `closed` "idle" once `--ws-idle-secs` pass without a word from it (the clock jumps
/// straight to each timer, so minutes of deadlines take no real time); one that answers
/// the server's pings stays connected for as long as it does.
#[tokio::test(start_paused = true)]
async fn the_idle_deadline_closes_a_silent_peer_and_spares_one_that_answers_pings() {
    let cfg = ServerConfig {
        ws_ping: std::time::Duration::from_secs(15),
        ws_idle: std::time::Duration::from_secs(60),
        ..ServerConfig::default()
    };
    let app = AppState::new(cfg);
    app.create_room(Some("i".into()), Some(60), None).unwrap();

    let (mut silent, task) = session(&app, "i", false).await;
    silent.mute.store(true, Ordering::Relaxed);
    let started = tokio::time::Instant::now();
    let (got, closed) = listen(&mut silent, 600).await;
    let waited = started.elapsed();
    assert!(closed, "the silent peer was never closed: {got:?}");
    assert!(
        matches!(got.last(), Some(ServerMsg::Closed { reason }) if reason.starts_with("idle")),
        "{got:?}"
    );
    // Closed at the first ping after the deadline: past 60 s, by 75 s (virtual).
    assert!(
        waited >= Duration::from_secs(60) && waited <= Duration::from_secs(76),
        "{waited:?}"
    );
    task.await.unwrap();

    let (mut talker, task) = session(&app, "i", false).await;
    let (got, closed) = listen(&mut talker, 600).await;
    assert!(!closed && got.is_empty(), "{got:?}");
    talker.send(&ClientMsg::Ping { nonce: 9 }).await;
    let (got, _) = listen(&mut talker, 1).await;
    assert!(
        matches!(got.as_slice(), [ServerMsg::Pong { nonce: 9, .. }]),
        "{got:?}"
    );
    talker.close().await;
    task.await.unwrap();
    assert_eq!(
        app.room("i").unwrap().connections.load(Ordering::Acquire),
        0
    );
}
