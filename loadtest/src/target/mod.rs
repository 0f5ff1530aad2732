//! The server under test when the harness starts it itself: in this process
//! (`in_process`, `--spawn`) or as a process of its own (`child_process`,
//! `--server-bin`), or a cluster of such processes around a NATS server (`cluster`,
//! `--cluster-spawn`); the list of URLs a run targets (`urls`); and the open-files
//! limit the harness and that child run with (`fd_limit`).
//!
//! Invariant: a server the harness started is stopped by the harness before it exits.
//!
//! Either way the server keeps nothing on disk (`--in-memory`) unless a `--server-arg`
//! chooses its storage (`--data-dir`, `--in-memory`): a load test measures the server,
//! not what an earlier run left in `./canopy-data`, and two harnesses must not fight
//! over that directory's lock. To load-test with persistence, pass
//! `--server-arg=--data-dir=PATH`.

pub(crate) mod child_process;
pub(crate) mod cluster;
pub(crate) mod fd_limit;
pub(crate) mod in_process;
pub(crate) mod urls;

/// `--in-memory`, unless `args` (the server's flags) choose the storage themselves.
pub(crate) fn storage_args(args: &[String]) -> Option<&'static str> {
    let chooses = |a: &String| {
        let flag = a.split('=').next().unwrap_or_default();
        flag == "--data-dir" || flag == "--in-memory"
    };
    (!args.iter().any(chooses)).then_some("--in-memory")
}

#[cfg(test)]
mod tests {
    use super::storage_args;

    fn args(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn in_memory_unless_the_storage_is_chosen() {
        assert_eq!(storage_args(&[]), Some("--in-memory"));
        let other = args(&["--ws-queue-frames=4", "--query-rate", "0"]);
        assert_eq!(storage_args(&other), Some("--in-memory"));
        for chosen in [
            &["--data-dir", "/tmp/d"][..],
            &["--data-dir=/tmp/d"],
            &["--in-memory"],
            &["--in-memory=true"],
        ] {
            assert_eq!(storage_args(&args(chosen)), None, "{chosen:?}");
        }
    }
}
