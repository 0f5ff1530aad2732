//! Test support: an in-process server on an ephemeral port, a JSON HTTP helper and a
//! raw WebSocket client speaking either format.

use std::time::Duration;

use canopy_protocol::codec;
use canopy_protocol::{ClientMsg, Format, ServerMsg};
use canopy_server::config::ServerConfig;
use canopy_server::state::AppState;
use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use tokio::net::TcpStream;
use tokio::sync::oneshot;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

pub(crate) struct TestServer {
    pub base: String,
    pub ws_base: String,
    pub state: AppState,
    pub http: reqwest::Client,
    stop: Option<oneshot::Sender<()>>,
    handle: Option<tokio::task::JoinHandle<std::io::Result<()>>>,
}

/// A config for tests: the defaults (rooms made by tests name their own tick rate),
/// without the drain before shutdown.
pub(crate) fn config() -> ServerConfig {
    ServerConfig {
        drain: std::time::Duration::from_secs(0),
        ..ServerConfig::default()
    }
}

pub(crate) async fn start(config: ServerConfig) -> TestServer {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let state = AppState::new(config);
    let (tx, rx) = oneshot::channel::<()>();
    let handle = tokio::spawn(canopy_server::net::run(
        listener,
        state.clone(),
        async move {
            let _ = rx.await;
        },
    ));
    TestServer {
        base: format!("http://{addr}"),
        ws_base: format!("ws://{addr}"),
        state,
        http: reqwest::Client::new(),
        stop: Some(tx),
        handle: Some(handle),
    }
}

/// A `method` request to `url` with `token` as its bearer, given up after `timeout`.
pub(crate) fn bearer_request(
    http: &reqwest::Client,
    method: &str,
    url: String,
    token: &str,
    timeout: Duration,
) -> reqwest::RequestBuilder {
    let m = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
    http.request(m, url).bearer_auth(token).timeout(timeout)
}

/// Sends `request` with `body` as JSON, if any; answers the status and the body (JSON, or
/// the text when it is not JSON), or the transport's error. Every test harness here
/// (in-process, cluster, kill-and-restart) sends its requests through it.
pub(crate) async fn json_request(
    mut request: reqwest::RequestBuilder,
    body: Option<&Value>,
) -> Result<(u16, Value), reqwest::Error> {
    if let Some(b) = body {
        request = request
            .header("content-type", "application/json")
            .body(serde_json::to_vec(b).unwrap());
    }
    let resp = request.send().await?;
    let status = resp.status().as_u16();
    let bytes = resp.bytes().await?;
    let v = serde_json::from_slice(&bytes)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()));
    Ok((status, v))
}

impl TestServer {
    /// Sends a JSON request; answers the status and the body (JSON, or a string).
    pub(crate) async fn req(&self, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
        let m = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let r = self.http.request(m, format!("{}{}", self.base, path));
        json_request(r, body.as_ref()).await.unwrap()
    }

    /// Sends raw bytes as a body.
    pub(crate) async fn raw(&self, method: &str, path: &str, body: Vec<u8>) -> (u16, Value) {
        let m = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let r = self
            .http
            .request(m, format!("{}{}", self.base, path))
            .header("content-type", "application/json")
            .body(body);
        json_request(r, None).await.unwrap()
    }

    pub(crate) async fn create_room(&self, id: &str, tick_hz: u32) {
        let (st, b) = self
            .req(
                "POST",
                "/rooms",
                Some(serde_json::json!({"id": id, "tick_hz": tick_hz})),
            )
            .await;
        assert_eq!(st, 201, "{b}");
    }

    pub(crate) async fn edits(&self, room: &str, ops: Value) -> (u16, Value) {
        self.req(
            "POST",
            &format!("/rooms/{room}/edits"),
            Some(serde_json::json!({"ops": ops})),
        )
        .await
    }

    pub(crate) async fn ws(&self, room: &str, format: Format) -> Ws {
        self.ws_with(room, format, "").await.unwrap()
    }

    /// A WebSocket whose upgrade URL carries `extra` query parameters (`&k=v...`), or
    /// the upgrade's refusal status.
    pub(crate) async fn ws_with(&self, room: &str, format: Format, extra: &str) -> Result<Ws, u16> {
        let url = format!(
            "{}/rooms/{room}/ws?format={}{extra}",
            self.ws_base,
            format.as_str()
        );
        match tokio_tungstenite::connect_async(url).await {
            Ok((stream, _)) => Ok(Ws { stream, format }),
            Err(tokio_tungstenite::tungstenite::Error::Http(resp)) => Err(resp.status().as_u16()),
            Err(e) => panic!("{e}"),
        }
    }

    /// Sends the shutdown signal without waiting for the server to stop.
    pub(crate) fn signal_stop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
    }

    pub(crate) async fn stop(mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        if let Some(h) = self.handle.take() {
            tokio::time::timeout(Duration::from_secs(10), h)
                .await
                .expect("server stops within 10 s")
                .unwrap()
                .unwrap();
        }
    }
}

pub(crate) struct Ws {
    pub stream: WebSocketStream<MaybeTlsStream<TcpStream>>,
    pub format: Format,
}

impl Ws {
    pub(crate) async fn send(&mut self, msg: &ClientMsg) {
        let bytes = codec::encode_client(msg, self.format);
        let m = match self.format {
            Format::Json => Message::text(String::from_utf8(bytes).unwrap()),
            Format::Bincode => Message::binary(bytes),
        };
        self.stream.send(m).await.unwrap();
    }

    pub(crate) async fn send_raw(&mut self, m: Message) {
        self.stream.send(m).await.unwrap();
    }

    /// The next server message, or None on close or after `secs`.
    pub(crate) async fn recv_within(&mut self, secs: f64) -> Option<ServerMsg> {
        loop {
            let next = tokio::time::timeout(Duration::from_secs_f64(secs), self.stream.next())
                .await
                .ok()??;
            match next.ok()? {
                Message::Text(t) => {
                    assert_eq!(
                        self.format,
                        Format::Json,
                        "text frame on a bincode connection"
                    );
                    return Some(codec::decode_server(t.as_bytes(), Format::Json).unwrap());
                }
                Message::Binary(b) => {
                    assert_eq!(
                        self.format,
                        Format::Bincode,
                        "binary frame on a JSON connection"
                    );
                    return Some(codec::decode_server(&b, Format::Bincode).unwrap());
                }
                Message::Close(_) => return None,
                _ => continue,
            }
        }
    }

    pub(crate) async fn recv(&mut self) -> ServerMsg {
        self.recv_within(10.0).await.expect("a message within 10 s")
    }

    /// Skips messages until one matches.
    pub(crate) async fn recv_until(&mut self, pred: impl Fn(&ServerMsg) -> bool) -> ServerMsg {
        loop {
            let m = self.recv().await;
            if pred(&m) {
                return m;
            }
        }
    }
}
