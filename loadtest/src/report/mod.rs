//! The output of a run: the report and its table (`run_report`), the numbers gathered
//! into it from the live counters (`gather`), latency per node of a cluster
//! (`per_node`), the pass/fail rules
//! (`checks`), and the live view while the load runs (`progress`).
//!
//! Invariant: the verdict printed and the exit status come from the same checks.

pub(crate) mod checks;
pub(crate) mod gather;
pub(crate) mod per_node;
pub(crate) mod progress;
pub(crate) mod run_report;
