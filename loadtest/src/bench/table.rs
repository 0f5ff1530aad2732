//! A benchmark's result: its workload, its measured rows and its bounds, and the one
//! table it prints (or the JSON of the same value with `--json`).
//!
//! Invariant: the table and the JSON come from the same [`BenchReport`], and every
//! bound the benchmark states is one of its checks, so the exit status and the table
//! agree.

use std::fmt::Write as _;

use serde::Serialize;

use crate::report::checks::Check;

/// One benchmark's result.
#[derive(Clone, Debug, Default, Serialize)]
pub(crate) struct BenchReport {
    pub bench: String,
    /// The workload in one line.
    pub workload: String,
    pub target: String,
    /// Measured rows, label and value.
    pub rows: Vec<(String, String)>,
    /// Numbers for machines (`--json`), by name.
    pub figures: Vec<(String, f64)>,
    pub checks: Vec<Check>,
    pub passed: bool,
}

impl BenchReport {
    pub(crate) fn new(bench: &str, workload: String) -> BenchReport {
        BenchReport {
            bench: bench.to_string(),
            workload,
            ..BenchReport::default()
        }
    }

    /// Adds a measured row.
    pub(crate) fn row(&mut self, label: &str, value: String) {
        self.rows.push((label.to_string(), value));
    }

    /// Records a figure for `--json`.
    pub(crate) fn figure(&mut self, name: &str, value: f64) {
        self.figures.push((name.to_string(), value));
    }

    /// Adds a bound.
    pub(crate) fn check(&mut self, name: &str, passed: bool, detail: String) {
        self.checks.push(Check {
            name: name.to_string(),
            passed,
            detail,
        });
    }

    /// The table: the benchmark and its workload, then rows, bounds and the result.
    pub(crate) fn render(&self) -> String {
        let mut rows: Vec<(String, String)> = vec![("target".into(), self.target.clone())];
        rows.extend(self.rows.iter().cloned());
        for c in &self.checks {
            rows.push((
                format!("bound: {}", c.name),
                format!("{} ({})", if c.passed { "PASS" } else { "FAIL" }, c.detail),
            ));
        }
        rows.push((
            "result".into(),
            if self.passed { "PASS" } else { "FAIL" }.into(),
        ));
        let width = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
        let mut out = String::new();
        let _ = writeln!(out, "bench {}: {}", self.bench, self.workload);
        let _ = writeln!(out, "{}", "-".repeat(width + 2 + 60));
        for (k, v) in rows {
            let _ = writeln!(out, "{k:<width$}  {v}");
        }
        out
    }
}

/// Mebibytes of `bytes`.
pub(crate) fn mib(bytes: f64) -> f64 {
    bytes / (1024.0 * 1024.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_names_the_workload_and_each_bound() {
        let mut r = BenchReport::new("healthz", "2 rooms x 150000 nodes".into());
        r.target = "http://127.0.0.1:9".into();
        r.row("healthz while heavy", "p99 4.0 ms".into());
        r.check("healthz p99", true, "4.0 ms, limit 10 ms".into());
        r.passed = true;
        let text = r.render();
        assert!(text.starts_with("bench healthz: 2 rooms x 150000 nodes\n"));
        let bound = text
            .lines()
            .find(|l| l.starts_with("bound: healthz p99"))
            .unwrap();
        assert!(bound.ends_with("  PASS (4.0 ms, limit 10 ms)"), "{text}");
        assert!(text.trim_end().ends_with("PASS"));
        assert_eq!(mib(2.0 * 1024.0 * 1024.0), 2.0);
    }
}
