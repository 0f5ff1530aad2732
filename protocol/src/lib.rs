//! Canopy's wire types and codecs, shared by the server, the client SDK and the load-test
//! harness.
//!
//! This crate owns the shape of every message and body in the wire contract
//! (`docs/protocol.md`) and nothing else: it has no networking, no tokio and no axum
//! (**Architecture invariant**), so any client can depend on it.
//!
//! * [`model`]: nodes, transforms and update rows.
//! * [`ops`]: edit batches and their ops.
//! * [`query`]: spatial queries and their answers.
//! * [`interest`]: the v1.2 scopes that follow a node or a camera, send rates and
//!   distance tiers.
//! * [`message`]: WebSocket messages in both directions.
//! * [`http`]: HTTP request and response bodies.
//! * [`error`]: the contract's error codes and error bodies.
//! * [`compact`]: the compact form of world transforms (v1.1): quantization, the block
//!   layout, its writer and its reader.
//! * [`codec`]: the two encodings (JSON and bincode 2), kept in one module so that they
//!   could be swapped; its docs describe the bincode layout for other-language clients.

mod batch;
pub mod codec;
pub mod compact;
pub mod error;
pub mod http;
pub mod interest;
pub mod message;
mod message_bincode;
pub mod model;
mod op_index;
pub mod ops;
pub mod query;
mod query_bincode;

pub use batch::Batch;
pub use codec::{DecodeError, Format};
pub use compact::CompactRows;
pub use error::{ErrorBody, ErrorCode, ErrorInfo};
pub use interest::{Follow, Frustum, Tier};
pub use message::{ClientMsg, Encoding, ServerMsg};
pub use model::{ALL_LAYERS, Node, NodeId, Transform, UpdateRow};
pub use ops::Op;
pub use query::{Hits, NearestHit, Query, RayHit};

/// The version of the wire contract this crate implements, `major.minor`. A client and a
/// server speak to each other when their majors are equal.
pub const PROTOCOL_VERSION: &str = "1.2";

/// The major version of [`PROTOCOL_VERSION`].
pub const PROTOCOL_MAJOR: u32 = 1;

/// The WebSocket subprotocol of this major version. A client may offer it in
/// `Sec-WebSocket-Protocol`; the server selects it when its major is the same, so a
/// client that offered it and did not get it back is talking to another major. The
/// server also names its full version in the `canopy-protocol` response header of the
/// upgrade (and in `GET /healthz`).
pub const WS_SUBPROTOCOL: &str = "canopy.1";

/// The response header of the WebSocket upgrade that names the server's
/// [`PROTOCOL_VERSION`].
pub const PROTOCOL_HEADER: &str = "canopy-protocol";

/// The response header of the WebSocket upgrade naming the room's instance: an opaque
/// token (16 hex digits) that changes when the room is deleted and created again, or is
/// served by a different server. A client sends `since` on a reconnect only when the
/// new connection names the same instance as the one its copy came from, so tick
/// numbers of two different timelines are never mixed up. Clients that cannot read it
/// (browsers cannot see upgrade headers) lose nothing but the resume across such a
/// change: the server still refuses a `since` ahead of its tick.
pub const ROOM_INSTANCE_HEADER: &str = "canopy-room-instance";
