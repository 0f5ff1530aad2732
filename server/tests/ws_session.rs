//! The WebSocket session driven through channels instead of a socket (the way axum's
//! testing-websockets example tests its handler): what it answers, and that it always
//! ends, whether the peer closes, the writer's sink breaks, or the room is deleted.

use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::task::{Context, Poll};
use std::time::Duration;

use canopy_protocol::{ClientMsg, Format, ServerMsg, codec};
use canopy_server::access::Caller;
use canopy_server::config::ServerConfig;
use canopy_server::state::AppState;
use canopy_server::ws::{SessionParams, serve};
use futures_channel::mpsc;
use futures_util::{Sink, Stream, StreamExt};
use tokio_tungstenite::tungstenite::protocol::frame::Frame;
use tokio_tungstenite::tungstenite::{Error as WsError, Message};

/// A socket made of two channels: what the test sends, and what the session writes.
/// `broken` makes every write fail, as a dead socket does.
struct Pipe {
    incoming: mpsc::UnboundedReceiver<Result<Message, WsError>>,
    outgoing: mpsc::UnboundedSender<Message>,
    broken: bool,
}

impl Stream for Pipe {
    type Item = Result<Message, WsError>;
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.incoming.poll_next_unpin(cx)
    }
}

impl Sink<Message> for Pipe {
    type Error = WsError;
    fn poll_ready(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Result<(), WsError>> {
        Poll::Ready(Ok(()))
    }
    fn start_send(self: Pin<&mut Self>, item: Message) -> Result<(), WsError> {
        if self.broken {
            return Err(WsError::ConnectionClosed);
        }
        self.outgoing
            .unbounded_send(item)
            .map_err(|_| WsError::ConnectionClosed)
    }
    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Result<(), WsError>> {
        Poll::Ready(Ok(()))
    }
    fn poll_close(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Result<(), WsError>> {
        Poll::Ready(Ok(()))
    }
}

struct Peer {
    to_server: mpsc::UnboundedSender<Result<Message, WsError>>,
    from_server: mpsc::UnboundedReceiver<Message>,
    /// Data frames of a fragmented message being put together.
    partial: Vec<u8>,
}

impl Peer {
    fn send(&self, msg: &ClientMsg) {
        let text = String::from_utf8(codec::encode_client(msg, Format::Json)).unwrap();
        self.to_server
            .unbounded_send(Ok(Message::text(text)))
            .unwrap();
    }

    /// The next whole server message (raw frames reassembled), or None once closed.
    async fn recv(&mut self) -> Option<ServerMsg> {
        loop {
            let m = tokio::time::timeout(Duration::from_secs(10), self.from_server.next())
                .await
                .expect("the session answers")?;
            match m {
                Message::Frame(f) => {
                    if let Some(msg) = self.reassemble(f) {
                        return Some(msg);
                    }
                }
                Message::Close(_) => return None,
                _ => {}
            }
        }
    }

    /// Adds a raw data frame to the message being put together; the message once whole.
    fn reassemble(&mut self, f: Frame) -> Option<ServerMsg> {
        let fin = f.header().is_final;
        self.partial.extend_from_slice(&Frame::into_payload(f));
        fin.then(|| {
            let bytes = std::mem::take(&mut self.partial);
            codec::decode_server(&bytes, Format::Json).unwrap()
        })
    }
}

fn session(app: &AppState, room: &str, broken: bool) -> (Peer, tokio::task::JoinHandle<()>) {
    let (to_server, incoming) = mpsc::unbounded();
    let (outgoing, from_server) = mpsc::unbounded();
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
    let pipe = Pipe {
        incoming,
        outgoing,
        broken,
    };
    let task = tokio::spawn(serve(params, pipe));
    let peer = Peer {
        to_server,
        from_server,
        partial: Vec::new(),
    };
    (peer, task)
}

#[tokio::test]
async fn the_session_answers_and_ends_when_the_peer_closes() {
    let app = AppState::new(ServerConfig::default());
    app.create_room(Some("s".into()), Some(60)).unwrap();
    let (mut peer, task) = session(&app, "s", false);
    peer.send(&ClientMsg::subscribe(None, u32::MAX));
    assert!(matches!(
        peer.recv().await,
        Some(ServerMsg::Snapshot { .. })
    ));
    peer.send(&ClientMsg::Ping { nonce: 7 });
    assert!(matches!(
        peer.recv().await,
        Some(ServerMsg::Pong { nonce: 7, .. })
    ));
    peer.to_server
        .unbounded_send(Ok(Message::Close(None)))
        .unwrap();
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
async fn a_broken_sink_ends_the_session_without_the_peer() {
    let app = AppState::new(ServerConfig::default());
    app.create_room(Some("b".into()), Some(60)).unwrap();
    let (peer, task) = session(&app, "b", true);
    for n in 0..5000 {
        peer.send(&ClientMsg::Ping { nonce: n });
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
    app.create_room(Some("d".into()), Some(60)).unwrap();
    let (mut peer, task) = session(&app, "d", false);
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
    peer.to_server.close_channel();
}

/// A session the server ends keeps reading until the peer's close reply (for a bound):
/// a socket closed with unread bytes sends RST, which makes the client's kernel discard
/// the close frame it had not read yet.
#[tokio::test(start_paused = true)]
async fn a_session_the_server_ends_reads_on_until_the_peer_closes() {
    let app = AppState::new(ServerConfig::default());
    app.create_room(Some("l".into()), Some(60)).unwrap();
    let (mut peer, mut task) = session(&app, "l", false);
    app.delete_room("l").unwrap();
    let m = peer.recv().await;
    assert!(matches!(&m, Some(ServerMsg::Closed { .. })), "{m:?}");
    assert!(peer.recv().await.is_none());
    // The client still sends (a pong, a late request) before its close reply.
    peer.send(&ClientMsg::Ping { nonce: 1 });
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        !task.is_finished(),
        "the session dropped the socket before the peer closed"
    );
    peer.to_server
        .unbounded_send(Ok(Message::Close(None)))
        .unwrap();
    tokio::time::timeout(Duration::from_millis(100), &mut task)
        .await
        .expect("the session ends on the peer's close")
        .unwrap();

    // A peer that never answers is not waited for long.
    app.create_room(Some("m".into()), Some(60)).unwrap();
    let (mut silent, task) = session(&app, "m", false);
    app.delete_room("m").unwrap();
    assert!(silent.recv().await.is_some());
    tokio::time::timeout(Duration::from_secs(2), task)
        .await
        .expect("the session ends without the peer's close")
        .unwrap();
}

/// Reads what the session writes for `virtual_secs` of (paused) time, answering its
/// pings when `answer_pings`; answers the messages read and whether the socket closed.
async fn listen(peer: &mut Peer, virtual_secs: u64, answer_pings: bool) -> (Vec<ServerMsg>, bool) {
    let end = tokio::time::Instant::now() + Duration::from_secs(virtual_secs);
    let mut got = Vec::new();
    loop {
        let next = tokio::time::timeout_at(end, peer.from_server.next()).await;
        match next {
            Err(_) => return (got, false),
            Ok(None) | Ok(Some(Message::Close(_))) => return (got, true),
            Ok(Some(Message::Ping(p))) if answer_pings => {
                peer.to_server.unbounded_send(Ok(Message::Pong(p))).unwrap();
            }
            Ok(Some(Message::Frame(f))) => got.extend(peer.reassemble(f)),
            Ok(Some(_)) => {}
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
        ws_ping_secs: 15,
        ws_idle_secs: 60,
        ..ServerConfig::default()
    };
    let app = AppState::new(cfg);
    app.create_room(Some("i".into()), Some(60)).unwrap();

    let (mut silent, task) = session(&app, "i", false);
    let started = tokio::time::Instant::now();
    let (got, closed) = listen(&mut silent, 600, false).await;
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

    let (mut talker, task) = session(&app, "i", false);
    let (got, closed) = listen(&mut talker, 600, true).await;
    assert!(!closed && got.is_empty(), "{got:?}");
    talker.send(&ClientMsg::Ping { nonce: 9 });
    let (got, _) = listen(&mut talker, 1, true).await;
    assert!(
        matches!(got.as_slice(), [ServerMsg::Pong { nonce: 9, .. }]),
        "{got:?}"
    );
    talker
        .to_server
        .unbounded_send(Ok(Message::Close(None)))
        .unwrap();
    task.await.unwrap();
    assert_eq!(
        app.room("i").unwrap().connections.load(Ordering::Acquire),
        0
    );
}
