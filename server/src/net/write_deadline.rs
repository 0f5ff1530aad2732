//! [`WriteDeadline`]: an HTTP connection's byte stream that fails a write the peer has
//! accepted nothing of for too long, so that a client that stops reading an answer
//! cannot hold its connection, its buffers and its task for good (hyper has no write
//! timeout of its own).
//!
//! Invariant: the deadline runs only while a write (or flush, or shutdown) is pending,
//! from the moment it first could not go on, and any progress stops it; a connection
//! waiting for its next request is never timed out here (the header-read timeout
//! covers that).
//!
//! Written here rather than taken from `tokio-io-timeout`: a WebSocket upgrade takes the
//! `TcpStream` back out of the wrapper (`into_inner`, for the flushers' direct writes),
//! and that crate's stream is `!Unpin`, so once pinned for hyper it cannot give the
//! stream back without `unsafe`. This one keeps its timer boxed and stays `Unpin`.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{Instant, Sleep};

/// A stream whose writes fail with [`io::ErrorKind::TimedOut`] once the peer has taken
/// nothing for `limit`.
#[derive(Debug)]
pub(crate) struct WriteDeadline<S> {
    inner: S,
    /// `None` once lifted: writes may then wait as long as they like.
    limit: Option<Duration>,
    /// The timer of the current stall, made at the first one and reset for each after.
    timer: Option<Pin<Box<Sleep>>>,
    /// A write is pending and the timer runs for it.
    armed: bool,
}

impl<S> WriteDeadline<S> {
    /// `inner`, whose writes may stall at most `limit` each.
    pub(crate) fn new(inner: S, limit: Duration) -> Self {
        WriteDeadline {
            inner,
            limit: Some(limit),
            timer: None,
            armed: false,
        }
    }

    /// The stream itself (a WebSocket upgrade takes it back).
    pub(crate) fn into_inner(self) -> S {
        self.inner
    }

    /// Takes the deadline off (a WebSocket over TLS, whose session keeps a deadline of
    /// its own and cannot take the stream out from under the TLS layer).
    pub(crate) fn lift(&mut self) {
        self.limit = None;
        self.armed = false;
    }

    /// Passes `poll` through, timing how long it stays pending without progress.
    fn watch<T>(&mut self, cx: &mut Context<'_>, poll: Poll<io::Result<T>>) -> Poll<io::Result<T>> {
        let Some(limit) = self.limit else {
            return poll;
        };
        if poll.is_ready() {
            self.armed = false;
            return poll;
        }
        let deadline = Instant::now() + limit;
        let timer = self
            .timer
            .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(deadline)));
        if !self.armed {
            timer.as_mut().reset(deadline);
            self.armed = true;
        }
        if timer.as_mut().poll(cx).is_ready() {
            self.armed = false;
            return Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!(
                    "the peer accepted nothing for {} s: connection closed",
                    limit.as_secs_f64()
                ),
            )));
        }
        Poll::Pending
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for WriteDeadline<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for WriteDeadline<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let poll = Pin::new(&mut self.inner).poll_write(cx, buf);
        self.watch(cx, poll)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let poll = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        self.watch(cx, poll)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let poll = Pin::new(&mut self.inner).poll_flush(cx);
        self.watch(cx, poll)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let poll = Pin::new(&mut self.inner).poll_shutdown(cx);
        self.watch(cx, poll)
    }
}

#[cfg(test)]
mod tests {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;

    /// A pipe whose far end reads nothing: writes stall once its buffer is full, and
    /// fail after the limit; reading on the far end resets the clock.
    #[tokio::test(start_paused = true)]
    async fn a_write_the_peer_never_takes_fails_after_the_limit() {
        let (near, mut far) = tokio::io::duplex(64);
        let mut stream = WriteDeadline::new(near, Duration::from_secs(30));
        stream.write_all(&[1; 64]).await.unwrap();
        let began = Instant::now();
        let write = stream.write_all(&[2; 64]);
        // Meanwhile the peer takes a little at 20 s: the stall starts over.
        let reader = async {
            tokio::time::sleep(Duration::from_secs(20)).await;
            let mut got = [0u8; 16];
            far.read_exact(&mut got).await.unwrap();
            far
        };
        let (written, far) = tokio::join!(write, reader);
        let err = written.expect_err("the write must time out");
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
        // 20 s until the read, then 30 s without progress.
        assert_eq!(began.elapsed(), Duration::from_secs(50));
        drop(far);
    }

    #[tokio::test(start_paused = true)]
    async fn an_idle_stream_is_never_timed_out() {
        let (near, mut far) = tokio::io::duplex(64);
        let mut stream = WriteDeadline::new(near, Duration::from_secs(1));
        tokio::time::sleep(Duration::from_secs(3600)).await;
        stream.write_all(b"still here").await.unwrap();
        let mut got = [0u8; 10];
        far.read_exact(&mut got).await.unwrap();
        assert_eq!(&got, b"still here");
        // The stream gives back what it wraps.
        let _near: tokio::io::DuplexStream = stream.into_inner();
    }

    #[tokio::test(start_paused = true)]
    async fn a_lifted_deadline_lets_a_write_wait() {
        let (near, mut far) = tokio::io::duplex(8);
        let mut stream = WriteDeadline::new(near, Duration::from_secs(1));
        stream.lift();
        let reader = async {
            tokio::time::sleep(Duration::from_secs(600)).await;
            let mut got = [0u8; 16];
            far.read_exact(&mut got).await.unwrap();
        };
        let (written, ()) = tokio::join!(stream.write_all(&[3; 16]), reader);
        written.expect("no deadline once lifted");
    }
}
