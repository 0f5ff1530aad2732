//! The layering ARCHITECTURE.md states, checked from the code itself: the crates depend
//! on each other one way (server → room → store and scene → protocol), the core crates
//! name no async runtime, and no module of a crate imports another in a circle (its
//! `use crate::…` and `super::…` paths, resolved to the files that define them, form no
//! cycle longer than one file).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The names in a manifest's `[dependencies]` table (not dev- or build-dependencies).
fn dependencies(krate: &str) -> BTreeSet<String> {
    let text = fs::read_to_string(root().join(krate).join("Cargo.toml")).unwrap();
    let mut out = BTreeSet::new();
    let mut in_deps = false;
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            in_deps = line == "[dependencies]"
                || line.ends_with(".dependencies]")
                    && !line.contains("dev-dependencies")
                    && !line.contains("build-dependencies");
            continue;
        }
        if in_deps && let Some((name, _)) = line.split_once('=') {
            let name = name.trim();
            if !name.is_empty() && !name.starts_with('#') {
                out.insert(name.split('.').next().unwrap().to_string());
            }
        }
    }
    out
}

#[test]
fn the_crates_depend_on_each_other_one_way() {
    // Each crate of the server's layers, and the workspace crates it may depend on.
    let allowed: &[(&str, &[&str])] = &[
        ("protocol", &[]),
        ("scene", &["canopy-protocol"]),
        ("store", &["canopy-protocol"]),
        ("room", &["canopy-protocol", "canopy-scene", "canopy-store"]),
        (
            "server",
            &[
                "canopy-protocol",
                "canopy-scene",
                "canopy-store",
                "canopy-room",
            ],
        ),
    ];
    for (krate, may) in allowed {
        let used: BTreeSet<String> = dependencies(krate)
            .into_iter()
            .filter(|d| d.starts_with("canopy-"))
            .collect();
        let extra: Vec<&String> = used.iter().filter(|d| !may.contains(&d.as_str())).collect();
        assert!(
            extra.is_empty(),
            "{krate} depends on {extra:?}, above its layer"
        );
    }
}

#[test]
fn the_core_crates_name_no_runtime_or_web_crate() {
    let runtime = [
        "tokio",
        "tokio-util",
        "async-nats",
        "axum",
        "hyper",
        "tower",
        "futures-util",
    ];
    let web = [
        "axum",
        "hyper",
        "hyper-util",
        "tower",
        "tower-http",
        "tokio-tungstenite",
    ];
    for krate in ["protocol", "scene", "store"] {
        let deps = dependencies(krate);
        let found: Vec<&&str> = runtime.iter().filter(|r| deps.contains(**r)).collect();
        assert!(found.is_empty(), "{krate} depends on {found:?}");
    }
    // Rooms use tokio's synchronization types (channels, watch), never its runtime,
    // and know nothing of HTTP or WebSocket.
    let deps = dependencies("room");
    let found: Vec<&&str> = web.iter().filter(|w| deps.contains(**w)).collect();
    assert!(found.is_empty(), "room depends on {found:?}");
}

/// Every `.rs` file under `dir`, as a path relative to it.
fn sources(dir: &Path) -> BTreeMap<String, String> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(base, &path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path
                    .strip_prefix(base)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.insert(rel, fs::read_to_string(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// The module path of a source file (`a/b.rs` and `a/b/mod.rs` are `a::b`).
fn module_of(file: &str) -> Vec<String> {
    let stem = file.trim_end_matches(".rs");
    let mut parts: Vec<String> = stem.split('/').map(str::to_string).collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// The code of a file without its comments and its unit-test module.
fn code_of(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(i) => &text[..i],
        None => text,
    };
    text.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The `a::b::{c, d::e}` paths after each occurrence of `prefix` (`crate::`, `super::`),
/// as lists of segments.
fn paths_after(code: &str, prefix: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for (at, _) in code.match_indices(prefix) {
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let rest = &code[at + prefix.len()..];
        let head: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
            .collect();
        let base: Vec<String> = head
            .split("::")
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
        let after = &rest[head.len()..];
        if let Some(group) = after.strip_prefix('{') {
            let group = &group[..group.find('}').unwrap_or(group.len())];
            for item in group.split(',') {
                let mut path = base.clone();
                path.extend(
                    item.trim()
                        .split("::")
                        .filter(|s| !s.is_empty() && *s != "self")
                        .map(str::to_string),
                );
                out.push(path);
            }
        } else {
            out.push(base);
        }
    }
    out
}

/// The files each file imports from (resolved to the longest module prefix of each
/// path that names a file).
fn import_graph(dir: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let files = sources(dir);
    let by_module: BTreeMap<Vec<String>, String> =
        files.keys().map(|f| (module_of(f), f.clone())).collect();
    let resolve = |segs: &[String]| {
        (1..=segs.len())
            .rev()
            .find_map(|n| by_module.get(&segs[..n]).cloned())
    };
    let mut graph = BTreeMap::new();
    for (file, text) in &files {
        if file == "main.rs" {
            continue;
        }
        let code = code_of(text);
        let me = module_of(file);
        let parent: Vec<String> = me[..me.len().saturating_sub(1)].to_vec();
        let mut to = BTreeSet::new();
        for path in paths_after(&code, "crate::") {
            to.extend(resolve(&path));
        }
        for path in paths_after(&code, "super::") {
            let mut full = parent.clone();
            full.extend(path);
            to.extend(resolve(&full));
        }
        to.remove(file);
        graph.insert(file.clone(), to);
    }
    graph
}

/// The strongly connected components of more than one file (Tarjan's algorithm).
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Walk<'a> {
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        found: Vec<Vec<String>>,
    }
    impl<'a> Walk<'a> {
        fn visit(&mut self, v: &'a str) {
            let i = self.index.len();
            self.index.insert(v, i);
            self.low.insert(v, i);
            self.stack.push(v);
            self.on_stack.insert(v);
            for w in self.graph.get(v).into_iter().flatten() {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let lw = self.low[w];
                    let lv = self.low.get_mut(v).unwrap();
                    *lv = (*lv).min(lw);
                } else if self.on_stack.contains(w) {
                    let iw = self.index[w];
                    let lv = self.low.get_mut(v).unwrap();
                    *lv = (*lv).min(iw);
                }
            }
            if self.low[v] == self.index[v] {
                let mut component = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    component.push(w.to_string());
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    self.found.push(component);
                }
            }
        }
    }
    let mut walk = Walk {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !walk.index.contains_key(v.as_str()) {
            walk.visit(v);
        }
    }
    walk.found
}

#[test]
fn no_module_imports_another_in_a_circle() {
    for krate in ["store", "scene", "protocol", "room", "server"] {
        let graph = import_graph(&root().join(krate).join("src"));
        let found = circles(&graph);
        assert!(
            found.is_empty(),
            "{krate}: modules that import each other in a circle:\n{}",
            found
                .iter()
                .map(|c| c.join(" -> "))
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}

#[test]
fn the_circle_check_finds_a_circle() {
    let mut graph = BTreeMap::new();
    graph.insert("a.rs".to_string(), BTreeSet::from(["b.rs".to_string()]));
    graph.insert("b.rs".to_string(), BTreeSet::from(["a.rs".to_string()]));
    graph.insert("c.rs".to_string(), BTreeSet::from(["a.rs".to_string()]));
    assert_eq!(
        circles(&graph),
        [vec!["a.rs".to_string(), "b.rs".to_string()]]
    );
    let code = "use crate::x::{y::Z, w};\nfn f() { super::q::R; }";
    assert_eq!(
        paths_after(code, "crate::"),
        [vec!["x", "y", "Z"], vec!["x", "w"]]
    );
}
