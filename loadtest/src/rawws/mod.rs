//! The harness's one raw WebSocket client, for what a WebSocket library cannot do here:
//! subscribers that read fast enough not to be the bottleneck of the latency they measure
//! ([`RawSocket`]), with a socket receive buffer chosen before `connect` (slow readers),
//! and hostile clients that write frames and never read
//! (`soak::hostile::raw_ws`). Everything else (editors, queries) uses the SDK, which is
//! tokio-tungstenite.
//!
//! Invariant: one TCP connect, one handshake and one frame encoder serve every raw
//! socket; the handshake reads only the response head and hands the bytes after it to
//! whoever reads next.

mod open;
mod socket;

use std::net::SocketAddr;

use anyhow::{Context, bail};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio_tungstenite::tungstenite::handshake::client::generate_key;

pub(crate) use open::{open, ws_url};
pub(crate) use socket::RawSocket;

pub(crate) const OP_CONTINUATION: u8 = 0x0;
pub(crate) const OP_TEXT: u8 = 0x1;
pub(crate) const OP_BINARY: u8 = 0x2;
pub(crate) const OP_CLOSE: u8 = 0x8;
pub(crate) const OP_PING: u8 = 0x9;
pub(crate) const OP_PONG: u8 = 0xA;

/// The longest handshake response head read.
const MAX_RESPONSE_BYTES: usize = 16 * 1024;

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

/// The server's answer to an upgrade request.
pub(crate) struct Handshake {
    /// The response head, status line first.
    pub head: String,
    /// The `Sec-WebSocket-Key` sent.
    pub key: String,
    /// What arrived after the head (the first frames), for the reader.
    pub rest: Vec<u8>,
}

impl Handshake {
    /// The status line.
    pub(crate) fn status(&self) -> &str {
        self.head.lines().next().unwrap_or_default()
    }

    /// Whether the server switched protocols (`101`).
    pub(crate) fn switched(&self) -> bool {
        self.status().split_whitespace().nth(1) == Some("101")
    }
}

/// Sends the upgrade request for `path` (path and query) to `host` (RFC 6455 §4.1) and
/// reads the response head.
pub(crate) async fn handshake(
    stream: &mut TcpStream,
    host: &str,
    path: &str,
) -> anyhow::Result<Handshake> {
    let key = generate_key();
    let request = format!(
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\n\
         Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).await?;
    let mut response = Vec::with_capacity(1024);
    let end = loop {
        if let Some(at) = response.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        if response.len() > MAX_RESPONSE_BYTES {
            bail!("WebSocket handshake: a response over {MAX_RESPONSE_BYTES} bytes");
        }
        if stream.read_buf(&mut response).await? == 0 {
            bail!("WebSocket handshake: the server closed the connection");
        }
    };
    Ok(Handshake {
        head: String::from_utf8_lossy(&response[..end]).into_owned(),
        key,
        rest: response[end..].to_vec(),
    })
}

/// Appends a client frame (masked, as RFC 6455 requires of clients) to `out`.
pub(crate) fn client_frame(out: &mut Vec<u8>, opcode: u8, payload: &[u8]) {
    out.push(0x80 | opcode);
    let len = payload.len();
    if len < 126 {
        out.push(0x80 | len as u8);
    } else if len <= usize::from(u16::MAX) {
        out.push(0x80 | 126);
        out.extend_from_slice(&(len as u16).to_be_bytes());
    } else {
        out.push(0x80 | 127);
        out.extend_from_slice(&(len as u64).to_be_bytes());
    }
    let mask: [u8; 4] = rand::random();
    out.extend_from_slice(&mask);
    out.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
}
