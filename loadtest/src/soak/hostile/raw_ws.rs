//! What hostile clients do with the harness's raw WebSocket client ([`crate::rawws`]):
//! upgrade and then write masked client frames without ever reading.
//!
//! The client libraries read whenever they write (and answer pings); a client that
//! never reads has to be written by hand. Invariant: after the handshake nothing here
//! reads from the socket, so whatever the server sends stays queued in the kernel and
//! the server's outbox, as it would for a hostile peer.

use std::net::{Ipv4Addr, SocketAddr};
use std::time::Duration;

use anyhow::Context;
use canopy_protocol::{ClientMsg, Format, codec};
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpSocket, TcpStream};

use crate::rawws;
pub(crate) use crate::rawws::connect;
use crate::soak::hostile::{Attempt, Kind};

/// The receive buffer of a socket that never reads: small, so the server's writes back
/// up into the server rather than into this machine's kernel.
pub(crate) const SMALL_RECV_BUFFER: u32 = 4096;

/// How long a handshake may take.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// Frames written per `write_all`: enough to be quick, few enough to notice when the
/// server stops reading.
const FRAMES_PER_WRITE: usize = 64;

/// A WebSocket upgrade's outcome.
#[derive(Debug)]
pub(crate) enum Upgrade {
    /// `101`: the socket speaks WebSocket now.
    Open(TcpStream),
    /// Any other answer: the server refused, with this status line.
    Refused(String),
}

/// Opens a WebSocket to `path` (path and query, `/rooms/r/ws?format=json&token=..`).
pub(crate) async fn open(
    server: SocketAddr,
    path: &str,
    recv_buffer: Option<u32>,
) -> anyhow::Result<Upgrade> {
    let stream = connect(server, recv_buffer).await?;
    upgrade(stream, server, path).await
}

/// Opens a WebSocket to `path` as [`open`] does, from `source` when the server is on
/// IPv4 loopback: another loopback address makes the client a caller of its own on a
/// server without tokens (the server keys anonymous callers by address), so what its
/// share refuses leaves the load's clients alone.
pub(crate) async fn open_from(
    server: SocketAddr,
    path: &str,
    recv_buffer: Option<u32>,
    source: Ipv4Addr,
) -> anyhow::Result<Upgrade> {
    if !server.is_ipv4() {
        return open(server, path, recv_buffer).await;
    }
    let socket = TcpSocket::new_v4()?;
    if let Some(size) = recv_buffer {
        socket.set_recv_buffer_size(size)?;
    }
    if server.ip().is_loopback() {
        socket.bind(SocketAddr::new(source.into(), 0))?;
    }
    let stream = socket
        .connect(server)
        .await
        .with_context(|| format!("connecting to {server} from {source}"))?;
    stream.set_nodelay(true)?;
    upgrade(stream, server, path).await
}

/// Sends the upgrade request for `path` on `stream` and reads the answer's head.
async fn upgrade(mut stream: TcpStream, server: SocketAddr, path: &str) -> anyhow::Result<Upgrade> {
    let answer = tokio::time::timeout(
        HANDSHAKE_TIMEOUT,
        rawws::handshake(&mut stream, &server.to_string(), path),
    )
    .await
    .context("the server did not answer the upgrade")??;
    // What came after the head stays unread: this client never reads.
    if answer.switched() {
        Ok(Upgrade::Open(stream))
    } else {
        Ok(Upgrade::Refused(answer.status().to_string()))
    }
}

/// Opens a WebSocket that will never be read, with a [`SMALL_RECV_BUFFER`]. `Err` is
/// the attempt's outcome already: a refused upgrade (bounded at once) or the harness's
/// own failure.
pub(crate) async fn open_unread(
    server: SocketAddr,
    path: &str,
    kind: Kind,
) -> Result<TcpStream, Attempt> {
    match open(server, path, Some(SMALL_RECV_BUFFER)).await {
        Ok(Upgrade::Open(s)) => Ok(s),
        Ok(Upgrade::Refused(status)) => {
            Err(Attempt::new(kind, "refused_upgrade", Some(0.0), Some(true)).with(status))
        }
        Err(e) => Err(Attempt::harness_error(kind, &e)),
    }
}

/// `payload` as one masked client frame (text or binary), as RFC 6455 requires of a
/// client.
pub(crate) fn frame(payload: &[u8], binary: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(payload.len() + 14);
    let opcode = if binary {
        rawws::OP_BINARY
    } else {
        rawws::OP_TEXT
    };
    rawws::client_frame(&mut out, opcode, payload);
    out
}

/// `msg` encoded in `format` as one client frame.
pub(crate) fn message(msg: &ClientMsg, format: Format) -> Vec<u8> {
    frame(
        &codec::encode_client(msg, format),
        format == Format::Bincode,
    )
}

/// Writes the frames of `frames` in order; stops when a write takes longer than
/// `patience` (the server stopped reading) or fails. Returns how many were written.
pub(crate) async fn send_frames(
    stream: &mut TcpStream,
    frames: &[Vec<u8>],
    patience: Duration,
) -> usize {
    let mut sent = 0;
    for chunk in frames.chunks(FRAMES_PER_WRITE) {
        let bytes: Vec<u8> = chunk.concat();
        match tokio::time::timeout(patience, stream.write_all(&bytes)).await {
            Ok(Ok(())) => sent += chunk.len(),
            Ok(Err(_)) | Err(_) => break,
        }
    }
    sent
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unmask(frame: &[u8], header: usize) -> Vec<u8> {
        let mask = &frame[header - 4..header];
        frame[header..]
            .iter()
            .enumerate()
            .map(|(i, b)| b ^ mask[i % 4])
            .collect()
    }

    #[test]
    fn frames_are_masked_with_the_right_length_forms() {
        let short = frame(b"hi", false);
        assert_eq!(&short[..2], &[0x81, 0x82]);
        assert_eq!(unmask(&short, 6), b"hi");
        let mid = frame(&[7u8; 300], true);
        assert_eq!(&mid[..4], &[0x82, 0xFE, 0x01, 0x2C]);
        assert_eq!(unmask(&mid, 8), vec![7u8; 300]);
        let long = frame(&[1u8; 70_000], true);
        assert_eq!(long[1], 0xFF);
        assert_eq!(u64::from_be_bytes(long[2..10].try_into().unwrap()), 70_000);
    }
}
