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
                _ => return WriterEnd::Broken,
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
                _ => return WriterEnd::Broken,
            }
        }
        outbox.notifier().notified().await;
    }
}
