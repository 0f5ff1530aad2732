//! The wire crate's integration tests, in one binary: golden vectors of every message
//! and of the compact layout, round trips, decoder bounds and the op index of a failed
//! decode.

mod compact_bounds;
mod compact_drift;
mod compact_golden;
mod golden;
mod op_index;
mod roundtrip;
