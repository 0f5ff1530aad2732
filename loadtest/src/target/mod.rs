//! The server under test when the harness starts it itself: in this process
//! (`in_process`, `--spawn`).
//!
//! Invariant: a server the harness started is stopped by the harness before it exits.

pub mod in_process;
