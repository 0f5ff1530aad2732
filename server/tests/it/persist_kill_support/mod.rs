//! Support for `persist_kill.rs`: the `canopy` process it kills and restarts
//! (`server.rs`), the seeded generator of valid batches (`batches.rs`), and the
//! comparison of a recovered room with the scene model (`compare.rs`).

pub(crate) mod batches;
pub(crate) mod compare;
pub(crate) mod server;
