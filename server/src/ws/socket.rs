//! An upgraded WebSocket connection split the way the session uses it: a read side the
//! socket library parses client frames from, and a write side that server frames are
//! written to from the outbox's shared buffers (`frame.rs`), by the writer task and, on
//! a plain TCP socket, by the room's flushers (non-blocking writes, [`DirectWrite`]).
//!
//! Invariant: the socket library never writes. Its own answers (a pong for a ping, the
//! echo of a close) are dropped here, and the session queues them in the outbox
//! instead, so every byte the client gets comes through the outbox in its order.

use std::io::IoSlice;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::{Buf, Bytes};
use hyper::upgrade::Upgraded;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::net::tcp::OwnedWriteHalf;
use tokio_rustls::server::TlsStream;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::protocol::{Role, WebSocketConfig};

use crate::net::write_deadline::WriteDeadline;
use canopy_room::outbox::DirectWrite;

/// A connection ready for a session.
pub struct Socket {
    /// Client messages, parsed by the socket library.
    pub(super) reader: WebSocketStream<ReadSide>,
    /// Where server frames go.
    pub(super) out: SocketOut,
}

impl std::fmt::Debug for Socket {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Socket")
            .field("direct", &matches!(self.out, SocketOut::Tcp(_)))
            .finish()
    }
}

impl Socket {
    /// The connection `hyper` upgraded: a plain TCP socket gets direct writes, anything
    /// else (TLS) the generic path.
    pub async fn from_upgraded(upgraded: Upgraded, config: WebSocketConfig) -> Socket {
        // The HTTP edge's write deadline comes off: the session keeps its own
        // (`--ws-write-deadline-secs`).
        match upgraded.downcast::<TokioIo<WriteDeadline<TcpStream>>>() {
            Ok(parts) => {
                let (read, write) = parts.io.into_inner().into_inner().into_split();
                let out = SocketOut::Tcp(Arc::new(TcpOut(write)));
                Self::new(Box::new(read), parts.read_buf, out, config).await
            }
            Err(upgraded) => {
                match upgraded.downcast::<TokioIo<TlsStream<WriteDeadline<TcpStream>>>>() {
                    Ok(parts) => {
                        let mut tls = parts.io.into_inner();
                        tls.get_mut().0.lift();
                        let (read, write) = tokio::io::split(tls);
                        let out = SocketOut::Stream(Box::new(write));
                        Self::new(Box::new(read), parts.read_buf, out, config).await
                    }
                    Err(upgraded) => Self::from_io(TokioIo::new(upgraded), config).await,
                }
            }
        }
    }

    /// Any byte stream (a TLS stream; an in-memory pipe in tests): only the writer
    /// task writes to it.
    pub async fn from_io<S>(io: S, config: WebSocketConfig) -> Socket
    where
        S: AsyncRead + AsyncWrite + Send + 'static,
    {
        let (read, write) = tokio::io::split(io);
        Self::new(
            Box::new(read),
            Bytes::new(),
            SocketOut::Stream(Box::new(write)),
            config,
        )
        .await
    }

    async fn new(
        read: Box<dyn AsyncRead + Send + Unpin>,
        prefix: Bytes,
        out: SocketOut,
        config: WebSocketConfig,
    ) -> Socket {
        let read = ReadSide {
            inner: read,
            prefix,
            partial: None,
        };
        let reader = WebSocketStream::from_raw_socket(read, Role::Server, Some(config)).await;
        Socket { reader, out }
    }
}

/// The write side of a connection.
pub(super) enum SocketOut {
    /// A plain TCP socket, shared by the writer task and the room's flushers (never at
    /// once: see the outbox).
    Tcp(Arc<TcpOut>),
    /// Any other stream; only the writer task writes to it.
    Stream(Box<dyn AsyncWrite + Send + Unpin>),
}

/// The write half of a plain TCP connection.
#[derive(Debug)]
pub(super) struct TcpOut(OwnedWriteHalf);

impl TcpOut {
    /// One non-blocking `sendmsg(2)` of `bufs`. Not tokio's own `try_write_vectored`,
    /// which is `writev(2)`: the VFS layer of `writev` on a socket (`vfs_writev`,
    /// `fdget_pos`) was 7% of the server's CPU at 5,000 subscribers (`perf`), and
    /// `sendmsg` goes to the socket directly. Elsewhere (macOS has no `MSG_NOSIGNAL`) it
    /// is tokio's `writev`.
    ///
    /// The first try goes straight to the socket: reading tokio's readiness first (a
    /// cache miss per socket when a tick writes to thousands) was 4.5% of the server's
    /// CPU at 5,000 subscribers. Only a socket that is full goes through tokio's
    /// readiness, with a second `sendmsg` inside `try_io`, so that the readiness is
    /// cleared by an answer given after tokio took its readiness event: clearing it
    /// after the first answer could erase a "writable" that arrived in between, and the
    /// writer's `writable()` would then wait for an edge that never comes.
    #[cfg(target_os = "linux")]
    pub(super) fn try_send(&self, bufs: &[IoSlice<'_>]) -> std::io::Result<usize> {
        let stream: &TcpStream = self.0.as_ref();
        let send =
            || socket2::SockRef::from(stream).send_vectored_with_flags(bufs, libc::MSG_NOSIGNAL);
        match send() {
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                stream.try_io(tokio::io::Interest::WRITABLE, send)
            }
            other => other,
        }
    }

    #[cfg(not(target_os = "linux"))]
    pub(super) fn try_send(&self, bufs: &[IoSlice<'_>]) -> std::io::Result<usize> {
        self.0.try_write_vectored(bufs)
    }

    /// Waits until the socket may take more.
    pub(super) async fn writable(&self) -> std::io::Result<()> {
        self.0.writable().await
    }
}

impl DirectWrite for TcpOut {
    fn try_write_vectored(&self, bufs: &[IoSlice<'_>]) -> std::io::Result<usize> {
        self.try_send(bufs)
    }
}

/// The read side the socket library parses: the bytes `hyper` had read past the
/// handshake first, then the socket. Writes are dropped (see the module doc).
pub struct ReadSide {
    inner: Box<dyn AsyncRead + Send + Unpin>,
    prefix: Bytes,
    /// The watch of unfinished messages, when the session set one (`partial.rs`).
    partial: Option<Arc<super::partial::Partial>>,
}

impl ReadSide {
    /// Watches what is read for unfinished messages.
    pub(super) fn watch(&mut self, partial: Arc<super::partial::Partial>) {
        self.partial = Some(partial);
    }
}

impl std::fmt::Debug for ReadSide {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReadSide")
            .field("prefix", &self.prefix.len())
            .finish()
    }
}

impl AsyncRead for ReadSide {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        if !self.prefix.is_empty() {
            let n = self.prefix.len().min(buf.remaining());
            buf.put_slice(&self.prefix[..n]);
            self.prefix.advance(n);
        } else {
            std::task::ready!(Pin::new(&mut self.inner).poll_read(cx, buf))?;
        }
        if let Some(p) = &self.partial
            && let Err(over) = p.read(&buf.filled()[before..])
        {
            return Poll::Ready(Err(std::io::Error::other(over)));
        }
        Poll::Ready(Ok(()))
    }
}

impl AsyncWrite for ReadSide {
    fn poll_write(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;
    use tokio::net::TcpListener;

    /// A socket filled until it answers "full" must still wake its writer once the peer
    /// reads: the send that met the full socket is not allowed to clear a readiness that
    /// tokio gained after it.
    #[tokio::test]
    async fn a_full_socket_wakes_its_writer_when_the_peer_reads() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (client, accepted) = tokio::join!(TcpStream::connect(addr), listener.accept());
        let mut peer = client.unwrap();
        let (_read, write) = accepted.unwrap().0.into_split();
        let out = TcpOut(write);
        let block = vec![7u8; 64 * 1024];
        let mut sent = 0usize;
        loop {
            match out.try_send(&[IoSlice::new(&block)]) {
                Ok(n) => sent += n,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                Err(e) => panic!("send failed: {e}"),
            }
        }
        assert!(sent > 0);
        // A full socket stays full until the peer reads.
        let again = out.try_send(&[IoSlice::new(&block)]);
        assert_eq!(again.unwrap_err().kind(), std::io::ErrorKind::WouldBlock);
        let drain = tokio::spawn(async move {
            let mut buf = vec![0u8; 1 << 20];
            let mut got = 0usize;
            while got < sent {
                got += peer.read(&mut buf).await.unwrap();
            }
            peer
        });
        // Only a hang guard: the wait ends as soon as the peer's reads make room.
        tokio::time::timeout(std::time::Duration::from_secs(60), out.writable())
            .await
            .expect("the writer is woken when the socket drains")
            .unwrap();
        let _peer = drain.await.unwrap();
        assert!(out.try_send(&[IoSlice::new(b"more")]).unwrap() > 0);
    }
}
