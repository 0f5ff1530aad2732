//! `--soak`: the long run and what it adds to the load: the session that starts and
//! gathers it (`session`) and judges it (`verdict`), reconnect storms (`storm`),
//! invalid batches (`invalid`), the over-quota caller (`overquota`), the RSS watch
//! (`rss`) and the hostile clients (`hostile`).
//!
//! Invariant: everything the soak provokes on purpose is counted as expected, never as
//! an error of the run, and each provoked behaviour has a check that it happened.

pub(crate) mod hostile;
pub(crate) mod invalid;
pub(crate) mod overquota;
pub(crate) mod rss;
pub(crate) mod session;
pub(crate) mod storm;
pub(crate) mod verdict;
