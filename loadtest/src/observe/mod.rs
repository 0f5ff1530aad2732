//! Observing the server: its own numbers (`metrics_scrape`), a cluster's nodes and owners
//! (`cluster_view`), where the CPU went
//! (`cpu`), latency histograms (`latency`), the error tally (`errors`), and the final
//! check of every mirror (`verify`) against the harness's own expectation of a scope
//! (`expected_scope`); and the kernel's view of a connection (`tcp_state`).
//!
//! Invariant: observers only read: none of them sends load, so what they measure is
//! the scenario's load and nothing else.

pub(crate) mod cluster_view;
pub(crate) mod cpu;
pub(crate) mod errors;
pub(crate) mod expected_scope;
pub(crate) mod latency;
pub(crate) mod metrics_scrape;
pub(crate) mod tcp_state;
pub(crate) mod verify;
