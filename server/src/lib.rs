//! The Canopy server as a library: the scene core ([`scene`], [`octree`]) and, around it,
//! rooms, HTTP and WebSocket endpoints.

pub mod octree;
pub mod scene;
