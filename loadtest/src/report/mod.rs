//! The output of a run: the report and its table (`run_report`), the numbers gathered
//! into it from the live counters (`gather`), the pass/fail rules
//! (`checks`), and the live view while the load runs (`progress`).
//!
//! Invariant: the verdict printed and the exit status come from the same checks.

pub mod checks;
pub mod gather;
pub mod progress;
pub mod run_report;
