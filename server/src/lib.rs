//! The Canopy server as a library.
//!
//! * Scene core, no networking: [`scene`] (the transform hierarchy), [`octree`] (the
//!   spatial index).
//! * Rooms: [`room`] (synchronous state and tick), [`ticker`] (the async loop that drives
//!   a room), [`registry`] (the rooms of a server and the shared application state).
//! * Edges: [`http`] (the HTTP API and `app()`), [`ws`] (WebSocket connections),
//!   [`server`] (`run(listener, state, shutdown)`), [`metrics`], [`config`], [`demo`].
//!
//! See ARCHITECTURE.md at the repository root for the data flow of a tick.

pub mod access;
pub mod admission;
pub mod config;
pub mod demo;
pub mod durability;
pub mod http;
pub mod jwt;
pub mod metrics;
pub mod octree;
pub mod origin;
pub mod persist;
pub mod proxy;
pub mod queries;
pub mod rate;
pub mod refusal;
pub mod registry;
pub mod room;
pub mod scene;
pub mod server;
pub mod storage_metrics;
pub mod tick_pool;
pub mod tls;
pub mod ws;

pub use http::app;
pub use registry::AppState;
pub use server::run;
