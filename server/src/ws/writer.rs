//! The writer task of a WebSocket connection: drains the outbox into the socket.
//!
//! Messages larger than [`FRAGMENT_BYTES`] go out as a fragmented WebSocket message
//! (continuation frames), so the socket library's write buffer never grows past one
//! fragment: a connection that was sent a large snapshot keeps no snapshot-sized buffer
//! afterwards. Messages are sent as raw frames carrying the outbox's shared bytes, so a
//! frame shared by many subscribers is neither copied nor re-validated per subscriber.
//!
//! A socket that accepts nothing for the write deadline is given up on (the client has
//! stalled: it must reconnect and resubscribe); a merely slow one just makes the outbox
//! merge, so the writer never needs to drop anything itself. However the writer ends, the
//! outbox learns of it ([`Outbox::writer_gone`]), so the session never waits on it.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use canopy_protocol::{Format, ServerMsg, codec};
use futures_util::{Sink, SinkExt};
use tokio::time::timeout;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::{CloseCode, Data, OpCode};
use tokio_tungstenite::tungstenite::protocol::frame::{Frame, Utf8Bytes};
use tokio_tungstenite::tungstenite::{Error as WsError, Message};

use super::CLOSE_RESUBSCRIBE;
use crate::metrics::Metrics;
use crate::room::outbox::{Outbox, Outgoing};

/// The largest frame the writer sends; longer messages are fragmented.
pub const FRAGMENT_BYTES: usize = 16 * 1024;

/// Why the writer stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum WriterEnd {
    /// It sent `closed` and a close frame.
    Closed,
    /// The socket failed or made no progress within the deadline.
    Broken,
}

/// Tells the outbox the writer is gone however the task ends (return or abort).
struct Gone(Arc<Outbox>);

impl Drop for Gone {
    fn drop(&mut self) {
        self.0.writer_gone();
    }
}

/// Runs until the outbox is closed or the socket breaks.
pub(super) async fn run<W>(
    mut sink: W,
    outbox: Arc<Outbox>,
    metrics: Arc<Metrics>,
    deadline: Duration,
) -> WriterEnd
where
    W: Sink<Message, Error = WsError> + Unpin,
{
    let _gone = Gone(Arc::clone(&outbox));
    let format = outbox.format;
    let mut durable = outbox.durability_watch();
    loop {
        let mut fed = false;
        while let Some(item) = outbox.try_next() {
            let (bytes, delta) = match item {
                Outgoing::Message(b) => (b, false),
                Outgoing::Frame(b) => (b, true),
                Outgoing::Merged(b) => {
                    metrics.merged_frames.inc();
                    (b, true)
                }
                Outgoing::Ping => {
                    if !feed(&mut sink, Message::Ping(Bytes::new()), deadline).await {
                        return give_up(&mut sink, deadline).await;
                    }
                    fed = true;
                    continue;
                }
                Outgoing::Close { reason, code } => {
                    let closed = codec::encode_server(
                        &ServerMsg::Closed {
                            reason: reason.clone(),
                        },
                        format,
                    );
                    let frame = Message::Close(Some(CloseFrame {
                        code: CloseCode::from(code),
                        reason: Utf8Bytes::from(reason),
                    }));
                    if send_message(&mut sink, Bytes::from(closed), format, deadline)
                        .await
                        .is_ok()
                    {
                        let _ = timeout(deadline, sink.send(frame)).await;
                    }
                    return WriterEnd::Closed;
                }
            };
            let len = bytes.len() as u64;
            match send_message(&mut sink, bytes, format, deadline).await {
                Ok(()) => {}
                Err(SendFailed::Broken) => return WriterEnd::Broken,
                Err(SendFailed::Stalled) => return give_up(&mut sink, deadline).await,
            }
            fed = true;
            metrics.bytes_sent.inc_by(len);
            if delta {
                metrics.delta_frames_sent.inc();
                metrics.delta_bytes_sent.inc_by(len);
            }
        }
        if fed {
            match timeout(deadline, sink.flush()).await {
                Ok(Ok(())) => {}
                Ok(Err(_)) => return WriterEnd::Broken,
                Err(_) => return give_up(&mut sink, deadline).await,
            }
        }
        // A logged room's items also wait for the durable watermark: wake on either.
        match durable.as_mut() {
            Some(watch) => {
                tokio::select! {
                    () = outbox.notified() => {}
                    changed = watch.changed() => {
                        if changed.is_err() {
                            // The storage layer is gone (shutdown): nothing more becomes
                            // durable; what waits is answered by the close.
                            durable = None;
                        }
                    }
                }
            }
            None => outbox.notified().await,
        }
    }
}

async fn feed<W>(sink: &mut W, msg: Message, deadline: Duration) -> bool
where
    W: Sink<Message, Error = WsError> + Unpin,
{
    matches!(timeout(deadline, sink.feed(msg)).await, Ok(Ok(())))
}

/// Why a message was not sent.
#[derive(Debug, PartialEq, Eq)]
enum SendFailed {
    /// The socket failed.
    Broken,
    /// One fragment was not accepted within the write deadline.
    Stalled,
}

/// Feeds one message as raw frames: one frame when it is short, otherwise fragments of
/// at most [`FRAGMENT_BYTES`] (a text message is cut only between UTF-8 characters).
///
/// The deadline applies to each fragment, not to the whole message: the contract is
/// "no progress for the deadline". A slow reader that pauses for less than the deadline
/// in the middle of a large message (a snapshot of many fragments, read through a small
/// receive buffer) still makes progress, yet a deadline over the whole message could
/// pass across two of its pauses, and the reader was dropped (the soak's region slow
/// reader that ended with a reset).
async fn send_message<W>(
    sink: &mut W,
    bytes: Bytes,
    format: Format,
    deadline: Duration,
) -> Result<(), SendFailed>
where
    W: Sink<Message, Error = WsError> + Unpin,
{
    let kind = match format {
        Format::Json => Data::Text,
        Format::Bincode => Data::Binary,
    };
    let mut rest = bytes;
    let mut first = true;
    loop {
        let cut = fragment_end(&rest, format);
        let chunk = rest.split_to(cut);
        let fin = rest.is_empty();
        let opcode = OpCode::Data(if first { kind } else { Data::Continue });
        let frame = Message::Frame(Frame::message(chunk, opcode, fin));
        match timeout(deadline, sink.feed(frame)).await {
            Ok(Ok(())) => {}
            Ok(Err(_)) => return Err(SendFailed::Broken),
            Err(_) => return Err(SendFailed::Stalled),
        }
        if fin {
            return Ok(());
        }
        first = false;
    }
}

/// Where the next fragment of `rest` ends.
fn fragment_end(rest: &[u8], format: Format) -> usize {
    if rest.len() <= FRAGMENT_BYTES {
        return rest.len();
    }
    let mut cut = FRAGMENT_BYTES;
    if format == Format::Json {
        // Back off to the start of a character: continuation bytes are 0b10xx_xxxx.
        while cut > 0 && rest[cut] & 0xC0 == 0x80 {
            cut -= 1;
        }
    }
    cut
}

/// A client made no progress for the whole write deadline: try briefly to tell it to
/// resubscribe, then drop it. Its merged state is dropped with it, so a stalled client
/// costs nothing once it is gone.
async fn give_up<W>(sink: &mut W, deadline: Duration) -> WriterEnd
where
    W: Sink<Message, Error = WsError> + Unpin,
{
    tracing::info!(
        secs = deadline.as_secs(),
        "no write progress: disconnecting"
    );
    let frame = Message::Close(Some(CloseFrame {
        code: CloseCode::from(CLOSE_RESUBSCRIBE),
        reason: Utf8Bytes::from_static("no progress: reconnect and resubscribe"),
    }));
    let _ = timeout(Duration::from_secs(1), sink.send(frame)).await;
    WriterEnd::Broken
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sink that accepts one frame every `step` (of tokio time) and counts them.
    struct Slow {
        step: Duration,
        wait: Option<std::pin::Pin<Box<tokio::time::Sleep>>>,
        frames: usize,
    }

    impl Sink<Message> for Slow {
        type Error = WsError;
        fn poll_ready(
            mut self: std::pin::Pin<&mut Self>,
            cx: &mut std::task::Context<'_>,
        ) -> std::task::Poll<Result<(), WsError>> {
            let step = self.step;
            let wait = self
                .wait
                .get_or_insert_with(|| Box::pin(tokio::time::sleep(step)));
            std::task::ready!(wait.as_mut().poll(cx));
            self.wait = None;
            std::task::Poll::Ready(Ok(()))
        }
        fn start_send(mut self: std::pin::Pin<&mut Self>, _: Message) -> Result<(), WsError> {
            self.frames += 1;
            Ok(())
        }
        fn poll_flush(
            self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
        ) -> std::task::Poll<Result<(), WsError>> {
            std::task::Poll::Ready(Ok(()))
        }
        fn poll_close(
            self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
        ) -> std::task::Poll<Result<(), WsError>> {
            std::task::Poll::Ready(Ok(()))
        }
    }

    use std::future::Future;

    #[tokio::test(start_paused = true)]
    async fn a_message_slower_than_the_deadline_is_sent_while_each_fragment_progresses() {
        let deadline = Duration::from_secs(30);
        // Four fragments, each accepted after 25 s: 100 s for the message, never 30 s
        // without progress.
        let mut sink = Slow {
            step: Duration::from_secs(25),
            wait: None,
            frames: 0,
        };
        let bytes = Bytes::from(vec![7u8; 3 * FRAGMENT_BYTES + 1]);
        let sent = send_message(&mut sink, bytes, Format::Bincode, deadline).await;
        assert_eq!(sent, Ok(()));
        assert_eq!(sink.frames, 4);
    }

    #[tokio::test(start_paused = true)]
    async fn a_fragment_not_accepted_within_the_deadline_stalls_the_message() {
        let mut sink = Slow {
            step: Duration::from_secs(31),
            wait: None,
            frames: 0,
        };
        let bytes = Bytes::from(vec![7u8; 2 * FRAGMENT_BYTES]);
        let sent = send_message(&mut sink, bytes, Format::Bincode, Duration::from_secs(30)).await;
        assert_eq!(sent, Err(SendFailed::Stalled));
        assert_eq!(sink.frames, 0);
    }

    #[test]
    fn text_fragments_end_between_characters() {
        let mut s = "a".repeat(FRAGMENT_BYTES - 1);
        s.push('é');
        s.push_str(&"b".repeat(100));
        let cut = fragment_end(s.as_bytes(), Format::Json);
        assert_eq!(cut, FRAGMENT_BYTES - 1);
        assert!(std::str::from_utf8(&s.as_bytes()[..cut]).is_ok());
        assert_eq!(fragment_end(s.as_bytes(), Format::Bincode), FRAGMENT_BYTES);
        assert_eq!(fragment_end(b"short", Format::Json), 5);
    }
}
