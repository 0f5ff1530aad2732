//! The one error type of the SDK, [`ClientError`], and its `Result` alias.
//!
//! Invariant: every failure a caller can see is one of these variants, and an error the
//! server reported (an HTTP `{"error":{...}}` body or a WebSocket `error` message) always
//! arrives as [`ClientError::Api`] with the contract's [`ErrorCode`], never as text.

use std::time::Duration;

use canopy_protocol::{DecodeError, ErrorCode, ErrorInfo};

use crate::connection::StopReason;

/// `Result` with [`ClientError`].
pub type Result<T, E = ClientError> = std::result::Result<T, E>;

/// Everything that can go wrong talking to a Canopy server.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// The base URL could not be parsed or has a scheme other than http(s)/ws(s).
    #[error("invalid URL {url:?}: {reason}")]
    InvalidUrl {
        /// The URL as given.
        url: String,
        /// What is wrong with it.
        reason: String,
    },

    /// The caller passed something the contract forbids, caught before sending it so the
    /// request does not cost a round trip (for example a region with `min > max`).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),

    /// The HTTP request could not be sent or its answer could not be read.
    #[error("HTTP transport error: {0}")]
    Http(#[from] reqwest::Error),

    /// The server refused the request with one of the contract's error codes. `op` is
    /// the index of the first bad op of an edit batch; `status` is the HTTP status when
    /// the error came over HTTP (including a refused WebSocket handshake).
    #[error("{code}: {message}{}", op.map(|i| format!(" (op {i})")).unwrap_or_default())]
    Api {
        /// The contract's error code.
        code: ErrorCode,
        /// The server's description, for people; its wording may change.
        message: String,
        /// The index (from 0) of the batch's first bad op, when an op is at fault.
        op: Option<u32>,
        /// The HTTP status, when the error came over HTTP; `None` over WebSocket.
        status: Option<u16>,
        /// The answer's `Retry-After` header (whole seconds): how long the server asks
        /// the caller to wait before trying again, as a room moving between cluster
        /// nodes does with `503 overloaded`. `None` when absent or not in seconds.
        retry_after: Option<Duration>,
    },

    /// The server answered with a status that is neither success nor a contract error
    /// body (a proxy's error page, say).
    #[error("unexpected HTTP status {status}: {body}")]
    UnexpectedStatus {
        /// The HTTP status.
        status: u16,
        /// The first 512 characters of the body, decoded lossily as UTF-8.
        body: String,
        /// The answer's `Retry-After` header (whole seconds), when it had one.
        retry_after: Option<Duration>,
    },

    /// A body or message could not be decoded into the contract's types.
    #[error("cannot decode the server's answer: {0}")]
    Decode(#[from] DecodeError),

    /// The server answered with a message of the wrong shape for the request (a ray
    /// answer to a region query, say).
    #[error("unexpected answer: {0}")]
    UnexpectedReply(String),

    /// The server speaks another major version of the protocol (its `canopy-protocol`
    /// upgrade header); nothing this client sends or reads would mean the same to it.
    #[error("the server speaks protocol {server}, this client {client}")]
    IncompatibleServer {
        /// The server's protocol version, as its `canopy-protocol` header names it.
        server: String,
        /// This client's protocol version ([`canopy_protocol::PROTOCOL_VERSION`]).
        client: String,
    },

    /// The WebSocket could not be opened or broke.
    #[error("WebSocket error: {0}")]
    WebSocket(#[from] Box<tokio_tungstenite::tungstenite::Error>),

    /// The connection dropped before the answer arrived. For an edit batch the outcome is
    /// unknown: the server may or may not have applied it.
    #[error("the connection dropped before the answer arrived")]
    Disconnected,

    /// No answer arrived within the configured time. The request may still be applied.
    #[error("no answer within {0:?}")]
    Timeout(Duration),

    /// The connection has stopped for good and takes no more requests.
    #[error("the connection has stopped: {0}")]
    Stopped(StopReason),
}

impl ClientError {
    /// The contract's error code, when the server reported one.
    pub fn code(&self) -> Option<ErrorCode> {
        match self {
            ClientError::Api { code, .. } => Some(*code),
            _ => None,
        }
    }

    /// How long the server asked the caller to wait before trying again (an HTTP
    /// answer's `Retry-After`), for [`ClientError::Api`] and
    /// [`ClientError::UnexpectedStatus`]; `None` otherwise.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            ClientError::Api { retry_after, .. }
            | ClientError::UnexpectedStatus { retry_after, .. } => *retry_after,
            _ => None,
        }
    }

    /// Builds an [`ClientError::Api`] from an error body's inner object.
    pub(crate) fn api(info: ErrorInfo, status: Option<u16>, retry_after: Option<Duration>) -> Self {
        ClientError::Api {
            code: info.code,
            message: info.message,
            op: info.op,
            status,
            retry_after,
        }
    }
}

impl From<tokio_tungstenite::tungstenite::Error> for ClientError {
    fn from(e: tokio_tungstenite::tungstenite::Error) -> Self {
        ClientError::WebSocket(Box::new(e))
    }
}
