//! Opening a subscriber's raw WebSocket to a room, with a chosen socket receive buffer.
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
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;

use super::RawSocket;

/// The largest message a subscriber accepts: snapshots of big rooms are big.
const MAX_MESSAGE_BYTES: usize = 512 * 1024 * 1024;

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
    let mut stream = super::connect(addr, recv_buffer).await?;
    let path = parsed.path_and_query().map_or("/", |p| p.as_str());
    let answer = super::handshake(&mut stream, &format!("{host}:{port}"), path).await?;
    if !answer.status().starts_with("HTTP/1.1 101") {
        bail!("WebSocket handshake: {}", answer.status());
    }
    let accept = derive_accept_key(answer.key.as_bytes());
    let accepted = answer.head.lines().any(|l| {
        l.split_once(':').is_some_and(|(name, value)| {
            name.trim().eq_ignore_ascii_case("sec-websocket-accept") && value.trim() == accept
        })
    });
    if !accepted {
        bail!("WebSocket handshake: no Sec-WebSocket-Accept for the key sent");
    }
    Ok(RawSocket::new(stream, &answer.rest, MAX_MESSAGE_BYTES))
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
