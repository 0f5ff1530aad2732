//! How the flags' values are read: counts of at least one, seconds with fractions
//! (bounded to a day, so a deadline added to an `Instant` never overflows), the octree's
//! looseness, and [`Secret`], whose `Debug` never shows it.

use std::time::Duration;

pub(super) fn at_least_one(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}

/// The longest duration any seconds flag takes: a day. Far past any sensible timeout,
/// and small enough that adding it to an `Instant` never overflows.
const MAX_SECONDS: f64 = 86_400.0;

/// Seconds, fractions allowed (`30`, `0.25`), from `min` to a day.
fn seconds_from(s: &str, min: f64, inclusive: bool) -> Result<Duration, String> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|e| format!("{e} (seconds, such as 30 or 0.25)"))?;
    let low_ok = if inclusive { v >= min } else { v > min };
    if !v.is_finite() || !low_ok || v > MAX_SECONDS {
        let low = if inclusive { "at least" } else { "more than" };
        return Err(format!(
            "must be {low} {min} and at most {MAX_SECONDS} seconds, got {s}"
        ));
    }
    Ok(Duration::from_secs_f64(v))
}

/// A duration in seconds that must be more than 0.
pub(super) fn positive_seconds(s: &str) -> Result<Duration, String> {
    seconds_from(s, 0.0, false)
}

/// A duration in seconds that may be 0.
pub(super) fn any_seconds(s: &str) -> Result<Duration, String> {
    seconds_from(s, 0.0, true)
}

/// A cluster lease: 1 to 300 seconds.
pub(super) fn lease_seconds(s: &str) -> Result<Duration, String> {
    let d = seconds_from(s, 1.0, true)?;
    if d > Duration::from_secs(300) {
        return Err(format!("must be at most 300 seconds, got {s}"));
    }
    Ok(d)
}

pub(super) fn looseness(s: &str) -> Result<f32, String> {
    match s.parse::<f32>() {
        Ok(v) if (1.0..=16.0).contains(&v) => Ok(v),
        Ok(v) => Err(format!("must be 1 to 16, got {v}")),
        Err(e) => Err(e.to_string()),
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
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        if s.is_empty() {
            return Err("the token must not be empty".into());
        }
        Ok(Secret(s.to_string()))
    }
}
