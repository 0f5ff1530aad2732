//! Observing the server: its own numbers (`metrics_scrape`), where the CPU went
//! (`cpu`), latency histograms (`latency`), the error tally (`errors`), and the final
//! check of every mirror (`verify`) against the harness's own expectation of a scope
//! (`expected_scope`); and the kernel's view of a connection (`tcp_state`).
//!
//! Invariant: observers only read: none of them sends load, so what they measure is
//! the scenario's load and nothing else.

pub mod cpu;
pub mod errors;
pub mod expected_scope;
pub mod latency;
pub mod metrics_scrape;
pub mod tcp_state;
pub mod verify;
