//! `canopy-client`: an async Rust client for the Canopy wire contract
//! (`docs/protocol.md`), over HTTP and WebSocket.
//!
//! * [`Client`] (`http`): rooms, edit batches, node reads and the four spatial queries
//!   over HTTP, with an optional bearer token; it also opens connections.
//! * [`Connection`] (`connection`): a WebSocket to one room (bincode by default, JSON on
//!   request) that subscribes to the whole room, a region, or (v1.2) the sphere
//!   following a node or a camera frustum, at a send rate, with tiers ([`Scope`]), keeps a
//!   [`Mirror`] of the in-scope nodes, publishes [`Event`]s, sends edit batches and
//!   queries and matches their answers, and reconnects with [`Backoff`] and
//!   resynchronises by itself after a drop (resuming from the mirror's tick when the
//!   server can). With [`ConnectOptions::compact`] it asks for compact world transforms.
//! * [`Mirror`] (`mirror`): the copy of the in-scope nodes, exact or compact, usable on
//!   its own.
//! * [`Interpolator`] (`interpolate`): a smooth view of the mirror for rendering, fed
//!   the connection's events: each node's pose at `render time - delay`, interpolated
//!   between the frames the server sent (tested error bounds on the type).
//! * [`ClientError`] (`error`): every failure, with the contract's error codes typed.
//!
//! ```no_run
//! use canopy_client::{Client, ConnectOptions, Event, Scope};
//! use canopy_client::protocol::{Op, Transform};
//!
//! # async fn demo() -> canopy_client::Result<()> {
//! let client = Client::new("http://127.0.0.1:7878")?;
//! client.ensure_room("arena", None).await?;
//! let room = client.connect("arena", ConnectOptions::default()).await?;
//! let mut events = room.events();
//! room.subscribe(Scope::room()).await?;
//! let ack = room
//!     .edit(vec![Op::Add {
//!         id: None,
//!         parent: None,
//!         local: Transform::IDENTITY,
//!         extent: [0.5; 3],
//!         mask: u32::MAX,
//!     }])
//!     .await?;
//! println!("node {} added at tick {}", ack.ids[0], ack.tick);
//! while let Some(event) = events.next().await {
//!     if let Event::Entered(node) = event {
//!         println!("{} entered at {:?}", node.id, node.world.t);
//!     }
//! }
//! # Ok(())
//! # }
//! ```

mod backoff;
mod connection;
mod endpoint;
mod error;
mod events;
mod http;
mod interpolate;
mod mirror;
mod query;
mod scope;
mod tls;

pub use backoff::Backoff;
pub use connection::{
    CLOSE_GOING_AWAY, CLOSE_MOVING, CLOSE_RECONNECT, ConnState, ConnectOptions, Connection, Pong,
    REASON_MOVING, REASON_ROOM_DELETED, REASON_SHUTTING_DOWN, StopReason,
};
pub use error::{ClientError, Result};
pub use events::{Event, Events};
pub use http::{Client, DEFAULT_HTTP_TIMEOUT, POOL_IDLE_TIMEOUT};
pub use interpolate::{DEFAULT_CLOCK_WINDOW, DEFAULT_HISTORY, Interpolator};
pub use mirror::Mirror;
pub use query::{QueryAnswer, nearest_around, sphere_around};
pub use scope::{ClipDepth, MAX_SEND_HZ, Scope};

/// The wire types, re-exported so callers need no direct dependency on the protocol
/// crate.
pub use canopy_protocol as protocol;
pub use canopy_protocol::{ErrorCode, Format, Node, NodeId, Op, Query, Transform};
