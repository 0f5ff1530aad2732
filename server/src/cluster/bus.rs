//! Requests passed between nodes: an HTTP request for a room owned elsewhere travels to
//! its owner as one NATS request on `canopy.node.<name>.http`, and the answer comes
//! back as its reply, both as bincode envelopes.
//!
//! Invariant: a passed request carries [`FORWARDED_HEADER`], and a node never passes on
//! a request that has it, so a request crosses at most one hop whatever the nodes'
//! views of the registry say.

use std::net::SocketAddr;
use std::time::Duration;

use bincode::{Decode, Encode};

use super::{Cluster, ClusterError};

/// The header a passed request carries: the name of the node it entered at.
pub const FORWARDED_HEADER: &str = "canopy-forwarded";

/// A decoded envelope is never larger than NATS's largest message allows, which is
/// 64 MiB at most.
const ENVELOPE_LIMIT: usize = 64 * 1024 * 1024;

/// The subject a node serves passed requests on.
pub fn subject(node: &str) -> String {
    format!("canopy.node.{node}.http")
}

/// An HTTP request on its way to the node that owns its room.
#[derive(Debug, Clone, Encode, Decode)]
pub struct ForwardedRequest {
    /// The method, such as `POST`.
    pub method: String,
    /// The path and query.
    pub uri: String,
    /// The request's headers, as sent (hop-by-hop ones left out).
    pub headers: Vec<(String, Vec<u8>)>,
    /// The address the client connected to the entry node from (rate limits, logs and
    /// `--trusted-proxies` are applied at the owner as they would be at the entry).
    pub peer: String,
    /// The whole body.
    pub body: Vec<u8>,
}

/// The owner's answer to a [`ForwardedRequest`].
#[derive(Debug, Clone, Encode, Decode)]
pub struct ForwardedResponse {
    /// The status code.
    pub status: u16,
    /// The answer's headers.
    pub headers: Vec<(String, Vec<u8>)>,
    /// The whole body.
    pub body: Vec<u8>,
}

impl ForwardedRequest {
    /// The client's address.
    pub fn peer_addr(&self) -> SocketAddr {
        self.peer
            .parse()
            .unwrap_or_else(|_| SocketAddr::from(([0, 0, 0, 0], 0)))
    }
}

/// Encodes an envelope.
pub fn encode<T: Encode>(value: &T) -> Vec<u8> {
    bincode::encode_to_vec(value, bincode::config::standard()).expect("an envelope encodes")
}

/// Decodes an envelope.
pub fn decode<T: Decode<()>>(bytes: &[u8]) -> Result<T, super::ClusterError> {
    let config = bincode::config::standard().with_limit::<ENVELOPE_LIMIT>();
    bincode::decode_from_slice(bytes, config)
        .map(|(v, _)| v)
        .map_err(|e| super::ClusterError::Envelope(e.to_string()))
}

impl Cluster {
    /// The largest message the NATS server takes: an envelope over it cannot be passed.
    pub fn max_payload(&self) -> usize {
        self.client().server_info().max_payload
    }

    /// Passes `request` to `node` and waits up to `timeout` for its answer.
    pub async fn forward(
        &self,
        node: &str,
        request: &ForwardedRequest,
        timeout: Duration,
    ) -> Result<ForwardedResponse, ClusterError> {
        let failed = |why: String, unsent: bool| ClusterError::Forward {
            node: node.to_string(),
            why,
            unsent,
        };
        let payload = encode(request);
        if payload.len() > self.max_payload() {
            return Err(failed(
                format!(
                    "the request is {} bytes, over the NATS server's max_payload of {}",
                    payload.len(),
                    self.max_payload()
                ),
                true,
            ));
        }
        self.metrics.forwarded.inc();
        let call = async_nats::Request::new()
            .payload(payload.into())
            .timeout(Some(timeout));
        let reply = self
            .client()
            .send_request(subject(node), call)
            .await
            .map_err(|e| {
                self.metrics.forward_failures.inc();
                let unsent = e.kind() == async_nats::client::RequestErrorKind::NoResponders;
                failed(e.to_string(), unsent)
            })?;
        decode(&reply.payload).map_err(|e| failed(format!("unreadable answer: {e}"), false))
    }
}
