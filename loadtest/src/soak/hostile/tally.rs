//! The hostile clients' attempts as the report shows them: per kind, what the server
//! did and how often, when, and whether that was bounded; and one check per kind.
//!
//! Invariant: a kind's check passes only when at least one attempt was decided and
//! every decided attempt was bounded; undecided attempts are shown, never counted.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::report::checks::Check;
use crate::soak::hostile::{Attempt, Kind};

/// How many distinct details a kind's summary keeps.
const MAX_DETAILS: usize = 3;

/// One kind's attempts, summed up.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct KindSummary {
    pub kind: Kind,
    pub rule: String,
    pub attempts: usize,
    pub decided: usize,
    pub bounded: usize,
    /// What the server did, by how often.
    pub did: BTreeMap<String, u64>,
    /// The earliest and latest moment of the attempts' outcomes, seconds.
    pub after_s: Option<(f64, f64)>,
    /// The first few distinct details, the unbounded attempts' first.
    pub details: Vec<String>,
}

/// Sums up `attempts` for each of `kinds`, in that order.
pub(crate) fn summarize(kinds: &[Kind], attempts: &[Attempt]) -> Vec<KindSummary> {
    kinds
        .iter()
        .map(|&kind| {
            let mine: Vec<&Attempt> = attempts.iter().filter(|a| a.kind == kind).collect();
            let mut did = BTreeMap::new();
            for a in &mine {
                *did.entry(a.did.clone()).or_default() += 1;
            }
            let times: Vec<f64> = mine.iter().filter_map(|a| a.after_s).collect();
            let after_s = (!times.is_empty()).then(|| {
                (
                    times.iter().copied().fold(f64::INFINITY, f64::min),
                    times.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                )
            });
            let mut ordered = mine.clone();
            ordered.sort_by_key(|a| a.bounded != Some(false));
            let mut details: Vec<String> = Vec::new();
            for a in ordered {
                if !a.detail.is_empty()
                    && !details.contains(&a.detail)
                    && details.len() < MAX_DETAILS
                {
                    details.push(a.detail.clone());
                }
            }
            KindSummary {
                kind,
                rule: kind.rule().to_string(),
                attempts: mine.len(),
                decided: mine.iter().filter(|a| a.bounded.is_some()).count(),
                bounded: mine.iter().filter(|a| a.bounded == Some(true)).count(),
                did,
                after_s,
                details,
            }
        })
        .collect()
}

impl KindSummary {
    /// Whether the kind passes (see the module's invariant).
    pub(crate) fn passed(&self) -> bool {
        self.decided > 0 && self.bounded == self.decided
    }

    /// The table's value for this kind.
    pub(crate) fn row(&self) -> String {
        let did = self
            .did
            .iter()
            .map(|(d, n)| format!("{d} {n}"))
            .collect::<Vec<_>>()
            .join(", ");
        let when = match self.after_s {
            Some((a, b)) if (b - a).abs() < 0.05 => format!(" (after {a:.1} s)"),
            Some((a, b)) => format!(" (after {a:.1}-{b:.1} s)"),
            None => String::new(),
        };
        let details = if self.details.is_empty() {
            String::new()
        } else {
            format!("; {}", self.details.join(" | "))
        };
        format!("{} attempts: {did}{when}{details}", self.attempts)
    }

    /// The kind's check.
    pub(crate) fn check(&self) -> Check {
        Check {
            name: format!("soak: hostile {}", self.kind.name()),
            passed: self.passed(),
            detail: format!(
                "{} of {} decided attempts bounded ({} undecided); rule: {}",
                self.bounded,
                self.decided,
                self.attempts - self.decided,
                self.rule
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a(did: &str, after: Option<f64>, bounded: Option<bool>) -> Attempt {
        Attempt::new(Kind::PingFlood, did, after, bounded).with(format!("{did} detail"))
    }

    #[test]
    fn passes_only_on_decided_bounded_attempts() {
        let all = [
            a("closed", Some(31.0), Some(true)),
            a("closed", Some(33.0), Some(true)),
            a("cut_short", None, None),
        ];
        let s = &summarize(&[Kind::PingFlood, Kind::IdleTcp], &all);
        assert_eq!((s[0].attempts, s[0].decided, s[0].bounded), (3, 2, 2));
        assert!(s[0].passed());
        assert_eq!(s[0].after_s, Some((31.0, 33.0)));
        assert!(
            s[0].row()
                .starts_with("3 attempts: closed 2, cut_short 1 (after 31.0-33.0 s)")
        );
        // No attempt of a kind, or only undecided ones: no evidence, no pass.
        assert!(!s[1].passed());
        let undecided = summarize(&[Kind::PingFlood], &[a("cut_short", None, None)]);
        assert!(!undecided[0].passed());
        let failed = summarize(
            &[Kind::PingFlood],
            &[
                a("closed", Some(1.0), Some(true)),
                a("kept_open", None, Some(false)),
            ],
        );
        assert!(!failed[0].passed());
        // The unbounded attempt's detail comes first.
        assert_eq!(failed[0].details[0], "kept_open detail");
        assert!(!failed[0].check().passed);
    }
}
