//! The server under test when the harness starts it itself: in this process
//! (`in_process`, `--spawn`) or as a process of its own (`child_process`,
//! `--server-bin`); and the open-files limit the harness and that child run with
//! (`fd_limit`).
//!
//! Invariant: a server the harness started is stopped by the harness before it exits.

pub mod child_process;
pub mod fd_limit;
pub mod in_process;
