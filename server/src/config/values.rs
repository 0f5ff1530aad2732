//! How the flags' values are read: counts of at least one, seconds with fractions
//! (bounded to a day, so a deadline added to an `Instant` never overflows), the octree's
//! looseness, and [`Secret`], whose `Debug` never shows it.

use std::time::Duration;

/// Why a flag's value was refused; clap prints it after the flag's name.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ValueError {
    /// Not a number of the flag's kind.
    #[error("{0:?} is not a number{1}")]
    NotANumber(String, &'static str),
    /// A number outside the flag's range.
    #[error("must be {low} and at most {high}, got {got}")]
    OutOfRange {
        /// The low bound, as words (`at least 1`, `more than 0`).
        low: String,
        /// The high bound.
        high: String,
        /// The value given.
        got: String,
    },
    /// An empty secret.
    #[error("the token must not be empty")]
    Empty,
    /// A cluster node name that is not 1 to 64 of `[A-Za-z0-9_-]`.
    #[error("a node name is 1 to 64 of [A-Za-z0-9_-], got {0:?}")]
    NodeName(String),
    /// A `--trusted-proxies` entry that is neither a CIDR nor an address.
    #[error("{0:?} is not a CIDR (10.0.0.0/8) or an address")]
    NotANet(String),
}

/// Parses `--cluster-node`: 1 to 64 of `[A-Za-z0-9_-]` (it becomes a NATS subject token
/// and a key-value key).
pub(super) fn node_name(s: &str) -> Result<String, ValueError> {
    if canopy_room::valid_room_id(s) {
        Ok(s.to_string())
    } else {
        Err(ValueError::NodeName(s.to_string()))
    }
}

/// Parses `--trusted-proxies` entries: CIDRs, or single addresses.
pub(super) fn net(s: &str) -> Result<ipnet::IpNet, ValueError> {
    s.parse::<ipnet::IpNet>()
        .or_else(|_| s.parse::<std::net::IpAddr>().map(ipnet::IpNet::from))
        .map_err(|_| ValueError::NotANet(s.to_string()))
}

fn out_of_range(low: impl Into<String>, high: impl ToString, got: &str) -> ValueError {
    ValueError::OutOfRange {
        low: low.into(),
        high: high.to_string(),
        got: got.to_string(),
    }
}

pub(super) fn at_least_one(s: &str) -> Result<usize, ValueError> {
    match s.parse::<usize>() {
        Ok(0) => Err(out_of_range("at least 1", usize::MAX, s)),
        Ok(n) => Ok(n),
        Err(_) => Err(ValueError::NotANumber(s.to_string(), "")),
    }
}

/// The longest duration any seconds flag takes: a day. Far past any sensible timeout,
/// and small enough that adding it to an `Instant` never overflows.
const MAX_SECONDS: f64 = 86_400.0;

/// Seconds, fractions allowed (`30`, `0.25`), from `min` to a day.
fn seconds_from(s: &str, min: f64, max: f64, inclusive: bool) -> Result<Duration, ValueError> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| ValueError::NotANumber(s.to_string(), " of seconds (such as 30 or 0.25)"))?;
    let low_ok = if inclusive { v >= min } else { v > min };
    if !v.is_finite() || !low_ok || v > max {
        let low = if inclusive { "at least" } else { "more than" };
        return Err(out_of_range(
            format!("{low} {min}"),
            format!("{max} seconds"),
            s,
        ));
    }
    Ok(Duration::from_secs_f64(v))
}

/// A duration in seconds that must be more than 0.
pub(super) fn positive_seconds(s: &str) -> Result<Duration, ValueError> {
    seconds_from(s, 0.0, MAX_SECONDS, false)
}

/// A duration in seconds that may be 0.
pub(super) fn any_seconds(s: &str) -> Result<Duration, ValueError> {
    seconds_from(s, 0.0, MAX_SECONDS, true)
}

/// A cluster lease: 1 to 300 seconds.
pub(super) fn lease_seconds(s: &str) -> Result<Duration, ValueError> {
    seconds_from(s, 1.0, 300.0, true)
}

pub(super) fn looseness(s: &str) -> Result<f32, ValueError> {
    match s.parse::<f32>() {
        Ok(v) if (1.0..=16.0).contains(&v) => Ok(v),
        Ok(_) => Err(out_of_range("at least 1", 16, s)),
        Err(_) => Err(ValueError::NotANumber(s.to_string(), "")),
    }
}

/// A secret string (the admin token): never printed by `Debug`.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(pub String);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(..)")
    }
}

impl std::str::FromStr for Secret {
    type Err = ValueError;
    fn from_str(s: &str) -> Result<Self, ValueError> {
        if s.is_empty() {
            return Err(ValueError::Empty);
        }
        Ok(Secret(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_names_are_subject_and_key_safe() {
        assert_eq!(node_name("node-1_a").unwrap(), "node-1_a");
        for bad in ["", "a.b", "a b", "a*", "a>", &"x".repeat(65)] {
            assert!(node_name(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn trusted_proxies_are_cidrs_or_addresses() {
        assert_eq!(net("10.0.0.0/8").unwrap().to_string(), "10.0.0.0/8");
        assert_eq!(net("127.0.0.1").unwrap().to_string(), "127.0.0.1/32");
        assert!(matches!(net("localhost"), Err(ValueError::NotANet(_))));
    }
}
