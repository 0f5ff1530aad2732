//! The configuration file (`--config canopy.toml`): every flag of [`ServerConfig`] may be
//! given as a key of the same name (`max-pending-ops = 1048576`), and
//! [`defaults_file`] prints a complete, commented file of them.
//!
//! Invariant: precedence is flags, then `CANOPY_*` variables, then the file, then the
//! built-in defaults. The file's values become the defaults of the flags before the
//! command line is parsed, so clap applies that order itself, and a key that names no
//! flag is refused with its name, never ignored.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use clap::{Arg, ArgAction, Command, CommandFactory};

use super::Cli;

/// Why the configuration could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read (missing, unreadable, not UTF-8).
    #[error("cannot read the config file {path}: {source}")]
    Read {
        /// The config file's path, as given.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file was read but is not a TOML table.
    #[error("the config file {path} is not valid TOML: {source}")]
    Toml {
        /// The config file's path, as given.
        path: PathBuf,
        /// The parser's error, with its line and column.
        source: Box<toml::de::Error>,
    },
    /// A key that names no flag (keys are never ignored).
    #[error(
        "unknown key `{key}` in the config file {path} (`canopy config defaults` lists every key)"
    )]
    UnknownKey {
        /// The config file's path, as given.
        path: PathBuf,
        /// The key as written in the file.
        key: String,
    },
    /// A key whose value is of a TOML kind the flag cannot take (a table, say).
    #[error("the key `{key}` in the config file {path} has a value of the wrong kind: {why}")]
    BadValue {
        /// The config file's path, as given.
        path: PathBuf,
        /// The key as written in the file.
        key: String,
        /// What is wrong with the value.
        why: String,
    },
}

/// Args that are not configuration keys.
const NOT_KEYS: [&str; 3] = ["config", "help", "version"];

/// The config file named by `--config` (or `CANOPY_CONFIG`) among `args`.
fn config_path(args: &[OsString]) -> Option<PathBuf> {
    let mut it = args.iter().skip(1);
    while let Some(a) = it.next() {
        let s = a.to_string_lossy();
        if s == "--config" {
            return it.next().map(PathBuf::from);
        }
        if let Some(v) = s.strip_prefix("--config=") {
            return Some(PathBuf::from(v));
        }
    }
    std::env::var_os("CANOPY_CONFIG").map(PathBuf::from)
}

fn value_string(path: &Path, key: &str, v: &toml::Value) -> Result<String, ConfigError> {
    let bad = |why: &str| ConfigError::BadValue {
        path: path.to_path_buf(),
        key: key.to_string(),
        why: why.to_string(),
    };
    Ok(match v {
        toml::Value::String(s) => s.clone(),
        toml::Value::Integer(i) => i.to_string(),
        toml::Value::Float(f) => f.to_string(),
        toml::Value::Boolean(b) => b.to_string(),
        toml::Value::Array(items) => items
            .iter()
            .map(|i| match i {
                toml::Value::String(s) => Ok(s.clone()),
                other => Err(bad(&format!("list items must be strings, got {other}"))),
            })
            .collect::<Result<Vec<_>, _>>()?
            .join(","),
        other => return Err(bad(&format!("got {other}"))),
    })
}

/// The top-level flag of `cmd` whose long name is `key`.
fn flag_id(cmd: &Command, key: &str) -> Option<String> {
    cmd.get_arguments()
        .find(|a| a.get_long() == Some(key) && !NOT_KEYS.contains(&key))
        .map(|a| a.get_id().to_string())
}

/// Parses the command line with the config file's values as defaults (see the module
/// docs for the order).
pub(super) fn parse_with_file(args: Vec<OsString>) -> Result<Cli, ConfigError> {
    use clap::FromArgMatches;
    let mut cmd = Cli::command();
    if let Some(path) = config_path(&args) {
        let text = std::fs::read_to_string(&path).map_err(|source| ConfigError::Read {
            path: path.clone(),
            source,
        })?;
        let table: toml::Table = text.parse().map_err(|e| ConfigError::Toml {
            path: path.clone(),
            source: Box::new(e),
        })?;
        for (key, value) in &table {
            let id = flag_id(&cmd, key).ok_or_else(|| ConfigError::UnknownKey {
                path: path.clone(),
                key: key.clone(),
            })?;
            let value = value_string(&path, key, value)?;
            cmd = cmd.mut_arg(id, |a| a.default_value(value));
        }
    }
    let matches = cmd.get_matches_from(args);
    Ok(Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit()))
}

/// Splits `text` into lines of at most `width` characters, at spaces.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.len() + 1 + word.len() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

fn toml_literal(arg: &Arg, value: &str) -> String {
    let list = matches!(arg.get_action(), ArgAction::Append) || arg.get_value_delimiter().is_some();
    if list {
        let items: Vec<String> = value
            .split(',')
            .filter(|s| !s.is_empty())
            .map(|s| format!("{s:?}"))
            .collect();
        return format!("[{}]", items.join(", "));
    }
    if value == "true" || value == "false" || value.parse::<f64>().is_ok() {
        value.to_string()
    } else {
        format!("{value:?}")
    }
}

/// A complete configuration file: every key with its help text and its default, so that
/// a copy of it is a valid `--config` file. Keys without a default are commented out.
pub fn defaults_file() -> String {
    let cmd = Cli::command();
    let mut out = String::from(
        "# Canopy configuration (`canopy --config canopy.toml`).\n\
         # Every key is a flag of the same name; CANOPY_* variables and flags override it.\n",
    );
    for arg in cmd.get_arguments() {
        let Some(long) = arg.get_long() else { continue };
        if NOT_KEYS.contains(&long) {
            continue;
        }
        out.push('\n');
        if let Some(help) = arg.get_long_help().or(arg.get_help()) {
            for line in wrap(&help.to_string(), 86) {
                out.push_str(&format!("# {line}\n"));
            }
        }
        if let Some(env) = arg.get_env() {
            out.push_str(&format!("# (environment: {})\n", env.to_string_lossy()));
        }
        let defaults: Vec<String> = arg
            .get_default_values()
            .iter()
            .map(|v| v.to_string_lossy().into_owned())
            .collect();
        match defaults.first() {
            Some(d) => out.push_str(&format!("{long} = {}\n", toml_literal(arg, d))),
            None if matches!(arg.get_action(), ArgAction::SetTrue) => {
                out.push_str(&format!("{long} = false\n"))
            }
            None => out.push_str(&format!("# {long} = \n")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: &[&str]) -> Vec<OsString> {
        v.iter().map(OsString::from).collect()
    }

    #[test]
    fn the_defaults_file_reads_back_as_the_defaults() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("canopy.toml");
        std::fs::write(&path, defaults_file()).unwrap();
        let cli = parse_with_file(args(&["canopy", "--config", path.to_str().unwrap()])).unwrap();
        let mut plain = parse_with_file(args(&["canopy"])).unwrap().serve;
        plain.config = cli.serve.config.clone();
        assert_eq!(format!("{:?}", cli.serve), format!("{plain:?}"));
    }

    #[test]
    fn flags_beat_the_file_and_unknown_keys_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.toml");
        std::fs::write(
            &path,
            "tick-hz = 60\nmax-rooms = 7\nallowed-origins = [\"http://a\", \"http://b\"]\n",
        )
        .unwrap();
        let p = path.to_str().unwrap();
        let cli = parse_with_file(args(&["canopy", "--config", p, "--tick-hz", "20"])).unwrap();
        assert_eq!(cli.serve.tick_hz, 20, "the flag wins");
        assert_eq!(cli.serve.max_rooms, 7, "the file beats the default");
        assert_eq!(cli.serve.allowed_origins, ["http://a", "http://b"]);
        std::fs::write(&path, "tick-hz = 60\nmax_romz = 7\n").unwrap();
        let e = parse_with_file(args(&["canopy", "--config", p])).unwrap_err();
        assert!(e.to_string().contains("`max_romz`"), "{e}");
    }
}
