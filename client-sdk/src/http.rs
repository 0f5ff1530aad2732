//! [`Client`]: the HTTP side of the contract (rooms, edits, nodes, queries, health) and
//! the factory of WebSocket [`Connection`]s to the same server with the same token.
//!
//! Invariant: every non-success answer becomes a typed error: a contract error body
//! `{"error":{...}}` becomes [`ClientError::Api`] with its code, op index and status;
//! anything else becomes [`ClientError::UnexpectedStatus`]. Either carries the answer's
//! `Retry-After` (whole seconds) when it had one, so a caller can wait as the server asks
//! (a room moving between cluster nodes answers `503 overloaded` with `Retry-After`).
//! Bodies are decoded with the protocol crate's codec, so a malformed body is a
//! [`ClientError::Decode`].

use std::time::Duration;

use bytes::Bytes;
use canopy_protocol::codec;
use canopy_protocol::http::{
    CreateRoom, EditsResult, NodeDetail, NodesSnapshot, RoomCreated, RoomDetail, RoomList,
    RoomSummary,
};
use canopy_protocol::query::{
    NearestQuery, NearestResult, NodesResult, RayQuery, RayResult, RegionQuery, SphereQuery,
};
use canopy_protocol::{Batch, ErrorBody, NodeId, Op, Query};
use reqwest::{Method, RequestBuilder, Url};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::connection::{ConnectOptions, Connection};
use crate::endpoint::Endpoint;
use crate::error::{ClientError, Result};
use crate::query::{AnswerKind, QueryAnswer, no_origin};

/// The default time limit of one HTTP request. Edits are answered after the tick that
/// applies them, which at 1 Hz is up to a second, so this leaves ample room.
pub const DEFAULT_HTTP_TIMEOUT: Duration = Duration::from_secs(30);

/// How long an idle pooled connection is kept for reuse: less than the server's
/// keep-alive limit (`--http-header-timeout-secs`, 10 s by default). A connection the
/// pool kept longer may be closed by the server just as a request goes out on it, and
/// that request then fails with a transport error (seen twice in a 10-minute soak of
/// 288,000 queries before this was set; reqwest's own default is 90 s).
pub const POOL_IDLE_TIMEOUT: Duration = Duration::from_secs(5);

/// An HTTP client for one Canopy server. Cheap to clone: clones share the connection
/// pool.
#[derive(Clone, Debug)]
pub struct Client {
    endpoint: Endpoint,
    token: Option<String>,
    http: reqwest::Client,
    roots: crate::tls::ExtraRoots,
}

impl Client {
    /// A client for the server at `base_url` (`http://host:port`, optionally with a path
    /// prefix), without a token.
    pub fn new(base_url: &str) -> Result<Self> {
        let http = reqwest::Client::builder()
            .timeout(DEFAULT_HTTP_TIMEOUT)
            .pool_idle_timeout(POOL_IDLE_TIMEOUT)
            .build()?;
        Ok(Client {
            endpoint: Endpoint::parse(base_url)?,
            token: None,
            http,
            roots: crate::tls::ExtraRoots::default(),
        })
    }

    /// Also trusts the certificate authorities in `pem` (a PEM file's contents), for
    /// HTTPS and for the `wss://` connections this client opens. `https://` and
    /// `wss://` URLs work without it for servers with a publicly trusted certificate.
    pub fn with_root_certificate_pem(mut self, pem: &[u8]) -> Result<Self> {
        self.roots.add(pem)?;
        let mut builder = reqwest::Client::builder()
            .timeout(DEFAULT_HTTP_TIMEOUT)
            .pool_idle_timeout(POOL_IDLE_TIMEOUT);
        for cert in self.roots.http_certificates()? {
            builder = builder.add_root_certificate(cert);
        }
        self.http = builder.build()?;
        Ok(self)
    }

    /// Sends `Authorization: Bearer <token>` on every HTTP request, and `token=<token>`
    /// on WebSocket connections made from this client.
    pub fn with_token(mut self, token: impl Into<String>) -> Self {
        self.token = Some(token.into());
        self
    }

    /// Uses a caller-built `reqwest::Client` (for other timeouts or proxies).
    pub fn with_http_client(mut self, http: reqwest::Client) -> Self {
        self.http = http;
        self
    }

    /// The normalised base URL.
    pub fn base_url(&self) -> &Url {
        self.endpoint.base()
    }

    /// The token, if any.
    pub fn token(&self) -> Option<&str> {
        self.token.as_deref()
    }

    /// Opens a WebSocket connection to `room` (see [`Connection`]). The connection uses
    /// this client's token unless `options` carries its own.
    pub async fn connect(&self, room: &str, mut options: ConnectOptions) -> Result<Connection> {
        if options.token.is_none() {
            options.token = self.token.clone();
        }
        for pem in &self.roots.0 {
            if !options.roots.0.contains(pem) {
                options.roots.0.push(pem.clone());
            }
        }
        Connection::open(self.endpoint.clone(), room.to_string(), options).await
    }

    /// `GET /healthz`: `Ok` when the server answers 200.
    pub async fn health(&self) -> Result<()> {
        self.send(self.request(Method::GET, &["healthz"])).await?;
        Ok(())
    }

    /// `GET /metrics`: the Prometheus text.
    pub async fn metrics(&self) -> Result<String> {
        let bytes = self.send(self.request(Method::GET, &["metrics"])).await?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// `POST /rooms`. A room that exists is [`ErrorCode::RoomExists`](canopy_protocol::ErrorCode).
    pub async fn create_room(&self, body: &CreateRoom) -> Result<RoomCreated> {
        self.call(Method::POST, &["rooms"], Some(body)).await
    }

    /// Creates `room` with `tick_hz` unless it already exists. Returns whether this call
    /// created it.
    pub async fn ensure_room(&self, room: &str, tick_hz: Option<u32>) -> Result<bool> {
        let body = CreateRoom {
            id: Some(room.to_string()),
            tick_hz,
        };
        match self.create_room(&body).await {
            Ok(_) => Ok(true),
            Err(ClientError::Api {
                code: canopy_protocol::ErrorCode::RoomExists,
                ..
            }) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// `GET /rooms`.
    pub async fn list_rooms(&self) -> Result<Vec<RoomSummary>> {
        let list: RoomList = self.call(Method::GET, &["rooms"], None::<&()>).await?;
        Ok(list.rooms)
    }

    /// `GET /rooms/{room}`.
    pub async fn get_room(&self, room: &str) -> Result<RoomDetail> {
        self.call(Method::GET, &["rooms", room], None::<&()>).await
    }

    /// `DELETE /rooms/{room}`. Its subscribers get a `closed` message.
    pub async fn delete_room(&self, room: &str) -> Result<()> {
        self.send(self.request(Method::DELETE, &["rooms", room]))
            .await?;
        Ok(())
    }

    /// `POST /rooms/{room}/edits`: answers once the batch is applied, with its tick and
    /// the id of every `add` in order. A refused batch is [`ClientError::Api`] with the
    /// index of the first bad op in `op`; none of its ops was applied.
    pub async fn edit_batch(&self, room: &str, batch: &Batch) -> Result<EditsResult> {
        self.call(Method::POST, &["rooms", room, "edits"], Some(batch))
            .await
    }

    /// [`Client::edit_batch`] with the ops given as a vector.
    pub async fn edit(&self, room: &str, ops: Vec<Op>) -> Result<EditsResult> {
        self.edit_batch(room, &Batch { ops }).await
    }

    /// `GET /rooms/{room}/nodes`: every node at one tick.
    pub async fn nodes(&self, room: &str) -> Result<NodesSnapshot> {
        self.call(Method::GET, &["rooms", room, "nodes"], None::<&()>)
            .await
    }

    /// `GET /rooms/{room}/nodes/{id}`.
    pub async fn node(&self, room: &str, id: NodeId) -> Result<NodeDetail> {
        let id = id.to_string();
        self.call(Method::GET, &["rooms", room, "nodes", &id], None::<&()>)
            .await
    }

    /// `POST /rooms/{room}/query/region`.
    pub async fn query_region(&self, room: &str, q: &RegionQuery) -> Result<NodesResult> {
        self.call(Method::POST, &["rooms", room, "query", "region"], Some(q))
            .await
    }

    /// `POST /rooms/{room}/query/sphere`, around a point ([`SphereQuery::at`]) or a
    /// node ([`sphere_around`](crate::sphere_around), v1.2). A query naming neither
    /// origin, or both, fails with [`ClientError::InvalidArgument`] before it is sent.
    pub async fn query_sphere(&self, room: &str, q: &SphereQuery) -> Result<NodesResult> {
        q.origin().map_err(|e| no_origin("sphere", e))?;
        self.call(Method::POST, &["rooms", room, "query", "sphere"], Some(q))
            .await
    }

    /// `POST /rooms/{room}/query/ray`.
    pub async fn query_ray(&self, room: &str, q: &RayQuery) -> Result<RayResult> {
        self.call(Method::POST, &["rooms", room, "query", "ray"], Some(q))
            .await
    }

    /// `POST /rooms/{room}/query/nearest`, from a point ([`NearestQuery::at`]) or a node
    /// ([`nearest_around`](crate::nearest_around), v1.2). A query naming neither
    /// origin, or both, fails with [`ClientError::InvalidArgument`] before it is sent.
    pub async fn query_nearest(&self, room: &str, q: &NearestQuery) -> Result<NearestResult> {
        q.origin().map_err(|e| no_origin("nearest", e))?;
        self.call(Method::POST, &["rooms", room, "query", "nearest"], Some(q))
            .await
    }

    /// Any query, routed to its endpoint; the same answer type as
    /// [`Connection::query`].
    pub async fn query(&self, room: &str, q: &Query) -> Result<QueryAnswer> {
        let answer = match q {
            Query::Region(q) => QueryAnswer::Nodes(self.query_region(room, q).await?),
            Query::Sphere(q) => QueryAnswer::Nodes(self.query_sphere(room, q).await?),
            Query::Ray(q) => QueryAnswer::Ray(self.query_ray(room, q).await?),
            Query::Nearest(q) => QueryAnswer::Nearest(self.query_nearest(room, q).await?),
        };
        debug_assert_eq!(
            AnswerKind::of(q),
            match &answer {
                QueryAnswer::Nodes(_) => AnswerKind::Nodes,
                QueryAnswer::Ray(_) => AnswerKind::Ray,
                QueryAnswer::Nearest(_) => AnswerKind::Nearest,
            }
        );
        Ok(answer)
    }

    fn request(&self, method: Method, segments: &[&str]) -> RequestBuilder {
        let request = self.http.request(method, self.endpoint.http(segments));
        match &self.token {
            Some(token) => request.bearer_auth(token),
            None => request,
        }
    }

    /// Sends a request with an optional JSON body and decodes the JSON answer.
    async fn call<B: Serialize, T: DeserializeOwned>(
        &self,
        method: Method,
        segments: &[&str],
        body: Option<&B>,
    ) -> Result<T> {
        let mut request = self.request(method, segments);
        if let Some(body) = body {
            // The protocol codec writes the contract's JSON; reqwest's `json` would do the
            // same through serde_json, but one encoder for every body keeps them alike.
            request = request
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body(codec::to_json(body));
        }
        let bytes = self.send(request).await?;
        Ok(codec::from_json(&bytes)?)
    }

    /// Sends a request and returns the body of a success, or the typed error.
    async fn send(&self, request: RequestBuilder) -> Result<Bytes> {
        let response = request.send().await?;
        let status = response.status();
        let retry_after = retry_after(response.headers());
        let body = response.bytes().await?;
        if status.is_success() {
            return Ok(body);
        }
        Err(error_from_body(status.as_u16(), &body, retry_after))
    }
}

/// Turns a failed answer into [`ClientError::Api`] when it carries the contract's error
/// body, or [`ClientError::UnexpectedStatus`] otherwise; `retry_after` is the answer's
/// parsed `Retry-After` header.
pub(crate) fn error_from_body(
    status: u16,
    body: &[u8],
    retry_after: Option<Duration>,
) -> ClientError {
    match codec::from_json::<ErrorBody>(body) {
        Ok(e) => ClientError::api(e.error, Some(status), retry_after),
        Err(_) => ClientError::UnexpectedStatus {
            status,
            body: String::from_utf8_lossy(body).chars().take(512).collect(),
            retry_after,
        },
    }
}

/// The `Retry-After` header of an answer, in its delta-seconds form (a non-negative
/// whole number of seconds, which is what Canopy sends). The HTTP-date form and
/// anything unreadable give `None`: the caller then falls back to its own delay.
pub(crate) fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    retry_after_value(headers.get(reqwest::header::RETRY_AFTER)?.to_str().ok()?)
}

/// A `Retry-After` value in delta-seconds, as [`retry_after`] reads it.
pub(crate) fn retry_after_value(value: &str) -> Option<Duration> {
    value.trim().parse::<u64>().ok().map(Duration::from_secs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use canopy_protocol::ErrorCode;

    #[test]
    fn contract_error_bodies_become_api_errors() {
        let body = br#"{"error":{"code":"cycle","message":"no","op":2}}"#;
        match error_from_body(409, body, None) {
            ClientError::Api {
                code,
                op,
                status,
                message,
                retry_after,
            } => {
                assert_eq!(code, ErrorCode::Cycle);
                assert_eq!(op, Some(2));
                assert_eq!(status, Some(409));
                assert_eq!(message, "no");
                assert_eq!(retry_after, None);
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            error_from_body(502, b"Bad Gateway", None),
            ClientError::UnexpectedStatus { status: 502, .. }
        ));
    }

    #[test]
    fn retry_after_is_read_in_whole_seconds_and_kept_on_the_error() {
        use reqwest::header::{HeaderMap, HeaderValue, RETRY_AFTER};
        let mut headers = HeaderMap::new();
        assert_eq!(retry_after(&headers), None);
        for (text, want) in [
            ("1", Some(Duration::from_secs(1))),
            (" 30 ", Some(Duration::from_secs(30))),
            ("0", Some(Duration::ZERO)),
            ("-1", None),
            ("1.5", None),
            ("Wed, 21 Oct 2015 07:28:00 GMT", None),
        ] {
            headers.insert(RETRY_AFTER, HeaderValue::from_static(text));
            assert_eq!(retry_after(&headers), want, "{text:?}");
        }
        let body = br#"{"error":{"code":"overloaded","message":"room arena is moving"}}"#;
        let moving = error_from_body(503, body, Some(Duration::from_secs(1)));
        assert_eq!(moving.code(), Some(ErrorCode::Overloaded));
        assert_eq!(moving.retry_after(), Some(Duration::from_secs(1)));
        let proxy = error_from_body(503, b"busy", Some(Duration::from_secs(2)));
        assert_eq!(proxy.retry_after(), Some(Duration::from_secs(2)));
        assert_eq!(ClientError::Disconnected.retry_after(), None);
    }
}
