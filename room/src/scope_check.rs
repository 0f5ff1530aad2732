//! [`Scope::check`]: a whole subscription scope against the contract's ranges, failing
//! with the [`ScopeError`] that names the first bad field; a scope that passed has at
//! most one of `region`, `follow` and `frustum`, and tiers only with a centre.

use crate::interest::ScopeError;
use crate::scope::Scope;

impl Scope {
    /// Checks the scope against the contract's ranges for a room ticking at `tick_hz`
    /// (see the module doc). The region's own bounds are checked by
    /// `query::check_region`.
    pub fn check(&self, tick_hz: u32) -> Result<(), ScopeError> {
        let shapes = [
            self.region.is_some(),
            self.follow.is_some(),
            self.frustum.is_some(),
        ];
        if shapes.iter().filter(|s| **s).count() > 1 {
            return Err(ScopeError::TwoShapes);
        }
        if let Some(f) = &self.follow {
            if !f.radius.is_finite() || f.radius < 0.0 {
                return Err(ScopeError::Radius(f.radius));
            }
            let m = f.margin_or_default();
            if !m.is_finite() || m < 0.0 {
                return Err(ScopeError::Margin(m));
            }
        }
        if let Some(fr) = &self.frustum
            && let Some(i) = fr
                .0
                .iter()
                .position(|p| !p.iter().all(|x| x.is_finite()) || p[..3].iter().all(|x| *x == 0.0))
        {
            return Err(ScopeError::Plane(i));
        }
        if let Some(hz) = self.pacing.send_hz
            && !(1..=tick_hz).contains(&hz)
        {
            return Err(ScopeError::SendHz {
                send_hz: hz,
                tick_hz,
            });
        }
        if !self.pacing.tiers.is_empty() && self.region.is_none() && self.follow.is_none() {
            return Err(ScopeError::TiersWithoutCentre);
        }
        Ok(())
    }
}
