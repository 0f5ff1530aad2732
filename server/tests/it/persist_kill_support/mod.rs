//! Support for `persist_kill.rs`: the `canopy` process it kills and restarts
//! (`server.rs`), the seeded generator of valid batches (`batches.rs`), and the
//! comparison of a recovered room with the scene model (`compare.rs`).

pub(crate) mod batches;
pub(crate) mod compare;
pub(crate) mod server;

/// Every file below `dir`, recursively.
pub(crate) fn files_under(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(files_under(&path));
        } else {
            out.push(path);
        }
    }
    out
}
