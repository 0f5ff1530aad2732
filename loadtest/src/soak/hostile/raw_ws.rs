//! Raw TCP and WebSocket plumbing for hostile clients: a socket with a chosen receive
//! buffer, a WebSocket handshake written by hand, and masked client frames written
//! without ever reading.
//!
//! The client libraries read whenever they write (and answer pings); a client that
//! never reads has to be written by hand. Invariant: after the handshake nothing here
//! reads from the socket, so whatever the server sends stays queued in the kernel and
//! the server's outbox, as it would for a hostile peer.

use std::net::SocketAddr;
use std::time::Duration;

use anyhow::{Context, bail};
use canopy_protocol::{ClientMsg, Format, codec};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio_tungstenite::tungstenite::handshake::client::generate_key;

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

/// A TCP connection to `server` with `recv_buffer` bytes of receive buffer when given
/// (set before `connect`: the window scale is fixed by the handshake).
pub(crate) async fn connect(
    server: SocketAddr,
    recv_buffer: Option<u32>,
) -> anyhow::Result<TcpStream> {
    let socket = if server.is_ipv4() {
        TcpSocket::new_v4()?
    } else {
        TcpSocket::new_v6()?
    };
    if let Some(size) = recv_buffer {
        socket.set_recv_buffer_size(size)?;
    }
    let stream = socket
        .connect(server)
        .await
        .with_context(|| format!("connecting to {server}"))?;
    stream.set_nodelay(true)?;
    Ok(stream)
}

/// Opens a WebSocket to `path` (path and query, `/rooms/r/ws?format=json&token=..`).
pub(crate) async fn open(
    server: SocketAddr,
    path: &str,
    recv_buffer: Option<u32>,
) -> anyhow::Result<Upgrade> {
    let mut stream = connect(server, recv_buffer).await?;
    let request = format!(
        "GET {path} HTTP/1.1\r\nHost: {server}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: {}\r\nSec-WebSocket-Version: 13\r\n\r\n",
        generate_key()
    );
    stream.write_all(request.as_bytes()).await?;
    let head = tokio::time::timeout(HANDSHAKE_TIMEOUT, read_head(&mut stream))
        .await
        .context("the server did not answer the upgrade")??;
    let status = head.lines().next().unwrap_or_default().to_string();
    if status.split_whitespace().nth(1) == Some("101") {
        Ok(Upgrade::Open(stream))
    } else {
        Ok(Upgrade::Refused(status))
    }
}

/// Reads the response head byte by byte, so not one byte of a frame after it is taken.
async fn read_head(stream: &mut TcpStream) -> anyhow::Result<String> {
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        let mut byte = [0u8];
        if stream.read(&mut byte).await? == 0 {
            bail!("the server closed during the upgrade");
        }
        head.push(byte[0]);
        if head.len() > 64 * 1024 {
            bail!("an upgrade answer over 64 KiB");
        }
    }
    Ok(String::from_utf8_lossy(&head).into_owned())
}

/// `payload` as one masked client frame (text or binary), as RFC 6455 requires of a
/// client.
pub(crate) fn frame(payload: &[u8], binary: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(payload.len() + 14);
    out.push(0x80 | if binary { 0x2 } else { 0x1 });
    let n = payload.len();
    if n < 126 {
        out.push(0x80 | n as u8);
    } else if n <= usize::from(u16::MAX) {
        out.push(0x80 | 126);
        out.extend_from_slice(&(n as u16).to_be_bytes());
    } else {
        out.push(0x80 | 127);
        out.extend_from_slice(&(n as u64).to_be_bytes());
    }
    let mask: [u8; 4] = rand::random();
    out.extend_from_slice(&mask);
    out.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
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
