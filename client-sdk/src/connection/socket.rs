//! The WebSocket transport of a connection: opening the socket (turning a refused
//! handshake into the contract's typed error), converting messages to and from frames
//! in the connection's format, and the [`Writer`] task that owns the sending half.
//!
//! Invariants: JSON messages travel as text frames and bincode messages as binary
//! frames, as the contract requires; an incoming frame is decoded by its own kind, so
//! the client reads whatever the server sends. Writes happen on their own task, so a
//! slow or blocked write never stops the driver from reading (a client that stopped
//! reading while its write waited for a server that waits for its reads would hang).

use std::time::Duration;

use canopy_protocol::codec::{self, DecodeError};
use canopy_protocol::{
    ClientMsg, Format, PROTOCOL_HEADER, PROTOCOL_MAJOR, PROTOCOL_VERSION, ROOM_INSTANCE_HEADER,
    ServerMsg,
};
use futures_util::SinkExt;
use futures_util::stream::SplitSink;
use reqwest::Url;
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream, tungstenite};

use crate::error::{ClientError, Result};
use crate::http::{error_from_body, retry_after_value};

/// An open WebSocket.
pub(crate) type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// A socket just opened, with what its upgrade response said about the room.
pub(crate) struct Opened {
    pub(crate) socket: Socket,
    /// The room's instance ([`canopy_protocol::ROOM_INSTANCE_HEADER`]); `None` from a
    /// server that does not name it, in which case the copy is never resumed from.
    pub(crate) instance: Option<String>,
}

/// Opens a WebSocket to `url`. A handshake the server refuses with an HTTP error
/// becomes [`ClientError::Api`] (with the status and any `Retry-After`) when the body
/// is a contract error.
pub(crate) async fn open(
    url: &Url,
    max_message_bytes: usize,
    roots: &crate::tls::ExtraRoots,
) -> Result<Opened> {
    let config = WebSocketConfig::default()
        .max_message_size(Some(max_message_bytes))
        .max_frame_size(Some(max_message_bytes));
    let connector = roots.ws_connector()?;
    let opened = tokio_tungstenite::connect_async_tls_with_config(
        url.as_str(),
        Some(config),
        true,
        connector,
    );
    match opened.await {
        Ok((socket, response)) => {
            let header = |name: &str| {
                let value = response.headers().get(name)?;
                value.to_str().ok().map(str::to_string)
            };
            if let Some(version) = header(PROTOCOL_HEADER) {
                let major = version
                    .split('.')
                    .next()
                    .and_then(|m| m.parse::<u32>().ok());
                if major != Some(PROTOCOL_MAJOR) {
                    return Err(ClientError::IncompatibleServer {
                        server: version,
                        client: PROTOCOL_VERSION.to_string(),
                    });
                }
            }
            Ok(Opened {
                socket,
                instance: header(ROOM_INSTANCE_HEADER),
            })
        }
        Err(tungstenite::Error::Http(response)) => {
            let status = response.status().as_u16();
            let retry_after = response
                .headers()
                .get("retry-after")
                .and_then(|v| v.to_str().ok())
                .and_then(retry_after_value);
            let body = response.body().as_deref().unwrap_or_default();
            Err(error_from_body(status, body, retry_after))
        }
        Err(e) => Err(e.into()),
    }
}

/// The sending half of an open socket, drained by its own task.
pub(crate) struct Writer {
    queue: mpsc::UnboundedSender<Message>,
    task: Option<JoinHandle<Result<(), tungstenite::Error>>>,
}

impl Writer {
    /// Starts the task that writes queued frames to `sink`, flushing after each burst.
    pub(crate) fn spawn(mut sink: SplitSink<Socket, Message>) -> Self {
        let (queue, mut frames) = mpsc::unbounded_channel::<Message>();
        let task = tokio::spawn(async move {
            while let Some(frame) = frames.recv().await {
                sink.feed(frame).await?;
                while let Ok(frame) = frames.try_recv() {
                    sink.feed(frame).await?;
                }
                sink.flush().await?;
            }
            // The driver is done with this socket: finish the closing handshake (or send
            // the reply to the server's close, which tungstenite queued).
            sink.close().await
        });
        Writer {
            queue,
            task: Some(task),
        }
    }

    /// Queues a frame. Fails only when the writer has already stopped.
    pub(crate) fn send(&self, frame: Message) -> Result<()> {
        self.queue
            .send(frame)
            .map_err(|_| ClientError::Disconnected)
    }

    /// Completes when the writer stops by itself, which means a write failed; returns
    /// why. Pending forever once taken.
    pub(crate) async fn stopped(&mut self) -> String {
        let Some(task) = self.task.as_mut() else {
            return std::future::pending().await;
        };
        let outcome = task.await;
        self.task = None;
        match outcome {
            Ok(Ok(())) => "the writer stopped".to_string(),
            Ok(Err(e)) => e.to_string(),
            Err(e) => format!("the writer task failed: {e}"),
        }
    }

    /// Lets queued frames (a close frame, say) go out within `grace`, then stops.
    pub(crate) async fn finish(mut self, grace: Duration) {
        let Some(mut task) = self.task.take() else {
            return;
        };
        drop(self);
        if tokio::time::timeout(grace, &mut task).await.is_err() {
            task.abort();
        }
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}

/// The frame that carries `msg` in `format`.
pub(crate) fn encode(msg: &ClientMsg, format: Format) -> Message {
    let bytes = codec::encode_client(msg, format);
    match format {
        // The JSON encoder only writes UTF-8, so this conversion never fails.
        Format::Json => Message::text(String::from_utf8(bytes).expect("JSON is UTF-8")),
        Format::Bincode => Message::binary(bytes),
    }
}

/// The server message in a data frame; `None` for control frames (ping, pong, close),
/// which the driver handles itself.
pub(crate) fn decode(frame: &Message) -> Option<Result<ServerMsg, DecodeError>> {
    match frame {
        Message::Text(text) => Some(codec::decode_server(text.as_bytes(), Format::Json)),
        Message::Binary(bytes) => Some(codec::decode_server(bytes, Format::Bincode)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_pick_their_frame_kind_and_round_trip() {
        let ping = ClientMsg::Ping { nonce: 9 };
        assert!(matches!(encode(&ping, Format::Json), Message::Text(_)));
        match encode(&ping, Format::Bincode) {
            Message::Binary(b) => assert_eq!(&b[..], &[4, 9]),
            other => panic!("{other:?}"),
        }
        let pong = ServerMsg::Pong { nonce: 1, tick: 2 };
        for format in [Format::Json, Format::Bincode] {
            let bytes = codec::encode_server(&pong, format);
            let frame = match format {
                Format::Json => Message::text(String::from_utf8(bytes).unwrap()),
                Format::Bincode => Message::binary(bytes),
            };
            assert_eq!(decode(&frame).unwrap().unwrap(), pong);
        }
        assert!(decode(&Message::Ping(Default::default())).is_none());
    }
}
