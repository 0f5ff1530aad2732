//! Where the CPU went during the load window: this process's threads by group (the
//! spawned server's `srv-*`, the harness's `lt-*`, the rest), how long each group
//! waited for a core, and how busy the whole machine was.
//!
//! This is the harness's profiler of last resort. On a shared 2-core machine without
//! `perf`, it answers the two questions that decide who is the bottleneck: did the
//! server or the harness use the cores, and were the cores even ours (run-queue wait
//! of our threads, and the machine's busy time beyond this process's own). Per-thread
//! numbers come from `/proc/self/task/*/schedstat` (on-CPU and run-queue wait, in
//! nanoseconds), the machine's from `/proc/stat`. Invariant: readings are cumulative,
//! so a window is the difference of two readings; threads that end in between are
//! lost, which the report accepts (the runtimes' threads live for the whole run).

use serde::Serialize;

/// Clock ticks per second of `/proc/stat` (`USER_HZ`, 100 on every Linux the harness
/// targets).
const TICKS_PER_SECOND: f64 = 100.0;

/// CPU and run-queue wait of one thread group, in seconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub(crate) struct GroupTimes {
    pub cpu_s: f64,
    pub wait_s: f64,
}

/// Cumulative times of this process's thread groups and of the machine.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub(crate) struct CpuTimes {
    pub server: GroupTimes,
    pub harness: GroupTimes,
    pub other: GroupTimes,
    /// Busy (non-idle) CPU seconds of the whole machine, all cores.
    pub machine_busy_s: f64,
}

impl CpuTimes {
    /// Reads the current totals; zeros where there is no procfs.
    pub(crate) fn now() -> CpuTimes {
        let mut times = CpuTimes {
            machine_busy_s: std::fs::read_to_string("/proc/stat")
                .ok()
                .and_then(|s| machine_busy_seconds(&s))
                .unwrap_or(0.0),
            ..CpuTimes::default()
        };
        let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
            return times;
        };
        for task in tasks.flatten() {
            let path = task.path();
            let (Ok(comm), Ok(schedstat)) = (
                std::fs::read_to_string(path.join("comm")),
                std::fs::read_to_string(path.join("schedstat")),
            ) else {
                continue;
            };
            let Some(t) = parse_schedstat(&schedstat) else {
                continue;
            };
            let group = match comm.trim() {
                name if name.starts_with("srv-") => &mut times.server,
                name if name.starts_with("lt-") => &mut times.harness,
                _ => &mut times.other,
            };
            group.cpu_s += t.cpu_s;
            group.wait_s += t.wait_s;
        }
        times
    }

    /// The times spent between `earlier` and `self`.
    pub(crate) fn since(&self, earlier: &CpuTimes) -> CpuTimes {
        let d = |a: GroupTimes, b: GroupTimes| GroupTimes {
            cpu_s: a.cpu_s - b.cpu_s,
            wait_s: a.wait_s - b.wait_s,
        };
        CpuTimes {
            server: d(self.server, earlier.server),
            harness: d(self.harness, earlier.harness),
            other: d(self.other, earlier.other),
            machine_busy_s: self.machine_busy_s - earlier.machine_busy_s,
        }
    }

    /// CPU seconds of this whole process.
    pub(crate) fn process_s(&self) -> f64 {
        self.server.cpu_s + self.harness.cpu_s + self.other.cpu_s
    }
}

/// On-CPU time and run-queue wait of one `schedstat` line (nanoseconds on the wire).
pub(crate) fn parse_schedstat(line: &str) -> Option<GroupTimes> {
    let mut fields = line.split_whitespace();
    let cpu: f64 = fields.next()?.parse().ok()?;
    let wait: f64 = fields.next()?.parse().ok()?;
    Some(GroupTimes {
        cpu_s: cpu / 1e9,
        wait_s: wait / 1e9,
    })
}

/// Busy seconds of all cores from the `cpu` line of `/proc/stat`: everything but idle
/// and iowait. Guest time is already counted in user time, so it is not added.
pub(crate) fn machine_busy_seconds(stat: &str) -> Option<f64> {
    let line = stat.lines().find(|l| l.starts_with("cpu "))?;
    let v: Vec<f64> = line
        .split_whitespace()
        .skip(1)
        .filter_map(|f| f.parse().ok())
        .collect();
    // user nice system idle iowait irq softirq steal [guest guest_nice]
    let busy = v
        .get(..8)?
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != 3 && *i != 4)
        .map(|(_, x)| x)
        .sum::<f64>();
    Some(busy / TICKS_PER_SECOND)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_schedstat_and_proc_stat() {
        let t = parse_schedstat("1500000000 250000000 42\n").unwrap();
        assert_eq!(
            t,
            GroupTimes {
                cpu_s: 1.5,
                wait_s: 0.25
            }
        );
        assert_eq!(parse_schedstat("garbage"), None);
        let stat = "cpu  100 20 30 400 5 6 7 8 9 10\ncpu0 1 2 3 4 5 6 7 8 9 10\n";
        assert_eq!(machine_busy_seconds(stat), Some(1.71));
        assert_eq!(machine_busy_seconds("intr 1 2 3"), None);
    }

    #[test]
    fn this_process_has_a_reading() {
        let t = CpuTimes::now();
        assert!(t.process_s() >= 0.0 && t.machine_busy_s >= 0.0);
        let zero = t.since(&t);
        assert_eq!(zero.process_s(), 0.0);
    }
}
