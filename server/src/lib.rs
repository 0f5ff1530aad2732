//! The Canopy server as a library.
//!
//! **API boundary.** What the `canopy` binary, embedders and the tests use is public:
//! [`app`] (the router), [`run`] (serve a listener until shutdown), [`AppState`] and
//! [`config`]; [`durability`] (opening the data dir, recovery and the offline tools);
//! the edges [`http`] and [`ws`] and their connections [`net`]; and [`cluster`]
//! (cluster mode over NATS), [`metrics`], [`access`], [`demo`] and [`state`]. Rooms
//! and their ticks are `canopy_room`, the storage layer `canopy_store`, the scene and
//! its octree `canopy_scene`.
//!
//! See ARCHITECTURE.md at the repository root for the data flow of a tick.

pub mod access;
pub mod cluster;
pub mod config;
pub mod demo;
pub mod durability;
pub mod http;
pub mod metrics;
pub mod net;
pub mod registry_error;
pub mod start_error;
pub mod state;
pub mod ws;

pub(crate) mod queries;

pub use access::jwt::JwtKeysError;
pub use canopy_room::tick_pool::set_housekeeping;
pub use http::app;
pub use net::run;
pub use net::tls::TlsError;
pub use state::{AppState, StartError};
