//! `--query-mix`: the relative weights of the four query kinds, parsed from
//! `region=1,sphere=1,ray=1,nearest=1`, and the draw that picks a kind by them.
//!
//! Invariant: a kind not named has weight 0, and a draw in `0..total()` always lands on
//! a kind whose weight is not 0.

use std::str::FromStr;

use anyhow::Context;
use serde::Serialize;

use crate::load::queries::QueryKind;

/// Relative weights of the four query kinds, parsed from `region=1,sphere=1,ray=1,nearest=1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct QueryMix {
    /// Indexed by [`QueryKind::index`].
    pub weights: [u32; 4],
}

impl Default for QueryMix {
    fn default() -> Self {
        QueryMix { weights: [1; 4] }
    }
}

impl QueryMix {
    /// The sum of the weights; a mix that is all zeros sends no queries.
    pub(crate) fn total(&self) -> u32 {
        self.weights.iter().sum()
    }

    /// The kind that a uniform draw `r` in `0..total()` lands on.
    pub(crate) fn pick(&self, mut r: u32) -> QueryKind {
        for kind in QueryKind::ALL {
            let w = self.weights[kind.index()];
            if r < w {
                return kind;
            }
            r -= w;
        }
        QueryKind::Nearest
    }
}

impl FromStr for QueryMix {
    type Err = anyhow::Error;

    fn from_str(s: &str) -> anyhow::Result<Self> {
        // Kinds that are not named get weight 0, so `ray=1` means rays only.
        let mut weights = [0u32; 4];
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (name, weight) = part
                .split_once('=')
                .with_context(|| format!("{part:?} is not kind=weight"))?;
            let kind = QueryKind::ALL
                .into_iter()
                .find(|k| k.name() == name.trim())
                .with_context(|| format!("unknown query kind {name:?}"))?;
            weights[kind.index()] = weight
                .trim()
                .parse()
                .with_context(|| format!("weight of {name} is not a whole number"))?;
        }
        Ok(QueryMix { weights })
    }
}

/// `--query-mix` as it was given (`region=1,sphere=1,...`), for the report's JSON.
pub(crate) fn serialize_display<S: serde::Serializer>(
    mix: &QueryMix,
    s: S,
) -> Result<S::Ok, S::Error> {
    let text = QueryKind::ALL
        .iter()
        .map(|k| format!("{}={}", k.name(), mix.weights[k.index()]))
        .collect::<Vec<_>>()
        .join(",");
    s.serialize_str(&text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_mix_parses_and_picks_by_weight() {
        let mix: QueryMix = "region=2, ray=1".parse().unwrap();
        assert_eq!(mix.weights, [2, 0, 1, 0]);
        assert_eq!(mix.pick(0), QueryKind::Region);
        assert_eq!(mix.pick(1), QueryKind::Region);
        assert_eq!(mix.pick(2), QueryKind::Ray);
        assert!("cone=1".parse::<QueryMix>().is_err());
        assert!("region".parse::<QueryMix>().is_err());
    }
}
