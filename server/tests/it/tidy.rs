//! Tidy: the workspace's own rules about its source, checked on every test run in the
//! manner of rust-analyzer's tidy test, so that they hold by construction rather than by
//! review: files stay under about 600 lines, every Rust file opens with its module doc,
//! there are no grab-bag modules, the layering ARCHITECTURE.md states holds (the wire
//! crate knows no runtime, the scene core never awaits or does I/O, only the edges know
//! axum), and unsafe code stays in the one place it is allowed.

use std::fs;
use std::path::{Path, PathBuf};

/// The longest a file may be. Split by concept when it grows past this.
const MAX_LINES: usize = 600;

/// Files allowed past [`MAX_LINES`], each with the reason it stays whole.
const LONG_FILES: &[(&str, &str)] = &[
    (
        "protocol/tests/it/golden.rs",
        "one golden vector per message kind, in one table so none can be left out",
    ),
    (
        "benches/octree.rs",
        "every query kind beside its brute-force peer, measured in one run",
    ),
];

/// File names that say nothing about what they hold.
const GRAB_BAGS: &[&str] = &["utils.rs", "util.rs", "helpers.rs", "misc.rs", "common.rs"];

/// In the scene core, what would mean awaiting, I/O or web types.
const NOT_IN_CORE: &[&str] = &[
    ".await",
    "async fn",
    "std::fs",
    "std::net",
    "tokio::net",
    "tokio::fs",
    "axum",
    "hyper",
];

/// Room files that may hold async functions: they are the edges' side of a room (the
/// WebSocket writer waits on an outbox, a flusher on its room's flush queue; an HTTP edit
/// waits until its record is durable),
/// never called by the tick.
const ROOM_ASYNC_FOR_EDGES: &[&str] = &[
    "room/src/outbox/mod.rs",
    "room/src/gate.rs",
    "room/src/flush.rs",
    "room/src/edit_wait.rs",
];

/// Where axum may appear: the HTTP and WebSocket edges and the listener that serves them.
const AXUM_ALLOWED: &[&str] = &["server/src/http/", "server/src/ws/", "server/src/net/"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Every `.rs` file of the workspace's crates, as a path relative to the root.
fn rust_files() -> Vec<String> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy();
            if path.is_dir() {
                if name != "target" && name != "node_modules" {
                    walk(&path, out);
                }
            } else if name.ends_with(".rs") {
                out.push(path);
            }
        }
    }
    let root = root();
    let mut out = Vec::new();
    for krate in [
        "protocol",
        "scene",
        "server",
        "client-sdk",
        "loadtest",
        "benches",
    ] {
        walk(&root.join(krate), &mut out);
    }
    let mut files: Vec<String> = out
        .iter()
        .map(|p| {
            p.strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/")
        })
        .collect();
    files.sort();
    assert!(files.len() > 100, "found only {} files", files.len());
    files
}

fn read(rel: &str) -> String {
    fs::read_to_string(root().join(rel)).unwrap()
}

#[test]
fn files_stay_short() {
    let mut long = Vec::new();
    for f in rust_files() {
        let lines = read(&f).lines().count();
        let allowed = LONG_FILES.iter().any(|(p, _)| *p == f);
        if lines > MAX_LINES && !allowed {
            long.push(format!("{f}: {lines} lines"));
        }
    }
    assert!(
        long.is_empty(),
        "files over {MAX_LINES} lines (split them by concept, or add one to LONG_FILES with the reason):\n{}",
        long.join("\n")
    );
    // An allowance outlives its need: drop it once the file is short again.
    for (p, _) in LONG_FILES {
        let lines = read(p).lines().count();
        assert!(
            lines > MAX_LINES,
            "{p} is {lines} lines: remove it from LONG_FILES"
        );
    }
}

#[test]
fn every_file_opens_with_its_module_doc() {
    let missing: Vec<String> = rust_files()
        .into_iter()
        .filter(|f| !read(f).trim_start().starts_with("//!"))
        .collect();
    assert!(
        missing.is_empty(),
        "no //! module doc:\n{}",
        missing.join("\n")
    );
}

#[test]
fn no_grab_bag_modules() {
    let bags: Vec<String> = rust_files()
        .into_iter()
        .filter(|f| {
            let name = f.rsplit('/').next().unwrap();
            // Integration tests share their harness as `tests/common/`, cargo's convention.
            GRAB_BAGS.contains(&name) && !f.contains("/tests/")
        })
        .collect();
    assert!(
        bags.is_empty(),
        "grab-bag modules (name them for what they hold):\n{}",
        bags.join("\n")
    );
}

/// Code lines, without comments (which may well mention `.await` to say it is absent).
fn code_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim_start().starts_with("//"))
        .map(|(i, l)| (i + 1, l))
}

#[test]
fn the_scene_core_never_awaits_or_does_io() {
    let mut found = Vec::new();
    for f in rust_files() {
        let core = ["scene/src/", "room/src/"].iter().any(|d| f.starts_with(d));
        if !core {
            continue;
        }
        let text = read(&f);
        for (n, line) in code_lines(&text) {
            for word in NOT_IN_CORE {
                let edge_wait = ROOM_ASYNC_FOR_EDGES.contains(&f.as_str())
                    && (*word == ".await" || *word == "async fn");
                if line.contains(word) && !edge_wait {
                    found.push(format!("{f}:{n}: {word}: {}", line.trim()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "scene, octree and room code must not await or do I/O:\n{}",
        found.join("\n")
    );
}

#[test]
fn only_the_edges_know_axum() {
    let mut found = Vec::new();
    for f in rust_files() {
        let src = f.contains("/src/");
        if !src || AXUM_ALLOWED.iter().any(|d| f.starts_with(d)) {
            continue;
        }
        let text = read(&f);
        for (n, line) in code_lines(&text) {
            if line.contains("axum::") || line.contains("use axum") {
                found.push(format!("{f}:{n}: {}", line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "axum outside the edges:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_wire_crate_knows_no_runtime() {
    let manifest = read("protocol/Cargo.toml");
    for dep in ["tokio", "axum", "hyper", "tower"] {
        let named = manifest
            .lines()
            .any(|l| l.trim_start().starts_with(dep) && l.contains('='));
        assert!(!named, "protocol/Cargo.toml depends on {dep}");
    }
    for f in rust_files()
        .iter()
        .filter(|f| f.starts_with("protocol/src/"))
    {
        let text = read(f);
        for (n, line) in code_lines(&text) {
            assert!(
                !line.contains("tokio") && !line.contains("axum"),
                "{f}:{n}: {}",
                line.trim()
            );
        }
    }
}

/// Where `unsafe` is allowed: the binary's calls into the allocator and the kernel (its
/// heap collection and its huge-page switch, see their docs).
const UNSAFE_ALLOWED: &[&str] = &["server/src/main.rs"];

#[test]
fn unsafe_code_stays_where_it_is_allowed() {
    let found: Vec<String> = rust_files()
        .into_iter()
        .filter(|f| !UNSAFE_ALLOWED.contains(&f.as_str()))
        .filter(|f| {
            code_lines(&read(f)).any(|(_, l)| l.trim_start().starts_with("#[allow(unsafe_code)]"))
        })
        .collect();
    assert!(
        found.is_empty(),
        "unsafe allowed outside {UNSAFE_ALLOWED:?}:\n{}",
        found.join("\n")
    );
    let main = read(UNSAFE_ALLOWED[0]);
    let blocks = main.matches("unsafe {").count();
    assert_eq!(blocks, 2, "two unsafe blocks in main.rs");
    assert_eq!(
        main.matches("// SAFETY:").count(),
        blocks,
        "each unsafe block states why it is sound"
    );
}
