//! `--soak`: the long run and what it adds to the load: the session that starts and
//! gathers it (`session`), reconnect storms (`storm`), invalid batches (`invalid`), the
//! over-quota caller (`overquota`) and the RSS watch (`rss`).
//!
//! Invariant: everything the soak provokes on purpose is counted as expected, never as
//! an error of the run, and each provoked behaviour has a check that it happened.

pub mod invalid;
pub mod overquota;
pub mod rss;
pub mod session;
pub mod storm;
