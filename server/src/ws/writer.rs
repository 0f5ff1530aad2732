//! The writer task of a WebSocket connection: drains the outbox into the socket.
//!
//! A socket that accepts nothing for the write deadline is given up on (the client has
//! stalled: it must reconnect and resubscribe); a merely slow one just makes the outbox
//! merge, so the writer never needs to drop anything itself.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket};
use canopy_protocol::ServerMsg;
use futures_util::SinkExt;
use futures_util::stream::SplitSink;
use tokio::time::timeout;

use crate::metrics::Metrics;
use crate::room::outbox::{Outbox, Outgoing};

fn message_len(m: &Message) -> usize {
    match m {
        Message::Text(t) => t.len(),
        Message::Binary(b) => b.len(),
        _ => 0,
    }
}

/// Why the writer stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriterEnd {
    /// It sent `closed` and a close frame.
    Closed,
    /// The socket failed or made no progress within the deadline.
    Broken,
}

/// Runs until the outbox is closed or the socket breaks.
pub async fn run(
    mut sink: SplitSink<WebSocket, Message>,
    outbox: Arc<Outbox>,
    metrics: Arc<Metrics>,
    deadline: Duration,
) -> WriterEnd {
    loop {
        let mut fed = false;
        while let Some(item) = outbox.try_next() {
            let (msg, is_delta) = match item {
                Outgoing::Msg(m) => (outbox.encode(&m), false),
                Outgoing::Frame(m) => (m, true),
                Outgoing::Ping => (Message::Ping(bytes::Bytes::new()), false),
                Outgoing::Merged(m, _ticks) => {
                    metrics.merged_frames.inc();
                    (outbox.encode(&m), true)
                }
                Outgoing::Close { reason, code } => {
                    let closed = outbox.encode(&ServerMsg::Closed {
                        reason: reason.clone(),
                    });
                    let frame = Message::Close(Some(CloseFrame {
                        code,
                        reason: Utf8Bytes::from(reason),
                    }));
                    let _ = timeout(deadline, async {
                        sink.feed(closed).await?;
                        sink.send(frame).await
                    })
                    .await;
                    return WriterEnd::Closed;
                }
            };
            let len = message_len(&msg) as u64;
            match timeout(deadline, sink.feed(msg)).await {
                Ok(Ok(())) => {}
                Ok(Err(_)) => return WriterEnd::Broken,
                Err(_) => return give_up(&mut sink, deadline).await,
            }
            fed = true;
            metrics.bytes_sent.inc_by(len);
            if is_delta {
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
        outbox.notifier().notified().await;
    }
}

/// The close code that tells a client to reconnect and subscribe again: used for a
/// client that made no progress for the write deadline, and for idle connections.
pub const CLOSE_RESUBSCRIBE: u16 = 4000;

/// A client made no progress for the whole write deadline: try briefly to tell it to
/// resubscribe, then drop it. Its merged state is dropped with it, so a stalled client
/// costs nothing once it is gone.
async fn give_up(sink: &mut SplitSink<WebSocket, Message>, deadline: Duration) -> WriterEnd {
    tracing::info!(
        secs = deadline.as_secs(),
        "no write progress: disconnecting"
    );
    let frame = Message::Close(Some(CloseFrame {
        code: CLOSE_RESUBSCRIBE,
        reason: Utf8Bytes::from_static("no progress: reconnect and resubscribe"),
    }));
    let _ = timeout(Duration::from_secs(1), sink.send(frame)).await;
    WriterEnd::Broken
}
