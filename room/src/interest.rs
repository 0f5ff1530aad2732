//! What a v1.2 subscription asks for beyond its shape: its send rate and its distance
//! tiers ([`Pacing`]), and what the check of a whole [`Scope`](crate::scope::Scope)
//! against the contract's ranges fails with ([`ScopeError`], naming the bad field; the
//! check itself is `scope_check.rs`).
//!
//! Invariant: a [`Tiers`] holds at most [`MAX_TIERS`] tiers with `within` finite, at
//! least 0 and strictly increasing, only the last one open (no `within`), and every
//! `every` at least 1; a scope that passed its check has at most one of
//! `region`, `follow` and `frustum`, and tiers only with a centre (a follow or a
//! region). Nothing else in the room re-checks these.

use canopy_protocol::interest::Tier;
use canopy_protocol::{ErrorCode, NodeId};

use crate::refusal::Refusal;

/// The most tiers a subscription may have (the contract's).
pub use canopy_protocol::interest::MAX_TIERS;

/// A subscription's distance tiers, kept inline so that a [`Scope`](crate::scope::Scope) stays `Copy`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tiers {
    list: [Tier; MAX_TIERS],
    len: u8,
}

impl Tiers {
    /// No tiers: every change goes out on every send.
    pub const NONE: Tiers = Tiers {
        list: [Tier {
            within: None,
            every: 1,
        }; MAX_TIERS],
        len: 0,
    };

    /// The tiers of a `subscribe`, checked (see the module doc).
    pub fn new(tiers: &[Tier]) -> Result<Tiers, ScopeError> {
        if tiers.len() > MAX_TIERS {
            return Err(ScopeError::TooManyTiers(tiers.len()));
        }
        let mut out = Tiers::NONE;
        let mut last = f32::NEG_INFINITY;
        for (i, t) in tiers.iter().enumerate() {
            if t.every == 0 {
                return Err(ScopeError::TierEvery(i));
            }
            let is_last = i + 1 == tiers.len();
            match t.within {
                None if !is_last => return Err(ScopeError::TierOpenBeforeLast(i)),
                Some(_) if is_last => return Err(ScopeError::LastTierBounded(i)),
                Some(w) if !w.is_finite() || w < 0.0 || w <= last => {
                    return Err(ScopeError::TierWithin(i));
                }
                Some(w) => last = w,
                None => {}
            }
            out.list[i] = *t;
        }
        out.len = tiers.len() as u8;
        Ok(out)
    }

    /// The tiers in order, nearest first.
    pub fn as_slice(&self) -> &[Tier] {
        &self.list[..usize::from(self.len)]
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The tier of a node at `dist` from the centre: the first whose `within` is at
    /// least `dist`, else the last (open) one. 0 when there are no tiers.
    pub fn tier_of(&self, dist: f32) -> u8 {
        let tiers = self.as_slice();
        tiers
            .iter()
            .position(|t| t.within.is_some_and(|w| dist <= w))
            .unwrap_or(tiers.len().saturating_sub(1)) as u8
    }

    /// How many sends apart tier `tier`'s changes go out (1 without tiers).
    pub fn every(&self, tier: u8) -> u32 {
        self.as_slice()
            .get(usize::from(tier))
            .map_or(1, |t| t.every)
    }
}

/// How often a subscriber is sent frames, and which of its changes each send carries.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pacing {
    /// At most this many frames a second (1 to the room's tick rate); `None`: one per
    /// tick that changed something in scope.
    pub send_hz: Option<u32>,
    /// Distance tiers; empty: every change on every send.
    pub tiers: Tiers,
}

impl Pacing {
    /// A frame per tick, every change in it.
    pub const EVERY_TICK: Pacing = Pacing {
        send_hz: None,
        tiers: Tiers::NONE,
    };

    /// True when this subscriber's changes are held between sends.
    pub fn is_paced(&self) -> bool {
        self.send_hz.is_some() || !self.tiers.is_empty()
    }
}

/// Why a subscription's scope was refused; each names the field at fault.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ScopeError {
    /// More than one of the three shapes.
    #[error("at most one of region, follow and frustum may be given")]
    TwoShapes,
    /// `follow.radius` is negative or not finite.
    #[error("follow.radius must be finite and at least 0, not {0}")]
    Radius(f32),
    /// `follow.margin` is negative or not finite.
    #[error("follow.margin must be finite and at least 0, not {0}")]
    Margin(f32),
    /// A frustum plane has a non-finite number or a zero normal.
    #[error("frustum[{0}] must be four finite numbers with a non-zero normal")]
    Plane(usize),
    /// `send_hz` is outside 1 to the room's tick rate.
    #[error("send_hz must be between 1 and the room's tick rate {tick_hz}, not {send_hz}")]
    SendHz {
        /// What was asked for.
        send_hz: u32,
        /// The room's tick rate.
        tick_hz: u32,
    },
    /// More tiers than [`MAX_TIERS`].
    #[error("tiers may have at most {MAX_TIERS} entries, not {0}")]
    TooManyTiers(usize),
    /// A tier's `every` is 0.
    #[error("tiers[{0}].every must be at least 1")]
    TierEvery(usize),
    /// A tier's `within` is not finite, negative, or not above the previous tier's.
    #[error("tiers[{0}].within must be finite, at least 0 and above the previous tier's")]
    TierWithin(usize),
    /// A tier other than the last has no `within`.
    #[error("tiers[{0}] needs within: only the last tier is open")]
    TierOpenBeforeLast(usize),
    /// The last tier has a `within`.
    #[error("tiers[{0}] is the last tier and must have no within")]
    LastTierBounded(usize),
    /// Tiers on a scope without a centre (the whole room or a frustum).
    #[error("tiers need a centre: give follow or region")]
    TiersWithoutCentre,
}

impl From<ScopeError> for Refusal {
    fn from(e: ScopeError) -> Self {
        let code = match e {
            ScopeError::TwoShapes | ScopeError::TiersWithoutCentre => ErrorCode::BadRequest,
            _ => ErrorCode::InvalidValue,
        };
        Refusal::new(code, e.to_string())
    }
}

/// The error a subscriber gets when the node its scope follows is gone.
pub fn lost_follow(node: NodeId) -> Refusal {
    Refusal::new(
        ErrorCode::UnknownNode,
        format!("node {node}, which this subscription follows, does not exist"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tier(within: Option<f32>, every: u32) -> Tier {
        Tier { within, every }
    }

    #[test]
    fn tiers_are_checked_field_by_field() {
        let ok = Tiers::new(&[tier(Some(5.0), 1), tier(Some(10.0), 3), tier(None, 10)]).unwrap();
        assert_eq!(
            (ok.tier_of(0.0), ok.tier_of(5.0), ok.tier_of(7.0)),
            (0, 0, 1)
        );
        assert_eq!((ok.tier_of(11.0), ok.every(2), ok.every(9)), (2, 10, 1));
        let bad = |t: &[Tier]| Tiers::new(t).unwrap_err();
        assert_eq!(
            bad(&[tier(Some(1.0), 0), tier(None, 1)]),
            ScopeError::TierEvery(0)
        );
        assert_eq!(
            bad(&[tier(None, 1), tier(None, 1)]),
            ScopeError::TierOpenBeforeLast(0)
        );
        assert_eq!(bad(&[tier(Some(2.0), 1)]), ScopeError::LastTierBounded(0));
        assert_eq!(
            bad(&[tier(Some(2.0), 1), tier(Some(2.0), 1), tier(None, 1)]),
            ScopeError::TierWithin(1)
        );
        assert_eq!(
            bad(&[tier(Some(f32::NAN), 1), tier(None, 1)]),
            ScopeError::TierWithin(0)
        );
        assert_eq!(bad(&[tier(None, 1); 9]), ScopeError::TooManyTiers(9));
        assert!(Tiers::new(&[]).unwrap().is_empty());
    }
}
