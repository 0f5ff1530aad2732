//! Canopy's wire types and codecs, shared by the server, the client SDK and the load-test
//! harness.
//!
//! This crate owns the shape of every message and body in the wire contract
//! (`shared/API.md`) and nothing else: it has no networking, no tokio and no axum
//! (**Architecture invariant**), so any client can depend on it.
//!
//! * [`model`]: nodes, transforms and update rows.
//! * [`ops`]: edit batches and their ops.
//! * [`query`]: spatial queries and their answers.
//! * [`message`]: WebSocket messages in both directions.
//! * [`http`]: HTTP request and response bodies.
//! * [`error`]: the contract's error codes and error bodies.
//! * [`codec`]: the two encodings (JSON and bincode 2), kept in one module so that they
//!   could be swapped; its docs describe the bincode layout for other-language clients.

pub mod codec;
pub mod error;
pub mod http;
pub mod message;
pub mod model;
pub mod ops;
pub mod query;

pub use codec::{DecodeError, Format};
pub use error::{ErrorBody, ErrorCode, ErrorInfo};
pub use message::{ClientMsg, ServerMsg};
pub use model::{ALL_LAYERS, Node, NodeId, Transform, UpdateRow};
pub use ops::{Batch, Op};
pub use query::{Hits, NearestHit, Query, RayHit};
