//! The Canopy server as a library.
//!
//! **API boundary.** What the `canopy` binary, embedders and the tests use is public:
//! [`app`] (the router), [`run`] (serve a listener until shutdown), [`AppState`] and
//! [`config`]; [`room`] (a room's synchronous state and its `tick`); [`persist`] and
//! [`durability`] (the storage layer and recovery); the edges [`http`] and [`ws`]; and
//! [`cluster`] (cluster mode over NATS), [`metrics`], [`access`], [`demo`], [`state`] and [`server`]. The edges' machinery
//! (admission, rate limits, origins, proxies, JWT, TLS, the tick threads, refusals) is
//! `pub(crate)`: reachable only through that API, free to change.
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
