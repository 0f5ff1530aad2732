//! The writer task of a WebSocket connection: drains the outbox into the socket.
//!
//! Messages are written straight from the outbox's shared buffers as WebSocket frames
//! (`frame.rs`): a frame shared by many subscribers is neither copied nor re-validated
//! per subscriber, and no connection keeps a write buffer of its own. On a plain TCP
//! socket the writer sleeps while the room's flushers write for it (`flusher.rs`); it
//! takes over whatever they could not write without waiting.
//!
//! A socket that accepts nothing for the write deadline is given up on (the client has
//! stalled: it must reconnect and resubscribe); a merely slow one just makes the outbox
//! merge, so the writer never needs to drop anything itself. However the writer ends, the
//! outbox learns of it ([`Outbox::writer_gone`]), so the session never waits on it.

use std::sync::Arc;
use std::time::Duration;

use canopy_protocol::{Format, ServerMsg, codec};
use tokio::io::AsyncWriteExt;
use tokio::time::timeout;

use super::close::{CLOSE_NO_PROGRESS, NO_PROGRESS_REASON};
use super::frame::{Opcode, WirePlan, close_payload};
use super::socket::SocketOut;
use crate::metrics::Metrics;
use crate::net::pace::Pace;
use canopy_room::outbox::{ConnId, Next, Outbox, Outgoing};

/// Why the writer stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum WriterEnd {
    /// It sent a close frame.
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

/// The opcode of data messages in `format`.
pub(super) fn data_opcode(format: Format) -> Opcode {
    match format {
        Format::Json => Opcode::Text,
        Format::Bincode => Opcode::Binary,
    }
}

/// Runs until the outbox is closed or the socket breaks.
pub(super) async fn run(
    mut out: SocketOut,
    outbox: Arc<Outbox>,
    metrics: Arc<Metrics>,
    deadline: Pace,
) -> WriterEnd {
    let _gone = Gone(Arc::clone(&outbox));
    let mut durable = outbox.durability_watch();
    loop {
        let mut fed = false;
        while let Some(Next { item, written }) = outbox.take_next() {
            match write_item(&mut out, &item, written, outbox.format, deadline).await {
                Ok(Wrote::Sent) => {}
                Ok(Wrote::Closed) => {
                    finish(&mut out).await;
                    return WriterEnd::Closed;
                }
                Err(SendFailed::Broken) => return WriterEnd::Broken,
                Err(SendFailed::Stalled { mid }) => {
                    return give_up(&mut out, outbox.conn, mid).await;
                }
            }
            fed = true;
            count(&metrics, &item);
        }
        if fed && let SocketOut::Stream(w) = &mut out {
            match timeout(deadline.stall, w.flush()).await {
                Ok(Ok(())) => {}
                Ok(Err(_)) => return WriterEnd::Broken,
                Err(_) => return give_up(&mut out, outbox.conn, false).await,
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

/// What writing one item came to.
enum Wrote {
    /// Written; the writer goes on.
    Sent,
    /// A close (the client's echoed, or the server's `closed` and close frame): the
    /// writer ends.
    Closed,
}

/// Writes one item of the outbox (`written` of its bytes went out before, by a
/// flusher).
async fn write_item(
    out: &mut SocketOut,
    item: &Outgoing,
    written: usize,
    format: Format,
    deadline: Pace,
) -> Result<Wrote, SendFailed> {
    let data = data_opcode(format);
    match item {
        Outgoing::Message(b) | Outgoing::Frame(b) | Outgoing::Merged(b) => {
            send(out, b, data, written, deadline).await?
        }
        Outgoing::Ping => send(out, &[], Opcode::Ping, written, deadline).await?,
        Outgoing::Pong(p) => send(out, p, Opcode::Pong, written, deadline).await?,
        Outgoing::CloseReply { code } => {
            let body = close_payload(*code, "");
            let _ = send(out, &body, Opcode::Close, written, deadline).await;
            return Ok(Wrote::Closed);
        }
        Outgoing::Close(cause) => {
            let reason = cause.reason();
            let closed = codec::encode_server(
                &ServerMsg::Closed {
                    reason: reason.to_string(),
                },
                format,
            );
            if send(out, &closed, data, written, deadline).await.is_ok() {
                let body = close_payload(super::close::code(*cause), reason);
                let _ = send(out, &body, Opcode::Close, 0, deadline).await;
            }
            return Ok(Wrote::Closed);
        }
    }
    Ok(Wrote::Sent)
}

/// Counts a written item in the metrics: its bytes, and a delta frame's.
fn count(metrics: &Metrics, item: &Outgoing) {
    if let Outgoing::Merged(_) = item {
        metrics.merged_frames.inc();
    }
    if let Outgoing::Message(b) | Outgoing::Frame(b) | Outgoing::Merged(b) = item {
        metrics.bytes_sent.inc_by(b.len() as u64);
    }
    if let Outgoing::Frame(b) | Outgoing::Merged(b) = item {
        metrics.delta_frames_sent.inc();
        metrics.delta_bytes_sent.inc_by(b.len() as u64);
    }
}

/// Why a message was not sent.
#[derive(Debug, PartialEq, Eq)]
enum SendFailed {
    /// The socket failed.
    Broken,
    /// No byte was accepted within the write deadline; `mid` when part of the message
    /// was written before.
    Stalled {
        /// The message was written in part.
        mid: bool,
    },
}

/// Writes what is left of one message (`written` of its wire bytes are out already).
///
/// The stall deadline applies to each write, not to the whole message: the contract is
/// "no progress for the deadline". A slow reader that pauses for less than the deadline
/// in the middle of a large message (a snapshot read through a small receive buffer)
/// still makes progress, yet a stall deadline over the whole message could pass across
/// two of its pauses, and the reader was dropped (the soak's region slow reader that
/// ended with a reset). What bounds the whole message is the pace's minimum rate: the
/// rest of it must be taken within the grace plus its size at that rate (`pace.rs`),
/// so a trickling reader cannot hold a snapshot for hours.
async fn send(
    out: &mut SocketOut,
    payload: &[u8],
    opcode: Opcode,
    mut written: usize,
    pace: Pace,
) -> Result<(), SendFailed> {
    let cut_at = tokio::time::Instant::now()
        .checked_add(pace.allowance(payload.len().saturating_sub(written)));
    // The wait of one write: the stall deadline, or less when the whole message's
    // allowance ends sooner.
    let wait = || match cut_at {
        Some(at) => pace
            .stall
            .min(at.saturating_duration_since(tokio::time::Instant::now())),
        None => pace.stall,
    };
    while let Some(plan) = WirePlan::new(payload, opcode, written) {
        let (slices, n) = plan.slices();
        let took = match out {
            SocketOut::Tcp(tcp) => loop {
                match tcp.try_send(&slices[..n]) {
                    Ok(0) => return Err(SendFailed::Broken),
                    Ok(k) => break k,
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                        match timeout(wait(), tcp.writable()).await {
                            Ok(Ok(())) => {}
                            Ok(Err(_)) => return Err(SendFailed::Broken),
                            Err(_) => return Err(SendFailed::Stalled { mid: written > 0 }),
                        }
                    }
                    Err(_) => return Err(SendFailed::Broken),
                }
            },
            SocketOut::Stream(w) => match timeout(wait(), w.write_vectored(&slices[..n])).await {
                Ok(Ok(0)) | Ok(Err(_)) => return Err(SendFailed::Broken),
                Ok(Ok(k)) => k,
                Err(_) => return Err(SendFailed::Stalled { mid: written > 0 }),
            },
        };
        written += took;
    }
    Ok(())
}

/// After the close frame: flush and shut the write side down (a TLS stream sends its
/// close_notify; a TCP socket's FIN goes when its last handle drops, see `Gone`).
async fn finish(out: &mut SocketOut) {
    if let SocketOut::Stream(w) = out {
        let _ = timeout(Duration::from_secs(1), w.shutdown()).await;
    }
}

/// A client made no progress for the whole write deadline: try briefly to tell it to
/// resubscribe, then drop it. Its merged state is dropped with it, so a stalled client
/// costs nothing once it is gone.
async fn give_up(out: &mut SocketOut, conn: ConnId, mid_message: bool) -> WriterEnd {
    tracing::info!(conn, "no write progress: disconnecting");
    // A close frame cannot go in the middle of a message; the socket just closes then.
    if !mid_message {
        let body = close_payload(CLOSE_NO_PROGRESS, NO_PROGRESS_REASON);
        let pace = Pace::stall_only(Duration::from_secs(1));
        let _ = send(out, &body, Opcode::Close, 0, pace).await;
    }
    finish(out).await;
    WriterEnd::Broken
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::future::Future;
    use std::pin::Pin;
    use std::task::{Context, Poll};

    use super::super::frame::FRAGMENT_BYTES;

    /// A stream that accepts at most `max` bytes per write, each after `step` of tokio
    /// time, and counts them.
    struct Slow {
        step: Duration,
        max: usize,
        wait: Option<Pin<Box<tokio::time::Sleep>>>,
        bytes: Arc<std::sync::atomic::AtomicUsize>,
    }

    impl tokio::io::AsyncWrite for Slow {
        fn poll_write(
            mut self: Pin<&mut Self>,
            cx: &mut Context<'_>,
            buf: &[u8],
        ) -> Poll<std::io::Result<usize>> {
            let step = self.step;
            let wait = self
                .wait
                .get_or_insert_with(|| Box::pin(tokio::time::sleep(step)));
            std::task::ready!(wait.as_mut().poll(cx));
            self.wait = None;
            let n = buf.len().min(self.max);
            self.bytes
                .fetch_add(n, std::sync::atomic::Ordering::Relaxed);
            Poll::Ready(Ok(n))
        }
        fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
            Poll::Ready(Ok(()))
        }
        fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
            Poll::Ready(Ok(()))
        }
    }

    fn slow(step_secs: u64) -> (SocketOut, Arc<std::sync::atomic::AtomicUsize>) {
        let bytes = Arc::default();
        let out = SocketOut::Stream(Box::new(Slow {
            step: Duration::from_secs(step_secs),
            max: FRAGMENT_BYTES,
            wait: None,
            bytes: Arc::clone(&bytes),
        }));
        (out, bytes)
    }

    #[tokio::test(start_paused = true)]
    async fn a_message_slower_than_the_deadline_is_sent_while_each_write_progresses() {
        // About four writes, each accepted after 25 s: 100 s for the message, never
        // 30 s without progress.
        let (mut out, bytes) = slow(25);
        let payload = vec![7u8; 3 * FRAGMENT_BYTES + 1];
        let sent = send(
            &mut out,
            &payload,
            Opcode::Binary,
            0,
            Pace::stall_only(Duration::from_secs(30)),
        )
        .await;
        assert_eq!(sent, Ok(()));
        // Three frame headers of 4 bytes and the last, 1-byte fragment's of 2.
        let wire = bytes.load(std::sync::atomic::Ordering::Relaxed);
        assert_eq!(wire, payload.len() + 14);
    }

    #[tokio::test(start_paused = true)]
    async fn a_write_not_accepted_within_the_deadline_stalls_the_message() {
        let (mut out, bytes) = slow(31);
        let payload = vec![7u8; 2 * FRAGMENT_BYTES];
        let sent = send(
            &mut out,
            &payload,
            Opcode::Binary,
            0,
            Pace::stall_only(Duration::from_secs(30)),
        )
        .await;
        assert_eq!(sent, Err(SendFailed::Stalled { mid: false }));
        assert_eq!(bytes.load(std::sync::atomic::Ordering::Relaxed), 0);
        // Part written already (by the flusher, say): a stall is mid-message.
        let (mut out, _) = slow(31);
        let sent = send(
            &mut out,
            &payload,
            Opcode::Binary,
            5,
            Pace::stall_only(Duration::from_secs(30)),
        )
        .await;
        assert_eq!(sent, Err(SendFailed::Stalled { mid: true }));
    }

    /// A reader that takes 1 KB a second never stalls, but cannot hold a 200 KB
    /// snapshot for minutes: it is cut once the grace plus the size at the minimum rate
    /// has passed; with no minimum, it gets the whole message.
    #[tokio::test(start_paused = true)]
    async fn a_trickling_reader_is_cut_at_the_minimum_rate() {
        let trickle = || {
            SocketOut::Stream(Box::new(Slow {
                step: Duration::from_secs(1),
                max: 1000,
                wait: None,
                bytes: Arc::default(),
            }))
        };
        let payload = vec![7u8; 200_000];
        let pace = Pace {
            stall: Duration::from_secs(30),
            min_rate: Some(crate::net::pace::BytesPerSec(64 * 1024)),
        };
        let began = tokio::time::Instant::now();
        let sent = send(&mut trickle(), &payload, Opcode::Binary, 0, pace).await;
        assert_eq!(sent, Err(SendFailed::Stalled { mid: true }));
        let took = began.elapsed();
        let allowance = pace.allowance(payload.len());
        assert!(
            took >= allowance && took <= allowance + Duration::from_secs(2),
            "{took:?}"
        );
        let sent = send(
            &mut trickle(),
            &payload,
            Opcode::Binary,
            0,
            Pace::stall_only(pace.stall),
        )
        .await;
        assert_eq!(sent, Ok(()));
    }
}
