//! [`ConnectOptions`]: everything that shapes one WebSocket connection (format, encoding
//! of world transforms, token, timeouts, keep-alive, reconnect policy, event buffering).
//!
//! Invariant: the token is never printed; the `Debug` output redacts it, because options
//! end up in logs.

use std::fmt;
use std::time::Duration;

use canopy_protocol::{Encoding, Format};

use crate::backoff::Backoff;

/// Options of a [`Connection`](super::Connection). Start from `Default` and change what
/// you need with the builder methods or the public fields.
#[derive(Clone)]
pub struct ConnectOptions {
    /// The wire format: bincode (the default) or JSON.
    pub format: Format,
    /// How subscriptions ask for world transforms: exact (the default) or compact
    /// (quantized and delta-coded: 9.3 bytes per changed node instead of 35 in the
    /// harness's `--bench transform-bytes`; see `canopy_protocol::compact`). Compact
    /// applies to bincode connections only: a JSON
    /// connection always asks for exact values, as the contract lets JSON ignore it.
    pub encoding: Encoding,
    /// Sent as the `token` query parameter. [`Client::connect`](crate::Client::connect)
    /// fills it in from the client's token when left `None`.
    pub token: Option<String>,
    /// How long an edit, query, ping or subscribe waits for its answer before it fails
    /// with [`ClientError::Timeout`](crate::ClientError::Timeout).
    pub request_timeout: Duration,
    /// How long opening a WebSocket (the first one or a reconnect) may take.
    pub connect_timeout: Duration,
    /// The client sends a WebSocket ping this often, and treats the connection as dropped
    /// when nothing at all has arrived for three times this long (a half-open TCP
    /// connection would otherwise never end).
    pub keepalive: Duration,
    /// Whether a dropped connection reconnects by itself (see the lifecycle policy in
    /// [`StopReason`](super::StopReason)).
    pub reconnect: bool,
    /// The delays between reconnect attempts.
    pub backoff: Backoff,
    /// How many frames of events each [`Events`](crate::Events) receiver may have
    /// waiting before it lags (and gets [`Event::Lagged`](crate::Event::Lagged)).
    pub event_capacity: usize,
    /// The largest message the client accepts from the server. Snapshots of big rooms
    /// are big (about 45 bytes a node in bincode, 150 in JSON), hence the generous
    /// default.
    pub max_message_bytes: usize,
    /// Certificate authorities trusted for `wss://` beside the built-in (Mozilla) roots;
    /// see [`ConnectOptions::root_certificate_pem`].
    pub(crate) roots: crate::tls::ExtraRoots,
}

impl Default for ConnectOptions {
    fn default() -> Self {
        ConnectOptions {
            format: Format::Bincode,
            encoding: Encoding::Exact,
            token: None,
            request_timeout: Duration::from_secs(10),
            connect_timeout: Duration::from_secs(10),
            keepalive: Duration::from_secs(5),
            reconnect: true,
            backoff: Backoff::default(),
            event_capacity: 4096,
            max_message_bytes: 512 * 1024 * 1024,
            roots: crate::tls::ExtraRoots::default(),
        }
    }
}

impl ConnectOptions {
    /// Uses JSON text frames instead of bincode.
    pub fn json(self) -> Self {
        self.format(Format::Json)
    }

    /// Uses `format`.
    pub fn format(mut self, format: Format) -> Self {
        self.format = format;
        self
    }

    /// Asks for compact world transforms (bincode connections only).
    pub fn compact(self) -> Self {
        self.encoding(Encoding::Compact)
    }

    /// Asks for world transforms in `encoding` (bincode connections only).
    pub fn encoding(mut self, encoding: Encoding) -> Self {
        self.encoding = encoding;
        self
    }

    /// The encoding the connection's subscriptions ask for: `encoding` on bincode,
    /// always exact on JSON.
    pub(crate) fn wire_encoding(&self) -> Encoding {
        match self.format {
            Format::Bincode => self.encoding,
            Format::Json => Encoding::Exact,
        }
    }

    /// Also trusts the certificate authorities in `pem` (a PEM file's contents) for
    /// `wss://` (a private CA, or a self-signed server). Refuses a PEM with no
    /// certificate in it.
    pub fn root_certificate_pem(mut self, pem: &[u8]) -> crate::Result<Self> {
        self.roots.add(pem)?;
        Ok(self)
    }

    /// Connects with `token`.
    pub fn token(mut self, token: impl Into<String>) -> Self {
        self.token = Some(token.into());
        self
    }

    /// Sets the answer time limit of requests.
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// Sets the keep-alive interval.
    pub fn keepalive(mut self, interval: Duration) -> Self {
        self.keepalive = interval;
        self
    }

    /// Sets the reconnect delays.
    pub fn backoff(mut self, backoff: Backoff) -> Self {
        self.backoff = backoff;
        self
    }

    /// Turns reconnecting off: the first dropped connection stops it.
    pub fn no_reconnect(mut self) -> Self {
        self.reconnect = false;
        self
    }
}

impl fmt::Debug for ConnectOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ConnectOptions")
            .field("format", &self.format)
            .field("encoding", &self.encoding)
            .field("token", &self.token.as_ref().map(|_| "<redacted>"))
            .field("request_timeout", &self.request_timeout)
            .field("connect_timeout", &self.connect_timeout)
            .field("keepalive", &self.keepalive)
            .field("reconnect", &self.reconnect)
            .field("backoff", &self.backoff)
            .field("event_capacity", &self.event_capacity)
            .field("max_message_bytes", &self.max_message_bytes)
            .finish()
    }
}
