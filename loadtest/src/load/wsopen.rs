//! Opening a raw WebSocket to a room for a subscriber, with a chosen socket receive
//! buffer.
//!
//! The client SDK opens its sockets itself; the subscribers open theirs here because a
//! slow reader needs a small receive buffer, set before `connect` (the TCP window scale
//! is fixed by the handshake), so that its pauses back up into the server's outbox
//! instead of into the kernel. Invariant: the URL is built from the SDK client's base
//! URL with the same path and query rules as the SDK (`/rooms/{room}/ws?format=..`),
//! so both kinds of connection reach the same server and room.

use anyhow::{Context, bail};
use canopy_client::Client;
use canopy_protocol::Format;
use tokio::net::{TcpSocket, TcpStream};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;

/// The largest message a subscriber accepts: snapshots of big rooms are big.
const MAX_MESSAGE_BYTES: usize = 512 * 1024 * 1024;

/// Bytes read from the socket at a time. A delta of the target run is about 8 KiB; the
/// reader zero-fills this much before each read, so it is kept small.
const READ_BUFFER_BYTES: usize = 16 * 1024;

/// An open subscriber socket.
pub(crate) type RawSocket = WebSocketStream<TcpStream>;

/// The WebSocket URL of `room` on the server of `client`.
pub(crate) fn ws_url(client: &Client, room: &str, format: Format) -> anyhow::Result<String> {
    let mut url = client.base_url().clone();
    let scheme = match url.scheme() {
        "http" => "ws",
        // tokio-tungstenite is built without TLS in this workspace.
        other => bail!("raw subscribers support http:// servers only, not {other}://"),
    };
    url.set_scheme(scheme)
        .map_err(|()| anyhow::anyhow!("cannot make a ws:// URL of {url}"))?;
    {
        let mut path = url
            .path_segments_mut()
            .map_err(|()| anyhow::anyhow!("the server URL cannot be a base"))?;
        path.pop_if_empty();
        path.extend(["rooms", room, "ws"]);
    }
    url.query_pairs_mut().append_pair("format", format.as_str());
    if let Some(token) = client.token() {
        url.query_pairs_mut().append_pair("token", token);
    }
    Ok(url.to_string())
}

/// Connects to `url`, with `recv_buffer` bytes of socket receive buffer when given.
pub(crate) async fn open(url: &str, recv_buffer: Option<u32>) -> anyhow::Result<RawSocket> {
    let parsed: tokio_tungstenite::tungstenite::http::Uri = url.parse().context("bad ws URL")?;
    let host = parsed.host().context("the ws URL has no host")?;
    let port = parsed.port_u16().unwrap_or(80);
    let addr = tokio::net::lookup_host((host, port))
        .await
        .with_context(|| format!("resolving {host}"))?
        .next()
        .with_context(|| format!("{host} resolves to no address"))?;
    let socket = if addr.is_ipv4() {
        TcpSocket::new_v4()?
    } else {
        TcpSocket::new_v6()?
    };
    if let Some(size) = recv_buffer {
        socket.set_recv_buffer_size(size)?;
    }
    let stream = socket
        .connect(addr)
        .await
        .with_context(|| format!("connecting to {addr}"))?;
    stream.set_nodelay(true)?;
    let config = WebSocketConfig::default()
        .read_buffer_size(READ_BUFFER_BYTES)
        .max_message_size(Some(MAX_MESSAGE_BYTES))
        .max_frame_size(Some(MAX_MESSAGE_BYTES));
    let (socket, _response) =
        tokio_tungstenite::client_async_with_config(url, stream, Some(config))
            .await
            .context("WebSocket handshake")?;
    Ok(socket)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_keeps_the_base_path_and_adds_format_and_token() {
        let client = Client::new("http://127.0.0.1:9/prefix/")
            .unwrap()
            .with_token("t0k");
        assert_eq!(
            ws_url(&client, "arena", Format::Json).unwrap(),
            "ws://127.0.0.1:9/prefix/rooms/arena/ws?format=json&token=t0k"
        );
        let tls = Client::new("https://example.invalid").unwrap();
        assert!(ws_url(&tls, "a", Format::Bincode).is_err());
    }
}
