//! The `canopy` binary's memory settings, read from the kernel while it serves: it turns
//! transparent huge pages off for itself before its first allocation (khugepaged would
//! otherwise refill the pages mimalloc purges, `server/src/main.rs`), and leaves the
//! choice to `MIMALLOC_ALLOW_THP` when that is set.
#![cfg(target_os = "linux")]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_canopy");

/// Starts the server on a free port and returns once it listens.
fn serve(env: &[(&str, &str)]) -> Child {
    let mut child = Command::new(BIN)
        .args([
            "--addr",
            "127.0.0.1:0",
            "--in-memory",
            "--log-format",
            "text",
        ])
        .env_remove("MIMALLOC_ALLOW_THP")
        .env_remove("CANOPY_LOG")
        .envs(env.iter().copied())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start canopy");
    let stderr = child.stderr.take().expect("stderr piped");
    let mut lines = BufReader::new(stderr).lines();
    loop {
        let line = lines
            .next()
            .expect("canopy exited before listening")
            .expect("read canopy's log");
        if line.contains("canopy listening") {
            break;
        }
    }
    // Keep draining the log so the server never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    child
}

/// The process's `THP_enabled` line of `/proc/PID/status`: 0 once PR_SET_THP_DISABLE is set.
fn thp_enabled(child: &Child) -> Option<u8> {
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("THP_enabled:"))
        .map(|v| v.trim().parse().expect("THP_enabled is a number"))
}

fn anon_huge_kib(child: &Child) -> u64 {
    let smaps = std::fs::read_to_string(format!("/proc/{}/smaps_rollup", child.id()))
        .expect("read smaps_rollup");
    smaps
        .lines()
        .find_map(|l| l.strip_prefix("AnonHugePages:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("AnonHugePages in smaps_rollup")
}

#[test]
fn the_server_turns_huge_pages_off_unless_told_otherwise() {
    let mut off = serve(&[]);
    let Some(state) = thp_enabled(&off) else {
        // A kernel too old to report it (before 5.0): nothing to assert.
        off.kill().unwrap();
        off.wait().unwrap();
        return;
    };
    assert_eq!(state, 0, "THP still enabled for the server");
    // Before its first allocation, so not even mimalloc's first arena pages are huge.
    assert_eq!(
        anon_huge_kib(&off),
        0,
        "huge pages faulted in before the switch"
    );
    off.kill().unwrap();
    off.wait().unwrap();

    let mut on = serve(&[("MIMALLOC_ALLOW_THP", "1")]);
    assert_eq!(
        thp_enabled(&on),
        Some(1),
        "MIMALLOC_ALLOW_THP=1 was overridden"
    );
    on.kill().unwrap();
    on.wait().unwrap();
}
