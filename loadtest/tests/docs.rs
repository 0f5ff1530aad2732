//! The user documentation, checked against the code so that it cannot drift:
//!
//! - every `--flag` a document names in code (a code span or a fenced block) is a flag of
//!   `canopy` (any subcommand), of `canopy-loadtest`, or of another tool on the short,
//!   explicit list [`OTHER_TOOLS`];
//! - every `--bench NAME` is a benchmark: a `canopy-loadtest --bench` name, or a
//!   criterion target of the workspace on a `cargo bench` line; and loadtest/README.md
//!   names every `canopy-loadtest` benchmark;
//! - docs/configuration.md covers exactly the flags of `canopy`: every long flag and its
//!   `CANOPY_*` variable appear there, and every flag or `CANOPY_*` variable it names
//!   exists;
//! - every relative link of every Markdown file in the repository resolves: the file or
//!   directory exists, and an `#anchor` names a heading of the target.
//!
//! The `canopy` flags come from its clap definition (`canopy_server::config::Cli`), the
//! harness's from its own `--help` (it is a binary-only crate). Nothing here uses the
//! network or anything outside the repository.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use canopy_server::config::Cli;

/// Flags of other tools that the documents' commands use, with the tool they belong to.
/// Keep this short: a flag of `canopy` or `canopy-loadtest` never belongs here.
const OTHER_TOOLS: &[(&str, &[&str])] = &[
    (
        "cargo",
        &[
            "release",
            "workspace",
            "locked",
            "bin",
            "example",
            "profile",
            "check",
            "test",
        ],
    ),
    // Arguments after `cargo bench ... --`.
    ("criterion", &["warm-up-time", "measurement-time", "quick"]),
    ("docker", &["build", "target", "build-arg", "name"]),
    ("prlimit", &["nofile"]),
    // client-sdk/examples/watch.rs and editor.rs.
    (
        "the SDK examples",
        &[
            "summary", "region", "seconds", "follow", "radius", "send-hz",
        ],
    ),
];

/// `CANOPY_*` variables read by something other than a flag of `canopy`.
const OTHER_CANOPY_VARS: &[&str] = &["CANOPY_LOG"];

/// The documents whose flags are checked (besides every docs/*.md).
const FLAG_DOCS: &[&str] = &[
    "README.md",
    "loadtest/README.md",
    "client-ts/README.md",
    "client-sdk/README.md",
    "inspector/README.md",
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace root")
        .to_path_buf()
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The checked documents, as paths relative to the root.
fn flag_docs() -> Vec<String> {
    let mut docs: Vec<String> = FLAG_DOCS.iter().map(|s| s.to_string()).collect();
    let mut in_docs: Vec<String> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/{n}"))
        .collect();
    in_docs.sort();
    docs.extend(in_docs);
    docs
}

/// A Markdown text split into code and prose: each piece with its 1-based line.
#[derive(Default)]
struct Split {
    /// Text inside code spans and fenced blocks, one entry per line it is on.
    code: Vec<(usize, String)>,
    /// Everything else, one entry per line.
    prose: Vec<(usize, String)>,
    /// ATX headings outside fenced blocks.
    headings: Vec<String>,
}

fn split(text: &str) -> Split {
    let mut out = Split::default();
    let mut fence: Option<(char, usize)> = None;
    // The backtick run that opened the inline code span still open, if any.
    let mut open: Option<usize> = None;
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let trimmed = line.trim_start();
        let run = |c: char| trimmed.chars().take_while(|&x| x == c).count();
        if let Some((c, len)) = fence {
            if trimmed.starts_with(c) && run(c) >= len && trimmed.trim_end().len() == run(c) {
                fence = None;
            } else {
                out.code.push((n, line.to_string()));
            }
            continue;
        }
        if open.is_none() {
            for c in ['`', '~'] {
                if run(c) >= 3 {
                    fence = Some((c, run(c)));
                }
            }
            if fence.is_some() {
                continue;
            }
            let text = trimmed.trim_start_matches('#');
            if trimmed.starts_with('#') && (text.starts_with(' ') || text.is_empty()) {
                out.headings
                    .push(text.trim().trim_end_matches('#').trim().to_string());
            }
        }
        if line.trim().is_empty() {
            // A code span never crosses a paragraph.
            open = None;
            continue;
        }
        // Each span (or the part of it on this line) is a piece of its own.
        let (mut code, mut prose) = (String::new(), String::new());
        let chars: Vec<char> = line.chars().collect();
        let mut k = 0;
        while k < chars.len() {
            if chars[k] == '`' {
                let len = chars[k..].iter().take_while(|&&c| c == '`').count();
                match open {
                    Some(o) if o == len => {
                        open = None;
                        out.code.push((n, std::mem::take(&mut code)));
                    }
                    Some(_) => code.extend(&chars[k..k + len]),
                    None => open = Some(len),
                }
                k += len;
                continue;
            }
            if open.is_some() {
                code.push(chars[k]);
            } else {
                prose.push(chars[k]);
            }
            k += 1;
        }
        if !code.is_empty() {
            out.code.push((n, code));
        }
        out.prose.push((n, prose));
    }
    out
}

/// The `--long-flag` tokens of a piece of code.
fn flags_in(code: &str) -> Vec<String> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i + 2 < b.len() {
        let starts = b[i] == b'-'
            && b[i + 1] == b'-'
            && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'-'))
            && (b[i + 2].is_ascii_lowercase() || b[i + 2].is_ascii_digit());
        if !starts {
            i += 1;
            continue;
        }
        let end = (i + 2..b.len())
            .find(|&j| !(b[j].is_ascii_lowercase() || b[j].is_ascii_digit() || b[j] == b'-'))
            .unwrap_or(b.len());
        out.push(code[i + 2..end].trim_end_matches('-').to_string());
        i = end;
    }
    out
}

/// Every long flag of `canopy`, its subcommands included.
fn canopy_flags() -> BTreeSet<String> {
    fn walk(cmd: &clap::Command, out: &mut BTreeSet<String>) {
        out.extend(
            cmd.get_arguments()
                .filter_map(|a| a.get_long().map(str::to_owned)),
        );
        for sub in cmd.get_subcommands() {
            walk(sub, out);
        }
    }
    let mut out: BTreeSet<String> = ["help", "version"].map(String::from).into();
    walk(&<Cli as clap::CommandFactory>::command(), &mut out);
    out
}

/// The `CANOPY_*` variable of each flag of `canopy`, by flag.
fn canopy_vars() -> BTreeMap<String, String> {
    <Cli as clap::CommandFactory>::command()
        .get_arguments()
        .filter_map(|a| {
            let env = a.get_env()?.to_string_lossy().into_owned();
            Some((a.get_long()?.to_owned(), env))
        })
        .collect()
}

fn loadtest(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_canopy-loadtest"))
        .args(args)
        .output()
        .expect("running canopy-loadtest");
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
}

/// Every long flag of `canopy-loadtest`, from the lines of its `--help` that name flags.
fn loadtest_flags() -> BTreeSet<String> {
    let help = loadtest(&["--help"]);
    let flags: BTreeSet<String> = help
        .lines()
        .filter(|l| l.trim_start().starts_with('-'))
        .flat_map(|l| flags_in(l.split("  ").find(|s| !s.is_empty()).unwrap_or("")))
        .collect();
    assert!(flags.contains("spawn") && flags.contains("bench"), "{help}");
    flags
}

/// The `canopy-loadtest --bench` names, from clap's refusal of a name that is none.
fn loadtest_benches() -> BTreeSet<String> {
    let err = loadtest(&["--bench", "no-such-bench"]);
    let list = err
        .split("[possible values: ")
        .nth(1)
        .and_then(|r| r.split(']').next())
        .unwrap_or_else(|| panic!("no possible values in {err}"));
    list.split(',').map(|s| s.trim().to_string()).collect()
}

/// The criterion targets of the workspace's crates (`[[bench]]` names).
fn cargo_benches() -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for krate in ["server", "protocol", "client-sdk", "loadtest", "benches"] {
        let manifest = read(&format!("{krate}/Cargo.toml"));
        let mut in_bench = false;
        for line in manifest.lines().map(str::trim) {
            if line.starts_with('[') {
                in_bench = line == "[[bench]]";
            } else if let Some(v) = line.strip_prefix("name = ").filter(|_| in_bench) {
                out.insert(v.trim_matches('"').to_string());
            }
        }
    }
    out
}

/// The name after each `--bench` of a piece of code.
fn benches_in(code: &str) -> Vec<String> {
    code.split(|c: char| c.is_whitespace() || c == '=')
        .collect::<Vec<_>>()
        .windows(2)
        .filter(|w| w[0] == "--bench")
        .map(|w| w[1].trim_matches('`').to_string())
        // `--bench NAME`, a placeholder.
        .filter(|name| name.starts_with(|c: char| c.is_ascii_lowercase()))
        .collect()
}

#[test]
fn every_flag_the_docs_name_exists() {
    let canopy = canopy_flags();
    let harness = loadtest_flags();
    let other: BTreeSet<&str> = OTHER_TOOLS
        .iter()
        .flat_map(|(_, f)| f.iter().copied())
        .collect();
    let lt_benches = loadtest_benches();
    let cargo = cargo_benches();
    let mut problems = Vec::new();
    for doc in flag_docs() {
        for (line, code) in split(&read(&doc)).code {
            for flag in flags_in(&code) {
                if !canopy.contains(&flag) && !harness.contains(&flag) && !other.contains(&*flag) {
                    problems.push(format!(
                        "{doc}:{line}: `--{flag}` is not a flag of canopy, canopy-loadtest or \
                         the tools in OTHER_TOOLS"
                    ));
                }
            }
            let cargo_line = code.contains("cargo bench");
            for name in benches_in(&code) {
                let known = if cargo_line {
                    cargo.contains(&name)
                } else {
                    lt_benches.contains(&name)
                };
                if !known {
                    let kind = if cargo_line {
                        "a criterion target of the workspace"
                    } else {
                        "a canopy-loadtest benchmark"
                    };
                    problems.push(format!("{doc}:{line}: `--bench {name}` is not {kind}"));
                }
            }
        }
    }
    let readme = split(&read("loadtest/README.md")).code;
    for name in &lt_benches {
        if !readme
            .iter()
            .any(|(_, c)| c.split_whitespace().any(|w| w == name))
        {
            problems.push(format!(
                "loadtest/README.md: the benchmark `{name}` is not described"
            ));
        }
    }
    assert!(problems.is_empty(), "\n{}\n", problems.join("\n"));
}

#[test]
fn the_configuration_reference_covers_exactly_the_canopy_flags() {
    let doc = "docs/configuration.md";
    let text = read(doc);
    let parts = split(&text);
    let canopy = canopy_flags();
    let vars = canopy_vars();
    let named: BTreeSet<String> = parts.code.iter().flat_map(|(_, c)| flags_in(c)).collect();
    let mut problems = Vec::new();
    for flag in canopy
        .iter()
        .filter(|f| !["help", "version"].contains(&f.as_str()))
    {
        if !named.contains(flag) {
            problems.push(format!("{doc}: the flag `--{flag}` is not documented"));
        }
    }
    for (flag, var) in &vars {
        if !parts.code.iter().any(|(_, c)| words(c).any(|w| w == var)) {
            problems.push(format!("{doc}: `{var}` (of `--{flag}`) is not documented"));
        }
    }
    for (line, code) in &parts.code {
        for flag in flags_in(code) {
            if !canopy.contains(&flag) {
                problems.push(format!("{doc}:{line}: `--{flag}` is not a flag of canopy"));
            }
        }
        for w in words(code).filter(|w| w.starts_with("CANOPY_")) {
            if !vars.values().any(|v| v == w) && !OTHER_CANOPY_VARS.contains(&w) {
                problems.push(format!("{doc}:{line}: `{w}` is not a variable of canopy"));
            }
        }
    }
    assert!(problems.is_empty(), "\n{}\n", problems.join("\n"));
}

/// The words of a piece of code: runs of letters, digits and underscores.
fn words(code: &str) -> impl Iterator<Item = &str> {
    code.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
}

/// Every Markdown file of the repository (not under `target/`, `node_modules/` or a
/// hidden directory), relative to the root.
fn markdown_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                if !(name.starts_with('.') || name == "target" || name == "node_modules") {
                    walk(&path, out);
                }
            } else if name.ends_with(".md") {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(&root(), &mut out);
    out.sort();
    out
}

/// The anchor a heading gets (GitHub's rule: lower case, punctuation dropped but `-` and
/// `_`, spaces as `-`; a repeated one gets `-1`, `-2`, ...).
fn anchors(headings: &[String]) -> BTreeSet<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = BTreeSet::new();
    for h in headings {
        // The heading as rendered: a link shows its text.
        let mut text = String::new();
        let mut rest = h.as_str();
        while let Some(open) = rest.find("](") {
            let close = rest[open..].find(')').map_or(rest.len(), |c| open + c + 1);
            text.push_str(&rest[..open]);
            rest = &rest[close..];
        }
        text.push_str(rest);
        let slug: String = text
            .chars()
            .filter_map(|c| match c {
                ' ' => Some('-'),
                '-' | '_' => Some(c),
                c if c.is_alphanumeric() => Some(c),
                _ => None,
            })
            .flat_map(char::to_lowercase)
            .collect();
        let n = seen.entry(slug.clone()).or_insert(0);
        out.insert(if *n == 0 {
            slug.clone()
        } else {
            format!("{slug}-{n}")
        });
        *n += 1;
    }
    out
}

/// The link targets of a line of prose: `[text](target)` and `![alt](target)`, and a
/// reference definition `[label]: target`.
fn links_in(prose: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = prose;
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        let target = after
            .trim_start_matches('<')
            .split(|c: char| c == ')' || c == '>' || c.is_whitespace())
            .next()
            .unwrap_or("");
        out.push(target.to_string());
        rest = after;
    }
    let t = prose.trim_start();
    if t.starts_with('[')
        && let Some((_, target)) = t.split_once("]: ")
    {
        out.push(target.split_whitespace().next().unwrap_or("").to_string());
    }
    out
}

#[test]
fn every_relative_link_resolves() {
    let files = markdown_files();
    assert!(files.len() >= 10, "{files:?}");
    let mut headings: BTreeMap<PathBuf, BTreeSet<String>> = BTreeMap::new();
    let mut problems = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let parts = split(&text);
        headings.insert(file.canonicalize().unwrap(), anchors(&parts.headings));
        let rel = file.strip_prefix(root()).unwrap().display().to_string();
        for (line, prose) in &parts.prose {
            for target in links_in(prose) {
                if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
                    continue;
                }
                let (path, anchor) = match target.split_once('#') {
                    Some((p, a)) => (p, Some(a)),
                    None => (target.as_str(), None),
                };
                let dest = if path.is_empty() {
                    file.clone()
                } else {
                    file.parent().unwrap().join(path)
                };
                if !dest.exists() {
                    problems.push(format!("{rel}:{line}: `{target}`: no such file"));
                    continue;
                }
                if let Some(anchor) = anchor {
                    let dest = dest.canonicalize().unwrap();
                    let known = headings.get(&dest).cloned().unwrap_or_else(|| {
                        let text = std::fs::read_to_string(&dest).unwrap_or_default();
                        anchors(&split(&text).headings)
                    });
                    if !known.contains(anchor) {
                        problems.push(format!("{rel}:{line}: `{target}`: no heading `#{anchor}`"));
                    }
                }
            }
        }
    }
    assert!(problems.is_empty(), "\n{}\n", problems.join("\n"));
}

#[test]
fn the_checkers_read_markdown_as_intended() {
    let doc = "Run `canopy\n--addr 1` or\n\n```sh\ncargo bench --bench tick -- --quick\n```\n\
               # A heading, `with code`\n[x](a.md#b) `[y](c.md)` --not-code\n";
    let parts = split(doc);
    let flags: Vec<(usize, String)> = parts
        .code
        .iter()
        .flat_map(|(n, c)| flags_in(c).into_iter().map(move |f| (*n, f)))
        .collect();
    assert_eq!(
        flags,
        [(2, "addr"), (5, "bench"), (5, "quick")].map(|(n, f)| (n, f.to_string()))
    );
    assert_eq!(benches_in("cargo bench --bench tick -- --quick"), ["tick"]);
    assert_eq!(
        benches_in("canopy-loadtest --bench=healthz --bench NAME"),
        ["healthz"]
    );
    assert_eq!(
        anchors(&parts.headings),
        ["a-heading-with-code".to_string()].into()
    );
    let links: Vec<String> = parts.prose.iter().flat_map(|(_, p)| links_in(p)).collect();
    assert_eq!(links, ["a.md#b"]);
    assert_eq!(
        anchors(&[
            "1. Model".into(),
            "Benchmarks (`--bench NAME`)".into(),
            "1. Model".into()
        ]),
        ["1-model", "benchmarks---bench-name", "1-model-1"]
            .map(String::from)
            .into()
    );
}
